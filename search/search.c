/*
 * search/search.c - per-class candidate tables from the cost model and the
 * search of each component (lagom-method.md section 3).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "search/search_int.h"

/*
 * Collective time per call of implementation i of class j at every channel
 * count of the grid, into x; *c receives the configuration (nchannels:
 * the grid's first).  LL and LL128 times do not depend on the global values
 * (without NCCL_NTHREADS): computed for the first buffer size, then cached.
 */
static int impl_times(struct sproblem *p, size_t j, unsigned i,
		      struct lagom_coll_config *c, double *x)
{
	const struct sclass *k = &p->cls[j];
	double *cache = &p->xcache[(j * SEARCH_IMPLS + i) * p->n_nchannels];
	bool fixed = i % LAGOM_PROTO_COUNT != LAGOM_PROTO_SIMPLE &&
		     !p->nthreads;
	struct lagom_coll_time t;
	int rc;

	*c = (struct lagom_coll_config){
		.algo = (enum lagom_algo)(i / LAGOM_PROTO_COUNT),
		.proto = (enum lagom_proto)(i % LAGOM_PROTO_COUNT),
		.nchannels = p->nchannels_grid[0],
		.nthreads = p->nthreads,
	};
	c->chunk_bytes = search_chunk_bytes(p->buffsize_bytes, c->algo,
					    c->proto, k->bytes);
	if (fixed && cache[0] >= 0) {
		memcpy(x, cache, p->n_nchannels * sizeof(*x));
		return 0;
	}
	if (p->valid) { /* valid by construction */
		lagom_coll_times_s_nocheck(p->hw, &k->comm, k->coll, k->bytes,
					   c, p->nchannels_grid, p->n_nchannels,
					   x);
	} else {
		for (unsigned n = 0; n < p->n_nchannels; n++) {
			struct lagom_coll_config cn = *c;

			cn.nchannels = p->nchannels_grid[n];
			rc = lagom_coll_predict(p->hw, &k->comm, k->coll,
						k->bytes, &cn, &t, p->err);
			if (rc < 0)
				return rc;
			x[n] = t.time_s;
		}
	}
	if (fixed)
		memcpy(cache, x, p->n_nchannels * sizeof(*x));
	return 0;
}

/*
 * Implementation parameters (method 3, step 1): at each channel count, the
 * algorithm and protocol NCCL allows with the lowest predicted time (ties:
 * the lower index).  The computation slowdown depends on channels and
 * chunk, not on the algorithm, so the fastest implementation at a given
 * resource setting also costs the computation least: choosing it per
 * channel count loses nothing.
 */
static int class_tables(struct sproblem *p, size_t j)
{
	double x[SEARCH_IMPLS][SEARCH_NCHANNELS_GRID_MAX];
	struct lagom_coll_config c[SEARCH_IMPLS];
	unsigned n = 0, m, nci;
	int rc;

	for (unsigned i = 0; i < SEARCH_IMPLS; i++)
		if (p->cls[j].impl_mask & (1u << i)) {
			if ((rc = impl_times(p, j, i, &c[n], x[n])) < 0)
				return rc;
			n++;
		}
	if (n == 0)
		return lagom_errprintf(p->err, EINVAL,
				       "%s: no algorithm/protocol allowed",
				       lagom_coll_name(p->cls[j].coll));
	for (nci = 0; nci < p->n_nchannels; nci++) {
		size_t t = j * p->n_nchannels + nci;
		unsigned b = 0;

		for (m = 1; m < n; m++)
			if (lse_less(x[m][nci], x[b][nci]))
				b = m;
		p->table_cfg[t] = c[b];
		p->table_cfg[t].nchannels = p->nchannels_grid[nci];
		p->table_x1[t] = x[b][nci];
		p->table_x[t] = x[b][nci] * p->cls[j].calls;
		p->table_cost[t] = 0;
	}
	return 0;
}

/*
 * Computation time one occurrence adds when it runs alone beside its
 * region's kernels: while it runs (at most as long as the computation),
 * the computation advances at 1 / (1 + s), s from the model's contention.
 */
static int occ_cost(struct sproblem *p, const struct lagom_region *r,
		    const struct lagom_region_coll *c,
		    const struct lagom_coll_config *cfg, double x_s,
		    double *cost_s)
{
	double alone = 0, slowed = 0, s, overlap;
	double mem_Bps = x_s > 0 ? lagom_coll_mem_bytes(&c->comm, c->coll,
							c->bytes, cfg->proto) /
					   x_s
				 : 0;
	size_t k;
	int rc;

	for (k = 0; k < r->nkernels; k++) {
		double t;

		if (p->valid)
			t = lagom_kernel_time_s_nocheck(
				p->hw, &r->kernels[k], cfg->nchannels,
				cfg->chunk_bytes, mem_Bps);
		else if ((rc = lagom_compute_time_rate(
				  p->hw, &r->kernels[k], cfg->nchannels,
				  cfg->chunk_bytes, mem_Bps, &t, p->err)) < 0)
			return rc;
		alone += r->kernels[k].time_s;
		slowed += t;
	}
	if (alone <= 0) {
		*cost_s = 0;
		return 0;
	}
	s = slowed / alone - 1;
	overlap = x_s < alone ? x_s : alone;
	*cost_s = (r->repeat ? r->repeat : 1) * overlap * s / (1 + s);
	return 0;
}

static int fill_tables(struct sproblem *p)
{
	size_t j, i, o;
	int rc;

	for (j = 0; j < p->nclass; j++)
		if ((rc = class_tables(p, j)) < 0)
			return rc;
	for (o = 0; o < p->w->nregions; o++) {
		const struct lagom_region *r = &p->w->regions[o];

		for (size_t k = 0; k < r->ncolls; k++) {
			j = p->occ_class[p->region_first[o] + k];
			for (i = 0; i < p->n_nchannels; i++) {
				size_t t = j * p->n_nchannels + i;
				double c;

				rc = occ_cost(
					p, r, &r->colls[k], &p->table_cfg[t],
					p->table_x[t] / p->cls[j].calls, &c);
				if (rc < 0)
					return rc;
				p->table_cost[t] += c;
			}
		}
	}
	return 0;
}

struct comp_ctx {
	struct sproblem *p;
	unsigned comp;
	const unsigned *members; /* class indices */
	unsigned n;
};

/* One model evaluation: the component's regions with choice applied. */
static int comp_eval(void *vctx, const unsigned *choice, struct lse_eval *out)
{
	struct comp_ctx *c = vctx;
	struct sproblem *p = c->p;
	struct lse_eval e = { .hidden = 1, .exposed = 1 };
	size_t i;
	int rc;

	for (i = 0; i < c->n; i++)
		p->choice[c->members[i]] = choice[i];
	for (i = 0; i < p->w->nregions; i++) {
		unsigned r = p->region_order[i], rep;
		const struct lagom_region *reg = &p->w->regions[r];
		struct lagom_region_time rt;
		double x[LAGOM_REGION_MAX_COLLS];
		bool known = true;

		if (p->region_comp[r] != c->comp)
			continue;
		for (size_t k = 0; k < reg->ncolls; k++) {
			size_t o = p->region_first[r] + k;
			size_t t = p->occ_class[o] * p->n_nchannels +
				   p->choice[p->occ_class[o]];

			p->cfg[o] = p->table_cfg[t];
			x[k] = p->table_x1[t];
			known = known && p->occ_class_comm[o];
		}
		rc = sproblem_region(p, r, known ? x : NULL, &rt);
		if (rc < 0)
			return rc;
		rep = reg->repeat ? reg->repeat : 1;
		e.x_s += rep * rt.x_s;
		e.y_s += rep * rt.y_s;
		e.z_s += rep * rt.z_s;
		e.hidden &= !lse_less(rt.y_s, rt.x_s);
		e.exposed &= !lse_less(rt.x_s, rt.y_s);
	}
	*out = e;
	return 0;
}

static void record_trace(struct sproblem *p, const struct comp_ctx *c,
			 const struct lse_move *moves, unsigned n,
			 struct lagom_plan *plan)
{
	for (unsigned s = 0; s < n && plan->nmoves < LAGOM_PLAN_MAX_MOVES;
	     s++) {
		const struct lse_move *st = &moves[s];
		unsigned j = c->members[st->coll < c->n ? st->coll : 0];

		plan->moves[plan->nmoves++] = (struct lagom_search_move){
			.kind = (enum lagom_search_move_kind)st->kind,
			.coll = j,
			.from_nchannels = p->nchannels_grid[st->from],
			.to_nchannels = p->nchannels_grid[st->to],
			.h = st->h,
			.x_s = st->eval.x_s,
			.y_s = st->eval.y_s,
			.z_s = st->eval.z_s,
		};
	}
}

static int search_comp(struct sproblem *p, struct comp_ctx *c,
		       struct lse_coll *colls, unsigned *choice,
		       bool exhaustive, unsigned long max_evals,
		       struct lagom_search_stats *stats,
		       struct lagom_plan *trace)
{
	struct lse_move moves[LAGOM_PLAN_MAX_MOVES];
	struct lse_opts o = { .refine_budget = p->refine_budget,
			      .trace = trace ? moves : NULL,
			      .trace_max = LAGOM_PLAN_MAX_MOVES };
	struct lse_result res;
	unsigned i;
	int rc;

	for (i = 0; i < c->n; i++) {
		size_t t = c->members[i] * p->n_nchannels;

		colls[i] = (struct lse_coll){ .n_cand = p->n_nchannels,
					      .x_s = &p->table_x[t],
					      .cost_s = &p->table_cost[t] };
	}
	rc = exhaustive
		     ? lse_exhaustive(colls, c->n, comp_eval, c, max_evals,
				      choice, &res)
		     : lse_search(colls, c->n, comp_eval, c, &o, choice, &res);
	if (rc < 0)
		return rc == -ERANGE ? lagom_errprintf(p->err, ERANGE,
						       "too many combinations")
				     : rc;
	for (i = 0; i < c->n; i++)
		p->choice[c->members[i]] = choice[i];
	if (stats) {
		stats->evals += res.evals;
		if (!exhaustive)
			stats->cases[res.endpoint_case]++;
		for (i = 0; i < c->n; i++) {
			stats->cand_total += colls[i].n_cand;
			stats->cand_product *= colls[i].n_cand;
		}
	}
	if (trace) {
		record_trace(p, c, moves, res.trace_count, trace);
		trace->moves_total += res.moves_total;
	}
	return 0;
}

int sproblem_search(struct sproblem *p, bool exhaustive,
		    unsigned long max_evals, double *time_s,
		    struct lagom_search_stats *stats, struct lagom_plan *trace)
{
	unsigned *members = calloc(p->nclass + 1, sizeof(*members));
	unsigned *choice = calloc(p->nclass + 1, sizeof(*choice));
	struct lse_coll *colls = calloc(p->nclass + 1, sizeof(*colls));
	struct comp_ctx c = { .p = p, .members = members };
	size_t j;
	int rc;

	if (!members || !choice || !colls) {
		rc = lagom_errprintf(p->err, ENOMEM, "out of memory");
		goto out;
	}
	if (stats)
		*stats = (struct lagom_search_stats){ .cand_product = 1 };
	if ((rc = fill_tables(p)) < 0)
		goto out;
	for (c.comp = 0; c.comp < p->ncomp; c.comp++) {
		for (c.n = 0, j = 0; j < p->nclass; j++)
			if (p->cls[j].comp == c.comp)
				members[c.n++] = (unsigned)j;
		rc = search_comp(p, &c, colls, choice, exhaustive, max_evals,
				 stats, trace);
		if (rc < 0)
			goto out;
	}
	for (j = 0; j < p->nocc; j++)
		p->cfg[j] = p->table_cfg[p->occ_class[j] * p->n_nchannels +
					 p->choice[p->occ_class[j]]];
	rc = sproblem_iteration(p, time_s);
	if (rc == 0 && stats)
		stats->time_s = *time_s;
out:
	free(members);
	free(choice);
	free(colls);
	return rc;
}

int lagom_search_compare(const struct lagom_hw *hw,
			 const struct lagom_workload *w,
			 const struct lagom_search_opts *opts,
			 uint64_t buffsize_bytes, bool exhaustive,
			 unsigned long max_evals,
			 struct lagom_search_stats *stats,
			 struct lagom_error *err)
{
	struct sproblem p;
	struct lagom_search_stats s;
	double t;
	int rc;

	if (!stats)
		return lagom_errprintf(err, EINVAL, "no stats");
	if ((rc = sproblem_init(&p, hw, w, opts, err)) < 0)
		return rc;
	p.buffsize_bytes = buffsize_bytes;
	rc = sproblem_search(&p, exhaustive, max_evals, &t, &s, NULL);
	if (rc == 0)
		*stats = s;
	sproblem_fini(&p);
	return rc;
}
