/*
 * tests/search/search_report.c - prints the search's figures for the
 * record: greedy against the exhaustive optimum (synthetic regions and the
 * real model), and the paper's workloads on the A40 test bed.
 *
 *   tests/search/search_report
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/search/paper.h"
#include "catalog/catalog.h"

static int print_compare(void)
{
	struct sc_summary s;
	struct model_summary m;

	if (sc_compare(0x1a60u, 1200, 3, 10, 32, &s) < 0 ||
	    model_compare(0x5eedu, 1000, &m) < 0)
		return -1;
	printf("greedy vs exhaustive\n");
	printf("  %-12s %6s %10s %8s %8s %8s %8s %8s\n", "scenarios", "count",
	       "within1%", "worst", "evals", "sum|R|", "prod|R|", "excess");
	printf("  %-12s %6u %9.2f%% %8.4f %8.1f %8.1f %8.1f %8u\n", "synthetic",
	       s.count, 100.0 * s.within_1pct / s.count, s.worst_ratio,
	       s.mean_evals, s.mean_sum_r, s.mean_prod_r, s.max_excess);
	printf("  %-12s %6u %9.2f%% %8.4f %8.1f %8.1f %8.1f %8lu\n",
	       "real model", m.count,
	       m.count ? 100.0 * m.within_1pct / m.count : 0, m.worst_ratio,
	       m.mean_evals, m.mean_sum_r, m.mean_prod_r, m.max_excess);
	return 0;
}

static int print_paper(void)
{
	printf("\npredicted speedups, 2 nodes x 8 A40 (A: NVLink + 2x400G IB,"
	       " B: PCIe + 100G IB)\n");
	printf("  %-2s %-26s %-5s %9s %9s %9s %6s %6s %8s\n", "cl", "workload",
	       "par", "vs NCCL", "vs comm", "env-only", "maxCTA", "nthr",
	       "buffsize");
	for (int b = 0; b < 2; b++) {
		struct lagom_hw hw;

		if (paper_hw(b, &hw) < 0)
			return -1;
		for (size_t i = 0; i < PAPER_N; i++) {
			struct lagom_workload *w = NULL;
			struct lagom_plan *p = NULL;
			struct lagom_error err = { 0 };

			if (lagom_workload_from_name(paper_workloads[i], &hw, 2,
						     8, &w, &err) < 0 ||
			    lagom_search_plan(&hw, w, 2, 8, NULL, &p, &err) <
				    0) {
				printf("  %s: %s\n", paper_workloads[i],
				       err.text);
				lagom_workload_destroy(w);
				continue;
			}
			printf("  %-2s %-26s %-5s %8.3fx %8.3fx %8.3fx %6u %6u "
			       "%8llu\n",
			       b ? "B" : "A", paper_workloads[i],
			       paper_par(paper_workloads[i]), p->speedup_nccl,
			       p->speedup_comm_only,
			       p->nccl_s / p->lagom_env_only_s, p->env.max_ctas,
			       p->env.nthreads,
			       (unsigned long long)p->env.buffsize_bytes);
			lagom_search_plan_destroy(p);
			lagom_workload_destroy(w);
		}
	}
	return 0;
}

int main(void)
{
	if (print_compare() < 0 || print_paper() < 0) {
		fprintf(stderr, "search_report: failed\n");
		return 1;
	}
	return 0;
}
