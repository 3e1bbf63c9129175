/*
 * model/netfit.c - fit the network calibration of the collective model to
 * measured collectives (doc/model.md 2.4).  Pure: no I/O; deterministic
 * (fixed sweep and step counts, no randomness).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>

#include "model/model_int.h"

#define SWEEPS 40
#define CONVERGED 1e-9 /* relative gain of a sweep that stops the fit */
#define GOLDEN_STEPS 30
#define LOSS_DELTA 0.1 /* log error where the loss turns linear */

/* One fitted parameter: where it lives in the struct and its range. */
struct param {
	size_t offset;
	double lo, hi;
	bool used;
};

static double *param_at(struct lagom_netcal *cal, const struct param *p)
{
	return (double *)((char *)cal + p->offset);
}

static size_t build_params(const struct lagom_net_obs *obs, size_t n,
			   struct param *ps)
{
	size_t np = 0;
	bool transport[LAGOM_NET_COUNT] = { false };
	bool multi = false, tree2 = false, p2p = false;

	for (size_t i = 0; i < n; i++) {
		unsigned nodes = lagom_domain_nodes(&obs[i].hw, &obs[i].comm);
		enum lagom_algo a = obs[i].cfg.algo;
		if (obs[i].coll == LAGOM_COLL_ALLTOALL)
			p2p = true;
		if (nodes < 2)
			continue;
		multi = true;
		transport[lagom_hw_transport(&obs[i].hw)] = true;
		if (nodes == 2 && obs[i].coll == LAGOM_COLL_ALLREDUCE &&
		    (a == LAGOM_ALGO_TREE || a == LAGOM_ALGO_NVLS ||
		     a == LAGOM_ALGO_NVLS_TREE))
			tree2 = true;
	}
	for (int t = LAGOM_NET_IB; t < LAGOM_NET_COUNT; t++) {
		ps[np++] = (struct param){ offsetof(struct lagom_netcal, eff) +
						   t * sizeof(double),
					   0.3, 1.0, transport[t] };
		ps[np++] = (struct param){ offsetof(struct lagom_netcal,
						    step_us) +
						   t * sizeof(double),
					   0.0, 60.0, transport[t] };
	}
	ps[np++] = (struct param){ offsetof(struct lagom_netcal, mn_step_us),
				   0.0, 10.0, multi };
	ps[np++] = (struct param){ offsetof(struct lagom_netcal, net_fill), 0.0,
				   8.0, multi };
	ps[np++] = (struct param){ offsetof(struct lagom_netcal, tree2_eff),
				   0.5, 1.0, tree2 };
	ps[np++] = (struct param){ offsetof(struct lagom_netcal, p2p_peer_us),
				   0.0, 10.0, p2p };
	ps[np++] = (struct param){ offsetof(struct lagom_netcal, ch_net_Bps),
				   4e9, 50e9, multi };
	return np;
}

struct fit_ctx {
	const struct lagom_net_obs *obs;
	size_t n;
	const double *weight;
};

/*
 * Weighted mean of a robust loss of e = log(predicted / measured): the
 * pseudo-Huber loss delta^2 (sqrt(1 + (e / delta)^2) - 1), quadratic for
 * |e| << delta, linear beyond (doc/model.md 2.4).  A few rows far off
 * (a sweep's dip, a second run of the same system) then pull the fit as
 * much as a row a little off, not as their square.  squares: the weighted
 * mean of e^2 instead.
 */
static double loss_mean(const struct fit_ctx *f, const struct lagom_netcal *c,
			bool squares)
{
	double sum = 0, wsum = 0;
	const double d = LOSS_DELTA;

	for (size_t i = 0; i < f->n; i++) {
		const struct lagom_net_obs *o = &f->obs[i];
		double t = lagom_coll_time_cal_s(&o->hw, &o->comm, o->coll,
						 o->bytes, &o->cfg, c);
		double e = log(t / o->time_s);
		sum += f->weight[i] *
		       (squares ? e * e
				: d * d * (sqrt(1 + e * e / (d * d)) - 1));
		wsum += f->weight[i];
	}
	return wsum > 0 ? sum / wsum : 0;
}

static double objective(const struct fit_ctx *f, const struct lagom_netcal *c)
{
	return loss_mean(f, c, false);
}

struct param_at_ctx {
	const struct fit_ctx *f;
	struct lagom_netcal *c;
	const struct param *p;
};

static double eval_at(void *ctx, double v)
{
	struct param_at_ctx *x = ctx;

	*param_at(x->c, x->p) = v;
	return objective(x->f, x->c);
}

double lagom_golden_search(double (*loss_at)(void *ctx, double v), void *ctx,
			   double lo, double hi, double start, int steps)
{
	const double g = 0.6180339887498949;
	double best_v = start, best = loss_at(ctx, start);
	double a = lo, b = hi;
	double x1 = b - g * (b - a), x2 = a + g * (b - a);
	double f1 = loss_at(ctx, x1), f2 = loss_at(ctx, x2);

	for (int i = 0; i < steps; i++) {
		if (f1 < best)
			best = f1, best_v = x1;
		if (f2 < best)
			best = f2, best_v = x2;
		if (f1 <= f2) {
			b = x2, x2 = x1, f2 = f1;
			x1 = b - g * (b - a);
			f1 = loss_at(ctx, x1);
		} else {
			a = x1, x1 = x2, f1 = f2;
			x2 = a + g * (b - a);
			f2 = loss_at(ctx, x2);
		}
	}
	return best_v;
}

/* One parameter by golden-section search in its range. */
static void line_search(const struct fit_ctx *f, struct lagom_netcal *c,
			const struct param *p)
{
	struct param_at_ctx x = { f, c, p };

	*param_at(c, p) = lagom_golden_search(eval_at, &x, p->lo, p->hi,
					      *param_at(c, p), GOLDEN_STEPS);
}

/* A transport the data never reach borrows its nearest kind's fit. */
static void inherit_transports(const struct lagom_net_obs *obs, size_t n,
			       struct lagom_netcal *c)
{
	static const enum lagom_transport parent[LAGOM_NET_COUNT] = {
		[LAGOM_NET_ROCE] = LAGOM_NET_IB,
		[LAGOM_NET_EFA] = LAGOM_NET_IB,
		[LAGOM_NET_TCPX] = LAGOM_NET_TCP,
	};
	bool seen[LAGOM_NET_COUNT] = { false };

	for (size_t i = 0; i < n; i++)
		if (lagom_domain_nodes(&obs[i].hw, &obs[i].comm) > 1)
			seen[lagom_hw_transport(&obs[i].hw)] = true;
	for (int t = 0; t < LAGOM_NET_COUNT; t++) {
		enum lagom_transport p = parent[t];
		if (seen[t] || p == LAGOM_NET_DEFAULT || !seen[p])
			continue;
		c->eff[t] = c->eff[p];
		c->step_us[t] = c->step_us[p];
	}
}

static int check_obs(const struct lagom_net_obs *obs, size_t n,
		     struct lagom_error *err)
{
	if (!obs || n == 0 || n > LAGOM_NETFIT_MAX_OBS)
		return lagom_errprintf(err, EINVAL,
				       "need 1..%d observations, got %zu",
				       LAGOM_NETFIT_MAX_OBS, n);
	for (size_t i = 0; i < n; i++) {
		int rc;
		if (!(obs[i].time_s > 0) || !isfinite(obs[i].time_s))
			return lagom_errprintf(err, EINVAL,
					       "observation %zu: time must be "
					       "finite and > 0",
					       i);
		rc = lagom_coll_predict(&obs[i].hw, &obs[i].comm, obs[i].coll,
					obs[i].bytes, &obs[i].cfg,
					&(struct lagom_coll_time){ 0 }, err);
		if (rc)
			return rc;
	}
	return 0;
}

int lagom_net_fit(const struct lagom_net_obs *obs, size_t n,
		  const struct lagom_netcal *prior, struct lagom_netcal *out,
		  double *rms_log, struct lagom_error *err)
{
	struct param ps[2 * LAGOM_NET_COUNT + 5];
	double weight[LAGOM_NETFIT_MAX_OBS];
	unsigned count[LAGOM_NETFIT_MAX_OBS] = { 0 };
	struct lagom_netcal c = prior ? *prior : lagom_netcal_prior;
	struct fit_ctx f = { obs, n, weight };
	size_t np;
	int rc = check_obs(obs, n, err);

	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		count[obs[i].group % LAGOM_NETFIT_MAX_OBS]++;
	for (size_t i = 0; i < n; i++)
		weight[i] = 1.0 / count[obs[i].group % LAGOM_NETFIT_MAX_OBS];
	np = build_params(obs, n, ps);
	for (int s = 0, done = 0; s < SWEEPS && !done; s++) {
		double before = objective(&f, &c), after;
		for (size_t k = 0; k < np; k++)
			if (ps[k].used)
				line_search(&f, &c, &ps[k]);
		after = objective(&f, &c);
		done = before - after <= CONVERGED * before;
	}
	inherit_transports(obs, n, &c);
	if (rms_log)
		*rms_log = sqrt(loss_mean(&f, &c, true));
	*out = c;
	return 0;
}
