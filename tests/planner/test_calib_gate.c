/*
 * tests/planner/test_calib_gate.c - the site calibration's known error in
 * the do-no-harm gate (search/deviate.c, issue 33): where a calibration's
 * dense fit prices a class's band and size, a deviation from NCCL's
 * defaults must show a predicted gain beyond that fit's own left-out
 * error, else NCCL's choice stays.
 *
 * 2 x 8 H100 (8 x 400 Gb/s InfiniBand), olmoe-1b-7b:ep8,mb2.  The same
 * dense fit (ring and tree, every protocol, 1 B - 1 TiB, 1-64 channels,
 * 8 ranks per node, constants near the built-in model's) is applied with
 * two errors: 0.1 % and 90 %.  The prices are the same in both; only the
 * error differs.  With 0.1 % some multi-node class leaves NCCL's choice,
 * its gain above what the error can take away (gain > gain_needed); with
 * 90 % every such class keeps NCCL's (a gain cannot survive a time off by
 * 90 %).  And the error the gate takes is the calibration's:
 * lagom_dense_site_error() gives it where the fit covers, nothing (-1)
 * outside it (one node, another ranks per node, bytes beyond its range).
 */
#include "tests/lib/lagom_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "model/netdense.h"
#include "search/search.h"

static void dense_site(struct lagom_hw *hw, double err)
{
	struct lagom_net_calib cal;

	memset(&cal, 0, sizeof(cal));
	for (int a = 0; a < LAGOM_NET_DENSE_ALGOS; a++) {
		struct lagom_net_dense *d = &cal.t[LAGOM_NET_IB].dense[0][a];

		d->set[LAGOM_DP_INV_BUSBW] = true;
		d->value[LAGOM_DP_INV_BUSBW] = 45e9;
		for (int pi = 0; pi < LAGOM_NET_DENSE_PROTOS; pi++) {
			d->set[LAGOM_DP_STEP_SIMPLE + pi] = true;
			d->value[LAGOM_DP_STEP_SIMPLE + pi] = 1.0 + pi;
			d->set[LAGOM_DP_LAT_SIMPLE + pi] = true;
			d->value[LAGOM_DP_LAT_SIMPLE + pi] = 15.0 - 3 * pi;
			d->min_bytes[pi] = 1;
			d->max_bytes[pi] = 1ULL << 40;
		}
		d->min_channels = 1;
		d->max_channels = 64;
		d->ranks_per_node = 8;
		d->classes = 100;
		d->err = err;
	}
	lagom_hw_apply_calib(hw, &cal);
	assert_int_equal(lagom_net_site_check(&hw->net_site, NULL), 0);
}

static struct lagom_plan *plan_with(double err, struct lagom_hw *hw)
{
	struct lagom_workload *w = NULL;
	struct lagom_plan *plan = NULL;

	assert_int_equal(lagom_hw_from_spec("H100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    8, 400, hw, NULL),
			 0);
	hw->transport = LAGOM_NET_IB;
	dense_site(hw, err);
	assert_int_equal(lagom_workload_from_name("olmoe-1b-7b:ep8,mb2", hw, 2,
						  8, &w, NULL),
			 0);
	assert_int_equal(lagom_search_plan(hw, w, 2, 8, NULL, &plan, NULL), 0);
	lagom_workload_destroy(w);
	return plan;
}

static void test_gate_takes_calibration_error(void **state)
{
	struct lagom_hw hw;
	struct lagom_plan *sure = plan_with(0.001, &hw);
	struct lagom_plan *unsure = plan_with(0.9, &hw);
	unsigned tuned = 0;

	(void)state;
	assert_int_equal(sure->ncolls, unsure->ncolls);
	for (size_t j = 0; j < sure->ncolls; j++) {
		const struct lagom_plan_coll *a = &sure->colls[j],
					     *b = &unsure->colls[j];

		if (a->comm.nodes < 2)
			continue;
		if (!a->keep) {
			tuned++;
			assert_true(a->gain > a->gain_needed);
			printf("# 0.1 %% error: %s %llu B tuned (%s/%s/%u), "
			       "gain %.2f %%, %.3f %% of it at the error\n",
			       lagom_coll_name(a->coll),
			       (unsigned long long)a->bytes,
			       lagom_algo_name(a->config.algo),
			       lagom_proto_name(a->config.proto),
			       a->config.nchannels, 100 * a->gain,
			       100 * a->gain_needed);
		}
		/* 90 %: NCCL's choice stays */
		assert_true(b->keep);
		if (!a->keep)
			printf("# 90 %% error: the same class keeps NCCL's "
			       "choice%s\n",
			       b->held_back ? " (held back)" : " (plan-wide)");
	}
	assert_true(tuned >= 1);
	lagom_search_plan_destroy(sure);
	lagom_search_plan_destroy(unsure);
}

static void test_site_error_coverage(void **state)
{
	struct lagom_hw hw;
	struct lagom_comm two = { .ranks = 16,
				  .nodes = 2,
				  .ranks_per_node = 8,
				  .hops = LAGOM_HOPS_SAME_LEAF },
			  one = { .ranks = 8, .nodes = 1, .ranks_per_node = 8 },
			  four = { .ranks = 8,
				   .nodes = 2,
				   .ranks_per_node = 4,
				   .hops = LAGOM_HOPS_SAME_LEAF };
	struct lagom_plan *p = plan_with(0.03, &hw);

	(void)state;
	lagom_search_plan_destroy(p);
	assert_true(fabs(lagom_dense_site_error(&hw, &two, 1 << 20) - 0.03) <
		    1e-12);
	assert_true(lagom_dense_site_error(&hw, &one, 1 << 20) < 0);
	assert_true(lagom_dense_site_error(&hw, &four, 1 << 20) < 0);
	assert_true(lagom_dense_site_error(&hw, &two, (1ULL << 40) + 1) < 0);
	lagom_hw_apply_calib(&hw, NULL);
	assert_true(lagom_dense_site_error(&hw, &two, 1 << 20) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_takes_calibration_error),
		cmocka_unit_test(test_site_error_coverage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
