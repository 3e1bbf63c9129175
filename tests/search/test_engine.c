/*
 * tests/search/test_engine.c - the search engine against the exhaustive
 * optimum on seeded random regions (model-agnostic: the regions come from
 * tests/search/scenarios.h, not from the cost model's calibration).
 */
#include "tests/lib/lagom_test.h"

#include <errno.h>

#include "tests/search/scenarios.h"

#define REFINE 32

/* >= 1000 random regions: >= 99 % within 1 % of the optimum, and never
 * more than sum |R_j| + a constant model evaluations. */
static void test_random_vs_exhaustive(void **state)
{
	struct sc_summary s;

	(void)state;
	assert_int_equal(sc_compare(0x1a60u, 1200, 3, 10, REFINE, &s), 0);
	print_message("# %u scenarios: %.2f %% within 1 %% of the optimum, "
		      "worst %.4fx; evaluations mean %.1f, sum|R| %.1f, "
		      "prod|R| %.1f, max excess over sum|R| %u; cases: "
		      "min hidden %u, comm bound %u, balance %u\n",
		      s.count, 100.0 * s.within_1pct / s.count, s.worst_ratio,
		      s.mean_evals, s.mean_sum_r, s.mean_prod_r, s.max_excess,
		      s.by_case[0], s.by_case[1], s.by_case[2]);
	assert_int_equal(s.count, 1200);
	assert_true(s.within_1pct >= 0.99 * s.count);
	assert_true(s.max_excess <= REFINE + 2);
	assert_true(s.mean_evals < s.mean_prod_r);
}

/* Without the refinement the priority rule alone is worse or equal. */
static void test_refinement_helps(void **state)
{
	struct sc_summary plain, refined;

	(void)state;
	assert_int_equal(sc_compare(0xbeefu, 400, 3, 10, 0, &plain), 0);
	assert_int_equal(sc_compare(0xbeefu, 400, 3, 10, REFINE, &refined), 0);
	print_message("# priority rule alone: %.2f %% within 1 %%, worst "
		      "%.4fx; with refinement %.2f %%, worst %.4fx\n",
		      100.0 * plain.within_1pct / plain.count,
		      plain.worst_ratio,
		      100.0 * refined.within_1pct / refined.count,
		      refined.worst_ratio);
	assert_true(refined.within_1pct >= plain.within_1pct);
	assert_true(refined.worst_ratio <= plain.worst_ratio);
}

/* Endpoint case 1: the minimum already hides the communication. */
static void test_min_hidden(void **state)
{
	static const double x[] = { 1e-4, 5e-5, 3e-5 };
	static const double cost[] = { 0, 1e-5, 2e-5 };
	struct lse_coll c = { .n_cand = 3, .x_s = x, .cost_s = cost };
	struct sc_region r = {
		.sms = 84, .blocks = 84, .work_s = 1e-3, .gamma = 0.01, .n = 1
	};
	struct lse_result res;
	unsigned choice = 99;

	(void)state;
	r.c[0] = (struct sc_coll){ .n_cand = 3,
				   .nc = { 1, 2, 4 },
				   .x_s = { 1e-4, 5e-5, 3e-5 } };
	assert_int_equal(lse_search(&c, 1, sc_eval, &r, NULL, &choice, &res),
			 0);
	assert_int_equal(res.endpoint_case, LSE_CASE_MIN_HIDDEN);
	assert_int_equal(choice, 0);
	assert_int_equal(res.evals, 1);
}

/* Endpoint case 2: even the maximum cannot hide it: fastest endpoint. */
static void test_comm_bound(void **state)
{
	struct sc_region r = {
		.sms = 84, .blocks = 84, .work_s = 1e-4, .gamma = 0.001, .n = 1
	};
	struct lse_coll c;
	struct lse_result res;
	unsigned choice = 99;

	(void)state;
	r.c[0] = (struct sc_coll){ .n_cand = 3,
				   .nc = { 1, 2, 4 },
				   .x_s = { 4e-3, 2e-3, 1e-3 },
				   .cost_s = { 1e-6, 2e-6, 4e-6 } };
	sc_colls(&r, &c);
	assert_int_equal(lse_search(&c, 1, sc_eval, &r, NULL, &choice, &res),
			 0);
	assert_int_equal(res.endpoint_case, LSE_CASE_COMM_BOUND);
	assert_int_equal(choice, 2);
}

/* Same input, same answer, and the trace stays within its bound. */
static void test_deterministic_trace(void **state)
{
	uint64_t seed = 42;
	struct sc_region r;
	struct lse_coll c[SC_MAX_COLLS];
	struct lse_move moves[4];
	struct lse_opts o = { .refine_budget = 8,
			      .trace = moves,
			      .trace_max = 4 };
	struct lse_result a, b;
	unsigned ca[SC_MAX_COLLS], cb[SC_MAX_COLLS];

	(void)state;
	sc_make(&r, &seed, 3, 10);
	sc_colls(&r, c);
	assert_int_equal(lse_search(c, r.n, sc_eval, &r, &o, ca, &a), 0);
	assert_int_equal(lse_search(c, r.n, sc_eval, &r, &o, cb, &b), 0);
	assert_memory_equal(ca, cb, r.n * sizeof(*ca));
	assert_true(a.best.z_s == b.best.z_s);
	assert_true(a.trace_count <= 4);
	assert_true(a.moves_total >= a.trace_count);
	assert_int_equal(moves[0].kind, LSE_MOVE_MIN);
}

static void test_invalid(void **state)
{
	struct lse_coll c = { .n_cand = 0 };
	struct lse_result res;
	unsigned choice;
	struct sc_region r = { 0 };

	(void)state;
	assert_int_equal(lse_search(&c, 1, sc_eval, &r, NULL, &choice, &res),
			 -EINVAL);
	assert_int_equal(lse_search(NULL, 0, sc_eval, &r, NULL, &choice, &res),
			 -EINVAL);
	assert_int_equal(lse_exhaustive(&c, 1, sc_eval, &r, 10, &choice, &res),
			 -EINVAL);
}

/* The exhaustive search refuses products above its limit. */
static void test_exhaustive_limit(void **state)
{
	uint64_t seed = 7;
	struct sc_region r;
	struct lse_coll c[SC_MAX_COLLS];
	struct lse_result res;
	unsigned choice[SC_MAX_COLLS];

	(void)state;
	sc_make(&r, &seed, 1, 10);
	sc_colls(&r, c);
	assert_int_equal(lse_exhaustive(c, r.n, sc_eval, &r, 2, choice, &res),
			 -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_vs_exhaustive),
		cmocka_unit_test(test_refinement_helps),
		cmocka_unit_test(test_min_hidden),
		cmocka_unit_test(test_comm_bound),
		cmocka_unit_test(test_deterministic_trace),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_exhaustive_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
