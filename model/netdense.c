/*
 * model/netdense.c - the dense calibration form and its fit
 * (model/netdense.h says the form and why).  Pure: no I/O.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/netdense.h"
#include "model/netcal_int.h"

static const char *const param_names[LAGOM_DP_COUNT] = {
	"busbw_Bps",	 "step_simple_us", "step_ll128_us", "step_ll_us",
	"lat_simple_us", "lat_ll128_us",   "lat_ll_us",
};

const char *lagom_dense_param_name(enum lagom_dense_param p)
{
	return (unsigned)p < LAGOM_DP_COUNT ? param_names[p] : "?";
}

const char *lagom_dense_verdict_text(enum lagom_dense_verdict v)
{
	switch (v) {
	case LAGOM_DV_FITTED:
		return "fitted";
	case LAGOM_DV_UNDETERMINED:
		return "refused: the data do not determine it (a combination "
		       "of the constants before it)";
	case LAGOM_DV_NEGATIVE:
		return "refused: fitted below zero (the form does not hold "
		       "on these classes)";
	default:
		return "no data (no class of its protocol)";
	}
}

/* NCCL's default buffer per protocol over its 8 steps, bytes. */
static double chunk_bytes(enum lagom_proto p)
{
	switch (p) {
	case LAGOM_PROTO_LL:
		return 16.0 * 1024;
	case LAGOM_PROTO_LL128:
		return 480.0 * 1024;
	default:
		return 512.0 * 1024;
	}
}

static double ceil_log2(unsigned n)
{
	double l = 0;

	while ((1u << (unsigned)l) < n && l < 31)
		l++;
	return l;
}

double lagom_dense_steps(const struct lagom_dense_meas *m)
{
	double N = m->ranks, n = m->nodes;

	switch (m->algo) {
	case LAGOM_ALGO_RING:
		return m->coll == LAGOM_COLL_ALLREDUCE ? 2 * (N - 1) : N - 1;
	case LAGOM_ALGO_TREE:
		return 2 * (N / n - 1 + ceil_log2(m->nodes));
	default:
		return 2 * ceil_log2(m->nodes) + 2;
	}
}

double lagom_dense_loops(const struct lagom_dense_meas *m)
{
	double per = (double)m->nchannels * m->ranks * chunk_bytes(m->proto);

	return fmax(1, ceil((double)m->bytes / per));
}

static double bus_factor(const struct lagom_dense_meas *m)
{
	double N = m->ranks;

	switch (m->coll) {
	case LAGOM_COLL_ALLREDUCE:
		return 2 * (N - 1) / N;
	case LAGOM_COLL_ALLGATHER:
	case LAGOM_COLL_REDUCESCATTER:
	case LAGOM_COLL_ALLTOALL:
		return (N - 1) / N;
	default:
		return 1;
	}
}

static int proto_index(enum lagom_proto p)
{
	return p == LAGOM_PROTO_LL ? 2 : p == LAGOM_PROTO_LL128 ? 1 : 0;
}

/* The form's columns for m (x[LAGOM_DP_COUNT]): each constant's
 * coefficient. */
static void columns(const struct lagom_dense_meas *m, double *x)
{
	int pi = proto_index(m->proto);

	memset(x, 0, LAGOM_DP_COUNT * sizeof(*x));
	x[LAGOM_DP_INV_BUSBW] = (double)m->bytes * bus_factor(m);
	x[LAGOM_DP_STEP_SIMPLE + pi] = lagom_dense_steps(m) *
				       lagom_dense_loops(m);
	x[LAGOM_DP_LAT_SIMPLE + pi] = 1;
}

/* Internal units: busbw as seconds per byte, the others seconds; the
 * public values: busbw in bytes/s, the others in us. */
static double to_public(int p, double v)
{
	return p == LAGOM_DP_INV_BUSBW ? 1 / v : v * 1e6;
}

static double to_internal(int p, double v)
{
	return p == LAGOM_DP_INV_BUSBW ? 1 / v : v * 1e-6;
}

double lagom_dense_predict_s(const struct lagom_dense_meas *m,
			     const struct lagom_dense_fit *f)
{
	double x[LAGOM_DP_COUNT], t = 0;

	columns(m, x);
	for (int p = 0; p < LAGOM_DP_COUNT; p++)
		if (f->set[p])
			t += x[p] * to_internal(p, f->value[p]);
	return t;
}

/*
 * Least squares of a (n x LAGOM_DP_COUNT, column-major, each row already
 * divided by its time) against 1 over the columns use[] allows: modified
 * Gram-Schmidt in column order; a column with less than
 * LAGOM_DENSE_MIN_INDEP of its norm left is marked undetermined.  c: the
 * coefficients (0 for the others).
 */
static void solve(const double *a, size_t n, const bool *use,
		  enum lagom_dense_verdict *v, double *c, double *q)
{
	double r[LAGOM_DP_COUNT][LAGOM_DP_COUNT] = { { 0 } },
	       qy[LAGOM_DP_COUNT];
	int kept[LAGOM_DP_COUNT], nk = 0;

	for (int j = 0; j < LAGOM_DP_COUNT; j++) {
		double *qj = q + (size_t)nk * n, norm0 = 0, norm = 0;

		c[j] = 0;
		if (!use[j])
			continue;
		for (size_t i = 0; i < n; i++) {
			qj[i] = a[(size_t)j * n + i];
			norm0 += qj[i] * qj[i];
		}
		if (norm0 == 0) {
			v[j] = LAGOM_DV_NO_DATA;
			continue;
		}
		for (int k = 0; k < nk; k++) {
			const double *qk = q + (size_t)k * n;
			double d = 0;
			for (size_t i = 0; i < n; i++)
				d += qk[i] * qj[i];
			r[k][nk] = d;
			for (size_t i = 0; i < n; i++)
				qj[i] -= d * qk[i];
		}
		for (size_t i = 0; i < n; i++)
			norm += qj[i] * qj[i];
		if (sqrt(norm / norm0) < LAGOM_DENSE_MIN_INDEP) {
			v[j] = LAGOM_DV_UNDETERMINED;
			continue;
		}
		norm = sqrt(norm);
		for (size_t i = 0; i < n; i++)
			qj[i] /= norm;
		r[nk][nk] = norm;
		kept[nk++] = j;
		v[j] = LAGOM_DV_FITTED;
	}
	for (int k = 0; k < nk; k++) {
		const double *qk = q + (size_t)k * n;
		qy[k] = 0;
		for (size_t i = 0; i < n; i++)
			qy[k] += qk[i];
	}
	for (int k = nk - 1; k >= 0; k--) {
		double s = qy[k];
		for (int l = k + 1; l < nk; l++)
			s -= r[k][l] * c[kept[l]];
		c[kept[k]] = s / r[k][k];
	}
}

int lagom_dense_fit(const struct lagom_dense_meas *m, size_t n,
		    struct lagom_dense_fit *out, struct lagom_error *err)
{
	struct lagom_dense_fit f = { 0 };
	bool use[LAGOM_DP_COUNT];
	double c[LAGOM_DP_COUNT], *a, *q;
	unsigned seen[64];
	size_t nseen = 0;

	if (n == 0 || n > LAGOM_DENSE_MAX_MEAS)
		return lagom_errprintf(err, EINVAL,
				       "%zu classes: 1 to %d can be fitted", n,
				       LAGOM_DENSE_MAX_MEAS);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(m[i].time_s) || m[i].time_s <= 0 ||
		    m[i].nodes == 0 || m[i].ranks % m[i].nodes ||
		    m[i].nchannels == 0 || m[i].bytes == 0)
			return lagom_errprintf(err, EINVAL,
					       "class %zu: a time, nodes, "
					       "ranks, channels or bytes the "
					       "form cannot take",
					       i);
	a = malloc(n * LAGOM_DP_COUNT * sizeof(*a));
	q = malloc(n * LAGOM_DP_COUNT * sizeof(*q));
	if (!a || !q) {
		free(a);
		free(q);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		double x[LAGOM_DP_COUNT];
		bool dup = false;

		columns(&m[i], x);
		for (int p = 0; p < LAGOM_DP_COUNT; p++)
			a[(size_t)p * n + i] = x[p] / m[i].time_s;
		for (size_t k = 0; k < nseen; k++)
			dup = dup || seen[k] == m[i].nodes;
		if (!dup && nseen < 64)
			seen[nseen++] = m[i].nodes;
	}
	for (int p = 0; p < LAGOM_DP_COUNT; p++)
		use[p] = true;
	/* a constant fitted below zero is refused, the rest fitted again */
	for (int round = 0; round < LAGOM_DP_COUNT; round++) {
		bool again = false;

		solve(a, n, use, f.verdict, c, q);
		for (int p = 0; p < LAGOM_DP_COUNT; p++)
			if (use[p] && f.verdict[p] == LAGOM_DV_FITTED &&
			    !(c[p] > 0)) {
				use[p] = false;
				f.verdict[p] = LAGOM_DV_NEGATIVE;
				again = true;
				break;
			}
		if (!again)
			break;
	}
	for (int p = 0; p < LAGOM_DP_COUNT; p++) {
		if (!use[p] && f.verdict[p] != LAGOM_DV_NEGATIVE)
			continue;
		f.set[p] = use[p] && f.verdict[p] == LAGOM_DV_FITTED;
		f.value[p] = f.set[p] ? to_public(p, c[p]) : 0;
	}
	f.n = n;
	f.node_counts = (unsigned)nseen;
	free(a);
	free(q);
	*out = f;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The dense fit in a site calibration.                                */
/* ------------------------------------------------------------------ */

_Static_assert(LAGOM_NET_DENSE_PARAMS == LAGOM_DP_COUNT,
	       "model.h's dense entry holds every dense constant");

/* Leave-one-class-out over at most this many classes of a group (every
 * k-th of a larger one, deterministic). */
#define LOO_MAX 256

const char *lagom_dense_site_why_text(enum lagom_dense_site_why w)
{
	switch (w) {
	case LAGOM_DS_WRITTEN:
		return "dense enough: written";
	case LAGOM_DS_FEW_CLASSES:
		return "not dense enough: fewer classes than 8";
	case LAGOM_DS_NO_BUSBW:
		return "not dense enough: the bus bandwidth is refused";
	case LAGOM_DS_NO_PROTO:
		return "not dense enough: no protocol with a term of its own "
		       "and 3 sizes or more";
	case LAGOM_DS_LOO:
		return "refused: its leave-one-class-out error is over 15 %";
	default:
		return "no data";
	}
}

const char *lagom_dense_algo_name(int a)
{
	return a == LAGOM_NET_DENSE_RING   ? "ring"
	       : a == LAGOM_NET_DENSE_TREE ? "tree"
					   : NULL;
}

int lagom_dense_algo_of(enum lagom_algo algo)
{
	return algo == LAGOM_ALGO_RING	 ? LAGOM_NET_DENSE_RING
	       : algo == LAGOM_ALGO_TREE ? LAGOM_NET_DENSE_TREE
					 : -1;
}

static double entry_predict_s(const struct lagom_net_dense *d,
			      const struct lagom_dense_meas *m)
{
	double x[LAGOM_DP_COUNT], t = 0;

	columns(m, x);
	for (int p = 0; p < LAGOM_DP_COUNT; p++)
		if (d->set[p])
			t += x[p] * to_internal(p, d->value[p]);
	return t;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Distinct sizes of protocol pi among d[0..k) and their range. */
static size_t proto_sizes(const struct lagom_dense_meas *d, size_t k, int pi,
			  uint64_t *lo, uint64_t *hi)
{
	size_t distinct = 0;

	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < k; i++) {
		bool seen = false;
		if (proto_index(d[i].proto) != pi)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = proto_index(d[j].proto) == pi &&
			       d[j].bytes == d[i].bytes;
		distinct += !seen;
		if (d[i].bytes < *lo)
			*lo = d[i].bytes;
		if (d[i].bytes > *hi)
			*hi = d[i].bytes;
	}
	return distinct;
}

/* Each class's leave-one-class-out error into e[i] (NAN for a class not
 * left out: every step-th of a group larger than LOO_MAX is); a class
 * whose fit without it fails counts as 100 %.  rest: scratch of k. */
static void loo_errors(const struct lagom_dense_meas *d, size_t k,
		       struct lagom_dense_meas *rest, double *e)
{
	size_t step = k > LOO_MAX ? (k + LOO_MAX - 1) / LOO_MAX : 1;

	for (size_t i = 0; i < k; i++) {
		struct lagom_dense_fit f;
		struct lagom_error err = { 0 };
		size_t r = 0;
		double t;

		e[i] = NAN;
		if (i % step)
			continue;
		for (size_t j = 0; j < k; j++)
			if (j != i)
				rest[r++] = d[j];
		t = r && lagom_dense_fit(rest, r, &f, &err) == 0
			    ? lagom_dense_predict_s(&d[i], &f)
			    : 0;
		e[i] = t > 0 ? fabs(d[i].time_s / t - 1) : 1;
	}
}

/* Band b's entry of a group's fit f (classes d[0..k), their bands bd[],
 * their left-out errors e[]): LAGOM_DS_WRITTEN and *out, else why not.
 * v: scratch of k. */
static enum lagom_dense_site_why band_entry(
	const struct lagom_dense_fit *f, const struct lagom_dense_meas *d,
	const int *bd, const double *e, size_t k, int b,
	struct lagom_dense_meas *v, double *ev, struct lagom_net_dense *out,
	double *loo, size_t *nb)
{
	struct lagom_net_dense x = { .min_channels = UINT32_MAX };
	size_t kb = 0, ne = 0;
	bool any = false;

	*loo = NAN;
	for (size_t i = 0; i < k; i++)
		if (bd[i] == b) {
			v[kb++] = d[i];
			if (!isnan(e[i]))
				ev[ne++] = e[i];
		}
	*nb = kb;
	if (kb == 0)
		return LAGOM_DS_NO_DATA;
	if (kb < LAGOM_DENSE_MIN_CLASSES)
		return LAGOM_DS_FEW_CLASSES;
	if (!f->set[LAGOM_DP_INV_BUSBW])
		return LAGOM_DS_NO_BUSBW;
	for (int p = 0; p < LAGOM_DP_COUNT; p++) {
		x.set[p] = f->set[p];
		x.value[p] = f->set[p] ? f->value[p] : 0;
	}
	/* a protocol whose latency and step cost are both refused has no
	 * term of its own: not covered */
	for (int pi = 0; pi < LAGOM_NET_DENSE_PROTOS; pi++) {
		uint64_t lo, hi;
		if (proto_sizes(v, kb, pi, &lo, &hi) < LAGOM_DENSE_MIN_SIZES ||
		    !(f->set[LAGOM_DP_LAT_SIMPLE + pi] ||
		      f->set[LAGOM_DP_STEP_SIMPLE + pi]))
			continue;
		x.min_bytes[pi] = lo;
		x.max_bytes[pi] = hi;
		any = true;
	}
	if (!any)
		return LAGOM_DS_NO_PROTO;
	for (size_t i = 0; i < kb; i++) {
		if (v[i].nchannels < x.min_channels)
			x.min_channels = v[i].nchannels;
		if (v[i].nchannels > x.max_channels)
			x.max_channels = v[i].nchannels;
	}
	x.ranks_per_node = v[0].ranks / v[0].nodes;
	x.classes = (unsigned)kb;
	*loo = ne ? median_of(ev, ne) : NAN;
	if (!(*loo <= LAGOM_DENSE_MAX_LOO))
		return LAGOM_DS_LOO;
	x.err = *loo;
	*out = x;
	return LAGOM_DS_WRITTEN;
}

/* m as a dense class of the model's view. */
static void dense_of(const struct lagom_net_meas *m, struct lagom_dense_meas *d,
		     int *band)
{
	struct lagom_hw hb;
	struct lagom_comm cb;
	const struct lagom_hw *h;
	const struct lagom_comm *c;

	lagom_domain_view(&m->hw, &m->comm, &hb, &cb, &h, &c);
	*d = (struct lagom_dense_meas){
		.coll = m->coll,
		.algo = m->cfg.algo,
		.proto = m->cfg.proto,
		.bytes = m->bytes,
		.nodes = (unsigned)c->nodes,
		.ranks = (unsigned)c->ranks,
		.nchannels = (unsigned)m->cfg.nchannels,
		.time_s = m->time_s,
	};
	*band = lagom_net_band((unsigned)c->nodes);
}

/* Whether class i can join a fit of transport t and dense algorithm a. */
static bool in_group(const struct lagom_dense_meas *all, const int *band,
		     const struct lagom_net_meas *m, size_t i, int t, int a)
{
	return band[i] >= 0 && (int)lagom_hw_transport(&m[i].hw) == t &&
	       lagom_dense_algo_of(all[i].algo) == a && all[i].nchannels > 0 &&
	       all[i].bytes > 0 && all[i].ranks % all[i].nodes == 0;
}

/* The ranks per node of most classes of one transport and dense
 * algorithm (the larger on a tie); 0 when none. */
static unsigned group_rpn(const struct lagom_dense_meas *all, const int *band,
			  const struct lagom_net_meas *m, size_t n, int t,
			  int a)
{
	unsigned best = 0;
	size_t best_n = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned rpn;
		size_t k = 0;
		if (!in_group(all, band, m, i, t, a))
			continue;
		rpn = all[i].ranks / all[i].nodes;
		if (rpn == best)
			continue;
		for (size_t j = 0; j < n; j++)
			k += in_group(all, band, m, j, t, a) &&
			     all[j].ranks == rpn * all[j].nodes;
		if (k > best_n || (k == best_n && rpn > best)) {
			best = rpn;
			best_n = k;
		}
	}
	return best;
}

struct scratch {
	struct lagom_dense_meas *all, *d, *rest, *v;
	int *band, *bd;
	double *e, *ev;
};

/* One transport and dense algorithm: one fit over every band's classes
 * (the node counts determine the step term), an entry per band. */
static void fit_group(const struct lagom_net_meas *m, size_t n, int t, int a,
		      struct scratch *w, struct lagom_net_calib *calib,
		      struct lagom_dense_site_report *rep)
{
	unsigned rpn = group_rpn(w->all, w->band, m, n, t, a);
	struct lagom_dense_fit f = { 0 };
	struct lagom_error err = { 0 };
	size_t k = 0;
	bool fitted;

	for (size_t i = 0; i < n; i++)
		if (in_group(w->all, w->band, m, i, t, a) &&
		    w->all[i].ranks == rpn * w->all[i].nodes) {
			w->bd[k] = w->band[i];
			w->d[k++] = w->all[i];
		}
	if (k == 0)
		return;
	fitted = k >= LAGOM_DENSE_MIN_CLASSES &&
		 lagom_dense_fit(w->d, k, &f, &err) == 0;
	if (fitted)
		loo_errors(w->d, k, w->rest, w->e);
	for (int b = 0; b < LAGOM_NET_BANDS; b++) {
		enum lagom_dense_site_why why;
		double loo = NAN;
		size_t nb = 0;

		if (fitted)
			why = band_entry(&f, w->d, w->bd, w->e, k, b, w->v,
					 w->ev, &calib->t[t].dense[b][a], &loo,
					 &nb);
		else
			for (size_t i = 0; i < k; i++)
				nb += w->bd[i] == b;
		if (!fitted)
			why = nb ? LAGOM_DS_FEW_CLASSES : LAGOM_DS_NO_DATA;
		if (rep && nb) {
			rep->classes[t][b][a] = nb;
			rep->why[t][b][a] = why;
			rep->loo[t][b][a] = loo;
		}
	}
}

int lagom_dense_site_fit(const struct lagom_net_meas *m, size_t n,
			 struct lagom_net_calib *calib,
			 struct lagom_dense_site_report *rep,
			 struct lagom_error *err)
{
	struct scratch w;
	int rc = 0;

	if (n > LAGOM_NET_SITE_MAX_MEAS)
		return lagom_errprintf(err, EINVAL,
				       "%zu classes: at most %d can be fitted",
				       n, LAGOM_NET_SITE_MAX_MEAS);
	for (int t = 0; t < LAGOM_NET_COUNT; t++)
		memset(calib->t[t].dense, 0, sizeof(calib->t[t].dense));
	if (rep) {
		memset(rep, 0, sizeof(*rep));
		for (int t = 0; t < LAGOM_NET_COUNT; t++)
			for (int b = 0; b < LAGOM_NET_BANDS; b++)
				for (int a = 0; a < LAGOM_NET_DENSE_ALGOS; a++)
					rep->loo[t][b][a] = NAN;
	}
	w.all = malloc((n + 1) * sizeof(*w.all));
	w.d = malloc((n + 1) * sizeof(*w.d));
	w.rest = malloc((n + 1) * sizeof(*w.rest));
	w.v = malloc((n + 1) * sizeof(*w.v));
	w.band = malloc((n + 1) * sizeof(*w.band));
	w.bd = malloc((n + 1) * sizeof(*w.bd));
	w.e = malloc((n + 1) * sizeof(*w.e));
	w.ev = malloc((n + 1) * sizeof(*w.ev));
	if (!w.all || !w.d || !w.rest || !w.v || !w.band || !w.bd || !w.e ||
	    !w.ev) {
		rc = lagom_errprintf(err, ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		dense_of(&m[i], &w.all[i], &w.band[i]);
	for (int t = LAGOM_NET_IB; t < LAGOM_NET_COUNT; t++)
		for (int a = 0; a < LAGOM_NET_DENSE_ALGOS; a++)
			fit_group(m, n, t, a, &w, calib, rep);
out:
	free(w.all), free(w.d), free(w.rest), free(w.v);
	free(w.band), free(w.bd), free(w.e), free(w.ev);
	return rc;
}

int lagom_dense_check(const struct lagom_net_dense *d, struct lagom_error *err)
{
	for (int p = 0; p < LAGOM_DP_COUNT; p++)
		if (d->set[p] && !(isfinite(d->value[p]) && d->value[p] > 0))
			return lagom_errprintf(err, EINVAL,
					       "dense %s: not a positive "
					       "number",
					       param_names[p]);
	for (int pi = 0; pi < LAGOM_NET_DENSE_PROTOS; pi++)
		if (d->min_bytes[pi] > d->max_bytes[pi])
			return lagom_errprintf(err, EINVAL,
					       "dense bytes: min above max");
	if (d->set[LAGOM_DP_INV_BUSBW] &&
	    (d->min_channels == 0 || d->ranks_per_node == 0 ||
	     d->ranks_per_node > 1024 || d->min_channels > d->max_channels ||
	     d->max_channels > 64))
		return lagom_errprintf(err, EINVAL,
				       "dense channels: not 1 <= min <= max "
				       "<= 64, or ranks_per_node not "
				       "1..1024");
	if (!(d->err >= 0 && d->err <= 1))
		return lagom_errprintf(err, EINVAL, "dense err: not in [0, 1]");
	return 0;
}

double lagom_net_line_floor_s(const struct lagom_hw *hw,
			      const struct lagom_comm *comm,
			      enum lagom_coll coll, enum lagom_algo algo,
			      uint64_t bytes)
{
	double S = (double)bytes, N = comm->nodes, B, line;

	if (N < 2)
		return 0;
	switch (coll) {
	case LAGOM_COLL_ALLREDUCE:
		/* in-network reduction: each node sends its data once */
		B = (algo == LAGOM_ALGO_COLLNET_CHAIN ||
		     algo == LAGOM_ALGO_COLLNET_DIRECT)
			    ? S * (N - 1) / N
			    : 2 * S * (N - 1) / N;
		break;
	case LAGOM_COLL_ALLGATHER:
	case LAGOM_COLL_REDUCESCATTER:
		B = S * (N - 1) / N;
		break;
	case LAGOM_COLL_ALLTOALL:
		B = (double)comm->ranks_per_node * S *
		    (comm->ranks - comm->ranks_per_node) / comm->ranks;
		break;
	default:
		B = S;
	}
	line = lagom_nic_line_Bps(hw, comm);
	return line > 0 ? B / line : 0;
}

const struct lagom_net_dense *lagom_dense_site_entry(
	const struct lagom_hw *hw, const struct lagom_comm *comm,
	enum lagom_coll coll, uint64_t bytes,
	const struct lagom_coll_config *cfg, struct lagom_dense_meas *m,
	double *floor_s)
{
	int b = lagom_net_band((unsigned)comm->nodes);
	int a = lagom_dense_algo_of(cfg->algo);
	int pi = proto_index(cfg->proto);
	uint64_t dc = lagom_chunk_default_bytes(cfg->algo, cfg->proto);
	const struct lagom_net_dense *d;

	if (b < 0 || a < 0 || comm->nodes < 1 || comm->ranks % comm->nodes != 0)
		return NULL;
	/* a calibration run measures NCCL's own chunk (NCCL_BUFFSIZE) */
	if (cfg->chunk_bytes != 0 && cfg->chunk_bytes != dc &&
	    !(cfg->chunk_bytes == bytes && bytes < dc))
		return NULL;
	d = &hw->net_site.dense[b][a];
	if (!d->set[LAGOM_DP_INV_BUSBW] ||
	    (unsigned)comm->ranks !=
		    d->ranks_per_node * (unsigned)comm->nodes ||
	    d->max_bytes[pi] == 0 || bytes < d->min_bytes[pi] ||
	    bytes > d->max_bytes[pi])
		return NULL;
	*m = (struct lagom_dense_meas){
		.coll = coll,
		.algo = cfg->algo,
		.proto = cfg->proto,
		.bytes = bytes,
		.nodes = (unsigned)comm->nodes,
		.ranks = (unsigned)comm->ranks,
		.nchannels = (unsigned)cfg->nchannels,
		.time_s = 1,
	};
	*floor_s = lagom_net_line_floor_s(hw, comm, coll, cfg->algo, bytes);
	return d;
}

bool lagom_dense_site_time_at(const struct lagom_net_dense *d,
			      const struct lagom_dense_meas *m, double nc,
			      double floor_s, double *time_s)
{
	struct lagom_dense_meas x = *m;

	if (!(nc >= d->min_channels && nc <= d->max_channels))
		return false;
	x.nchannels = (unsigned)lround(nc);
	*time_s = fmax(entry_predict_s(d, &x), floor_s);
	return true;
}

double lagom_dense_site_error(const struct lagom_hw *hw,
			      const struct lagom_comm *comm,
			      enum lagom_coll coll, uint64_t bytes,
			      const struct lagom_coll_config *cfg)
{
	struct lagom_hw hb;
	struct lagom_comm cb;
	const struct lagom_hw *h;
	const struct lagom_comm *c;
	const struct lagom_net_dense *d;
	struct lagom_dense_meas m;
	double floor_s, t;

	if (!hw || !comm || !cfg)
		return -1;
	lagom_domain_view(hw, comm, &hb, &cb, &h, &c);
	d = lagom_dense_site_entry(h, c, coll, bytes, cfg, &m, &floor_s);
	if (!d || !lagom_dense_site_time_at(d, &m, cfg->nchannels, floor_s, &t))
		return -1;
	return d->err;
}
