/*
 * tests/model/test_netdense.c - the dense calibration form (model/
 * netdense.h): on synthetic dense sweeps with known constants (ring
 * allreduce, 2-16 nodes of 8, 8 B - 4 GiB, LL / LL128 / Simple forced,
 * 8-32 channels, +-0.5 % deterministic noise) every constant is recovered
 * within 2 %; one node count's full sweep determines all but the Simple
 * and LL128 latencies (refused, saying why), two node counts determine all and predict
 * larger node counts within 2 %; a sweep that never leaves one chunk loop cannot
 * tell a latency from a step cost and refuses the latencies; bad input is
 * refused.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "model/netdense.h"

static struct lagom_dense_fit truth(void)
{
	struct lagom_dense_fit t = { 0 };
	const double v[LAGOM_DP_COUNT] = { 40e9, 2, 1.5, 1, 15, 12, 8 };

	for (int p = 0; p < LAGOM_DP_COUNT; p++) {
		t.set[p] = true;
		t.value[p] = v[p];
	}
	return t;
}

static unsigned lcg = 12345;

/* -0.5 % .. +0.5 %, the same every run */
static double noise(void)
{
	lcg = lcg * 1103515245u + 12345u;
	return ((double)((lcg >> 8) % 10001) / 10000 - 0.5) * 0.01;
}

/* The sweep: nodes in [n_lo, n_hi] (powers of 2), sizes 8 B .. max. */
static size_t sweep(struct lagom_dense_meas *m, unsigned n_lo, unsigned n_hi,
		    uint64_t max_bytes)
{
	static const enum lagom_proto protos[] = { LAGOM_PROTO_LL,
						   LAGOM_PROTO_LL128,
						   LAGOM_PROTO_SIMPLE };
	struct lagom_dense_fit t = truth();
	size_t k = 0;

	for (unsigned n = n_lo; n <= n_hi; n *= 2)
		for (int p = 0; p < 3; p++)
			for (unsigned nch = 8; nch <= 32; nch *= 2)
				for (uint64_t b = 8; b <= max_bytes; b *= 4) {
					m[k] = (struct lagom_dense_meas){
						.coll = LAGOM_COLL_ALLREDUCE,
						.algo = LAGOM_ALGO_RING,
						.proto = protos[p],
						.bytes = b,
						.nodes = n,
						.ranks = 8 * n,
						.nchannels = nch,
					};
					m[k].time_s = lagom_dense_predict_s(
							      &m[k], &t) *
						      (1 + noise());
					k++;
				}
	return k;
}

static struct lagom_dense_meas m[4096];

static void test_recovered(void **state)
{
	struct lagom_dense_fit t = truth(), f;
	struct lagom_error err = { 0 };
	size_t n = sweep(m, 2, 16, 4ull << 30);

	(void)state;
	assert_int_equal(lagom_dense_fit(m, n, &f, &err), 0);
	assert_int_equal(f.node_counts, 4);
	for (int p = 0; p < LAGOM_DP_COUNT; p++) {
		printf("# %-15s true %10.4g fitted %10.4g (%+.2f %%)\n",
		       lagom_dense_param_name(p), t.value[p], f.value[p],
		       100 * (f.value[p] / t.value[p] - 1));
		assert_true(f.set[p]);
		assert_true(fabs(f.value[p] / t.value[p] - 1) < 0.02);
	}
}

/* One node count's full sweep determines every constant but the Simple
 * and LL128 latencies (their chunk loops are 60 MiB and more: below them
 * the latency and the step cost are one column), refused with the reason;
 * 2 and 4 nodes determine all, and predict 8 and 16 nodes within 2 %. */
static void test_other_node_counts(void **state)
{
	static struct lagom_dense_meas other[4096];
	struct lagom_dense_fit f;
	struct lagom_error err = { 0 };
	size_t n = sweep(m, 2, 2, 4ull << 30), no;
	double worst = 0;

	(void)state;
	assert_int_equal(lagom_dense_fit(m, n, &f, &err), 0);
	for (int p = 0; p < LAGOM_DP_COUNT; p++)
		printf("# 2 nodes: %-15s %10.4g %s\n",
		       lagom_dense_param_name(p), f.value[p],
		       lagom_dense_verdict_text(f.verdict[p]));
	for (int p = 0; p < LAGOM_DP_COUNT; p++)
		assert_true(f.set[p] == (p != LAGOM_DP_LAT_SIMPLE &&
					 p != LAGOM_DP_LAT_LL128));
	assert_int_equal(f.verdict[LAGOM_DP_LAT_SIMPLE], LAGOM_DV_UNDETERMINED);
	assert_int_equal(f.verdict[LAGOM_DP_LAT_LL128], LAGOM_DV_UNDETERMINED);
	n = sweep(m, 2, 4, 4ull << 30);
	no = sweep(other, 8, 16, 4ull << 30);
	assert_int_equal(lagom_dense_fit(m, n, &f, &err), 0);
	for (int p = 0; p < LAGOM_DP_COUNT; p++)
		assert_true(f.set[p]);
	for (size_t i = 0; i < no; i++)
		worst = fmax(worst, fabs(lagom_dense_predict_s(&other[i], &f) /
						 other[i].time_s -
					 1));
	printf("# fitted on 2 and 4 nodes: 8 and 16 nodes within %.2f %% "
	       "(worst)\n",
	       100 * worst);
	assert_true(worst < 0.02);
}

/* Sizes that never leave one chunk loop on one node count: a latency
 * and the step cost are the same column; the latencies are refused. */
static void test_undetermined(void **state)
{
	struct lagom_dense_fit f;
	struct lagom_error err = { 0 };
	size_t n = sweep(m, 2, 2, 4096);

	(void)state;
	assert_int_equal(lagom_dense_fit(m, n, &f, &err), 0);
	for (int p = LAGOM_DP_LAT_SIMPLE; p <= LAGOM_DP_LAT_LL; p++) {
		assert_false(f.set[p]);
		assert_int_equal(f.verdict[p], LAGOM_DV_UNDETERMINED);
	}
	assert_true(f.set[LAGOM_DP_STEP_LL]);
}

static void test_refused(void **state)
{
	struct lagom_dense_fit f;
	struct lagom_error err = { 0 };
	size_t n = sweep(m, 2, 2, 4096);

	(void)state;
	assert_int_equal(lagom_dense_fit(m, 0, &f, &err), -EINVAL);
	m[3].time_s = NAN;
	assert_int_equal(lagom_dense_fit(m, n, &f, &err), -EINVAL);
	m[3].time_s = 1e-5;
	m[4].ranks = 15;
	assert_int_equal(lagom_dense_fit(m, n, &f, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recovered),
		cmocka_unit_test(test_other_node_counts),
		cmocka_unit_test(test_undetermined),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
