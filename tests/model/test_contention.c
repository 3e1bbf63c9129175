/*
 * tests/model/test_contention.c - physical bounds of the contention model
 * (doc/model.md 4), on every GPU of the built-in table, kernels of many
 * shapes, every NCCL CTA count 0..64, chunks and HBM traffic:
 *  - a kernel beside NCCL is never faster than alone (slowdown >= 1);
 *  - more resident CTAs never make it faster (monotone non-decreasing in
 *    NC), nor does more traffic;
 *  - the resident constant is there from one CTA on, for any kernel, and
 *    only on the GPUs it was measured for (Hopper);
 *  - the chunk L2 term counts only chunks the collective streams: none
 *    below x 1 % (the H200 runs), all of it from 3 % (the A40 figure).
 */
#include "tests/lib/lagom_test.h"

#include "model/model.h"

static const struct lagom_kernel kernels[] = {
	{ .time_s = 1e-3 },
	{ .time_s = 2e-3, .grid_blocks = 1000, .mem_bound = 0.5 },
	{ .time_s = 5e-4,
	  .grid_blocks = 7,
	  .blocks_per_sm = 2,
	  .mem_bound = 1 },
	{ .time_s = 1.0,
	  .grid_blocks = 4096,
	  .blocks_per_sm = 1,
	  .mem_bound = 0.2 },
	{ .time_s = 3e-5, .grid_blocks = 132, .mem_bound = 0.9 },
	{ .time_s = 7e-3,
	  .grid_blocks = 100000,
	  .blocks_per_sm = 8,
	  .mem_bound = 0 },
};
#define NKERNELS (sizeof(kernels) / sizeof(kernels[0]))

static double slowdown(const struct lagom_hw *hw, const struct lagom_kernel *k,
		       unsigned nc, uint64_t chunk, double x)
{
	double t = -1;

	assert_int_equal(lagom_compute_time_rate(hw, k, nc, chunk,
						 x * hw->gpu.hbm_Bps, &t, NULL),
			 0);
	assert_true(isfinite(t));
	return t / k->time_s;
}

static void bounds_every_gpu(void **state)
{
	static const uint64_t chunks[] = { 0, 64 * 1024, 2 << 20, 8 << 20 };
	static const double xs[] = { 0, 0.003, 0.05, 0.5 };
	size_t ngpu;
	const struct lagom_gpu_spec *g = lagom_gpu_table(&ngpu);
	(void)state;

	for (size_t i = 0; i < ngpu; i++) {
		struct lagom_hw hw;
		assert_int_equal(lagom_hw_from_spec(g[i].name, 8,
						    LAGOM_INTRA_DEFAULT, 0, 0,
						    &hw, NULL),
				 0);
		for (size_t k = 0; k < NKERNELS; k++)
			for (size_t c = 0; c < 4; c++)
				for (size_t xi = 0; xi < 4; xi++) {
					double prev = 1;
					for (unsigned nc = 0; nc <= 64; nc++) {
						double s = slowdown(
							&hw, &kernels[k], nc,
							chunks[c], xs[xi]);
						assert_true(s >= 1);
						assert_true(s >= prev);
						if (xi > 0)
							assert_true(
								s >=
								slowdown(
									&hw,
									&kernels[k],
									nc,
									chunks[c],
									xs[xi -
									   1]));
						prev = s;
					}
				}
	}
}

/* The same with every coefficient at the ends of its range. */
static void bounds_any_coefficients(void **state)
{
	struct lagom_hw hw;
	(void)state;

	assert_int_equal(
		lagom_hw_from_spec("A40", 8, LAGOM_INTRA_PCIE, 0, 0, &hw, NULL),
		0);
	for (int v = 0; v < 16; v++) {
		hw.contention_resident = v & 1 ? 0.5 : 0;
		hw.contention_sm = v & 2 ? 2 : 0;
		hw.contention_l2 = v & 4 ? 5 : 0;
		hw.contention_l2_knee = v & 4 ? 0 : 1;
		/* the gate shut at x 0.1, or not there */
		hw.contention_l2_x0 = v & 8 ? 0.5 : 0;
		hw.contention_l2_x1 = v & 8 ? 1 : 0;
		for (size_t k = 0; k < NKERNELS; k++) {
			double prev = 1;
			for (unsigned nc = 0; nc <= 64; nc++) {
				double s = slowdown(&hw, &kernels[k], nc, 0,
						    0.1);
				assert_true(s >= 1 && s >= prev);
				prev = s;
			}
		}
	}
}

/* The L2 term beside 64 CTAs x 8 MiB (past the knee on every GPU of the
 * table): nothing of it at x 0 and 0.5 %, all of it from x 3 %, half at 2 %;
 * a curve's term (x1 0) whatever x. */
static void l2_gated_by_traffic(void **state)
{
	static const double xs[] = { 0, 0.005, 0.02, 0.03, 0.05 };
	static const double share[] = { 0, 0, 0.5, 1, 1 };
	const struct lagom_kernel *k = &kernels[3]; /* the 4096-block GEMM */
	size_t ngpu;
	const struct lagom_gpu_spec *g = lagom_gpu_table(&ngpu);
	(void)state;

	for (size_t i = 0; i < ngpu; i++) {
		struct lagom_hw hw, off, open;
		assert_int_equal(lagom_hw_from_spec(g[i].name, 8,
						    LAGOM_INTRA_DEFAULT, 0, 0,
						    &hw, NULL),
				 0);
		assert_double_near(hw.contention_l2, 0.7, 0);
		assert_true(64.0 * (8 << 20) / (double)hw.gpu.l2_bytes >
			    hw.contention_l2_knee);
		off = hw;
		off.contention_l2 = 0;
		open = hw;
		open.contention_l2_x1 = 0;
		for (size_t xi = 0; xi < 5; xi++) {
			double s = slowdown(&hw, k, 64, 8 << 20, xs[xi]);
			double s0 = slowdown(&off, k, 64, 8 << 20, xs[xi]);
			double s1 = slowdown(&open, k, 64, 8 << 20, xs[xi]);
			assert_true(s1 > s0 * 1.01);
			assert_double_near(s, s0 + share[xi] * (s1 - s0),
					   1e-12 * s1);
		}
	}
}

/* Hopper: + contention_resident from one CTA on, any kernel, no traffic;
 * elsewhere nothing while the waves do not change. */
static void resident_constant(void **state)
{
	size_t ngpu;
	const struct lagom_gpu_spec *g = lagom_gpu_table(&ngpu);
	const struct lagom_kernel small = { .time_s = 1e-3,
					    .grid_blocks = 16,
					    .blocks_per_sm = 1 };
	(void)state;

	for (size_t i = 0; i < ngpu; i++) {
		struct lagom_hw hw;
		bool hopper = g[i].sm_arch >= 90 && g[i].sm_arch < 100;
		assert_int_equal(lagom_hw_from_spec(g[i].name, 1,
						    LAGOM_INTRA_PCIE, 0, 0, &hw,
						    NULL),
				 0);
		assert_double_near(hw.contention_resident, hopper ? 0.087 : 0,
				   0);
		assert_double_near(slowdown(&hw, &small, 1, 0, 0),
				   1 + hw.contention_resident, 1e-12);
		assert_double_near(slowdown(&hw, &small, 0, 0, 0.1), 1, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bounds_every_gpu),
		cmocka_unit_test(bounds_any_coefficients),
		cmocka_unit_test(resident_constant),
		cmocka_unit_test(l2_gated_by_traffic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
