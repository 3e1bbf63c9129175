/*
 * model/netsite.c - a site's own calibration of the network constants
 * (doc/model.md 2.7): the constants by name and range, the view the
 * collective model prices with, and the fit `lagom calibrate` runs on the
 * cluster's measured classes.  Pure: no I/O; deterministic.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_int.h"
#include "model/size_band.h"
#include "model/netdense.h"

#define SWEEPS 24
#define CONVERGED 1e-9
#define GOLDEN_STEPS 32
#define LOSS_DELTA 0.1
/* The largest left-out error (log) a constant may leave within one size
 * band of two or more classes (select_loco()). */
#define BAND_LOCO_MAX 0.3

static double robust(double e)
{
	const double d = LOSS_DELTA;

	return d * d * (sqrt(1 + e * e / (d * d)) - 1);
}

int lagom_size_band(uint64_t bytes)
{
	return bytes < (1u << 20) ? 0 : bytes < (64u << 20) ? 1 : 2;
}

const char *lagom_size_band_name(int band)
{
	static const char *const names[LAGOM_SIZE_BANDS] = { "< 1 MiB",
							     "1-64 MiB",
							     ">= 64 MiB" };

	return band >= 0 && band < LAGOM_SIZE_BANDS ? names[band] : NULL;
}

static const char *const param_names[LAGOM_NP_COUNT] = {
	"eff", "step_us", "mn_step_us", "fill", "ch_net_Bps", "tree2_eff",
};

static const double param_lo[LAGOM_NP_COUNT] = { 0.3, 0, 0, 0, 4e9, 0.5 };
static const double param_hi[LAGOM_NP_COUNT] = { 1.0, 200, 20, 8, 50e9, 1.0 };

int lagom_net_band(unsigned nodes)
{
	if (nodes < 2)
		return -1;
	if (nodes == 2)
		return 0;
	return nodes <= 8 ? 1 : 2;
}

const char *lagom_net_band_name(int band)
{
	static const char *const names[LAGOM_NET_BANDS] = { "2", "3-8", "9+" };

	return band >= 0 && band < LAGOM_NET_BANDS ? names[band] : NULL;
}

const char *lagom_net_param_name(enum lagom_net_param p)
{
	return (unsigned)p < LAGOM_NP_COUNT ? param_names[p] : NULL;
}

int lagom_net_param_parse(const char *name, enum lagom_net_param *out)
{
	for (int p = 0; p < LAGOM_NP_COUNT; p++)
		if (name && strcmp(name, param_names[p]) == 0) {
			*out = (enum lagom_net_param)p;
			return 0;
		}
	return -EINVAL;
}

void lagom_net_param_range(enum lagom_net_param p, double *lo, double *hi)
{
	*lo = (unsigned)p < LAGOM_NP_COUNT ? param_lo[p] : 0;
	*hi = (unsigned)p < LAGOM_NP_COUNT ? param_hi[p] : 0;
}

static double base_value(const struct lagom_netcal *c, int p, int t)
{
	if ((unsigned)t >= LAGOM_NET_COUNT)
		t = LAGOM_NET_DEFAULT;
	switch (p) {
	case LAGOM_NP_EFF:
		return c->eff[t];
	case LAGOM_NP_STEP_US:
		return c->step_us[t];
	case LAGOM_NP_MN_STEP_US:
		return c->mn_step_us;
	case LAGOM_NP_FILL:
		return c->net_fill;
	case LAGOM_NP_CH_NET:
		return c->ch_net_Bps;
	case LAGOM_NP_TREE2:
		return c->tree2_eff;
	default:
		return 0;
	}
}

double lagom_net_param_builtin(enum lagom_net_param p, enum lagom_transport t)
{
	return base_value(&lagom_netcal_fitted, p, t);
}

int lagom_net_site_check(const struct lagom_net_site *site,
			 struct lagom_error *err)
{
	for (int b = 0; b < LAGOM_NET_BANDS; b++)
		for (int p = 0; p < LAGOM_NP_COUNT; p++) {
			double v = site->value[b][p];
			if (!site->set[b][p])
				continue;
			if (!isfinite(v) || v < param_lo[p] || v > param_hi[p])
				return lagom_errprintf(
					err, EINVAL,
					"calibrated %s of band %s out of "
					"range [%g, %g]",
					param_names[p], lagom_net_band_name(b),
					param_lo[p], param_hi[p]);
		}
	for (int b = 0; b < LAGOM_NET_BANDS; b++)
		for (int a = 0; a < LAGOM_NET_DENSE_ALGOS; a++)
			if (lagom_dense_check(&site->dense[b][a], err))
				return lagom_error_prefix(
					err, "band %s %s",
					lagom_net_band_name(b),
					lagom_dense_algo_name(a));
	return 0;
}

const struct lagom_netcal *lagom_netcal_site(const struct lagom_hw *hw,
					     unsigned nodes,
					     const struct lagom_netcal *cal,
					     struct lagom_netcal *buf)
{
	int b = lagom_net_band(nodes);
	enum lagom_transport t = lagom_hw_transport(hw);
	const bool *set;
	const double *v;

	if (b < 0)
		return cal;
	set = hw->net_site.set[b];
	v = hw->net_site.value[b];
	if (!memchr(set, true, LAGOM_NP_COUNT * sizeof(bool)))
		return cal;
	*buf = *cal;
	if (set[LAGOM_NP_EFF])
		buf->eff[t] = v[LAGOM_NP_EFF];
	if (set[LAGOM_NP_STEP_US])
		buf->step_us[t] = v[LAGOM_NP_STEP_US];
	if (set[LAGOM_NP_MN_STEP_US])
		buf->mn_step_us = v[LAGOM_NP_MN_STEP_US];
	if (set[LAGOM_NP_FILL])
		buf->net_fill = v[LAGOM_NP_FILL];
	if (set[LAGOM_NP_CH_NET])
		buf->ch_net_Bps = v[LAGOM_NP_CH_NET];
	if (set[LAGOM_NP_TREE2])
		buf->tree2_eff = v[LAGOM_NP_TREE2];
	return buf;
}

void lagom_hw_apply_calib(struct lagom_hw *hw,
			  const struct lagom_net_calib *calib)
{
	if (calib)
		hw->net_site = calib->t[lagom_hw_transport(hw)];
	else
		memset(&hw->net_site, 0, sizeof(hw->net_site));
}

double lagom_net_meas_predict_s(const struct lagom_net_meas *m,
				const struct lagom_net_calib *calib)
{
	return lagom_net_meas_predict_base_s(m, calib, &lagom_netcal_fitted);
}

double lagom_net_meas_predict_base_s(const struct lagom_net_meas *m,
				     const struct lagom_net_calib *calib,
				     const struct lagom_netcal *base)
{
	struct lagom_hw hw = m->hw;

	lagom_hw_apply_calib(&hw, calib);
	return lagom_coll_time_cal_s(&hw, &m->comm, m->coll, m->bytes, &m->cfg,
				     base);
}

/* One transport and band: its classes and the site values tried. */
struct group {
	const struct lagom_netcal *base;
	const struct lagom_net_meas *m;
	const size_t *idx;
	size_t n;
	int t, b;
	struct lagom_net_site site;
};

static double log_err(const struct group *g, size_t k)
{
	const struct lagom_net_meas *m = &g->m[g->idx[k]];
	struct lagom_hw hw = m->hw;

	hw.net_site = g->site;
	return log(lagom_coll_time_cal_s(&hw, &m->comm, m->coll, m->bytes,
					 &m->cfg, g->base) /
		   m->time_s);
}

static double loss(const struct group *g)
{
	const double d = LOSS_DELTA;
	double sum = 0;

	for (size_t k = 0; k < g->n; k++) {
		double e = log_err(g, k);
		sum += d * d * (sqrt(1 + e * e / (d * d)) - 1);
	}
	return sum / (double)g->n;
}

static double *val(struct group *g, int p)
{
	return &g->site.value[g->b][p];
}

struct val_at_ctx {
	struct group *g;
	int p;
};

static double loss_at(void *ctx, double v)
{
	struct val_at_ctx *x = ctx;

	*val(x->g, x->p) = v;
	return loss(x->g);
}

/* One constant by golden-section search in its range. */
static void line_search(struct group *g, int p)
{
	struct val_at_ctx x = { g, p };

	*val(g, p) = lagom_golden_search(loss_at, &x, param_lo[p], param_hi[p],
					 *val(g, p), GOLDEN_STEPS);
}

/* Sensitivity of every class to constant p: the change of log(time)
 * from one end of p's range to the other, per tenth of the range (a
 * secant, not a derivative at the built-in value: the model's max() of
 * the intra-node and network times makes a constant invisible on one
 * side of a kink and decisive on the other). */
static void column(struct group *g, int p, double *col)
{
	double b = *val(g, p);

	g->site.set[g->b][p] = true;
	*val(g, p) = param_lo[p];
	for (size_t k = 0; k < g->n; k++)
		col[k] = log_err(g, k);
	*val(g, p) = param_hi[p];
	for (size_t k = 0; k < g->n; k++)
		col[k] = (log_err(g, k) - col[k]) / 10;
	*val(g, p) = b;
	g->site.set[g->b][p] = false;
}

static double norm(const double *x, size_t n)
{
	double s = 0;

	for (size_t k = 0; k < n; k++)
		s += x[k] * x[k];
	return sqrt(s);
}

/*
 * Which constants the classes determine: the sensitivities, largest
 * first, each kept when it moves the classes by at least MIN_SENS (rms)
 * and at least MIN_INDEP of it is orthogonal to the ones kept before
 * (Gram-Schmidt), never more than the classes.  take[p] says.
 */
static int choose(struct group *g, bool take[LAGOM_NP_COUNT],
		  int order[LAGOM_NP_COUNT], struct lagom_net_site_report *rep)
{
	double *cols = calloc(LAGOM_NP_COUNT * g->n, sizeof(double));
	double *basis = calloc(LAGOM_NP_COUNT * g->n, sizeof(double));
	double sens[LAGOM_NP_COUNT];
	int nb = 0;

	if (!cols || !basis) {
		free(cols);
		free(basis);
		return -ENOMEM;
	}
	for (int p = 0; p < LAGOM_NP_COUNT; p++) {
		take[p] = false;
		order[p] = p;
		column(g, p, &cols[p * g->n]);
		sens[p] = norm(&cols[p * g->n], g->n) / sqrt((double)g->n);
		if (p == LAGOM_NP_TREE2 && g->b != 0)
			sens[p] = 0; /* the 2-node tree only */
	}
	for (int i = 1; i < LAGOM_NP_COUNT; i++) /* stable: sens descending */
		for (int j = i; j > 0 && sens[order[j]] > sens[order[j - 1]];
		     j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < LAGOM_NP_COUNT; i++) {
		int p = order[i];
		double *c = &cols[p * g->n], n0 = norm(c, g->n), indep = 0;

		for (int q = 0; q < nb && n0 > 0; q++) {
			double *e = &basis[q * g->n], dot = 0;
			for (size_t k = 0; k < g->n; k++)
				dot += c[k] * e[k];
			for (size_t k = 0; k < g->n; k++)
				c[k] -= dot * e[k];
		}
		if (n0 > 0)
			indep = norm(c, g->n) / n0;
		if (rep) {
			rep->sensitivity[g->t][g->b][p] = sens[p];
			rep->independence[g->t][g->b][p] = indep;
		}
		if (sens[p] < LAGOM_NET_SITE_MIN_SENS ||
		    indep < LAGOM_NET_SITE_MIN_INDEP || (size_t)nb + 1 >= g->n)
			continue;
		for (size_t k = 0; k < g->n; k++)
			basis[nb * g->n + k] = c[k] / (indep * n0);
		nb++;
		take[p] = true;
	}
	free(cols);
	free(basis);
	return 0;
}

static double median_abs_err(struct group *g)
{
	double *e = malloc(g->n * sizeof(double)), med;

	if (!e)
		return NAN;
	for (size_t k = 0; k < g->n; k++)
		e[k] = fabs(exp(-log_err(g, k)) - 1); /* busbw error */
	for (size_t i = 1; i < g->n; i++)
		for (size_t j = i; j > 0 && e[j] < e[j - 1]; j--) {
			double t = e[j];
			e[j] = e[j - 1];
			e[j - 1] = t;
		}
	med = g->n % 2 ? e[g->n / 2] : (e[g->n / 2 - 1] + e[g->n / 2]) / 2;
	free(e);
	return med;
}

/* Fit the constants take[] says from the base values over g's classes
 * (the others unset). */
static void descend(struct group *g, const bool take[LAGOM_NP_COUNT])
{
	for (int p = 0; p < LAGOM_NP_COUNT; p++) {
		*val(g, p) = base_value(g->base, p, g->t);
		g->site.set[g->b][p] = take[p];
	}
	for (int s = 0, done = 0; s < SWEEPS && !done; s++) {
		double before = loss(g);
		for (int p = 0; p < LAGOM_NP_COUNT; p++)
			if (take[p])
				line_search(g, p);
		done = before - loss(g) <= CONVERGED * before;
	}
}

/*
 * Leave one class out: the mean robust loss of each class predicted by
 * the fit of take[] on the others.  band_ok: false when size band band
 * (message size: < 1 MiB, 1-64 MiB, >= 64 MiB; -1 none) holds two or
 * more classes and their mean left-out loss is above the loss of a
 * BAND_LOCO_MAX log error: the classes of the protocol regime that
 * determines the constant disagree on it (the model's shape does not
 * hold across them), so it would be extrapolated to the sizes not seen.
 */
static double loco(const struct group *g, const bool take[LAGOM_NP_COUNT],
		   size_t *scratch, int band, bool *band_ok)
{
	struct group h = *g;
	double sum = 0, bsum[LAGOM_SIZE_BANDS] = { 0 };
	unsigned bn[LAGOM_SIZE_BANDS] = { 0 };

	h.idx = scratch;
	h.n = g->n - 1;
	for (size_t k = 0; k < g->n; k++) {
		struct group one;
		double l;
		int sb = lagom_size_band(g->m[g->idx[k]].bytes);
		for (size_t i = 0, j = 0; i < g->n; i++)
			if (i != k)
				scratch[j++] = g->idx[i];
		descend(&h, take);
		one = h;
		one.idx = &g->idx[k];
		one.n = 1;
		l = robust(log_err(&one, 0));
		sum += l;
		bsum[sb] += l;
		bn[sb]++;
	}
	*band_ok = band < 0 || bn[band] < 2 ||
		   bsum[band] / bn[band] <= robust(BAND_LOCO_MAX);
	return sum / (double)g->n;
}

/* The size band whose classes move most with constant p (the largest
 * sum of squared sensitivities, column()), or -1. */
static int determining_band(struct group *g, int p)
{
	double *col = malloc(g->n * sizeof(double)),
	       sq[LAGOM_SIZE_BANDS] = { 0 };
	int best = -1;

	if (!col)
		return -1;
	column(g, p, col);
	for (size_t k = 0; k < g->n; k++)
		sq[lagom_size_band(g->m[g->idx[k]].bytes)] += col[k] * col[k];
	for (int b = 0; b < LAGOM_SIZE_BANDS; b++)
		if (sq[b] > 0 && (best < 0 || sq[b] > sq[best]))
			best = b;
	free(col);
	return best;
}

/*
 * Forward selection by leave-one-class-out: the determined constants
 * (choose(), most sensitive first) are taken one at a time, each only
 * when it cuts the left-out loss by at least LAGOM_NET_SITE_MIN_GAIN
 * (a constant that fits the classes seen but predicts the others no
 * better is noise) and, in the size band that determines it most
 * (determining_band()), predicts each class left out within
 * BAND_LOCO_MAX (loco()).  det[] in: determined;
 * out: taken.
 */
static int select_loco(struct group *g, bool det[LAGOM_NP_COUNT],
		       const int order[LAGOM_NP_COUNT],
		       bool gain[LAGOM_NP_COUNT])
{
	bool take[LAGOM_NP_COUNT] = { false }, band_ok;
	size_t *scratch = malloc(g->n * sizeof(*scratch));
	double cur;

	if (!scratch)
		return -ENOMEM;
	cur = g->n > 1 ? loco(g, take, scratch, -1, &band_ok) : 0;
	for (int i = 0; i < LAGOM_NP_COUNT && g->n > 1; i++) {
		int p = order[i];
		double l;
		if (!det[p])
			continue;
		take[p] = true;
		l = loco(g, take, scratch, determining_band(g, p), &band_ok);
		gain[p] = band_ok && l < cur * (1 - LAGOM_NET_SITE_MIN_GAIN);
		if (gain[p])
			cur = l;
		else
			take[p] = false;
	}
	free(scratch);
	memcpy(det, take, sizeof(take));
	return 0;
}

static int fit_group(struct group *g, struct lagom_net_site_report *rep)
{
	bool take[LAGOM_NP_COUNT], det[LAGOM_NP_COUNT];
	bool gain[LAGOM_NP_COUNT] = { false };
	int order[LAGOM_NP_COUNT];
	int rc;

	for (int p = 0; p < LAGOM_NP_COUNT; p++)
		*val(g, p) = base_value(g->base, p, g->t);
	if (rep)
		rep->err_builtin[g->t][g->b] = median_abs_err(g);
	rc = choose(g, det, order, rep);
	memcpy(take, det, sizeof(take));
	if (rc == 0)
		rc = select_loco(g, take, order, gain);
	if (rc)
		return rc;
	descend(g, take);
	for (int p = 0; p < LAGOM_NP_COUNT; p++) {
		double v = *val(g, p), span = param_hi[p] - param_lo[p];
		bool edge = v - param_lo[p] < 1e-4 * span ||
			    param_hi[p] - v < 1e-4 * span;
		if (!take[p])
			*val(g, p) = 0;
		if (rep)
			rep->verdict[g->t][g->b][p] =
				!det[p]	   ? LAGOM_NV_UNDETERMINED
				: !take[p] ? LAGOM_NV_NO_GAIN
				: edge	   ? LAGOM_NV_AT_BOUND
					   : LAGOM_NV_FITTED;
	}
	if (rep)
		rep->err_fitted[g->t][g->b] = median_abs_err(g);
	return 0;
}

static int check_meas(const struct lagom_net_meas *m, size_t n,
		      struct lagom_error *err)
{
	if (!m || n == 0 || n > LAGOM_NET_SITE_MAX_MEAS)
		return lagom_errprintf(err, EINVAL,
				       "need 1..%d measured classes, got %zu",
				       LAGOM_NET_SITE_MAX_MEAS, n);
	for (size_t i = 0; i < n; i++) {
		struct lagom_hw hw = m[i].hw;
		int rc;

		if (!(m[i].time_s > 0) || !isfinite(m[i].time_s))
			return lagom_errprintf(err, EINVAL,
					       "class %zu: time must be finite "
					       "and > 0",
					       i);
		memset(&hw.net_site, 0, sizeof(hw.net_site));
		rc = lagom_coll_predict(&hw, &m[i].comm, m[i].coll, m[i].bytes,
					&m[i].cfg,
					&(struct lagom_coll_time){ 0 }, err);
		if (rc)
			return lagom_error_prefix(err, "class %zu", i);
	}
	return 0;
}

int lagom_net_site_fit(const struct lagom_net_meas *m, size_t n,
		       struct lagom_net_calib *out,
		       struct lagom_net_site_report *rep,
		       struct lagom_error *err)
{
	return lagom_net_site_fit_base(m, n, &lagom_netcal_fitted, out, rep,
				       err);
}

int lagom_net_site_fit_base(const struct lagom_net_meas *m, size_t n,
			    const struct lagom_netcal *base,
			    struct lagom_net_calib *out,
			    struct lagom_net_site_report *rep,
			    struct lagom_error *err)
{
	struct lagom_net_calib c;
	size_t *idx;
	int rc = check_meas(m, n, err);

	if (rc)
		return rc;
	idx = malloc(n * sizeof(*idx));
	if (!idx)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	memset(&c, 0, sizeof(c));
	if (rep)
		memset(rep, 0, sizeof(*rep));
	for (int t = LAGOM_NET_IB; t < LAGOM_NET_COUNT && rc == 0; t++)
		for (int b = 0; b < LAGOM_NET_BANDS && rc == 0; b++) {
			struct group g = {
				.base = base, .m = m, .idx = idx, .t = t, .b = b
			};
			for (size_t i = 0; i < n; i++)
				if (lagom_hw_transport(&m[i].hw) ==
					    (enum lagom_transport)t &&
				    lagom_net_band(lagom_domain_nodes(
					    &m[i].hw, &m[i].comm)) == b)
					idx[g.n++] = i;
			if (rep)
				rep->rows[t][b] = g.n;
			if (g.n == 0)
				continue;
			rc = fit_group(&g, rep);
			for (int p = 0; p < LAGOM_NP_COUNT; p++) {
				c.t[t].set[b][p] = g.site.set[b][p];
				c.t[t].value[b][p] = g.site.value[b][p];
			}
		}
	free(idx);
	if (rc)
		return lagom_errprintf(err, -rc, "out of memory");
	*out = c;
	return 0;
}
