/*
 * tests/model/test_bounds.c - physical bounds the collective model must
 * never break (doc/model.md 2.5), on every row of every published CSV
 * (tests/fixtures/measurements/nccl-busbw*.csv, under every configuration
 * the row's hardware allows) and on random shapes:
 *  - no prediction beats max(latency floor, bytes the bottleneck must carry
 *    / its line rate), the bytes being the least any algorithm moves;
 *  - a ring across nodes never exceeds the nodes' NIC line rate in busbw;
 *  - times are finite and positive.
 * The bound is computed here from the hardware fields, not by the model.
 */
#include "tests/lib/lagom_test.h"

#include <string.h>

#include "tests/model/busbw_rows.h"

static struct busbw_row rows[ROWS_MAX];

/* NVLink domain: nodes of one domain, domains. */
static void domains_of(const struct lagom_hw *hw, const struct lagom_comm *c,
		       unsigned *in_domain, unsigned *domains)
{
	unsigned d = hw->nvl_domain_nodes > 1 &&
				     hw->intra == LAGOM_INTRA_NVSWITCH
			     ? hw->nvl_domain_nodes
			     : 1;

	*in_domain = c->nodes < d ? c->nodes : d;
	*domains = (c->nodes + *in_domain - 1) / *in_domain;
}

/* The NIC line rate one node (one NVLink domain) reaches, no efficiency. */
static double line_Bps(const struct lagom_hw *hw, const struct lagom_comm *c)
{
	unsigned in_domain, domains;
	double nics = ceil((double)hw->nic_count * c->ranks_per_node /
			   hw->gpus_per_node);

	domains_of(hw, c, &in_domain, &domains);
	return nics * hw->nic_Bps * in_domain;
}

/* The least time any algorithm needs (seconds). */
static double bound_s(const struct lagom_hw *hw, const struct lagom_comm *c,
		      enum lagom_coll coll, double S)
{
	unsigned in_domain, domains;
	double floor_s = hw->launch_us * 1e-6, N, P, n = c->ranks, bytes;

	domains_of(hw, c, &in_domain, &domains);
	N = domains;
	P = (double)c->ranks_per_node * in_domain;
	if (N > 1) {
		switch (coll) {
		case LAGOM_COLL_ALLREDUCE:
			bytes = (hw->collnet ? 1 : 2) * S * (N - 1) / N;
			break;
		case LAGOM_COLL_ALLGATHER:
		case LAGOM_COLL_REDUCESCATTER:
			bytes = S * (N - 1) / N;
			break;
		case LAGOM_COLL_ALLTOALL:
			bytes = P * S * (n - P) / n;
			break;
		default:
			bytes = S;
		}
		return fmax(floor_s, bytes / line_Bps(hw, c));
	}
	if (c->ranks_per_node < 2)
		return floor_s;
	bytes = coll == LAGOM_COLL_SENDRECV ? S : S * (P - 1) / P;
	return fmax(
		floor_s,
		bytes / (hw->intra == LAGOM_INTRA_PCIE
				 ? hw->pcie_Bps
				 : fmax(hw->pcie_Bps,
					hw->intra_links * hw->intra_link_Bps)));
}

static unsigned checked;

static void check_one(const struct lagom_hw *hw, const struct lagom_comm *c,
		      enum lagom_coll coll, uint64_t bytes,
		      const struct lagom_coll_config *cfg)
{
	struct lagom_coll_time t;
	struct lagom_error err = { 0 };
	double b = bound_s(hw, c, coll, (double)bytes);
	unsigned in_domain, domains;

	if (lagom_coll_predict(hw, c, coll, bytes, cfg, &t, &err)) {
		print_error("%s %s: %s\n", hw->gpu.name, lagom_coll_name(coll),
			    err.text);
		fail();
	}
	checked++;
	if (!(isfinite(t.time_s) && t.time_s > 0 && t.time_s >= b)) {
		print_error("%s %u ranks/%u nodes %s %s/%s nc %u %llu B: "
			    "%.9g s below the bound %.9g s\n",
			    hw->gpu.name, c->ranks, c->nodes,
			    lagom_coll_name(coll), lagom_algo_name(cfg->algo),
			    lagom_proto_name(cfg->proto), cfg->nchannels,
			    (unsigned long long)bytes, t.time_s, b);
		fail();
	}
	domains_of(hw, c, &in_domain, &domains);
	if (domains > 1 && cfg->algo == LAGOM_ALGO_RING &&
	    coll <= LAGOM_COLL_REDUCESCATTER &&
	    t.busbw_Bps > line_Bps(hw, c) * (1 + 1e-12)) {
		print_error("ring busbw %.6g above the NIC line rate %.6g\n",
			    t.busbw_Bps, line_Bps(hw, c));
		fail();
	}
}

/* Every configuration the hardware allows, at a few channel counts. */
static void check_all_configs(const struct lagom_hw *hw,
			      const struct lagom_comm *c, enum lagom_coll coll,
			      uint64_t bytes)
{
	static const unsigned ncs[] = { 1, 2, 8, 24, 64 };

	for (int a = 0; a < LAGOM_ALGO_COUNT; a++)
		for (int p = 0; p < LAGOM_PROTO_COUNT; p++) {
			if (!lagom_coll_supported(hw, c, coll, a, p))
				continue;
			for (size_t k = 0; k < sizeof(ncs) / sizeof(ncs[0]);
			     k++) {
				struct lagom_coll_config cfg = {
					.algo = a,
					.proto = p,
					.nchannels = ncs[k],
				};
				check_one(hw, c, coll, bytes, &cfg);
			}
		}
}

static void test_every_csv_row(void **state)
{
	char dir[512], path[600];
	size_t n = 0, skipped = 0;
	(void)state;

	lagom_fixture(dir, sizeof(dir), "measurements");
	snprintf(path, sizeof(path), "%s/nccl-busbw.csv", dir);
	assert_int_equal(
		busbw_rows_read(path, false, rows, &n, &skipped, stderr), 0);
	snprintf(path, sizeof(path), "%s/nccl-busbw-multinode.csv", dir);
	assert_int_equal(
		busbw_rows_read(path, true, rows, &n, &skipped, stderr), 0);
	assert_int_equal(skipped, 0);
	assert_int_equal(n, 58 + 419);
	checked = 0;
	for (size_t i = 0; i < n; i++) {
		struct busbw_row *r = &rows[i];
		check_one(&r->obs.hw, &r->obs.comm, r->obs.coll, r->obs.bytes,
			  &r->obs.cfg);
		check_all_configs(&r->obs.hw, &r->obs.comm, r->obs.coll,
				  r->obs.bytes);
	}
	printf("# %u predictions of %zu rows within the bounds\n", checked, n);
}

/* A fixed-seed generator (the test must be repeatable). */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static unsigned pick(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((rng_state >> 33) % n);
}

static void random_hw(struct lagom_hw *hw)
{
	static const unsigned gpns[] = { 1, 2, 4, 8 },
			      nics[] = { 1, 2, 4, 8, 16, 32 };
	static const double nic_Gbit[] = { 25, 100, 200, 400, 800 };
	size_t ng;
	const struct lagom_gpu_spec *g = lagom_gpu_table(&ng);
	const struct lagom_gpu_spec *gpu = &g[pick((unsigned)ng)];
	unsigned gpn = gpns[pick(4)];
	enum lagom_intra intra = pick(3) ? LAGOM_INTRA_DEFAULT
					 : LAGOM_INTRA_PCIE;

	assert_int_equal(lagom_hw_from_spec(gpu->name, gpn, intra,
					    nics[pick(6)], nic_Gbit[pick(5)],
					    hw, NULL),
			 0);
	hw->transport = (enum lagom_transport)pick(LAGOM_NET_COUNT);
	hw->nic_gdr = pick(4) != 0;
	hw->collnet = pick(4) == 0;
	hw->bw_measured = pick(4) == 0;
	if (hw->intra == LAGOM_INTRA_NVSWITCH && pick(3) == 0)
		hw->nvl_domain_nodes = 2 + pick(40);
}

static void test_random_shapes(void **state)
{
	(void)state;
	checked = 0;
	for (int i = 0; i < 20000; i++) {
		struct lagom_hw hw;
		struct lagom_comm c;
		struct lagom_coll_config cfg;
		enum lagom_coll coll = (enum lagom_coll)pick(LAGOM_COLL_COUNT);
		uint64_t bytes = (1ull << pick(35)) + pick(4096);
		unsigned ppn, nodes;

		random_hw(&hw);
		ppn = 1 + pick(hw.gpus_per_node);
		nodes = 1 + (pick(2) ? pick(4) : pick(600));
		c = (struct lagom_comm){
			.ranks = ppn * nodes,
			.nodes = nodes,
			.ranks_per_node = ppn,
			.hops = nodes == 1 ? LAGOM_HOPS_SAME_NODE
					   : (enum lagom_hops)(1 + pick(2)),
		};
		assert_int_equal(
			lagom_nccl_default(&hw, &c, coll, bytes, &cfg, NULL),
			0);
		check_one(&hw, &c, coll, bytes, &cfg);
		cfg.nchannels = 1 + pick(LAGOM_NCHANNELS_MAX);
		cfg.chunk_bytes = pick(2) ? 0 : 1 + pick(1u << 20);
		if (cfg.chunk_bytes > bytes ||
		    cfg.chunk_bytes > lagom_chunk_max_bytes(cfg.proto))
			cfg.chunk_bytes = 0;
		check_one(&hw, &c, coll, bytes, &cfg);
	}
	printf("# %u random predictions within the bounds\n", checked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_csv_row),
		cmocka_unit_test(test_random_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
