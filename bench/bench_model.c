/*
 * bench/bench_model.c - cost of one collective prediction, one NCCL-default
 * choice, one region and one iteration prediction (ns, median of 31 runs of
 * many calls each).  The search calls these thousands of times per plan.
 * Prints figures only; asserts nothing about speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model/model.h"
#include "catalog/catalog.h"

#define RUNS 31

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct ctx {
	struct lagom_hw hw;
	struct lagom_comm comm;
	struct lagom_workload *w;
	struct lagom_coll_config *cfgs;
	volatile double sink;
};

static void one_predict(struct ctx *c, unsigned i)
{
	struct lagom_coll_config cfg = { .algo = LAGOM_ALGO_RING,
					 .proto = LAGOM_PROTO_SIMPLE,
					 .nchannels = 1 + i % 32 };
	struct lagom_coll_time t;

	lagom_coll_predict(&c->hw, &c->comm, LAGOM_COLL_ALLGATHER,
			   (64ull << 20) + i, &cfg, &t, NULL);
	c->sink = t.time_s;
}

static void one_default(struct ctx *c, unsigned i)
{
	struct lagom_coll_config cfg;

	lagom_nccl_default(&c->hw, &c->comm, LAGOM_COLL_ALLREDUCE,
			   (1ull << 20) + i, &cfg, NULL);
	c->sink = cfg.nchannels;
}

static void one_region(struct ctx *c, unsigned i)
{
	struct lagom_region_time t;

	lagom_region_time(&c->hw, &c->w->regions[i % c->w->nregions], NULL, &t,
			  NULL);
	c->sink = t.z_s;
}

static void one_iteration(struct ctx *c, unsigned i)
{
	double t;

	c->cfgs[0].nchannels = 1 + i % 16;
	lagom_iteration_time(&c->hw, c->w, c->cfgs, &t, NULL);
	c->sink = t;
}

static void measure(const char *what, struct ctx *c,
		    void (*fn)(struct ctx *, unsigned), unsigned calls)
{
	double ns[RUNS];

	for (int r = 0; r < RUNS; r++) {
		double t0 = now_ns();
		for (unsigned i = 0; i < calls; i++)
			fn(c, i);
		ns[r] = (now_ns() - t0) / calls;
	}
	qsort(ns, RUNS, sizeof(ns[0]), cmp);
	printf("%-44s %10.0f ns (median of %d x %u calls)\n", what,
	       ns[RUNS / 2], RUNS, calls);
}

int main(void)
{
	struct ctx c = { .comm = { .ranks = 16,
				   .nodes = 2,
				   .ranks_per_node = 8,
				   .hops = LAGOM_HOPS_SAME_LEAF } };
	struct lagom_error err = { 0 };
	size_t ncolls;

	if (lagom_hw_from_spec("A40", 8, LAGOM_INTRA_NVLINK, 2, 400, &c.hw,
			       &err) ||
	    lagom_workload_from_name("phi-2:fsdp,mb2", &c.hw, 2, 0, &c.w,
				     &err)) {
		fprintf(stderr, "bench_model: %s\n", err.text);
		return 1;
	}
	ncolls = lagom_workload_coll_count(c.w);
	c.cfgs = calloc(ncolls, sizeof(*c.cfgs));
	if (!c.cfgs)
		return 1;
	for (size_t j = 0; j < ncolls; j++)
		c.cfgs[j] = (struct lagom_coll_config){
			.algo = LAGOM_ALGO_RING,
			.proto = LAGOM_PROTO_SIMPLE,
			.nchannels = 4,
			.chunk_bytes = 1 << 20
		};
	measure("lagom_coll_predict (allgather, 16 ranks)", &c, one_predict,
		20000);
	measure("lagom_nccl_default (allreduce, 16 ranks)", &c, one_default,
		5000);
	measure("lagom_region_time (phi-2 fsdp, NCCL cfg)", &c, one_region,
		2000);
	measure("lagom_iteration_time (phi-2 fsdp, given)", &c, one_iteration,
		2000);
	printf("(%zu regions, %zu collectives per iteration)\n", c.w->nregions,
	       ncolls);
	free(c.cfgs);
	lagom_workload_destroy(c.w);
	return 0;
}
