/*
 * tests/model/test_nocheck.c - the model's unchecked fast path
 * (lagom_*_nocheck() in model/model.h) computes exactly what the checked API
 * computes: for every hardware, communicator, collective, size and
 * configuration the sweep below reaches, the same accept/reject decision and
 * bit-identical times (memcmp of the doubles, no tolerance).
 */
#include <errno.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "model/model.h"
#include "tests/lib/model_fixture.h"
#include "model/model_fast.h"
#include "catalog/catalog.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static const struct {
	const char *gpu;
	unsigned gpn;
	enum lagom_intra intra;
	unsigned nics;
	double nic_Gbit;
} hws[] = {
	{ "H100-SXM", 8, LAGOM_INTRA_DEFAULT, 8, 400 },
	{ "A40", 8, LAGOM_INTRA_NVLINK, 2, 400 },
	{ "V100-SXM", 8, LAGOM_INTRA_DEFAULT, 4, 100 },
	{ "A10G", 4, LAGOM_INTRA_PCIE, 1, 100 },
};
static const unsigned node_counts[] = { 1, 2, 4 };
static const uint64_t sizes[] = { 4 * KIB, 1 * MIB, 256 * MIB };
static const unsigned nchannels[] = { 1, 2, 8, 24, 64 };
#define NNC (sizeof(nchannels) / sizeof(nchannels[0]))

static bool same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

static struct lagom_hw hw_of(size_t i)
{
	struct lagom_hw hw;
	struct lagom_error err = { 0 };

	if (lagom_hw_from_spec(hws[i].gpu, hws[i].gpn, hws[i].intra,
			       hws[i].nics, hws[i].nic_Gbit, &hw, &err))
		fail_msg("hw_from_spec(%s): %s", hws[i].gpu, err.text);
	return hw;
}

/* One call: checked and unchecked agree on validity and on the time. */
static void one_call(const struct lagom_hw *hw, const struct lagom_comm *comm,
		     enum lagom_coll coll, uint64_t bytes,
		     const struct lagom_coll_config *cfg, unsigned *valid)
{
	struct lagom_coll_time t = { 0 };
	int rc = lagom_coll_predict(hw, comm, coll, bytes, cfg, &t, NULL);
	int cc = lagom_coll_config_check_nocheck(hw, comm, coll, bytes, cfg,
						 NULL);
	bool sup = lagom_coll_supported(hw, comm, coll, cfg->algo, cfg->proto);

	assert_int_equal(sup, lagom_coll_allowed_nocheck(
				      hw, comm, coll, cfg->algo, cfg->proto));
	assert_int_equal(rc, cc);
	if (rc)
		return;
	(*valid)++;
	if (!same_bits(t.time_s,
		       lagom_coll_time_s_nocheck(hw, comm, coll, bytes, cfg)))
		fail_msg("%s %s/%s nc %u %llu B: nocheck time differs",
			 hw->gpu.name, lagom_algo_name(cfg->algo),
			 lagom_proto_name(cfg->proto), cfg->nchannels,
			 (unsigned long long)bytes);
}

/* One implementation over the channel grid: each channel count alone, then
 * the whole grid at once when every count is valid. */
static void one_impl(const struct lagom_hw *hw, const struct lagom_comm *comm,
		     enum lagom_coll coll, uint64_t bytes,
		     struct lagom_coll_config cfg, unsigned *valid,
		     unsigned *grids)
{
	double grid[NNC];
	unsigned before = *valid;

	for (size_t k = 0; k < NNC; k++) {
		cfg.nchannels = nchannels[k];
		one_call(hw, comm, coll, bytes, &cfg, valid);
	}
	if (*valid - before != NNC)
		return;
	lagom_coll_times_s_nocheck(hw, comm, coll, bytes, &cfg, nchannels, NNC,
				   grid);
	for (size_t k = 0; k < NNC; k++) {
		cfg.nchannels = nchannels[k];
		assert_true(same_bits(grid[k],
				      lagom_coll_time_s_nocheck(hw, comm, coll,
								bytes, &cfg)));
	}
	(*grids)++;
}

static void test_collectives(void **state)
{
	unsigned valid = 0, grids = 0;
	(void)state;

	for (size_t h = 0; h < sizeof(hws) / sizeof(hws[0]); h++) {
		struct lagom_hw hw = hw_of(h);

		for (size_t n = 0; n < 3; n++) {
			struct lagom_comm comm = lagom_test_comm(
				node_counts[n], hw.gpus_per_node);

			for (int c = 0; c < LAGOM_COLL_COUNT; c++) {
				assert_int_equal(
					lagom_call_check(&hw, &comm, c, NULL),
					0);
				for (size_t s = 0; s < 3; s++)
					for (int i = 0;
					     i < LAGOM_ALGO_COUNT *
							 LAGOM_PROTO_COUNT;
					     i++)
						one_impl(
							&hw, &comm, c, sizes[s],
							(struct
							 lagom_coll_config){
								.algo = i /
									LAGOM_PROTO_COUNT,
								.proto =
									i %
									LAGOM_PROTO_COUNT },
							&valid, &grids);
			}
		}
	}
	/* The sweep reached real work, not only rejections. */
	print_message("# %u valid calls, %u channel grids compared\n", valid,
		      grids);
	assert_true(valid > 1000);
	assert_true(grids > 100);
}

/* The checks reject what the checked API rejects. */
static void test_checks(void **state)
{
	struct lagom_hw hw = hw_of(0);
	struct lagom_comm comm = lagom_test_comm(2, 8);
	struct lagom_coll_config cfg = { .algo = LAGOM_ALGO_RING,
					 .proto = LAGOM_PROTO_SIMPLE,
					 .nchannels = 65 };
	struct lagom_error err = { 0 };
	struct lagom_region r = { .nkernels = 1,
				  .kernels = { { .time_s = 1e-3,
						 .after_coll = 2 } } };
	(void)state;

	assert_int_equal(lagom_coll_config_check_nocheck(&hw, &comm,
							 LAGOM_COLL_ALLREDUCE,
							 MIB, &cfg, &err),
			 -EINVAL);
	assert_non_null(strstr(err.text, "channels"));
	comm.ranks = 3;
	assert_int_equal(
		lagom_call_check(&hw, &comm, LAGOM_COLL_ALLREDUCE, &err),
		-EINVAL);
	comm = lagom_test_comm(1, 8);
	assert_int_equal(lagom_call_check(&hw, &comm, LAGOM_COLL_COUNT, &err),
			 -EINVAL);
	assert_int_equal(lagom_region_check(&r, &err), -EINVAL);
	r.kernels[0].after_coll = 0;
	assert_int_equal(lagom_region_check(&r, &err), 0);
}

static void test_kernels(void **state)
{
	static const struct lagom_kernel ks[] = {
		{ .time_s = 1e-3 },
		{ .time_s = 2e-4, .grid_blocks = 264, .mem_bound = 0.8 },
		{ .time_s = 5e-3,
		  .grid_blocks = 1000,
		  .blocks_per_sm = 2,
		  .mem_bound = 0.3 },
	};
	static const uint64_t chunks[] = { 0, 64 * KIB, 2 * MIB };
	unsigned n = 0;
	(void)state;

	for (size_t h = 0; h < sizeof(hws) / sizeof(hws[0]); h++) {
		struct lagom_hw hw = hw_of(h);

		for (size_t k = 0; k < sizeof(ks) / sizeof(ks[0]); k++)
			for (unsigned nc = 0; nc <= LAGOM_NCHANNELS_MAX;
			     nc += 8)
				for (size_t c = 0; c < 3; c++) {
					/* no traffic, and 30 % of HBM */
					double t = -1,
					       mem = c == 1 ? 0.3 * hw.gpu.hbm_Bps
							    : 0;

					assert_int_equal(
						lagom_compute_time_rate(
							&hw, &ks[k], nc,
							chunks[c], mem, &t,
							NULL),
						0);
					assert_true(same_bits(
						t, lagom_kernel_time_s_nocheck(
							   &hw, &ks[k], nc,
							   chunks[c], mem)));
					n++;
				}
	}
	assert_true(n > 300);
}

/* Every region of catalog workloads, with NCCL's default configurations. */
static void test_regions(void **state)
{
	static const char *names[] = { "llama-3.1-8b:tp8,mb4",
				       "phi-2:fsdp,mb2" };
	unsigned n = 0;
	(void)state;

	for (size_t h = 0; h < 2; h++) {
		struct lagom_hw hw = hw_of(h);

		for (size_t i = 0; i < 2; i++) {
			struct lagom_workload *w = NULL;
			struct lagom_error err = { 0 };

			if (lagom_workload_from_name(names[i], &hw, 2, 0, &w,
						     &err))
				fail_msg("%s: %s", names[i], err.text);
			for (size_t j = 0; j < w->nregions; j++) {
				const struct lagom_region *r = &w->regions[j];
				struct lagom_coll_config
					cfg[LAGOM_REGION_MAX_COLLS];
				double x[LAGOM_REGION_MAX_COLLS];
				struct lagom_region_time a, b;

				assert_int_equal(lagom_region_check(r, NULL),
						 0);
				for (size_t k = 0; k < r->ncolls; k++) {
					assert_int_equal(
						lagom_nccl_default(
							&hw, &r->colls[k].comm,
							r->colls[k].coll,
							r->colls[k].bytes,
							&cfg[k], NULL),
						0);
					x[k] = lagom_coll_time_s_nocheck(
						&hw, &r->colls[k].comm,
						r->colls[k].coll,
						r->colls[k].bytes, &cfg[k]);
				}
				assert_int_equal(lagom_region_time(&hw, r, cfg,
								   &a, NULL),
						 0);
				assert_int_equal(
					lagom_region_timeline_nocheck(
						&hw, r, cfg, x, &b, NULL),
					0);
				assert_true(same_bits(a.x_s, b.x_s));
				assert_true(same_bits(a.y_s, b.y_s));
				assert_true(same_bits(a.z_s, b.z_s));
				n++;
			}
			lagom_workload_destroy(w);
		}
	}
	assert_true(n >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collectives),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_kernels),
		cmocka_unit_test(test_regions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
