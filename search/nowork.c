/*
 * search/nowork.c - the plan when no workload is named: the global values
 * whose worst predicted slowdown against NCCL's defaults over the catalog's
 * example workloads is smallest (doc/search.md, "No workload").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "search/search_int.h"
#include "catalog/catalog.h"

static const uint64_t nw_buff[] = { 0, 2u << 20, 1u << 20, 512u << 10 };
#define N_NW_BUFF (sizeof(nw_buff) / sizeof(*nw_buff))

struct nw_case {
	struct lagom_workload *w;
	struct sproblem p;
	struct lagom_coll_config *def; /* NCCL's default per class */
	struct lagom_coll_config *cfg; /* scratch */
	double nccl_s;
};

static int nw_case_init(struct nw_case *c, const struct lagom_hw *hw,
			const char *name, unsigned nodes, unsigned gpn,
			const struct lagom_search_opts *opts)
{
	int rc;

	/*
	 * An example that does not fit the step is skipped (1), but running
	 * out of memory is an error: a node that skipped an example for that
	 * reason would plan differently from its peers.
	 */
	memset(c, 0, sizeof(*c));
	rc = lagom_workload_from_name(name, hw, nodes, gpn, &c->w, NULL);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return 1;
	if ((rc = sproblem_init(&c->p, hw, c->w, opts, NULL)) < 0)
		return rc;
	c->def = calloc(c->p.nclass + 1, sizeof(*c->def));
	c->cfg = calloc(c->p.nclass + 1, sizeof(*c->cfg));
	if (!c->def || !c->cfg)
		return -ENOMEM;
	for (size_t j = 0; j < c->p.nclass; j++) {
		rc = lagom_nccl_default(hw, &c->p.cls[j].comm, c->p.cls[j].coll,
					c->p.cls[j].bytes, &c->def[j], NULL);
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0)
			return 1;
	}
	sproblem_apply(&c->p, c->def);
	rc = sproblem_iteration(&c->p, &c->nccl_s);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0 || c->nccl_s <= 0)
		return 1;
	return 0;
}

static void nw_case_fini(struct nw_case *c)
{
	sproblem_fini(&c->p);
	free(c->def);
	free(c->cfg);
	lagom_workload_destroy(c->w);
}

/* Predicted time of one case with a channel cap and a buffer size. */
static int nw_time(struct nw_case *c, unsigned cap, uint64_t buff, double *t_s)
{
	for (size_t j = 0; j < c->p.nclass; j++) {
		c->cfg[j] = c->def[j];
		if (cap && c->cfg[j].nchannels > cap)
			c->cfg[j].nchannels = cap;
		if (buff)
			c->cfg[j].chunk_bytes = search_chunk_bytes(
				buff, c->cfg[j].algo, c->cfg[j].proto,
				c->p.cls[j].bytes);
	}
	sproblem_apply(&c->p, c->cfg);
	return sproblem_iteration(&c->p, t_s);
}

/* The worst ratio (time / NCCL's) over the cases for one candidate. */
static int nw_worst(struct nw_case *cases, size_t n, unsigned cap,
		    uint64_t buff, double *worst, size_t *which)
{
	*worst = 0;
	*which = 0;
	for (size_t i = 0; i < n; i++) {
		double t;
		int rc;

		if (!cases[i].w)
			continue;
		if ((rc = nw_time(&cases[i], cap, buff, &t)) < 0)
			return rc;
		if (t / cases[i].nccl_s > *worst) {
			*worst = t / cases[i].nccl_s;
			*which = i;
		}
	}
	return 0;
}

static int nw_choose(struct nw_case *cases, size_t n, struct lagom_plan *plan)
{
	const unsigned *grid;
	double best = 1, worst;
	size_t which, bwhich = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		if (cases[i].w) {
			bwhich = i;
			break;
		}
	grid = cases[bwhich].p.nchannels_grid;
	for (size_t b = 0; b < N_NW_BUFF; b++)
		for (unsigned g = 0; g <= cases[bwhich].p.n_nchannels; g++) {
			unsigned cap = g ? grid[g - 1] : 0;

			if ((rc = nw_worst(cases, n, cap, nw_buff[b], &worst,
					   &which)) < 0)
				return rc;
			if (lse_less(worst, best)) {
				best = worst;
				plan->env.env_max_ctas = cap;
				plan->env.env_buffsize_bytes = nw_buff[b];
				bwhich = which;
			}
		}
	if (!(best < 1 - cases[bwhich].p.min_gain)) {
		best = 1; /* not worth leaving NCCL's defaults */
		plan->env.env_max_ctas = 0;
		plan->env.env_buffsize_bytes = 0;
		if ((rc = nw_worst(cases, n, 0, 0, &worst, &bwhich)) < 0)
			return rc;
	}
	plan->nccl_s = cases[bwhich].nccl_s;
	plan->lagom_env_only_s = plan->nccl_s * best;
	plan->lagom_s = plan->comm_only_s = plan->lagom_env_only_s;
	memcpy(plan->workload, "(catalog)", sizeof("(catalog)"));
	return 0;
}

int lagom_search_no_workload(const struct lagom_hw *hw, unsigned nodes,
			     unsigned gpus_per_node,
			     const struct lagom_search_opts *opts,
			     struct lagom_plan **out, struct lagom_error *err)
{
	size_t n = 0, i, used = 0;
	const char *const *names = NULL;
	struct nw_case *cases = NULL;
	struct lagom_plan *plan = NULL;
	int rc = 0;

	if (!hw || !out)
		return lagom_errprintf(err, EINVAL, "no hardware or plan");
	if (gpus_per_node == 0)
		gpus_per_node = hw->gpus_per_node;
	if (nodes == 0 || gpus_per_node == 0)
		return lagom_errprintf(err, EINVAL, "empty step");
	names = lagom_workload_examples(&n);
	cases = calloc(n + 1, sizeof(*cases));
	plan = calloc(1, sizeof(*plan));
	if (!cases || !plan) {
		rc = lagom_errprintf(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n && rc == 0; i++) {
		rc = nw_case_init(&cases[i], hw, names[i], nodes, gpus_per_node,
				  opts);
		if (rc > 0) {
			nw_case_fini(&cases[i]);
			memset(&cases[i], 0, sizeof(cases[i]));
			rc = 0;
		} else if (rc == 0) {
			used++;
		}
	}
	plan->nodes = nodes;
	plan->ranks = nodes * gpus_per_node;
	plan->no_workload = true;
	if (rc == 0 && used)
		rc = nw_choose(cases, n, plan);
	if (rc < 0 || (rc = search_check_encodable(plan, err)) < 0) {
		if (!err || !err->errnum)
			lagom_errprintf(err, -rc, "no-workload plan failed");
		goto out;
	}
	plan->speedup_nccl = plan->speedup_comm_only =
		plan->lagom_env_only_s > 0
			? plan->nccl_s / plan->lagom_env_only_s
			: 1;
	*out = plan;
	plan = NULL;
out:
	for (i = 0; cases && i < n; i++)
		if (cases[i].w)
			nw_case_fini(&cases[i]);
	free(cases);
	free(plan);
	return rc;
}
