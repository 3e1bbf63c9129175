/*
 * search/globals.c - the plan of a step: global values under NCCL's
 * one-value-per-process constraint, baselines, the plan records.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/search_int.h"

/* NCCL_BUFFSIZE candidates; the first is NCCL's default (4 MiB). */
static const uint64_t buffsize_grid[] = { 4u << 20, 2u << 20, 1u << 20,
					  512u << 10, 256u << 10 };
#define N_BUFF (sizeof(buffsize_grid) / sizeof(*buffsize_grid))
/* NCCL_NTHREADS candidates; 0 is NCCL's default. */
static const unsigned nthreads_grid[] = { 0, 256, 128 };
#define N_NT (sizeof(nthreads_grid) / sizeof(*nthreads_grid))

/* A candidate wins only when clearly better: ties keep the earlier one. */
static int better(double t, double best)
{
	return lse_less(t, best);
}

/* NCCL's default configuration per class. */
static int nccl_defaults(struct sproblem *p, struct lagom_coll_config *def)
{
	for (size_t j = 0; j < p->nclass; j++) {
		int rc = lagom_nccl_default(p->hw, &p->cls[j].comm,
					    p->cls[j].coll, p->cls[j].bytes,
					    &def[j], p->err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int class_time(struct sproblem *p, size_t j,
		      const struct lagom_coll_config *c, double *t_s)
{
	return sproblem_coll_time(p, j, c, t_s);
}

/* The chunk NCCL derives for c from NCCL_BUFFSIZE candidate b. */
static void chunk_from_buffsize(const struct sproblem *p, size_t j, unsigned b,
				struct lagom_coll_config *c)
{
	c->chunk_bytes = search_chunk_bytes(b ? buffsize_grid[b] : 0, c->algo,
					    c->proto, p->cls[j].bytes);
}

/*
 * The channel dimension of comm_only_class() when the inputs were checked:
 * every channel count of the grid from one model call; the same order and
 * comparisons as the generic loop.
 */
static void comm_only_nchannels(struct sproblem *p, size_t j,
				struct lagom_coll_config *c, double *best,
				int *changed)
{
	const struct sclass *k = &p->cls[j];
	struct lagom_coll_config t = *c;
	double x[SEARCH_NCHANNELS_GRID_MAX];

	if (!(k->impl_mask & (1u << (t.algo * LAGOM_PROTO_COUNT + t.proto))))
		return;
	if (lagom_coll_config_check_nocheck(p->hw, &k->comm, k->coll, k->bytes,
					    &t, p->err) < 0)
		return;
	lagom_coll_times_s_nocheck(p->hw, &k->comm, k->coll, k->bytes, &t,
				   p->nchannels_grid, p->n_nchannels, x);
	for (unsigned i = 0; i < p->n_nchannels; i++)
		if (better(x[i], *best)) {
			*best = x[i];
			*c = t;
			c->nchannels = p->nchannels_grid[i];
			*changed = 1;
		}
}

/*
 * Baseline: a communication-only tuner (AutoCCL-style coordinate descent):
 * from NCCL's default, alternately the best implementation and channel
 * count for the collective alone, until nothing changes.  The chunk follows
 * from NCCL_BUFFSIZE candidate b, one per process, as stock NCCL allows
 * (comm_only_time() tries each b): so the baseline is a plan lagom can
 * apply, and lagom adopts it when it is predicted faster (plan_workload()).
 */
static int comm_only_class(struct sproblem *p, size_t j, unsigned b,
			   struct lagom_coll_config *c)
{
	double best = 0;
	int rc, changed = 1;

	chunk_from_buffsize(p, j, b, c);
	if ((rc = class_time(p, j, c, &best)) < 0)
		return rc;
	for (unsigned round = 0; changed && round < 64; round++) {
		changed = 0;
		for (int dim = 0; dim < 2; dim++) {
			unsigned n = dim == 0 ? LAGOM_ALGO_COUNT *
							LAGOM_PROTO_COUNT
					      : p->n_nchannels;
			if (dim == 1 && p->valid) {
				comm_only_nchannels(p, j, c, &best, &changed);
				continue;
			}
			for (unsigned i = 0; i < n; i++) {
				struct lagom_coll_config t = *c;
				double x = 0;

				if (dim == 0) {
					t.algo = (enum lagom_algo)(
						i / LAGOM_PROTO_COUNT);
					t.proto = (enum lagom_proto)(
						i % LAGOM_PROTO_COUNT);
					chunk_from_buffsize(p, j, b, &t);
				} else {
					t.nchannels = p->nchannels_grid[i];
				}
				if (!(p->cls[j].impl_mask &
				      (1u << (t.algo * LAGOM_PROTO_COUNT +
					      t.proto))))
					continue; /* lagom_coll_supported() */
				if (class_time(p, j, &t, &x) < 0)
					continue;
				if (better(x, best)) {
					best = x;
					*c = t;
					changed = 1;
				}
			}
		}
	}
	return 0;
}

/* The communication-only tuner's best over the NCCL_BUFFSIZE candidates:
 * its iteration time, per-class configurations (nclass) and buffer size. */
static int comm_only_time(struct sproblem *p,
			  const struct lagom_coll_config *def, double *t_s,
			  struct lagom_coll_config *best_cfg,
			  uint64_t *best_buff)
{
	struct lagom_coll_config *c = calloc(p->nclass + 1, sizeof(*c));
	int rc = 0;

	if (!c)
		return lagom_errprintf(p->err, ENOMEM, "out of memory");
	for (unsigned b = 0; b < N_BUFF && rc == 0; b++) {
		double t = 0;

		memcpy(c, def, p->nclass * sizeof(*c));
		for (size_t j = 0; j < p->nclass && rc == 0; j++)
			rc = comm_only_class(p, j, b, &c[j]);
		if (rc == 0) {
			sproblem_apply(p, c);
			rc = sproblem_iteration(p, &t);
		}
		if (rc == 0 && (b == 0 || better(t, *t_s))) {
			*t_s = t;
			memcpy(best_cfg, c, p->nclass * sizeof(*c));
			*best_buff = b ? buffsize_grid[b] : 0;
		}
	}
	free(c);
	return rc;
}

/*
 * The configurations of one buffer size b, per class: NCCL's default with
 * that buffer's chunk, and (when the inputs were checked) its time per call
 * under every cap of the grid (index 0: no cap), from one model call each.
 */
static void env_configs(struct sproblem *p, const struct lagom_coll_config *def,
			unsigned b, struct lagom_coll_config *c, double *x)
{
	unsigned nchannels[SEARCH_NCHANNELS_GRID_MAX + 1];

	for (size_t j = 0; j < p->nclass; j++) {
		c[j] = def[j];
		if (b > 0)
			c[j].chunk_bytes = search_chunk_bytes(
				buffsize_grid[b], c[j].algo, c[j].proto,
				p->cls[j].bytes);
		if (!p->valid)
			continue;
		for (unsigned i = 0; i <= p->n_nchannels; i++)
			nchannels[i] =
				i == 0 || def[j].nchannels <=
							p->nchannels_grid[i - 1]
					? def[j].nchannels
					: p->nchannels_grid[i - 1];
		lagom_coll_times_s_nocheck(p->hw, &p->cls[j].comm,
					   p->cls[j].coll, p->cls[j].bytes,
					   &c[j], nchannels, p->n_nchannels + 1,
					   &x[j * (p->n_nchannels + 1)]);
	}
}

/* Iteration time with every class at cap index i of env_configs(), under
 * NCCL_CTA_POLICY policy and NCCL_BUFFSIZE candidate b. */
static int env_time(struct sproblem *p, const struct lagom_coll_config *base,
		    const double *x, unsigned i, unsigned policy, unsigned b,
		    struct lagom_coll_config *c, double *cx, double *t_s)
{
	unsigned cap = i == 0 ? 0 : p->nchannels_grid[i - 1];
	int rc;

	for (size_t j = 0; j < p->nclass; j++) {
		c[j] = base[j];
		if (cap && c[j].nchannels > cap)
			c[j].nchannels = cap;
		cx[j] = x[j * (p->n_nchannels + 1) + i];
		if (policy == LAGOM_CTA_POLICY_EFFICIENCY &&
		    search_cta_efficiency(p, j, cap, b ? buffsize_grid[b] : 0,
					  &c[j], &c[j]) &&
		    (rc = class_time(p, j, &c[j], &cx[j])) < 0)
			return rc;
		/* copy engines: no SM beside the computation */
		if (policy == LAGOM_CTA_POLICY_ZERO &&
		    search_ce_class(p, j, &cx[j]))
			c[j].nchannels = 0;
	}
	sproblem_apply(p, c);
	return sproblem_iteration_x(p, p->valid ? cx : NULL, t_s);
}

/*
 * Environment only (no tuner plugin): one channel cap, one buffer size and
 * (NCCL 2.28+, registered buffers) one CTA policy for every collective, on
 * top of NCCL's own choices.  The first candidate (no cap, 4 MiB, default
 * policy) is NCCL's default, and ties keep the earlier candidate, so the
 * policy is chosen only where it is predicted faster.
 */
int search_env_only(struct sproblem *p, const struct lagom_coll_config *def,
		    struct lagom_plan_env_values *env, double *t_out)
{
	size_t n = p->nclass + 1;
	struct lagom_coll_config *c = calloc(2 * n, sizeof(*c));
	double *x = calloc(n * (p->n_nchannels + 2), sizeof(*x));
	double best = 0, def_s = 0;
	int rc = 0, have = 0;
	unsigned best_i = 0, best_b = 0;
	bool pays = true;
	unsigned def_max = 0;
	unsigned policies[LAGOM_CTA_POLICY_COUNT], npolicies = 0;

	if (!c || !x) {
		rc = lagom_errprintf(p->err, ENOMEM, "out of memory");
		goto out;
	}
	policies[npolicies++] = LAGOM_CTA_POLICY_DEFAULT;
	if (search_cta_policy_candidate(p))
		policies[npolicies++] = LAGOM_CTA_POLICY_EFFICIENCY;
	if (search_ce_candidate(p))
		policies[npolicies++] = LAGOM_CTA_POLICY_ZERO;
	for (size_t j = 0; j < p->nclass; j++)
		if (def[j].nchannels > def_max)
			def_max = def[j].nchannels;
	for (unsigned q = 0; q < npolicies && rc == 0; q++)
		for (unsigned b = 0; b < N_BUFF && rc == 0; b++) {
			unsigned pol = policies[q];

			/* c, x: scratch per class; c + n, x + n: env_configs() */
			env_configs(p, def, b, c + n, x + n);
			for (unsigned i = 0; i <= p->n_nchannels && rc == 0;
			     i++) {
				unsigned cap =
					i == 0 ? 0 : p->nchannels_grid[i - 1];
				double t;

				if (cap >= def_max) /* the same as no cap */
					break;
				if ((rc = env_time(p, c + n, x + n, i, pol, b,
						   c, x, &t)) < 0)
					break;
				if (!have)
					def_s = t;
				if (!have || better(t, best)) {
					best = t;
					best_i = i;
					best_b = b;
					env->env_max_ctas = cap;
					env->env_buffsize_bytes =
						b ? buffsize_grid[b] : 0;
					env->env_cta_policy = pol;
					have = 1;
				}
			}
		}
	/* it must also pay when every class's time is off by the model's
	 * known error (doc/search.md "Deviate only when it pays") */
	if (rc == 0 && have && !p->no_gate &&
	    best < def_s * (1 - p->min_gain)) {
		double t;

		env_configs(p, def, best_b, c + n, x + n);
		if ((rc = env_time(p, c + n, x + n, best_i, env->env_cta_policy,
				   best_b, c, x, &t)) == 0)
			rc = search_times_pay(p, c, x, def, &pays);
	}
	if (rc == 0 && (!pays || !(best < def_s * (1 - p->min_gain)))) {
		env->env_max_ctas = 0; /* not worth leaving NCCL's defaults */
		env->env_buffsize_bytes = 0;
		env->env_cta_policy = LAGOM_CTA_POLICY_DEFAULT;
		best = def_s;
	}
	if (rc == 0)
		*t_out = best;
out:
	free(c);
	free(x);
	return rc;
}

static int run_search(struct sproblem *p, struct lagom_plan *plan,
		      struct lagom_plan *trace, double *t_s)
{
	struct lagom_search_stats s;
	int rc = sproblem_search(p, false, 0, t_s, &s, trace);

	if (rc == 0) {
		plan->evals += s.evals;
		plan->cand_total += s.cand_total;
	}
	return rc;
}

/*
 * NCCL_NTHREADS matters little (method section 1): the channel choices stay,
 * each thread count is evaluated with them, the default kept unless another
 * is predicted faster.
 */
static int choose_nthreads(struct sproblem *p, struct lagom_plan *plan)
{
	struct lagom_coll_config *c = calloc(p->nclass + 1, sizeof(*c));
	int rc = 0;

	if (!c)
		return lagom_errprintf(p->err, ENOMEM, "out of memory");
	for (unsigned nt = 1; nt < N_NT && rc == 0; nt++) {
		double t;

		for (size_t j = 0; j < p->nclass; j++) {
			c[j] = p->table_cfg[j * p->n_nchannels + p->choice[j]];
			if (c[j].proto != LAGOM_PROTO_LL128)
				c[j].nthreads = nthreads_grid[nt];
		}
		sproblem_apply(p, c);
		if ((rc = sproblem_iteration(p, &t)) == 0 &&
		    better(t, plan->lagom_s)) {
			plan->lagom_s = t;
			plan->env.nthreads = nthreads_grid[nt];
		}
	}
	free(c);
	return rc;
}

/* What choose_globals keeps of the best buffer size's search. */
struct best_search {
	struct lagom_coll_config *table_cfg; /* nclass * n_nchannels */
	unsigned *choice;		     /* nclass */
	struct lagom_search_move moves[LAGOM_PLAN_MAX_MOVES];
	size_t nmoves;
	unsigned moves_total;
};

static void keep_search(struct best_search *k, const struct sproblem *p,
			const struct lagom_plan *plan)
{
	memcpy(k->table_cfg, p->table_cfg,
	       p->nclass * p->n_nchannels * sizeof(*k->table_cfg));
	memcpy(k->choice, p->choice, p->nclass * sizeof(*k->choice));
	memcpy(k->moves, plan->moves, plan->nmoves * sizeof(*k->moves));
	k->nmoves = plan->nmoves;
	k->moves_total = plan->moves_total;
}

static void restore_search(const struct best_search *k, struct sproblem *p,
			   struct lagom_plan *plan)
{
	memcpy(p->table_cfg, k->table_cfg,
	       p->nclass * p->n_nchannels * sizeof(*k->table_cfg));
	memcpy(p->choice, k->choice, p->nclass * sizeof(*k->choice));
	memcpy(plan->moves, k->moves, k->nmoves * sizeof(*k->moves));
	plan->nmoves = k->nmoves;
	plan->moves_total = k->moves_total;
}

/*
 * Global values with the tuner: NCCL takes one NCCL_BUFFSIZE per process,
 * so the whole search runs for each candidate size and the one of lowest
 * predicted iteration time is kept (ties keep NCCL's default).
 */
static int choose_globals(struct sproblem *p, struct lagom_plan *plan)
{
	struct best_search *k = calloc(1, sizeof(*k));
	double t;
	unsigned b;
	int rc = 0;

	if (k) {
		k->table_cfg = calloc(p->nclass * p->n_nchannels + 1,
				      sizeof(*k->table_cfg));
		k->choice = calloc(p->nclass + 1, sizeof(*k->choice));
	}
	if (!k || !k->table_cfg || !k->choice) {
		rc = lagom_errprintf(p->err, ENOMEM, "out of memory");
		goto out;
	}
	for (b = 0; b < N_BUFF; b++) {
		p->buffsize_bytes = b ? buffsize_grid[b] : 0;
		plan->nmoves = 0;
		plan->moves_total = 0;
		if ((rc = run_search(p, plan, plan, &t)) < 0)
			goto out;
		if (b == 0 || better(t, plan->lagom_s)) {
			plan->lagom_s = t;
			plan->env.buffsize_bytes = p->buffsize_bytes;
			keep_search(k, p, plan);
		}
	}
	p->buffsize_bytes = plan->env.buffsize_bytes;
	restore_search(k, p, plan);
	rc = choose_nthreads(p, plan);
out:
	if (k) {
		free(k->table_cfg);
		free(k->choice);
	}
	free(k);
	return rc;
}

/*
 * Byte windows: a class covers the sizes near the one the workload names,
 * [bytes / SEARCH_WINDOW, bytes * SEARCH_WINDOW], and nothing far from
 * it: a 4-byte all-reduce or a 32-byte metadata all-gather that the
 * workload does not describe keeps NCCL's own choice.  Neighbouring
 * classes of one (coll, ranks, nodes) whose windows overlap split at the
 * midpoint between their sizes.  The factor covers NCCL grouping calls of
 * up to 4x different sizes into one tuner call (NCCL's src/enqueue.cc)
 * only partly: such a group's sum lands in the window of its largest call.
 */
#define SEARCH_WINDOW 2u

static uint64_t window_lo(uint64_t bytes)
{
	return bytes / SEARCH_WINDOW;
}

static uint64_t window_hi(uint64_t bytes)
{
	return bytes > UINT64_MAX / SEARCH_WINDOW ? UINT64_MAX
						  : bytes * SEARCH_WINDOW;
}

static bool same_class_axis(const struct lagom_plan_coll *a,
			    const struct lagom_plan_coll *b)
{
	return a->coll == b->coll && a->comm.ranks == b->comm.ranks &&
	       a->comm.nodes == b->comm.nodes;
}

static void set_ranges(struct lagom_plan *plan)
{
	for (size_t j = 0; j < plan->ncolls; j++) {
		struct lagom_plan_coll *c = &plan->colls[j];
		const struct lagom_plan_coll *prev = j ? c - 1 : NULL;
		const struct lagom_plan_coll *next = j + 1 < plan->ncolls
							     ? c + 1
							     : NULL;
		uint64_t lo = window_lo(c->bytes), hi = window_hi(c->bytes);

		if (prev && same_class_axis(prev, c) && prev->max_bytes >= lo)
			lo = prev->max_bytes + 1;
		if (next && same_class_axis(next, c)) {
			uint64_t mid = c->bytes + (next->bytes - c->bytes) / 2;

			if (mid < hi)
				hi = mid;
		}
		c->min_bytes = lo;
		c->max_bytes = hi;
	}
}

static int fill_colls(struct sproblem *p, struct lagom_plan *plan,
		      const struct lagom_coll_config *def)
{
	int rc;

	plan->ncolls = p->nclass;
	for (size_t j = 0; j < p->nclass; j++) {
		struct lagom_plan_coll *c = &plan->colls[j];
		const struct sclass *k = &p->cls[j];

		*c = (struct lagom_plan_coll){
			.coll = k->coll,
			.bytes = k->bytes,
			.comm = k->comm,
			.config =
				p->table_cfg[j * p->n_nchannels + p->choice[j]],
			.calls = k->calls,
		};
		if ((rc = class_time(p, j, &c->config, &c->time_s)) < 0 ||
		    (rc = class_time(p, j, &def[j], &c->nccl_time_s)) < 0)
			return rc;
		/* chunk and threads come from the global values */
		c->config.chunk_bytes = 0;
		c->config.nthreads = 0;
	}
	set_ranges(plan);
	return 0;
}

/*
 * NCCL_MIN_CTAS/NCCL_MAX_CTAS (process-wide) only where the tuner cannot
 * express the plan: a per-call channel count above what NCCL sets up for
 * the communicator by default is capped by it, so the communicator must get
 * that many channels.  Lower counts the tuner sets per call, and the
 * process-wide values stay unset: collectives outside the plan keep NCCL's
 * channels (doc/search.md).
 */
static void set_ctas(struct lagom_plan *plan,
		     const struct lagom_coll_config *def)
{
	unsigned max = 0;
	bool above_default = false;

	for (size_t j = 0; j < plan->ncolls; j++) {
		unsigned nchannels = plan->colls[j].config.nchannels;

		if (plan->colls[j].keep)
			continue;
		if (nchannels > max)
			max = nchannels;
		if (nchannels > def[j].nchannels)
			above_default = true;
	}
	plan->env.min_ctas = above_default ? max : 0;
	plan->env.max_ctas = above_default ? max : 0;
}

static bool has_tp(const struct lagom_workload *w)
{
	for (size_t r = 0; r < w->nregions; r++)
		for (size_t k = 0; k < w->regions[r].nkernels; k++)
			if (w->regions[r].kernels[k].after_coll)
				return true;
	return false;
}

/*
 * Best of the candidates: when the communication-only tuner's plan is
 * predicted faster than the priority search's (both under this model and
 * both expressible: per-class algorithm, protocol and channels, one
 * NCCL_BUFFSIZE), the plan is the communication-only one.
 */
static int adopt_comm_only(struct sproblem *p, struct lagom_plan *plan,
			   const struct lagom_coll_config *co, uint64_t buff)
{
	int rc;

	for (size_t j = 0; j < plan->ncolls; j++) {
		struct lagom_plan_coll *c = &plan->colls[j];

		c->config = co[j];
		if ((rc = class_time(p, j, &co[j], &c->time_s)) < 0)
			return rc;
		c->config.chunk_bytes = 0;
		c->config.nthreads = 0;
	}
	plan->env.buffsize_bytes = buff;
	plan->env.nthreads = 0;
	plan->lagom_s = plan->comm_only_s;
	plan->comm_only_adopted = true;
	return 0;
}

static int plan_workload(struct sproblem *p, struct lagom_plan *plan)
{
	struct lagom_coll_config *def = calloc(p->nclass + 1, sizeof(*def));
	struct lagom_coll_config *co = calloc(p->nclass + 1, sizeof(*co));
	uint64_t co_buff = 0;
	bool pays = true;
	int rc = 0;

	if (!def || !co) {
		rc = lagom_errprintf(p->err, ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = nccl_defaults(p, def)) < 0)
		goto out;
	sproblem_apply(p, def);
	if ((rc = sproblem_iteration(p, &plan->nccl_s)) < 0 ||
	    (rc = comm_only_time(p, def, &plan->comm_only_s, co, &co_buff)) <
		    0 ||
	    (rc = search_env_only(p, def, &plan->env,
				  &plan->lagom_env_only_s)) < 0 ||
	    (rc = choose_globals(p, plan)) < 0 ||
	    (rc = fill_colls(p, plan, def)) < 0)
		goto out;
	if (better(plan->comm_only_s, plan->lagom_s) &&
	    (rc = adopt_comm_only(p, plan, co, co_buff)) < 0)
		goto out;
	if ((rc = search_deviation_gates(p, plan, def)) < 0)
		goto out;
	set_ctas(plan, def);
	if ((rc = search_plan_pays(p, plan, def, &pays)) < 0)
		goto out;
	if (!pays || !(plan->lagom_s < plan->nccl_s * (1 - p->min_gain))) {
		for (size_t j = 0; j < plan->ncolls; j++) {
			plan->colls[j].config = def[j]; /* what runs */
			plan->colls[j].config.chunk_bytes = 0;
			plan->colls[j].config.nthreads = 0;
		}
		search_keep_nccl(plan);
	}
out:
	free(def);
	free(co);
	return rc;
}

void search_keep_nccl(struct lagom_plan *plan)
{
	for (size_t j = 0; j < plan->ncolls; j++) {
		plan->colls[j].keep = true;
		plan->colls[j].time_s = plan->colls[j].nccl_time_s;
	}
	plan->env.min_ctas = plan->env.max_ctas = 0;
	plan->env.buffsize_bytes = 0;
	plan->env.nthreads = 0;
	plan->lagom_s = plan->nccl_s;
	if (plan->lagom_env_only_s > plan->nccl_s)
		plan->lagom_env_only_s = plan->nccl_s;
}

static void finish_plan(struct lagom_plan *plan)
{
	plan->speedup_nccl = plan->lagom_s > 0 ? plan->nccl_s / plan->lagom_s
					       : 1;
	plan->speedup_comm_only = plan->lagom_s > 0
					  ? plan->comm_only_s / plan->lagom_s
					  : 1;
}

static int check_args(const struct lagom_hw *hw, unsigned nodes, unsigned *gpn,
		      struct lagom_plan **out, struct lagom_error *err)
{
	if (!hw || !out)
		return lagom_errprintf(err, EINVAL, "no hardware or plan");
	if (*gpn == 0)
		*gpn = hw->gpus_per_node;
	if (nodes == 0 || *gpn == 0 || nodes > 1u << 20 || *gpn > 64)
		return lagom_errprintf(err, EINVAL,
				       "bad step shape: %u nodes x %u GPUs",
				       nodes, *gpn);
	return 0;
}

/* Every communicator of w within the step: a plan record of a wider one
 * would be refused by every reader (doc/plan-format.md). */
static int check_fits(const struct lagom_workload *w, unsigned nodes,
		      unsigned ranks, struct lagom_error *err)
{
	for (size_t r = 0; r < w->nregions; r++)
		for (size_t c = 0; c < w->regions[r].ncolls; c++) {
			const struct lagom_comm *m =
				&w->regions[r].colls[c].comm;

			if (m->ranks > ranks || m->nodes > nodes)
				return lagom_errprintf(
					err, EINVAL,
					"region '%s': %s over %u ranks on %u "
					"nodes does not fit the step's %u ranks "
					"on %u nodes",
					w->regions[r].name,
					lagom_coll_name(
						w->regions[r].colls[c].coll),
					m->ranks, m->nodes, ranks, nodes);
		}
	return 0;
}

int lagom_search_plan(const struct lagom_hw *hw, const struct lagom_workload *w,
		      unsigned nodes, unsigned gpus_per_node,
		      const struct lagom_search_opts *opts,
		      struct lagom_plan **out, struct lagom_error *err)
{
	struct lagom_plan *plan;
	struct sproblem p;
	int rc;

	if (!w)
		return lagom_search_no_workload(hw, nodes, gpus_per_node, opts,
						out, err);
	if ((rc = check_args(hw, nodes, &gpus_per_node, out, err)) < 0 ||
	    (rc = check_fits(w, nodes, nodes * gpus_per_node, err)) < 0)
		return rc;
	if (!(plan = calloc(1, sizeof(*plan))))
		return lagom_errprintf(err, ENOMEM, "out of memory");
	plan->nodes = nodes;
	plan->ranks = nodes * gpus_per_node;
	plan->tensor_parallel = has_tp(w);
	for (size_t i = 0; i + 1 < LAGOM_NAME_MAX && w->name[i]; i++)
		plan->workload[i] = w->name[i];
	if ((rc = sproblem_init(&p, hw, w, opts, err)) < 0)
		goto fail;
	rc = plan_workload(&p, plan);
	sproblem_fini(&p);
	if (rc < 0 || (rc = search_check_encodable(plan, err)) < 0)
		goto fail;
	finish_plan(plan);
	*out = plan;
	return 0;
fail:
	free(plan);
	return rc;
}

void lagom_search_plan_destroy(struct lagom_plan *plan)
{
	free(plan);
}
