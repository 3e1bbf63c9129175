/*
 * tests/search/paper.h - the paper's test bed and workloads (lagom-method.md
 * section 5) and random small workloads through the real cost model, shared
 * by test_search and search_report.
 */
#ifndef LAGOM_TESTS_SEARCH_PAPER_H
#define LAGOM_TESTS_SEARCH_PAPER_H

#include <errno.h>
#include <string.h>

#include "search/search.h"
#include "tests/search/scenarios.h"

static const char *const paper_workloads[] = {
	"phi-2:fsdp,mb2",	    "llama-3.1-8b:fsdp,mb1",
	"mpt-7b:fsdp,mb1",	    "phi-2:tp8,mb8",
	"llama-3.1-8b:tp8,mb4",	    "mpt-7b:tp8,mb2",
	"deepseek-moe-16b:ep8,mb2", "olmoe-1b-7b:ep8,mb2",
};
#define PAPER_N (sizeof(paper_workloads) / sizeof(*paper_workloads))

/* Cluster A: NVLink + 2 x 400 Gb/s IB; cluster B: PCIe + 100 Gb/s IB. */
static inline int paper_hw(int cluster_b, struct lagom_hw *hw)
{
	return cluster_b ? lagom_hw_from_spec("A40", 8, LAGOM_INTRA_PCIE, 1,
					      100, hw, NULL)
			 : lagom_hw_from_spec("A40", 8, LAGOM_INTRA_NVLINK, 2,
					      400, hw, NULL);
}

/* "fsdp", "tp", "ep" from a workload name. */
static inline const char *paper_par(const char *name)
{
	return strstr(name, "fsdp") ? "fsdp" : strstr(name, "tp") ? "tp" : "ep";
}

/* A random one-region workload on 2 x 8 ranks small enough for the
 * exhaustive search. */
static inline struct lagom_workload *rand_workload(uint64_t *s)
{
	static const enum lagom_coll colls[] = { LAGOM_COLL_ALLGATHER,
						 LAGOM_COLL_REDUCESCATTER,
						 LAGOM_COLL_ALLREDUCE };
	struct lagom_workload *w = lagom_workload_create("random", 1);
	struct lagom_region *r;
	unsigned nk, nc;

	if (!w)
		return NULL;
	r = &w->regions[0];
	memcpy(r->name, "region", sizeof("region"));
	r->repeat = sc_range(s, 1, 32);
	nk = sc_range(s, 1, 2);
	nc = sc_range(s, 1, 3);
	for (unsigned k = 0; k < nk; k++)
		r->kernels[k] = (struct lagom_kernel){
			.time_s = 1e-4 * (5 + 95 * sc_unit(s)),
			.grid_blocks = sc_range(s, 0, 1) ? 0
							 : sc_range(s, 40, 700),
			.blocks_per_sm = sc_range(s, 1, 2),
			.mem_bound = sc_unit(s),
		};
	r->nkernels = nk;
	for (unsigned j = 0; j < nc; j++) {
		r->colls[j] = (struct lagom_region_coll){
			.coll = colls[sc_range(s, 0, 2)],
			.bytes = (uint64_t)sc_range(s, 1, 64) << 20,
			.comm = { .ranks = 16,
				  .nodes = 2,
				  .ranks_per_node = 8,
				  .hops = LAGOM_HOPS_SAME_LEAF },
			.ready_s = j ? 1e-4 * 20 * sc_unit(s) : 0,
		};
		if (j && r->colls[j].ready_s < r->colls[j - 1].ready_s)
			r->colls[j].ready_s = r->colls[j - 1].ready_s;
	}
	r->ncolls = nc;
	return w;
}

struct model_summary {
	unsigned count, within_1pct, skipped;
	double worst_ratio, mean_evals, mean_sum_r, mean_prod_r;
	unsigned long max_excess;
	unsigned cases[3];
};

/* Greedy vs exhaustive through the real model (channels up to 8 so the
 * product stays small). */
static inline int model_compare(uint64_t seed, unsigned count,
				struct model_summary *m)
{
	struct lagom_search_opts o = { .max_nchannels = 8 };
	struct lagom_hw hw;
	uint64_t s = seed;
	int rc;

	memset(m, 0, sizeof(*m));
	m->worst_ratio = 1;
	if ((rc = paper_hw(0, &hw)) < 0)
		return rc;
	for (unsigned k = 0; k < count; k++) {
		struct lagom_workload *w = rand_workload(&s);
		struct lagom_search_stats g, x;
		uint64_t buff = sc_range(&s, 0, 1) ? 0 : 1u << 20;
		double ratio;

		if (!w)
			return -ENOMEM;
		rc = lagom_search_compare(&hw, w, &o, buff, false, 0, &g, NULL);
		if (rc == 0)
			rc = lagom_search_compare(&hw, w, &o, buff, true,
						  100000, &x, NULL);
		lagom_workload_destroy(w);
		if (rc < 0) {
			m->skipped++;
			continue;
		}
		ratio = g.time_s / x.time_s;
		m->count++;
		for (int c = 0; c < 3; c++)
			m->cases[c] += g.cases[c];
		m->within_1pct += ratio <= 1.01;
		if (ratio > m->worst_ratio)
			m->worst_ratio = ratio;
		m->mean_evals += g.evals;
		m->mean_sum_r += g.cand_total;
		m->mean_prod_r += x.cand_product;
		if (g.evals > g.cand_total &&
		    g.evals - g.cand_total > m->max_excess)
			m->max_excess = g.evals - g.cand_total;
	}
	if (m->count) {
		m->mean_evals /= m->count;
		m->mean_sum_r /= m->count;
		m->mean_prod_r /= m->count;
	}
	return 0;
}

#endif /* LAGOM_TESTS_SEARCH_PAPER_H */
