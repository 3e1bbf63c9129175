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

double search_env_gain_needed(struct sproblem *p,
			      const struct lagom_coll_config *def,
			      double nccl_s)
{
	double need = 0, x;

	if (p->no_gate || !(nccl_s > 0))
		return 0;
	for (size_t j = 0; j < p->nclass; j++)
		if (sproblem_coll_time(p, j, &def[j], &x) == 0)
			need += lagom_model_error(p->hw, &p->cls[j].comm,
						  p->cls[j].bytes) *
				fmin(1.0, p->cls[j].calls * x / nccl_s);
	return fmin(need, 0.5);
}

/* The gain each tuned class brings over NCCL's choice, in turn: a class
 * whose gain stays inside the model's error goes back to NCCL's. */
static int hold_back(struct sproblem *p, struct lagom_plan *plan,
		     const struct lagom_coll_config *def,
		     struct lagom_coll_config *c, double *x, double *t_plan)
{
	int rc;

	for (size_t j = 0; j < plan->ncolls; j++) {
		struct lagom_plan_coll *pc = &plan->colls[j];
		struct lagom_coll_config mine = c[j];
		double xd = 0, t_def = 0;

		if (pc->keep)
			continue;
		if ((rc = sproblem_coll_time(p, j, &def[j], &xd)) < 0)
			return rc;
		c[j] = def[j];
		c[j].chunk_bytes = search_chunk_bytes(plan->env.buffsize_bytes,
						      c[j].algo, c[j].proto,
						      p->cls[j].bytes);
		if ((rc = iteration_of(p, c, x, &t_def)) < 0)
			return rc;
		pc->gain = t_def / *t_plan - 1;
		pc->gain_needed = lagom_model_error(p->hw, &pc->comm,
						    pc->bytes) *
				  fmin(1.0, pc->calls * xd / plan->nccl_s);
		if (pc->gain > pc->gain_needed) {
			c[j] = mine;
			continue;
		}
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
