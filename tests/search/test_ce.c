/*
 * tests/search/test_ce.c - copy-engine collectives (NCCL_CTA_POLICY=zero,
 * doc/model.md 2.9, doc/search.md): where NCCL 2.28 serves them, their
 * time within the line rate, and the search's gates: a candidate of the
 * environment-only plan only with symmetric buffers and NCCL 2.28+,
 * chosen only where predicted faster beyond the model's error.
 */
#include "tests/lib/lagom_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "catalog/catalog.h"
#include "search/search.h"

static const struct lagom_comm node8 = { .ranks = 8,
					 .nodes = 1,
					 .ranks_per_node = 8 };

static void test_supported(void **state)
{
	struct lagom_hw h100, a100, pcie;
	struct lagom_comm two = { .ranks = 16,
				  .nodes = 2,
				  .ranks_per_node = 8 };

	(void)state;
	assert_int_equal(lagom_hw_from_spec("H100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    1, 400, &h100, NULL),
			 0);
	assert_int_equal(lagom_hw_from_spec("A100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    1, 400, &a100, NULL),
			 0);
	assert_int_equal(lagom_hw_from_spec("H100-PCIe", 8, LAGOM_INTRA_PCIE, 1,
					    400, &pcie, NULL),
			 0);
	assert_true(
		lagom_ce_supported(&h100, &node8, LAGOM_COLL_ALLGATHER, 22809));
	assert_true(
		lagom_ce_supported(&h100, &node8, LAGOM_COLL_ALLTOALL, 22800));
	assert_false(
		lagom_ce_supported(&h100, &node8, LAGOM_COLL_ALLGATHER, 22703));
	assert_false(
		lagom_ce_supported(&h100, &node8, LAGOM_COLL_ALLREDUCE, 22809));
	assert_false(lagom_ce_supported(&h100, &node8, LAGOM_COLL_REDUCESCATTER,
					22809));
	assert_false(
		lagom_ce_supported(&h100, &two, LAGOM_COLL_ALLGATHER, 22809));
	assert_false(
		lagom_ce_supported(&a100, &node8, LAGOM_COLL_ALLGATHER, 22809));
	assert_false(
		lagom_ce_supported(&pcie, &node8, LAGOM_COLL_ALLGATHER, 22809));
	assert_false(
		lagom_ce_supported(NULL, &node8, LAGOM_COLL_ALLGATHER, 22809));
	assert_true(lagom_ce_time_s(&a100, &node8, LAGOM_COLL_ALLGATHER,
				    1 << 20) == 0);
}

/* Nothing beats the line rate; more bytes take longer; the fixed cost
 * dominates small calls. */
static void test_time_bounds(void **state)
{
	struct lagom_hw hw;
	double prev = 0;

	(void)state;
	assert_int_equal(lagom_hw_from_spec("H100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    1, 400, &hw, NULL),
			 0);
	for (uint64_t b = 4096; b <= (1ull << 32); b *= 4) {
		double t = lagom_ce_time_s(&hw, &node8, LAGOM_COLL_ALLGATHER,
					   b);
		double busbw = b * 7.0 / 8 / t;

		assert_true(t > prev);
		assert_true(busbw <= hw.intra_links * hw.intra_link_Bps);
		assert_true(t >= LAGOM_CE_LAT_US * 1e-6);
		prev = t;
	}
}

static struct lagom_plan *plan_h100(const char *name,
				    const struct lagom_search_opts *o)
{
	struct lagom_workload *w = NULL;
	struct lagom_plan *plan = NULL;
	struct lagom_hw hw;

	assert_int_equal(lagom_hw_from_spec("H100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    1, 400, &hw, NULL),
			 0);
	assert_int_equal(lagom_workload_from_name(name, &hw, 1, 8, &w, NULL),
			 0);
	assert_int_equal(lagom_search_plan(&hw, w, 1, 8, o, &plan, NULL), 0);
	lagom_workload_destroy(w);
	return plan;
}

/*
 * The gates: never without symmetric buffers or before NCCL 2.28; with
 * them, zero only where the environment-only plan is predicted faster
 * than every candidate without it (ties keep NCCL's default).
 */
static void test_search_gates(void **state)
{
	static const char *const names[] = { "phi-2:fsdp", "llama-3.1-8b:fsdp",
					     "olmoe-1b-7b:ep8,mb2",
					     "llama-3.1-8b:tp8,mb4" };
	const struct lagom_search_opts sym = { .nccl_version = 22809,
					       .symmetric_buffers = true };
	const struct lagom_search_opts old = { .nccl_version = 22703,
					       .symmetric_buffers = true };
	const struct lagom_search_opts plain = { .nccl_version = 22809 };
	unsigned chosen = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		struct lagom_plan *a = plan_h100(names[i], &sym);
		struct lagom_plan *b = plan_h100(names[i], &old);
		struct lagom_plan *c = plan_h100(names[i], &plain);

		printf("# H100 %-22s env only: %.3f ms with zero as a "
		       "candidate (policy %u), %.3f ms without, NCCL %.3f "
		       "ms\n",
		       names[i], a->lagom_env_only_s * 1e3,
		       a->env.env_cta_policy, c->lagom_env_only_s * 1e3,
		       a->nccl_s * 1e3);
		assert_true(b->env.env_cta_policy != LAGOM_CTA_POLICY_ZERO);
		assert_true(c->env.env_cta_policy != LAGOM_CTA_POLICY_ZERO);
		if (a->env.env_cta_policy == LAGOM_CTA_POLICY_ZERO) {
			chosen++;
			assert_true(a->lagom_env_only_s <
				    c->lagom_env_only_s * (1 - 1e-9));
		} else {
			assert_true(a->lagom_env_only_s == c->lagom_env_only_s);
		}
		/* the tuner's plan is not touched by the candidate */
		assert_true(a->lagom_s == c->lagom_s);
		lagom_search_plan_destroy(a);
		lagom_search_plan_destroy(b);
		lagom_search_plan_destroy(c);
	}
	printf("# NCCL_CTA_POLICY=zero chosen for %u of 4 workloads\n", chosen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_supported),
		cmocka_unit_test(test_time_bounds),
		cmocka_unit_test(test_search_gates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
