/*
 * tests/planner/test_calib_gate.c - the site calibration's known error in
 * the do-no-harm gate (search/deviate.c, issue 33): where a calibration's
 * dense fit prices a class's band and size, a deviation from NCCL's
 * defaults must show a predicted gain beyond that fit's own left-out
 * error, else NCCL's choice stays.
 *
 * 8 x H100 per node (8 x 400 Gb/s InfiniBand), the catalog's examples on
 * 2 and 4 nodes, one dense fit (ring and tree, every protocol, 1 B - 1 TiB,
 * 1-64 channels, 8 ranks per node) applied with two errors: 0.1 % and
 * 100 %.  The prices are the same; only the error differs.  Every class
 * whose choice and NCCL's the fit both price that is tuned at 0.1 % (its
 * gain beyond what the error takes) keeps NCCL's choice at 100 % (no
 * per-call gain is beyond it).
 * And the error is the calibration's only where the fit prices the
 * choice: lagom_dense_site_error() is negative outside it (one node,
 * another ranks per node, bytes beyond its range, an algorithm or chunk
 * it was not fitted on, no calibration).
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
	for (int b = 0; b < LAGOM_NET_BANDS; b++)
		for (int a = 0; a < LAGOM_NET_DENSE_ALGOS; a++) {
			struct lagom_net_dense *d =
				&cal.t[LAGOM_NET_IB].dense[b][a];

			d->set[LAGOM_DP_INV_BUSBW] = true;
			d->value[LAGOM_DP_INV_BUSBW] = 45e9;
			for (int pi = 0; pi < LAGOM_NET_DENSE_PROTOS; pi++) {
				d->set[LAGOM_DP_STEP_SIMPLE + pi] = true;
				d->value[LAGOM_DP_STEP_SIMPLE + pi] = 1.0 +
								      0.15 * pi;
				d->set[LAGOM_DP_LAT_SIMPLE + pi] = true;
				d->value[LAGOM_DP_LAT_SIMPLE + pi] = 15.0 -
								     3 * pi;
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

static struct lagom_plan *plan_with(const char *name, unsigned nodes,
				    double err, struct lagom_hw *hw)
{
	struct lagom_workload *w = NULL;
	struct lagom_plan *plan = NULL;

	assert_int_equal(lagom_hw_from_spec("H100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    8, 400, hw, NULL),
			 0);
	hw->transport = LAGOM_NET_IB;
	dense_site(hw, err);
	if (lagom_workload_from_name(name, hw, nodes, 8, &w, NULL) < 0)
		return NULL; /* does not fit */
	assert_int_equal(lagom_search_plan(hw, w, nodes, 8, NULL, &plan, NULL),
			 0);
	lagom_workload_destroy(w);
	return plan;
}

/* Both choices of class j priced by the calibration's dense fit. */
static bool priced(const struct lagom_hw *hw, const struct lagom_plan_coll *c)
{
	struct lagom_coll_config def;

	assert_int_equal(
		lagom_nccl_default(hw, &c->comm, c->coll, c->bytes, &def, NULL),
		0);
	return lagom_dense_site_error(hw, &c->comm, c->coll, c->bytes,
				      &c->config) >= 0 &&
	       lagom_dense_site_error(hw, &c->comm, c->coll, c->bytes, &def) >=
		       0;
}

/*
 * Over the catalog's examples on 2 and 4 nodes: with the fit's error
 * 0.1 %, the multi-node classes lagom tunes whose choice and NCCL's the
 * fit both price; with the error 100 %, each keeps NCCL's choice.
 */
static void test_gate_takes_calibration_error(void **state)
{
	size_t nex = 0;
	const char *const *ex = lagom_workload_examples(&nex);
	unsigned tuned = 0, held = 0;

	(void)state;
	for (size_t i = 0; i < nex; i++)
		for (unsigned nodes = 2; nodes <= 4; nodes *= 2) {
			struct lagom_hw hw;
			struct lagom_plan *sure = plan_with(ex[i], nodes, 0.001,
							    &hw);

			if (!sure)
				continue;
			for (size_t j = 0; j < sure->ncolls; j++) {
				const struct lagom_plan_coll *a =
					&sure->colls[j];
				struct lagom_plan *unsure;

				if (a->keep || a->comm.nodes < 2 ||
				    !priced(&hw, a))
					continue;
				tuned++;
				assert_true(a->gain > a->gain_needed);
				printf("# %s, %u nodes, %s %llu B: tuned at "
				       "0.1 %% error, predicted gain %.2f %%",
				       ex[i], nodes, lagom_coll_name(a->coll),
				       (unsigned long long)a->bytes,
				       100 * a->gain);
				unsure = plan_with(ex[i], nodes, 1.0, &hw);
				assert_non_null(unsure);
				held += unsure->colls[j].keep;
				printf("; at 100 %% error %s\n",
				       unsure->colls[j].keep
					       ? "NCCL's choice stays"
					       : "still tuned");
				lagom_search_plan_destroy(unsure);
			}
			lagom_search_plan_destroy(sure);
		}
	printf("# %u classes tuned with both choices priced, %u held back "
	       "by a larger error\n",
	       tuned, held);
	assert_true(tuned >= 1);
	assert_int_equal(held, tuned);
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
	struct lagom_coll_config ring = { .algo = LAGOM_ALGO_RING,
					  .proto = LAGOM_PROTO_SIMPLE,
					  .nchannels = 32 },
				 nvls = ring, big = ring;
	struct lagom_plan *p = plan_with("phi-2:fsdp", 2, 0.03, &hw);
	const enum lagom_coll ar = LAGOM_COLL_ALLREDUCE;

	(void)state;
	assert_non_null(p);
	lagom_search_plan_destroy(p);
	nvls.algo = LAGOM_ALGO_NVLS_TREE;
	big.chunk_bytes = 4 * lagom_chunk_default_bytes(big.algo, big.proto);
	assert_true(fabs(lagom_dense_site_error(&hw, &two, ar, 1 << 20, &ring) -
			 0.03) < 1e-12);
	/* not priced by the fit: no calibrated error */
	assert_true(lagom_dense_site_error(&hw, &one, ar, 1 << 20, &ring) < 0);
	assert_true(lagom_dense_site_error(&hw, &four, ar, 1 << 20, &ring) < 0);
	assert_true(lagom_dense_site_error(&hw, &two, ar, (1ULL << 40) + 1,
					   &ring) < 0);
	assert_true(lagom_dense_site_error(&hw, &two, ar, 1 << 20, &nvls) < 0);
	assert_true(lagom_dense_site_error(&hw, &two, ar, 64 << 20, &big) < 0);
	lagom_hw_apply_calib(&hw, NULL);
	assert_true(lagom_dense_site_error(&hw, &two, ar, 1 << 20, &ring) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_takes_calibration_error),
		cmocka_unit_test(test_site_error_coverage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
