/*
 * tests/model/test_model.c - the cost model: names, GPU table, collective
 * time, NCCL's defaults, computation under contention, the timeline, and
 * the published overlap cases of tests/fixtures/measurements/overlap.md.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "model/model.h"
#include "tests/lib/model_fixture.h"
#include "catalog/catalog.h"

#define MIB (1024ull * 1024ull)

static struct lagom_hw spec(const char *gpu, unsigned gpn,
			    enum lagom_intra intra, unsigned nics,
			    double nic_Gbit)
{
	struct lagom_hw hw;
	struct lagom_error err = { 0 };

	if (lagom_hw_from_spec(gpu, gpn, intra, nics, nic_Gbit, &hw, &err))
		fail_msg("hw_from_spec(%s): %s", gpu, err.text);
	return hw;
}

static void test_names(void **state)
{
	enum lagom_coll c = LAGOM_COLL_COUNT;
	enum lagom_algo a = LAGOM_ALGO_COUNT;
	enum lagom_proto p = LAGOM_PROTO_COUNT;
	(void)state;

	for (int i = 0; i < LAGOM_COLL_COUNT; i++) {
		assert_int_equal(lagom_coll_parse(lagom_coll_name(i), &c), 0);
		assert_int_equal(c, i);
	}
	for (int i = 0; i < LAGOM_ALGO_COUNT; i++) {
		assert_int_equal(lagom_algo_parse(lagom_algo_name(i), &a), 0);
		assert_int_equal(a, i);
	}
	for (int i = 0; i < LAGOM_PROTO_COUNT; i++) {
		assert_int_equal(lagom_proto_parse(lagom_proto_name(i), &p), 0);
		assert_int_equal(p, i);
	}
	assert_string_equal(lagom_coll_name(LAGOM_COLL_REDUCESCATTER),
			    "reducescatter");
	assert_string_equal(lagom_algo_name(LAGOM_ALGO_NVLS_TREE), "nvlstree");
	assert_string_equal(lagom_proto_name(LAGOM_PROTO_LL128), "ll128");
	assert_int_equal(LAGOM_ALGO_PAT, 6);
	assert_int_equal(lagom_algo_parse("NVLS", &a), 0);
	assert_int_equal(a, LAGOM_ALGO_NVLS);
	c = LAGOM_COLL_BROADCAST;
	assert_int_equal(lagom_coll_parse("all-reduce", &c), -EINVAL);
	assert_int_equal(c, LAGOM_COLL_BROADCAST);
	assert_int_equal(lagom_proto_parse(NULL, &p), -EINVAL);
	assert_null(lagom_coll_name(LAGOM_COLL_COUNT));
	assert_int_equal(lagom_precision_bytes(LAGOM_PREC_BF16), 2);
}

static void test_gpu_lookup(void **state)
{
	static const struct {
		const char *vendor, *canonical;
	} cases[] = {
		{ "Tesla V100-SXM3-32GB", "V100-SXM" },
		{ "NVIDIA H100 80GB HBM3", "H100-SXM" },
		{ "NVIDIA H100 PCIe", "H100-PCIe" },
		{ "A10G", "A10G" },
		{ "NVIDIA A40", "A40" },
		{ "NVIDIA A100-SXM4-80GB", "A100-SXM" },
		{ "h200", "H200" },
		{ "NVIDIA H20", "H20" },
		{ "NVIDIA B200", "B200" },
		{ "NVIDIA L40S", "L40S" },
		{ "NVIDIA GeForce RTX 2080 Ti", "RTX2080Ti" },
		{ "RTX5090", "RTX5090" },
	};
	size_t n = 0;
	const struct lagom_gpu_spec *table = lagom_gpu_table(&n);
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct lagom_gpu_spec *g = lagom_gpu_lookup(
			cases[i].vendor);
		assert_non_null(g);
		assert_string_equal(g->name, cases[i].canonical);
	}
	assert_true(n >= 12);
	for (size_t i = 0; i < n; i++) {
		assert_ptr_equal(lagom_gpu_lookup(table[i].name), &table[i]);
		assert_true(table[i].sm_count > 0 && table[i].hbm_Bps > 0);
	}
	assert_null(lagom_gpu_lookup("NVIDIA RTX A4000"));
	assert_null(lagom_gpu_lookup("unknown"));
	assert_null(lagom_gpu_lookup(NULL));
	assert_int_equal(lagom_gpu_lookup("H100")->sm_count, 132);
}

static void test_hw_from_spec_errors(void **state)
{
	struct lagom_error err = { 0 };
	struct lagom_hw hw, before;
	(void)state;

	memset(&hw, 0x5a, sizeof(hw));
	before = hw;
	assert_int_equal(lagom_hw_from_spec("Radeon 7", 8, LAGOM_INTRA_DEFAULT,
					    0, 0, &hw, &err),
			 -EINVAL);
	assert_non_null(strstr(err.text, "unknown GPU"));
	assert_memory_equal(&hw, &before, sizeof(hw));
	assert_int_equal(lagom_hw_from_spec("A10G", 8, LAGOM_INTRA_NVSWITCH, 0,
					    0, &hw, &err),
			 -EINVAL);
	assert_int_equal(
		lagom_hw_from_spec("A40", 0, LAGOM_INTRA_PCIE, 0, 0, &hw, &err),
		-EINVAL);
	assert_int_equal(
		lagom_hw_from_spec("A40", 8, LAGOM_INTRA_PCIE, 2, 0, &hw, &err),
		-EINVAL);
	hw = spec("H100", 8, LAGOM_INTRA_DEFAULT, 8, 400);
	assert_int_equal(hw.intra, LAGOM_INTRA_NVSWITCH);
	assert_double_rel(hw.nic_Bps, 50e9, 1e-12);
	assert_int_equal(hw.gpus_per_nic, 1);
	assert_int_equal(lagom_hw_check(&hw, NULL), 0);
	hw = spec("A40", 8, LAGOM_INTRA_DEFAULT, 0, 0);
	assert_int_equal(hw.intra, LAGOM_INTRA_PCIE);
}

static void test_predict_invalid(void **state)
{
	struct lagom_hw hw = spec("H100", 8, LAGOM_INTRA_DEFAULT, 8, 400);
	struct lagom_hw pcie = spec("L40S", 8, LAGOM_INTRA_DEFAULT, 0, 0);
	struct lagom_comm comm = lagom_test_comm(1, 8), zero = { 0 };
	struct lagom_coll_config cfg = { .algo = LAGOM_ALGO_RING,
					 .proto = LAGOM_PROTO_SIMPLE,
					 .nchannels = 8 };
	struct lagom_coll_time out = { .time_s = -1 };
	struct lagom_error err = { 0 };
	(void)state;

	assert_int_equal(lagom_coll_predict(&hw, &zero, LAGOM_COLL_ALLREDUCE,
					    MIB, &cfg, &out, &err),
			 -EINVAL);
	assert_true(err.text[0] != '\0');
	cfg.chunk_bytes = 2 * MIB;
	assert_int_equal(lagom_coll_predict(&hw, &comm, LAGOM_COLL_ALLREDUCE,
					    MIB, &cfg, &out, &err),
			 -EINVAL);
	assert_non_null(strstr(err.text, "chunk"));
	cfg.chunk_bytes = 0;
	cfg.nchannels = 0;
	assert_int_equal(lagom_coll_predict(&hw, &comm, LAGOM_COLL_ALLREDUCE,
					    MIB, &cfg, &out, &err),
			 -EINVAL);
	cfg.nchannels = 65;
	assert_int_equal(lagom_coll_predict(&hw, &comm, LAGOM_COLL_ALLREDUCE,
					    MIB, &cfg, &out, &err),
			 -EINVAL);
	cfg.nchannels = 8;
	cfg.nthreads = 100;
	assert_int_equal(lagom_coll_predict(&hw, &comm, LAGOM_COLL_ALLREDUCE,
					    MIB, &cfg, &out, &err),
			 -EINVAL);
	cfg.nthreads = 0;
	assert_int_equal(lagom_coll_predict(&hw, &comm, LAGOM_COLL_ALLREDUCE, 0,
					    &cfg, &out, &err),
			 -EINVAL);
	cfg.algo = LAGOM_ALGO_NVLS;
	assert_int_equal(lagom_coll_predict(&pcie, &comm, LAGOM_COLL_ALLREDUCE,
					    MIB, &cfg, &out, &err),
			 -EINVAL);
	assert_non_null(strstr(err.text, "nvls"));
	comm = lagom_test_comm(2, 8);
	assert_int_equal(lagom_coll_predict(&pcie, &comm, LAGOM_COLL_ALLREDUCE,
					    MIB, &cfg, &out, &err),
			 -EINVAL);
	assert_double_near(out.time_s, -1, 0);
	assert_int_equal(lagom_coll_predict(NULL, &comm, LAGOM_COLL_ALLREDUCE,
					    MIB, &cfg, &out, NULL),
			 -EINVAL);
}

static void test_supported(void **state)
{
	struct lagom_hw h100 = spec("H100", 8, LAGOM_INTRA_DEFAULT, 8, 400);
	struct lagom_hw a40 = spec("A40", 8, LAGOM_INTRA_PCIE, 1, 100);
	struct lagom_comm one = lagom_test_comm(1, 8),
			  two = lagom_test_comm(2, 8);
	struct lagom_comm pat = lagom_test_comm(4, 1);
	(void)state;

	assert_true(lagom_coll_supported(&h100, &one, LAGOM_COLL_ALLREDUCE,
					 LAGOM_ALGO_NVLS, LAGOM_PROTO_SIMPLE));
	assert_false(lagom_coll_supported(&h100, &one, LAGOM_COLL_ALLREDUCE,
					  LAGOM_ALGO_NVLS, LAGOM_PROTO_LL));
	assert_false(lagom_coll_supported(&h100, &one, LAGOM_COLL_ALLREDUCE,
					  LAGOM_ALGO_NVLS_TREE,
					  LAGOM_PROTO_SIMPLE));
	assert_true(lagom_coll_supported(&h100, &two, LAGOM_COLL_ALLREDUCE,
					 LAGOM_ALGO_NVLS_TREE,
					 LAGOM_PROTO_SIMPLE));
	assert_false(lagom_coll_supported(&a40, &one, LAGOM_COLL_ALLREDUCE,
					  LAGOM_ALGO_NVLS, LAGOM_PROTO_SIMPLE));
	assert_false(lagom_coll_supported(&a40, &one, LAGOM_COLL_ALLREDUCE,
					  LAGOM_ALGO_RING, LAGOM_PROTO_LL128));
	assert_true(lagom_coll_supported(&h100, &one, LAGOM_COLL_ALLREDUCE,
					 LAGOM_ALGO_RING, LAGOM_PROTO_LL128));
	assert_false(lagom_coll_supported(&h100, &one, LAGOM_COLL_ALLGATHER,
					  LAGOM_ALGO_TREE, LAGOM_PROTO_SIMPLE));
	assert_false(lagom_coll_supported(&h100, &two, LAGOM_COLL_ALLGATHER,
					  LAGOM_ALGO_PAT, LAGOM_PROTO_SIMPLE));
	assert_true(lagom_coll_supported(&h100, &pat, LAGOM_COLL_ALLGATHER,
					 LAGOM_ALGO_PAT, LAGOM_PROTO_SIMPLE));
	assert_false(lagom_coll_supported(&h100, &two, LAGOM_COLL_ALLREDUCE,
					  LAGOM_ALGO_COLLNET_DIRECT,
					  LAGOM_PROTO_SIMPLE));
	assert_true(lagom_coll_supported(&h100, &two, LAGOM_COLL_ALLTOALL,
					 LAGOM_ALGO_RING, LAGOM_PROTO_SIMPLE));
	assert_false(lagom_coll_supported(&h100, &two, LAGOM_COLL_ALLTOALL,
					  LAGOM_ALGO_TREE, LAGOM_PROTO_SIMPLE));
}

/* NCCL's own choices on systems whose logs are public (nccl.md 3.5, 3.6). */
static void test_nccl_default(void **state)
{
	struct lagom_hw h200 = spec("H200", 8, LAGOM_INTRA_DEFAULT, 0, 0);
	struct lagom_hw v100 = spec("V100", 4, LAGOM_INTRA_NVLINK, 2, 100);
	struct lagom_hw a40 = spec("A40", 8, LAGOM_INTRA_NVLINK, 2, 400);
	struct lagom_comm one = lagom_test_comm(1, 8);
	struct lagom_coll_config c;
	(void)state;

	assert_int_equal(lagom_nccl_default(&h200, &one, LAGOM_COLL_ALLREDUCE,
					    32768, &c, NULL),
			 0);
	assert_int_equal(c.algo, LAGOM_ALGO_RING);
	assert_int_equal(c.proto, LAGOM_PROTO_LL);
	assert_true(c.chunk_bytes <= 32768);
	assert_int_equal(lagom_nccl_default(&h200, &one, LAGOM_COLL_ALLREDUCE,
					    16ull << 30, &c, NULL),
			 0);
	assert_int_equal(c.algo, LAGOM_ALGO_NVLS);
	assert_int_equal(c.nchannels, 16);
	assert_int_equal(lagom_nccl_default(&h200, &one, LAGOM_COLL_ALLGATHER,
					    1ull << 30, &c, NULL),
			 0);
	assert_int_equal(c.nthreads % 32, 0);
	one = lagom_test_comm(2, 4);
	assert_int_equal(lagom_nccl_default(&v100, &one, LAGOM_COLL_ALLREDUCE,
					    1ull << 30, &c, NULL),
			 0);
	assert_int_equal(c.algo, LAGOM_ALGO_TREE);
	/* Lagom paper: NCCL's defaults on the A40 cluster are NC 8, 2 MiB. */
	one = lagom_test_comm(2, 8);
	assert_int_equal(lagom_nccl_default(&a40, &one, LAGOM_COLL_ALLGATHER,
					    157ull << 20, &c, NULL),
			 0);
	assert_int_equal(c.algo, LAGOM_ALGO_RING);
	assert_int_equal(c.proto, LAGOM_PROTO_SIMPLE);
	assert_int_equal(c.nchannels, 8);
	assert_int_equal(c.chunk_bytes, 2 * MIB);
	assert_int_equal(lagom_nccl_comm_channels(&a40, &one), 8);
	one = lagom_test_comm(1, 8);
	assert_int_equal(lagom_nccl_comm_channels(&h200, &one), 32);
	one.ranks = 0;
	assert_int_equal(lagom_nccl_comm_channels(&h200, &one), 0);
}

/* Properties over every GPU, collective, algorithm, protocol, size and
 * channel count: finite positive times, no rise with more channels. */
static void sweep_one(const struct lagom_hw *hw, const struct lagom_comm *cm,
		      int coll, int a, int p, uint64_t bytes)
{
	double prev = INFINITY;

	for (unsigned nc = 1; nc <= LAGOM_NCHANNELS_MAX; nc++) {
		struct lagom_coll_config cfg = { .algo = a,
						 .proto = p,
						 .nchannels = nc };
		struct lagom_coll_time t;
		struct lagom_error err = { 0 };

		if (lagom_coll_predict(hw, cm, coll, bytes, &cfg, &t, &err))
			fail_msg("%s %s/%s: %s", hw->gpu.name,
				 lagom_algo_name(a), lagom_proto_name(p),
				 err.text);
		assert_true(isfinite(t.time_s) && t.time_s > 0);
		assert_true(t.busbw_Bps > 0 && isfinite(t.busbw_Bps));
		assert_true(t.lat_s > 0 && t.lat_s <= t.time_s);
		assert_true(t.time_s <= prev * (1 + 1e-12));
		prev = t.time_s;
	}
}

static void test_properties(void **state)
{
	static const unsigned shapes[][2] = {
		{ 1, 2 }, { 1, 8 }, { 2, 8 }, { 4, 1 }, { 3, 4 }
	};
	static const uint64_t sizes[] = { 4096, 1 << 20, 64ull << 20,
					  1ull << 30 };
	size_t ngpu;
	const struct lagom_gpu_spec *g = lagom_gpu_table(&ngpu);
	(void)state;

	for (size_t i = 0; i < ngpu; i++) {
		struct lagom_hw hw = spec(g[i].name, 8, LAGOM_INTRA_DEFAULT, 4,
					  200);
		for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]);
		     s++) {
			struct lagom_comm cm = lagom_test_comm(shapes[s][0],
							       shapes[s][1]);
			for (int c = 0; c < LAGOM_COLL_COUNT; c++)
				for (int a = 0; a < LAGOM_ALGO_COUNT; a++)
					for (int p = 0; p < LAGOM_PROTO_COUNT;
					     p++) {
						if (!lagom_coll_supported(
							    &hw, &cm, c, a, p))
							continue;
						for (size_t b = 0; b < 4; b++)
							sweep_one(&hw, &cm, c,
								  a, p,
								  sizes[b]);
					}
		}
	}
}

/* Bandwidth saturates with channels: per-channel caps below, link above. */
/* One channel's rate (doc/model.md 2.8): the fit of a measured curve and
 * the rule without one. */
static void test_channel_rate(void **state)
{
	const unsigned nc[] = { 2, 4, 8, 16, 32 };
	const double flat[] = { 300e9, 301e9, 299e9, 300e9, 302e9 };
	double bw[5], c = -1;
	struct lagom_comm node = { .ranks = 8,
				   .nodes = 1,
				   .ranks_per_node = 8 };
	struct lagom_comm one = { .ranks = 1, .nodes = 1, .ranks_per_node = 1 };
	struct lagom_hw a100, h100, b200, pcie;

	(void)state;
	for (int i = 0; i < 5; i++)
		bw[i] = fmin(240e9, nc[i] * 18e9);
	assert_int_equal(lagom_channel_fit(nc, bw, 5, &c, NULL), 0);
	assert_double_rel(c, 18e9, 1e-12);
	/* every point at the link: L over the fewest channels, a bound */
	assert_int_equal(lagom_channel_fit(nc, flat, 5, &c, NULL), 0);
	assert_double_rel(c, 151e9, 1e-12);
	assert_int_equal(lagom_channel_fit(nc, bw, 1, &c, NULL), -EINVAL);
	assert_int_equal(
		lagom_channel_fit((unsigned[]){ 4, 4 }, bw, 2, &c, NULL),
		-EINVAL);
	assert_int_equal(
		lagom_channel_fit((unsigned[]){ 0, 4 }, bw, 2, &c, NULL),
		-EINVAL);
	assert_int_equal(lagom_channel_fit(nc, (double[]){ 1e9, NAN, 1, 1, 1 },
					   5, &c, NULL),
			 -EINVAL);
	assert_int_equal(
		lagom_channel_fit(nc, (double[]){ 1e6, 2e6, 4e6, 8e6, 16e6 }, 5,
				  &c, NULL),
		-EINVAL); /* 0.5 MB/s per channel: not a GPU */

	assert_int_equal(lagom_hw_from_spec("A100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    0, 0, &a100, NULL),
			 0);
	assert_int_equal(lagom_hw_from_spec("H100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    0, 0, &h100, NULL),
			 0);
	assert_int_equal(lagom_hw_from_spec("B200", 8, LAGOM_INTRA_DEFAULT, 0,
					    0, &b200, NULL),
			 0);
	assert_int_equal(lagom_hw_from_spec("A40", 8, LAGOM_INTRA_PCIE, 0, 0,
					    &pcie, NULL),
			 0);
	/* Ampere: the A100 sweep's measured 20 GB/s */
	assert_double_rel(lagom_channel_Bps(&a100, &node), 20e9, 1e-12);
	/* Hopper, Blackwell: the fabric shared by NCCL's channels, which
	 * then reach the link exactly */
	assert_double_rel(lagom_channel_Bps(&h100, &node) *
				  lagom_nccl_comm_channels(&h100, &node),
			  h100.intra_links * h100.intra_link_Bps * 0.8, 1e-9);
	assert_double_rel(lagom_channel_Bps(&b200, &node), 22.5e9, 1e-9);
	assert_true(lagom_channel_Bps(&b200, &node) <= 45e9);
	/* PCIe and one rank: the per-CTA ceiling */
	assert_double_rel(lagom_channel_Bps(&pcie, &node), 20e9, 1e-12);
	assert_double_rel(lagom_channel_Bps(&b200, &one), 45e9, 1e-12);
	/* a measured rate wins */
	b200.ch_Bps = 40e9;
	assert_double_rel(lagom_channel_Bps(&b200, &node), 40e9, 1e-12);
	b200.ch_Bps = 500e9;
	assert_true(lagom_channel_Bps(&b200, &node) == 0); /* hw invalid */
	assert_int_equal(lagom_hw_check(&b200, NULL), -EINVAL);
}

static void test_channel_saturation(void **state)
{
	struct lagom_hw hw = spec("H100", 8, LAGOM_INTRA_DEFAULT, 0, 0);
	struct lagom_comm cm = lagom_test_comm(1, 8);
	struct lagom_coll_config cfg = { .algo = LAGOM_ALGO_RING,
					 .proto = LAGOM_PROTO_SIMPLE };
	struct lagom_coll_time t1, t2, t32, t64;
	(void)state;

	cfg.nchannels = 1;
	assert_int_equal(lagom_coll_predict(&hw, &cm, LAGOM_COLL_ALLREDUCE,
					    1ull << 30, &cfg, &t1, NULL),
			 0);
	cfg.nchannels = 2;
	lagom_coll_predict(&hw, &cm, LAGOM_COLL_ALLREDUCE, 1ull << 30, &cfg,
			   &t2, NULL);
	cfg.nchannels = 32;
	lagom_coll_predict(&hw, &cm, LAGOM_COLL_ALLREDUCE, 1ull << 30, &cfg,
			   &t32, NULL);
	cfg.nchannels = 64;
	lagom_coll_predict(&hw, &cm, LAGOM_COLL_ALLREDUCE, 1ull << 30, &cfg,
			   &t64, NULL);
	assert_double_rel(t2.busbw_Bps, 2 * t1.busbw_Bps, 0.02);
	assert_double_rel(t64.busbw_Bps, t32.busbw_Bps, 0.01);
	/* Small chunks cost pipeline steps. */
	cfg.nchannels = 8;
	cfg.chunk_bytes = 64 * 1024;
	lagom_coll_predict(&hw, &cm, LAGOM_COLL_ALLREDUCE, 1ull << 30, &cfg,
			   &t1, NULL);
	cfg.chunk_bytes = 2 * MIB;
	lagom_coll_predict(&hw, &cm, LAGOM_COLL_ALLREDUCE, 1ull << 30, &cfg,
			   &t2, NULL);
	assert_true(t1.time_s > t2.time_s * 1.01);
	/* Measured bandwidths are used as they are, nominal ones derated. */
	cfg.chunk_bytes = 0;
	cfg.nchannels = 64;
	lagom_coll_predict(&hw, &cm, LAGOM_COLL_ALLREDUCE, 1ull << 30, &cfg,
			   &t1, NULL);
	hw.bw_measured = true;
	lagom_coll_predict(&hw, &cm, LAGOM_COLL_ALLREDUCE, 1ull << 30, &cfg,
			   &t2, NULL);
	assert_true(t2.busbw_Bps > t1.busbw_Bps * 1.1);
	assert_true(t2.busbw_Bps <= 18 * 25e9);
}

static void test_contention_properties(void **state)
{
	size_t ngpu;
	const struct lagom_gpu_spec *g = lagom_gpu_table(&ngpu);
	const struct lagom_kernel kernels[] = {
		{ .time_s = 1e-3 },
		{ .time_s = 2e-3, .grid_blocks = 1000, .mem_bound = 0.5 },
		{ .time_s = 5e-4,
		  .grid_blocks = 7,
		  .blocks_per_sm = 2,
		  .mem_bound = 1 },
	};
	(void)state;

	for (size_t i = 0; i < ngpu; i++) {
		struct lagom_hw hw = spec(g[i].name, 8, LAGOM_INTRA_DEFAULT, 0,
					  0);
		for (size_t k = 0; k < 3; k++) {
			double prev = 0;
			for (unsigned nc = 0; nc <= 64; nc += 4) {
				double t, t_big;
				assert_int_equal(
					lagom_compute_time(&hw, &kernels[k], nc,
							   MIB, &t, NULL),
					0);
				lagom_compute_time(&hw, &kernels[k], nc,
						   4 * MIB, &t_big, NULL);
				assert_true(isfinite(t));
				assert_true(t >= kernels[k].time_s);
				assert_true(t >= prev);
				assert_true(t_big >= t);
				prev = t;
			}
		}
	}
}

static void test_compute_invalid(void **state)
{
	struct lagom_hw hw = spec("A40", 8, LAGOM_INTRA_PCIE, 0, 0);
	struct lagom_kernel k = { .time_s = 0 };
	struct lagom_error err = { 0 };
	double t = -1;
	(void)state;

	assert_int_equal(lagom_compute_time(&hw, &k, 2, 0, &t, &err), -EINVAL);
	assert_true(err.text[0] != '\0');
	k.time_s = 1;
	k.mem_bound = 2;
	assert_int_equal(lagom_compute_time(&hw, &k, 2, 0, &t, &err), -EINVAL);
	k.mem_bound = 0;
	assert_int_equal(lagom_compute_time(&hw, &k, 65, 0, &t, &err), -EINVAL);
	assert_double_near(t, -1, 0);
}

/*
 * overlap.md row 2: on an H100 a 132-block GEMM beside a 24-CTA all-gather
 * needs a second wave, about 2x as long.  Tolerance: [1.8, 2.4].
 */
static void test_h100_gemm_two_waves(void **state)
{
	struct lagom_hw hw = spec("NVIDIA H100 80GB HBM3", 8,
				  LAGOM_INTRA_DEFAULT, 0, 0);
	struct lagom_kernel gemm = { .time_s = 1e-3,
				     .grid_blocks = 132,
				     .blocks_per_sm = 1,
				     .mem_bound = 0.2 };
	double alone, beside;
	(void)state;

	assert_int_equal(lagom_compute_time(&hw, &gemm, 0, 0, &alone, NULL), 0);
	assert_int_equal(
		lagom_compute_time(&hw, &gemm, 24, 2 * MIB, &beside, NULL), 0);
	print_message("# H100 GEMM beside 24 CTAs: %.3fx\n", beside / alone);
	assert_true(beside / alone >= 1.8 && beside / alone <= 2.4);
	/* with the HBM traffic of the modelled 24-channel all-gather */
	for (uint64_t bytes = 16 * MIB; bytes <= 1024 * MIB; bytes *= 4) {
		struct lagom_comm comm = lagom_test_comm(1, 8);
		struct lagom_coll_config cfg = { .algo = LAGOM_ALGO_RING,
						 .proto = LAGOM_PROTO_SIMPLE,
						 .nchannels = 24 };
		struct lagom_coll_time ct;
		double mem;
		assert_int_equal(lagom_coll_predict(&hw, &comm,
						    LAGOM_COLL_ALLGATHER, bytes,
						    &cfg, &ct, NULL),
				 0);
		mem = lagom_coll_mem_bytes(&comm, LAGOM_COLL_ALLGATHER, bytes,
					   cfg.proto) /
		      ct.time_s;
		assert_int_equal(lagom_compute_time_rate(&hw, &gemm, 24,
							 2 * MIB, mem, &beside,
							 NULL),
				 0);
		print_message("# H100 GEMM beside a 24-channel %llu MiB "
			      "all-gather (x %.3f): %.3fx\n",
			      (unsigned long long)(bytes / MIB),
			      mem / hw.gpu.hbm_Bps, beside / alone);
		assert_true(beside / alone >= 1.8 && beside / alone <= 2.4);
	}
}

/* HBM traffic of a collective (doc/model.md 4). */
static void test_coll_mem_bytes(void **state)
{
	struct lagom_comm c2 = lagom_test_comm(1, 2),
			  c8 = lagom_test_comm(1, 8);
	struct lagom_comm c1 = lagom_test_comm(1, 1);
	const double S = 64 * MIB;

	/* 2 ranks: all-reduce sends and receives S, reduces S / 2 (LL: the
	 * bus part twice); alltoall of 2: half on the bus, half copied */
	const struct {
		const struct lagom_comm *comm;
		enum lagom_coll coll;
		enum lagom_proto proto;
		double times_S;
	} cases[] = {
		{ &c2, LAGOM_COLL_ALLREDUCE, LAGOM_PROTO_SIMPLE, 2.5 },
		{ &c2, LAGOM_COLL_ALLREDUCE, LAGOM_PROTO_LL, 4.5 },
		{ &c2, LAGOM_COLL_ALLTOALL, LAGOM_PROTO_SIMPLE, 2 },
		{ &c8, LAGOM_COLL_ALLGATHER, LAGOM_PROTO_SIMPLE, 1.75 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_double_near(lagom_coll_mem_bytes(cases[i].comm,
							cases[i].coll, S,
							cases[i].proto),
				   cases[i].times_S * S, 1);
	(void)state;
	assert_true(lagom_coll_mem_bytes(&c8, LAGOM_COLL_REDUCESCATTER, S,
					 LAGOM_PROTO_SIMPLE) >
		    lagom_coll_mem_bytes(&c8, LAGOM_COLL_ALLGATHER, S,
					 LAGOM_PROTO_SIMPLE));
	assert_true(lagom_coll_mem_bytes(&c8, LAGOM_COLL_ALLGATHER, S,
					 LAGOM_PROTO_LL128) >
		    lagom_coll_mem_bytes(&c8, LAGOM_COLL_ALLGATHER, S,
					 LAGOM_PROTO_SIMPLE));
	assert_double_near(lagom_coll_mem_bytes(&c1, LAGOM_COLL_ALLREDUCE, S,
						LAGOM_PROTO_SIMPLE),
			   0, 0);
}

/* The rate term: 1 + contention_rate * min(x, cap), never below alone. */
static void test_rate_term(void **state)
{
	struct lagom_hw hw = spec("A100-SXM", 8, LAGOM_INTRA_DEFAULT, 0, 0);
	struct lagom_kernel k = { .time_s = 1e-3, .mem_bound = 0.9 };
	struct lagom_error err = { 0 };
	double t0, t, prev = 0, hbm = hw.gpu.hbm_Bps;
	(void)state;

	assert_true(hw.contention_rate > 0 && hw.contention_rate_cap > 0);
	assert_int_equal(lagom_compute_time(&hw, &k, 8, 0, &t0, NULL), 0);
	for (double x = 0; x <= 0.3; x += 0.01) {
		assert_int_equal(lagom_compute_time_rate(&hw, &k, 8, 0, x * hbm,
							 &t, NULL),
				 0);
		assert_true(t >= prev && t >= t0);
		assert_double_rel(
			t / t0,
			1 + hw.contention_rate *
					fmin(x, hw.contention_rate_cap),
			1e-12);
		prev = t;
	}
	/* nothing resident: alone, whatever the traffic */
	assert_int_equal(lagom_compute_time_rate(&hw, &k, 0, 0, hbm, &t, NULL),
			 0);
	assert_double_near(t, k.time_s, 0);
	assert_int_equal(lagom_compute_time_rate(&hw, &k, 8, 0, -1, &t, &err),
			 -EINVAL);
	assert_int_equal(lagom_compute_time_rate(&hw, &k, 8, 0, NAN, &t, &err),
			 -EINVAL);
	hw.contention_rate = -1;
	assert_int_equal(lagom_compute_time_rate(&hw, &k, 8, 0, 0, &t, &err),
			 -EINVAL);
}

/* The timeline slows a kernel by its collective's HBM traffic. */
static void test_timeline_rate(void **state)
{
	struct lagom_hw hw = spec("H100", 8, LAGOM_INTRA_DEFAULT, 0, 0);
	struct lagom_region r = { .name = "t", .nkernels = 1, .ncolls = 1 };
	struct lagom_coll_config cfg = { .algo = LAGOM_ALGO_RING,
					 .proto = LAGOM_PROTO_SIMPLE,
					 .nchannels = 8 };
	struct lagom_region_time with, without;
	struct lagom_coll_time ct;
	double x, y, a;
	(void)state;

	r.kernels[0] = (struct lagom_kernel){ .time_s = 10.0,
					      .mem_bound = 0.5 };
	r.colls[0] = (struct lagom_region_coll){ .coll = LAGOM_COLL_ALLGATHER,
						 .bytes = 64 * MIB,
						 .comm = lagom_test_comm(1,
									 8) };
	assert_int_equal(lagom_region_time(&hw, &r, &cfg, &with, NULL), 0);
	hw.contention_rate = 0;
	assert_int_equal(lagom_region_time(&hw, &r, &cfg, &without, NULL), 0);
	hw.contention_rate =
		spec("H100", 8, LAGOM_INTRA_DEFAULT, 0, 0).contention_rate;
	assert_int_equal(lagom_coll_predict(&hw, &r.colls[0].comm,
					    LAGOM_COLL_ALLGATHER, 64 * MIB,
					    &cfg, &ct, NULL),
			 0);
	x = lagom_coll_mem_bytes(&r.colls[0].comm, LAGOM_COLL_ALLGATHER,
				 64 * MIB, cfg.proto) /
	    ct.time_s / hw.gpu.hbm_Bps;
	/* while the collective runs the kernel advances at 1 / slowdown:
	 * a without the rate term, a * (1 + k min(x, cap)) with it */
	assert_int_equal(lagom_compute_time(&hw, &r.kernels[0], 8, 0, &a, NULL),
			 0);
	a /= r.kernels[0].time_s;
	y = without.y_s +
	    ct.time_s *
		    (1 / a -
		     1 / (a * (1 + hw.contention_rate *
					   fmin(x, hw.contention_rate_cap))));
	assert_true(with.y_s > without.y_s);
	assert_double_rel(with.y_s, y, 1e-9);
}

static double region_z(const struct lagom_hw *hw, const struct lagom_region *r,
		       unsigned nc, uint64_t chunk)
{
	struct lagom_coll_config cfg[LAGOM_REGION_MAX_COLLS];
	struct lagom_region_time t;
	struct lagom_error err = { 0 };

	for (size_t j = 0; j < r->ncolls; j++)
		cfg[j] = (struct lagom_coll_config){
			.algo = LAGOM_ALGO_RING,
			.proto = LAGOM_PROTO_SIMPLE,
			.nchannels = nc,
			.chunk_bytes = chunk
		};
	if (lagom_region_time(hw, r, cfg, &t, &err))
		fail_msg("region: %s", err.text);
	return t.z_s;
}

/*
 * overlap.md row 3 (Lagom paper): Phi-2 FSDP on 2 x 8 A40 (NVLink, 2 x
 * 400 Gb/s IB).  The overlapped all-gather region with NC 2 / 684 KB runs
 * 1.35x faster than NCCL's NC 8 / 2 MiB; NC 61 runs slower than NC 8.
 * Tolerance: the speed-up in [1.2, 1.5]; NC 61 strictly slower.
 */
static void test_phi2_fsdp_a40(void **state)
{
	struct lagom_hw hw = spec("NVIDIA A40", 8, LAGOM_INTRA_NVLINK, 2, 400);
	struct lagom_workload *w = NULL;
	struct lagom_error err = { 0 };
	const struct lagom_region *fwd;
	double z8, z2, z61;
	(void)state;

	if (lagom_workload_from_name("phi-2:fsdp,mb2", &hw, 2, 0, &w, &err))
		fail_msg("phi-2: %s", err.text);
	fwd = &w->regions[0];
	assert_string_equal(fwd->name, "layer-forward");
	assert_int_equal(fwd->ncolls, 1);
	assert_int_equal(fwd->colls[0].coll, LAGOM_COLL_ALLGATHER);
	z8 = region_z(&hw, fwd, 8, 2 * MIB);
	z2 = region_z(&hw, fwd, 2, 684 * 1024);
	z61 = region_z(&hw, fwd, 61, 2 * MIB);
	print_message("# Phi-2 FSDP A40 region: NC8/2MiB %.3f ms, NC2/684KB "
		      "%.3f ms (%.3fx), NC61 %.3f ms\n",
		      z8 * 1e3, z2 * 1e3, z8 / z2, z61 * 1e3);
	assert_true(z8 / z2 >= 1.2 && z8 / z2 <= 1.5);
	assert_true(z61 > z8);
	lagom_workload_destroy(w);
}

static struct lagom_region small_region(void)
{
	struct lagom_region r = { .name = "t", .nkernels = 1, .ncolls = 1 };

	r.kernels[0] = (struct lagom_kernel){ .time_s = 1e-3 };
	r.colls[0] = (struct lagom_region_coll){ .coll = LAGOM_COLL_ALLGATHER,
						 .bytes = 64 * MIB,
						 .comm = lagom_test_comm(1,
									 8) };
	return r;
}

static void test_timeline(void **state)
{
	struct lagom_hw hw = spec("H100", 8, LAGOM_INTRA_DEFAULT, 0, 0);
	struct lagom_region r = small_region();
	struct lagom_coll_config cfg = { .algo = LAGOM_ALGO_RING,
					 .proto = LAGOM_PROTO_SIMPLE,
					 .nchannels = 4 };
	struct lagom_coll_time ct;
	struct lagom_region_time t;
	(void)state;

	lagom_coll_predict(&hw, &r.colls[0].comm, LAGOM_COLL_ALLGATHER,
			   64 * MIB, &cfg, &ct, NULL);
	assert_int_equal(lagom_region_time(&hw, &r, &cfg, &t, NULL), 0);
	assert_double_rel(t.x_s, ct.time_s, 1e-9);
	assert_true(t.y_s > 1e-3);
	assert_double_rel(t.z_s, fmax(t.x_s, t.y_s), 1e-12);
	/* A collective ready after the kernel leaves the kernel alone. */
	r.colls[0].ready_s = 5e-3;
	r.serial_s = 1e-4;
	assert_int_equal(lagom_region_time(&hw, &r, &cfg, &t, NULL), 0);
	assert_double_rel(t.y_s, 1e-3, 1e-12);
	assert_double_rel(t.x_s, 5e-3 + ct.time_s, 1e-9);
	assert_double_rel(t.z_s, t.x_s + 1e-4, 1e-12);
	/* kernel 2 waits for the collective, which waits for kernel 1. */
	r.colls[0].ready_s = 0;
	r.colls[0].after_kernel = 1;
	r.kernels[1] = (struct lagom_kernel){ .time_s = 2e-3, .after_coll = 1 };
	r.nkernels = 2;
	assert_int_equal(lagom_region_time(&hw, &r, &cfg, &t, NULL), 0);
	assert_double_rel(t.y_s, 3e-3 + ct.time_s, 1e-9);
	/* A cycle is an error, not a hang. */
	r.kernels[0].after_coll = 1;
	assert_int_equal(lagom_region_time(&hw, &r, &cfg, &t, NULL), -EINVAL);
	r.kernels[0].after_coll = 3;
	assert_int_equal(lagom_region_time(&hw, &r, &cfg, &t, NULL), -EINVAL);
}

static void test_iteration(void **state)
{
	struct lagom_hw hw = spec("H100", 8, LAGOM_INTRA_DEFAULT, 0, 0);
	struct lagom_workload *w = lagom_workload_create("two", 2);
	struct lagom_region_time t0, t1;
	double total;
	(void)state;

	assert_non_null(w);
	w->regions[0] = small_region();
	w->regions[0].repeat = 3;
	w->regions[1] = small_region();
	w->regions[1].kernels[0].time_s = 5e-3;
	w->serial_s = 2e-3;
	assert_int_equal(lagom_workload_coll_count(w), 2);
	assert_int_equal(lagom_iteration_time(&hw, w, NULL, &total, NULL), 0);
	lagom_region_time(&hw, &w->regions[0], NULL, &t0, NULL);
	lagom_region_time(&hw, &w->regions[1], NULL, &t1, NULL);
	assert_double_rel(total, 3 * t0.z_s + t1.z_s + 2e-3, 1e-12);
	lagom_workload_destroy(w);
	lagom_workload_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_gpu_lookup),
		cmocka_unit_test(test_hw_from_spec_errors),
		cmocka_unit_test(test_predict_invalid),
		cmocka_unit_test(test_supported),
		cmocka_unit_test(test_nccl_default),
		cmocka_unit_test(test_properties),
		cmocka_unit_test(test_channel_rate),
		cmocka_unit_test(test_channel_saturation),
		cmocka_unit_test(test_contention_properties),
		cmocka_unit_test(test_compute_invalid),
		cmocka_unit_test(test_h100_gemm_two_waves),
		cmocka_unit_test(test_phi2_fsdp_a40),
		cmocka_unit_test(test_coll_mem_bytes),
		cmocka_unit_test(test_rate_term),
		cmocka_unit_test(test_timeline_rate),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_iteration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
