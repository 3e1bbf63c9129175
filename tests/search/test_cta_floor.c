/*
 * tests/search/test_cta_floor.c - a table profile never pins fewer CTAs
 * than NCCL's own choice for a collective on the critical path (issue 32,
 * doc/model.md 2.8, doc/search.md).
 *
 * Over every GPU of the built-in table (8 per node, its usual fabric, one
 * and two nodes) and every example workload of the catalog: each class the
 * plan tunes to fewer channels than lagom_nccl_default() gives must not be
 * on the critical path under NCCL's defaults, i.e. making its calls 5 %
 * longer (lagom_comm.time_scale) must not lengthen the predicted
 * iteration.  A class off the critical path may take fewer CTAs: that is
 * the method's trade (its communication hides behind computation).
 * The error gate holds back a class whose gain is inside the model's error.
 * Also the issue's repro: on 8 x B200, 16 channels move an all-gather of
 * 64 MiB slower than 32, and phi-2:fsdp / olmoe-1b-7b:ep8,mb2 pin no
 * class below NCCL's count.
 */
#include "tests/lib/lagom_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "catalog/catalog.h"
#include "search/search.h"

static bool same_class(const struct lagom_region_coll *o,
		       const struct lagom_plan_coll *c)
{
	return o->coll == c->coll && o->bytes == c->bytes &&
	       o->comm.ranks == c->comm.ranks && o->comm.nodes == c->comm.nodes;
}

/* The class's calls 5 % longer lengthen the iteration under NCCL's
 * defaults. */
static bool on_critical_path(const struct lagom_hw *hw,
			     const struct lagom_workload *w,
			     const struct lagom_plan_coll *c)
{
	struct lagom_workload *v = lagom_search_workload_copy(w);
	double t0 = 0, t1 = 0;

	assert_non_null(v);
	assert_int_equal(lagom_iteration_time(hw, w, NULL, &t0, NULL), 0);
	for (size_t r = 0; r < v->nregions; r++)
		for (size_t k = 0; k < v->regions[r].ncolls; k++) {
			struct lagom_region_coll *o = &v->regions[r].colls[k];

			if (same_class(o, c))
				o->comm.time_scale =
					(o->comm.time_scale > 0
						 ? o->comm.time_scale
						 : 1.0) *
					1.05;
		}
	assert_int_equal(lagom_iteration_time(hw, v, NULL, &t1, NULL), 0);
	lagom_workload_destroy(v);
	return t1 > t0 * (1 + 1e-9);
}

/* Violations of one plan; prints each. */
static unsigned check_plan(const struct lagom_hw *hw,
			   const struct lagom_workload *w, unsigned nodes,
			   const char *name, const struct lagom_search_opts *o,
			   bool quiet)
{
	struct lagom_plan *plan = NULL;
	struct lagom_error err = { 0 };
	unsigned bad = 0;

	if (lagom_search_plan(hw, w, nodes, 8, o, &plan, &err) < 0) {
		fail_msg("%s %s: %s", hw->gpu.name, name, err.text);
		return 1;
	}
	for (size_t j = 0; j < plan->ncolls; j++) {
		const struct lagom_plan_coll *c = &plan->colls[j];
		struct lagom_coll_config def;

		if (c->keep)
			continue;
		assert_int_equal(lagom_nccl_default(hw, &c->comm, c->coll,
						    c->bytes, &def, NULL),
				 0);
		if (c->config.nchannels >= def.nchannels ||
		    !on_critical_path(hw, w, c))
			continue;
		if (!quiet)
			printf("# %s x8, %u node(s), %s: %s %llu bytes pinned "
			       "at %u channels, NCCL %u, on the critical "
			       "path\n",
			       hw->gpu.name, nodes, name,
			       lagom_coll_name(c->coll),
			       (unsigned long long)c->bytes,
			       c->config.nchannels, def.nchannels);
		bad++;
	}
	lagom_search_plan_destroy(plan);
	return bad;
}

/* Violations over the GPU table and the catalog, one and two nodes. */
static unsigned sweep(const struct lagom_search_opts *o, bool quiet,
		      unsigned *nplans)
{
	size_t ngpu = 0, nex = 0;
	const struct lagom_gpu_spec *gpus = lagom_gpu_table(&ngpu);
	const char *const *ex = lagom_workload_examples(&nex);
	unsigned bad = 0, plans = 0;

	for (size_t g = 0; g < ngpu; g++)
		for (unsigned nodes = 1; nodes <= 2; nodes++) {
			struct lagom_hw hw;

			if (lagom_hw_from_spec(gpus[g].name, 8,
					       LAGOM_INTRA_DEFAULT, 1, 400, &hw,
					       NULL) < 0)
				continue;
			for (size_t i = 0; i < nex; i++) {
				struct lagom_workload *w = NULL;

				if (lagom_workload_from_name(ex[i], &hw, nodes,
							     8, &w, NULL) < 0)
					continue; /* does not fit */
				bad += check_plan(&hw, w, nodes, ex[i], o,
						  quiet);
				plans++;
				lagom_workload_destroy(w);
			}
		}
	*nplans = plans;
	return bad;
}

static void test_table_floor(void **state)
{
	unsigned plans = 0, bad = sweep(NULL, false, &plans);

	(void)state;
	printf("# %u plans, %u critical-path classes below NCCL's channels\n",
	       plans, bad);
	assert_true(plans > 100);
	assert_int_equal(bad, 0);
}

/* The property can fail: without the gates the search pins such classes
 * (A100's measured 20 GB/s per CTA saturates NVSwitch at 12 of NCCL's 24;
 * multi-node classes bound by the NIC). */
static void test_floor_needed(void **state)
{
	struct lagom_search_opts o = { .no_gate = true };
	unsigned plans = 0, bad = sweep(&o, true, &plans);

	(void)state;
	printf("# without the gates: %u of %u plans' classes below NCCL's "
	       "channels on the critical path\n",
	       bad, plans);
	assert_true(bad > 0);
}

static unsigned min_nchannels(const struct lagom_plan *plan)
{
	unsigned m = LAGOM_NCHANNELS_MAX + 1;

	for (size_t j = 0; j < plan->ncolls; j++)
		if (!plan->colls[j].keep && plan->colls[j].config.nchannels < m)
			m = plan->colls[j].config.nchannels;
	return m;
}

static void test_issue_repro_b200(void **state)
{
	static const char *const names[] = { "phi-2:fsdp",
					     "olmoe-1b-7b:ep8,mb2" };
	struct lagom_comm comm = { .ranks = 8,
				   .nodes = 1,
				   .ranks_per_node = 8 };
	struct lagom_coll_config c = { .algo = LAGOM_ALGO_RING,
				       .proto = LAGOM_PROTO_SIMPLE };
	struct lagom_coll_time t16, t32;
	struct lagom_hw hw;

	(void)state;
	assert_int_equal(lagom_hw_from_spec("B200", 8, LAGOM_INTRA_DEFAULT, 1,
					    400, &hw, NULL),
			 0);
	c.nchannels = 16;
	assert_int_equal(lagom_coll_predict(&hw, &comm, LAGOM_COLL_ALLGATHER,
					    64u << 20, &c, &t16, NULL),
			 0);
	c.nchannels = 32;
	assert_int_equal(lagom_coll_predict(&hw, &comm, LAGOM_COLL_ALLGATHER,
					    64u << 20, &c, &t32, NULL),
			 0);
	printf("# B200 all-gather 64 MiB: 16 channels %.1f GB/s, 32 %.1f\n",
	       t16.busbw_Bps / 1e9, t32.busbw_Bps / 1e9);
	assert_true(t16.busbw_Bps < 0.75 * t32.busbw_Bps);
	/* nothing beats the line rate: NVLink5 18 x 50 GB/s per direction */
	assert_true(t32.busbw_Bps <= 18 * 50e9);
	for (size_t i = 0; i < 2; i++) {
		struct lagom_workload *w = NULL;
		struct lagom_plan *plan = NULL;
		struct lagom_coll_config def;

		assert_int_equal(
			lagom_workload_from_name(names[i], &hw, 1, 8, &w, NULL),
			0);
		assert_int_equal(
			lagom_search_plan(&hw, w, 1, 8, NULL, &plan, NULL), 0);
		for (size_t j = 0; j < plan->ncolls; j++) {
			assert_int_equal(
				lagom_nccl_default(&hw, &plan->colls[j].comm,
						   plan->colls[j].coll,
						   plan->colls[j].bytes, &def,
						   NULL),
				0);
			if (!plan->colls[j].keep)
				assert_true(plan->colls[j].config.nchannels >=
					    def.nchannels);
		}
		if (min_nchannels(plan) > LAGOM_NCHANNELS_MAX)
			printf("# B200 %s: every class left to NCCL, speedup "
			       "%.3f\n",
			       names[i], plan->speedup_nccl);
		else
			printf("# B200 %s: fewest channels pinned %u, speedup "
			       "%.3f\n",
			       names[i], min_nchannels(plan),
			       plan->speedup_nccl);
		lagom_search_plan_destroy(plan);
		lagom_workload_destroy(w);
	}
}

/*
 * The error gate: on 2 x 8 A40 (NVLink, 2 x 400G) llama-3.1-8b:fsdp,mb1's
 * all-gather gains 0.14 % tuned, which does not survive its time being
 * off by the model's known error: it is held back (gain <= gain_needed,
 * the part of the gain the error can take away) and runs NCCL's choice;
 * without the gates nothing is held back (the plan still keeps NCCL's
 * defaults there, its 0.14 % being below min_gain).
 */
static void test_hold_back(void **state)
{
	struct lagom_search_opts off = { .no_gate = true };
	struct lagom_workload *w = NULL;
	struct lagom_plan *on = NULL, *raw = NULL;
	struct lagom_hw hw;
	unsigned held = 0;

	(void)state;
	assert_int_equal(lagom_hw_from_spec("A40", 8, LAGOM_INTRA_NVLINK, 2,
					    400, &hw, NULL),
			 0);
	assert_int_equal(lagom_workload_from_name("llama-3.1-8b:fsdp,mb1", &hw,
						  2, 8, &w, NULL),
			 0);
	assert_int_equal(lagom_search_plan(&hw, w, 2, 8, NULL, &on, NULL), 0);
	assert_int_equal(lagom_search_plan(&hw, w, 2, 8, &off, &raw, NULL), 0);
	for (size_t j = 0; j < on->ncolls; j++) {
		const struct lagom_plan_coll *c = &on->colls[j];

		assert_false(raw->colls[j].held_back);
		if (!c->held_back)
			continue;
		held++;
		assert_true(c->keep);
		assert_true(c->gain_needed > 0);
		assert_true(c->gain <= c->gain_needed);
		printf("# A40 llama-3.1-8b:fsdp,mb1: %s held back: gain %.2f "
		       "%%, %.2f %% at the model's error\n",
		       lagom_coll_name(c->coll), c->gain * 100,
		       (c->gain - c->gain_needed) * 100);
	}
	assert_true(held >= 1);
	lagom_search_plan_destroy(on);
	lagom_search_plan_destroy(raw);
	lagom_workload_destroy(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue_repro_b200),
		cmocka_unit_test(test_table_floor),
		cmocka_unit_test(test_floor_needed),
		cmocka_unit_test(test_hold_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
