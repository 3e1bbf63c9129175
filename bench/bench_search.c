/*
 * bench/bench_search.c - median time to plan: each paper workload (2 x 8
 * A40), and a 1024-node x 8-GPU job with 64 collective classes.  Prints;
 * asserts nothing about speed.
 *
 *   bench/bench_search [repeats]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search/search.h"
#include "catalog/catalog.h"

static const char *const workloads[] = {
	"phi-2:fsdp,mb2",	    "llama-3.1-8b:fsdp,mb1",
	"mpt-7b:fsdp,mb1",	    "phi-2:tp8,mb8",
	"llama-3.1-8b:tp8,mb4",	    "mpt-7b:tp8,mb2",
	"deepseek-moe-16b:ep8,mb2", "olmoe-1b-7b:ep8,mb2",
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median wall time of lagom_search_plan over reps runs; -1 on error. */
static double median_plan(const struct lagom_hw *hw,
			  const struct lagom_workload *w, unsigned nodes,
			  int reps, unsigned long *evals)
{
	double t[64];

	if (reps > 64)
		reps = 64;
	for (int i = 0; i < reps; i++) {
		struct lagom_plan *p = NULL;
		struct lagom_error err = { 0 };
		double t0 = now_s();

		if (lagom_search_plan(hw, w, nodes, 8, NULL, &p, &err) < 0) {
			fprintf(stderr, "bench_search: %s\n", err.text);
			return -1;
		}
		t[i] = now_s() - t0;
		*evals = p->evals;
		lagom_search_plan_destroy(p);
	}
	qsort(t, (size_t)reps, sizeof(*t), dcmp);
	return t[reps / 2];
}

/* 16 regions x 4 collectives of distinct sizes: 64 classes. */
static struct lagom_workload *big_workload(void)
{
	struct lagom_workload *w = lagom_workload_create("synthetic-64", 16);
	const struct lagom_comm world = { .ranks = 8192,
					  .nodes = 1024,
					  .ranks_per_node = 8,
					  .hops = LAGOM_HOPS_SPINE };
	const struct lagom_comm node = { .ranks = 8,
					 .nodes = 1,
					 .ranks_per_node = 8,
					 .hops = LAGOM_HOPS_SAME_NODE };

	if (!w)
		return NULL;
	for (unsigned r = 0; r < 16; r++) {
		struct lagom_region *g = &w->regions[r];

		snprintf(g->name, sizeof(g->name), "layer-group-%u", r);
		g->repeat = 4;
		g->nkernels = 2;
		g->kernels[0] = (struct lagom_kernel){ .time_s = 2e-3 +
								 1e-4 * r,
						       .grid_blocks = 432,
						       .mem_bound = 0.2 };
		g->kernels[1] = (struct lagom_kernel){ .time_s = 1e-3,
						       .grid_blocks = 0,
						       .mem_bound = 0.6 };
		g->ncolls = 4;
		for (unsigned j = 0; j < 4; j++)
			g->colls[j] = (struct lagom_region_coll){
				.coll = j < 2 ? LAGOM_COLL_ALLGATHER + j
					      : LAGOM_COLL_ALLREDUCE,
				.bytes = ((uint64_t)(r + 1) << 20) * (j + 1),
				.comm = j < 3 ? world : node,
				.ready_s = 2e-4 * j,
			};
	}
	w->serial_s = 5e-3;
	return w;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 9;
	struct lagom_hw hw;
	struct lagom_workload *w;
	unsigned long evals = 0;
	double t;

	if (reps < 1)
		reps = 1;
	if (lagom_hw_from_spec("A40", 8, LAGOM_INTRA_NVLINK, 2, 400, &hw,
			       NULL) < 0)
		return 1;
	printf("median time to plan (%d runs, one core)\n", reps);
	for (size_t i = 0; i < sizeof(workloads) / sizeof(*workloads); i++) {
		w = NULL;
		if (lagom_workload_from_name(workloads[i], &hw, 2, 8, &w,
					     NULL) < 0)
			return 1;
		t = median_plan(&hw, w, 2, reps, &evals);
		lagom_workload_destroy(w);
		if (t < 0)
			return 1;
		printf("  %-28s 2 x 8     %9.3f ms  %7lu region evaluations\n",
		       workloads[i], t * 1e3, evals);
	}
	if (lagom_hw_from_spec("H100-SXM", 8, LAGOM_INTRA_DEFAULT, 8, 400, &hw,
			       NULL) < 0 ||
	    !(w = big_workload()))
		return 1;
	t = median_plan(&hw, w, 1024, reps, &evals);
	lagom_workload_destroy(w);
	if (t < 0)
		return 1;
	/* srun plans once per step (doc/consistency.md): the search runs
	 * once for the whole step, not once on every node. */
	printf("  %-28s 1024 x 8  %9.3f ms  %7lu region evaluations "
	       "(once per step, in srun: %.2f us per node)\n",
	       "64 classes (H100)", t * 1e3, evals, t * 1e6 / 1024);
	return 0;
}
