/*
 * search/deviate.c - deviate from NCCL's defaults only when it pays beyond
 * the model's own error (doc/search.md "Deviate only when it pays"; issue
 * 32): the critical-path floor of a table profile and the per-class
 * error gate.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/search_int.h"

/*
 * The known error of a class's time under one configuration (doc/model.md
 * 2.10): where the site's calibration carries a dense fit that prices it,
 * that fit's own left-out error; elsewhere the model's.  A gain compares
 * two configurations, mine and NCCL's: it must survive the larger of
 * their errors (a choice the calibration does not price keeps the
 * model's error, whatever the calibration says of NCCL's).
 */
static double config_error(const struct lagom_hw *hw,
			   const struct lagom_comm *comm, enum lagom_coll coll,
			   uint64_t bytes, const struct lagom_coll_config *c)
{
	double e = lagom_dense_site_error(hw, comm, coll, bytes, c);

	return e >= 0 ? e : lagom_model_error(hw, comm, bytes);
}

static double known_error(const struct lagom_hw *hw,
			  const struct lagom_comm *comm, enum lagom_coll coll,
			  uint64_t bytes, const struct lagom_coll_config *mine,
			  const struct lagom_coll_config *nccl)
{
	return fmax(config_error(hw, comm, coll, bytes, mine),
		    config_error(hw, comm, coll, bytes, nccl));
}

/* Class j as the plan applies it: its record's algorithm, protocol and
 * channels (NCCL's default when kept), chunk and threads from the
 * process-wide values. */
static void applied_config(const struct sproblem *p,
			   const struct lagom_plan *plan,
			   const struct lagom_coll_config *def, size_t j,
			   struct lagom_coll_config *c)
{
	const struct lagom_plan_coll *pc = &plan->colls[j];

	*c = pc->keep ? def[j] : pc->config;
	c->chunk_bytes = search_chunk_bytes(plan->env.buffsize_bytes, c->algo,
					    c->proto, p->cls[j].bytes);
	c->nthreads = pc->keep || c->proto == LAGOM_PROTO_LL128
			      ? 0
			      : plan->env.nthreads;
}

static int iteration_of(struct sproblem *p, const struct lagom_coll_config *c,
			double *x, double *t_s)
{
	int rc;

	for (size_t j = 0; j < p->nclass; j++)
		if ((rc = sproblem_coll_time(p, j, &c[j], &x[j])) < 0)
			return rc;
	sproblem_apply(p, c);
	return sproblem_iteration_x(p, p->valid ? x : NULL, t_s);
}

/* Class j's calls 5 % longer lengthen NCCL's iteration (x: NCCL's per-call
 * times, t0 its iteration). */
static int critical(struct sproblem *p, const struct lagom_coll_config *def,
		    double *x, double t0, size_t j, bool *out)
{
	double keep = x[j], t1 = 0;
	int rc;

	if (!p->valid) {
		*out = false;
		return 0;
	}
	sproblem_apply(p, def);
	x[j] = keep * 1.05;
	rc = sproblem_iteration_x(p, x, &t1);
	x[j] = keep;
	*out = t1 > t0 * (1 + 1e-9);
	return rc;
}

/*
 * The floor: a table profile prices a channel from NCCL's own sizing
 * (doc/model.md 2.8), which is no evidence that fewer CTAs are free where
 * the collective is exposed; so there NCCL's count stays.
 */
static int floor_critical(struct sproblem *p, struct lagom_plan *plan,
			  const struct lagom_coll_config *def, double *x)
{
	double t0 = 0;
	int rc;

	if (p->hw->ch_Bps > 0)
		return 0;
	if ((rc = iteration_of(p, def, x, &t0)) < 0)
		return rc;
	for (size_t j = 0; j < plan->ncolls; j++) {
		struct lagom_plan_coll *pc = &plan->colls[j];
		bool crit = false;

		if (pc->keep || pc->config.nchannels >= def[j].nchannels)
			continue;
		if ((rc = critical(p, def, x, t0, j, &crit)) < 0)
			return rc;
		if (!crit)
			continue;
		pc->config.nchannels = def[j].nchannels;
		pc->floored = true;
	}
	return 0;
}

/* Iteration with configurations c and class j's time per call scaled by
 * scale (x: scratch, per class). */
static int iteration_scaled(struct sproblem *p,
			    const struct lagom_coll_config *c, size_t j,
			    double scale, double *x, double *t_s)
{
	int rc;

	for (size_t k = 0; k < p->nclass; k++)
		if ((rc = sproblem_coll_time(p, k, &c[k], &x[k])) < 0)
			return rc;
	x[j] *= scale;
	sproblem_apply(p, c);
	return sproblem_iteration_x(p, p->valid ? x : NULL, t_s);
}

/*
 * Class j's gain (NCCL's choice def_j against mine, the other classes as
 * in c) when its time per call is off by the model's known error e either
 * way: the smallest of the gains at 1 - e, 1 and 1 + e.  *gain1: the gain
 * at 1, *t_def1: the iteration with def_j at 1.
 */
static int robust_gain(struct sproblem *p, struct lagom_coll_config *c,
		       size_t j, const struct lagom_coll_config *def_j,
		       double e, double *x, double *gain1, double *t_def1,
		       double *worst)
{
	const double scales[3] = { 1.0, 1.0 - e, 1.0 + e };
	struct lagom_coll_config mine = c[j];
	int rc = 0;

	*worst = INFINITY;
	for (int i = 0; i < 3 && rc == 0; i++) {
		double t_mine = 0, t_def = 0, g;

		c[j] = mine;
		if ((rc = iteration_scaled(p, c, j, scales[i], x, &t_mine)) < 0)
			break;
		c[j] = *def_j;
		if ((rc = iteration_scaled(p, c, j, scales[i], x, &t_def)) < 0)
			break;
		g = t_def / t_mine - 1;
		if (i == 0) {
			*gain1 = g;
			*t_def1 = t_def;
		}
		*worst = fmin(*worst, g);
	}
	c[j] = mine;
	return rc;
}

/*
 * Where the site's calibration prices the class (mine or NCCL's choice,
 * lagom_dense_site_error), the class's own predicted gain per call must
 * also lie beyond the known error e (the larger of the two choices'):
 * a calibration whose left-out error is 1 % lets a choice 5 % faster per
 * call through, one of 20 % does not.  *worst is lowered to the margin
 * when it does not (0 and below: held back); without a calibration
 * nothing changes.
 */
static int calibrated_gain(struct sproblem *p, size_t j,
			   const struct lagom_coll_config *mine,
			   const struct lagom_coll_config *nccl, double e,
			   double *worst)
{
	const struct sclass *k = &p->cls[j];
	double x_mine = 0, x_nccl = 0;
	int rc;

	if (lagom_dense_site_error(p->hw, &k->comm, k->coll, k->bytes, mine) <
		    0 &&
	    lagom_dense_site_error(p->hw, &k->comm, k->coll, k->bytes, nccl) <
		    0)
		return 0;
	if ((rc = sproblem_coll_time(p, j, mine, &x_mine)) < 0 ||
	    (rc = sproblem_coll_time(p, j, nccl, &x_nccl)) < 0)
		return rc;
	if (x_mine > 0)
		*worst = fmin(*worst, x_nccl / x_mine - 1 - e);
	return 0;
}

/* The gain each tuned class brings over NCCL's choice, in turn: a class
 * whose gain does not survive the model's error on its own time (doc/
 * model.md 2.10) goes back to NCCL's. */
static int hold_back(struct sproblem *p, struct lagom_plan *plan,
		     const struct lagom_coll_config *def,
		     struct lagom_coll_config *c, double *x, double *t_plan)
{
	int rc;

	for (size_t j = 0; j < plan->ncolls; j++) {
		struct lagom_plan_coll *pc = &plan->colls[j];
		struct lagom_coll_config d = def[j];
		double t_def = 0, worst = 0;
		double e;

		if (pc->keep)
			continue;
		d.chunk_bytes = search_chunk_bytes(plan->env.buffsize_bytes,
						   d.algo, d.proto,
						   p->cls[j].bytes);
		e = known_error(p->hw, &pc->comm, pc->coll, pc->bytes, &c[j],
				&d);
		if ((rc = robust_gain(p, c, j, &d, e, x, &pc->gain, &t_def,
				      &worst)) < 0)
			return rc;
		/* the part of the gain the model's error can take away */
		pc->gain_needed = pc->gain - worst;
		if ((rc = calibrated_gain(p, j, &c[j], &d, e, &worst)) < 0)
			return rc;
		if (worst > 0)
			continue;
		c[j] = d;
		pc->held_back = true;
		pc->keep = true;
		pc->config = def[j]; /* what runs: NCCL's own choice */
		pc->config.chunk_bytes = 0;
		pc->config.nthreads = 0;
		pc->time_s = pc->nccl_time_s;
		*t_plan = t_def;
	}
	return 0;
}

/* Iteration with configurations c taking x per call (per class), every
 * class's time scaled by 1 + sign x its known error (e, per class). */
static int iteration_err(struct sproblem *p, const struct lagom_coll_config *c,
			 const double *x, double sign, const double *e,
			 double *xs, double *t_s)
{
	for (size_t k = 0; k < p->nclass; k++)
		xs[k] = x[k] * (1 + sign * e[k]);
	sproblem_apply(p, c);
	return sproblem_iteration_x(p, p->valid ? xs : NULL, t_s);
}

int search_times_pay(struct sproblem *p, const struct lagom_coll_config *c,
		     const double *x, const struct lagom_coll_config *def,
		     bool *pays)
{
	double *xd = calloc(3 * p->nclass + 1, sizeof(*xd)), *xs, *e;
	int rc = 0;

	*pays = true;
	if (!xd)
		return lagom_errprintf(p->err, ENOMEM, "out of memory");
	xs = xd + p->nclass;
	e = xs + p->nclass;
	for (size_t k = 0; k < p->nclass && rc == 0; k++) {
		rc = sproblem_coll_time(p, k, &def[k], &xd[k]);
		e[k] = known_error(p->hw, &p->cls[k].comm, p->cls[k].coll,
				   p->cls[k].bytes, &c[k], &def[k]);
	}
	for (int sign = -1; sign <= 1 && *pays && rc == 0; sign += 2) {
		double t_mine = 0, t_def = 0;

		if ((rc = iteration_err(p, c, x, sign, e, xs, &t_mine)) < 0 ||
		    (rc = iteration_err(p, def, xd, sign, e, xs, &t_def)) < 0)
			break;
		*pays = t_mine < t_def * (1 - p->min_gain);
	}
	free(xd);
	return rc;
}

int search_plan_pays(struct sproblem *p, const struct lagom_plan *plan,
		     const struct lagom_coll_config *def, bool *pays)
{
	struct lagom_coll_config *c = calloc(p->nclass + 1, sizeof(*c));
	double *x = calloc(p->nclass + 1, sizeof(*x));
	int rc = 0;

	*pays = true;
	if (!c || !x) {
		rc = lagom_errprintf(p->err, ENOMEM, "out of memory");
		goto out;
	}
	if (p->no_gate || plan->ncolls != p->nclass)
		goto out;
	for (size_t j = 0; j < p->nclass && rc == 0; j++) {
		applied_config(p, plan, def, j, &c[j]);
		rc = sproblem_coll_time(p, j, &c[j], &x[j]);
	}
	if (rc == 0)
		rc = search_times_pay(p, c, x, def, pays);
out:
	free(c);
	free(x);
	return rc;
}

int search_deviation_gates(struct sproblem *p, struct lagom_plan *plan,
			   const struct lagom_coll_config *def)
{
	struct lagom_coll_config *c = calloc(p->nclass + 1, sizeof(*c));
	double *x = calloc(p->nclass + 1, sizeof(*x));
	double t = 0;
	int rc = 0;

	if (!c || !x) {
		rc = lagom_errprintf(p->err, ENOMEM, "out of memory");
		goto out;
	}
	if (p->no_gate || plan->ncolls != p->nclass)
		goto out;
	if ((rc = floor_critical(p, plan, def, x)) < 0)
		goto out;
	for (size_t j = 0; j < p->nclass; j++)
		applied_config(p, plan, def, j, &c[j]);
	if ((rc = iteration_of(p, c, x, &t)) < 0 ||
	    (rc = hold_back(p, plan, def, c, x, &t)) < 0)
		goto out;
	for (size_t j = 0; j < p->nclass; j++)
		if (!plan->colls[j].keep &&
		    (rc = sproblem_coll_time(p, j, &c[j],
					     &plan->colls[j].time_s)) < 0)
			goto out;
	plan->lagom_s = t;
out:
	free(c);
	free(x);
	return rc;
}
