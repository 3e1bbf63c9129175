/*
 * model/nccl.c - what stock NCCL (2.28) allows and picks by itself: the
 * enable rules, the communicator's channel count and NCCL's own performance
 * model (src/graph/tuning.cc, reference nccl.md section 3), used only to
 * reproduce NCCL's default choice, the baseline lagom improves on.
 */
#include <errno.h>
#include <math.h>

#include "model/model_int.h"

/* Architecture rows of NCCL's tables: Volta, Ampere, Hopper, Blackwell. */
static int arch_row(unsigned sm_arch)
{
	if (sm_arch >= 100)
		return 3;
	if (sm_arch >= 90)
		return 2;
	if (sm_arch >= 80)
		return 1;
	return 0;
}

static int node_col(unsigned nodes)
{
	return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2;
}

/* nccl.md 3.1: baseLatencies[algo][proto] (us). */
static const double base_lat_us[LAGOM_ALGO_COUNT][LAGOM_PROTO_COUNT] = {
	{ 6.8, 14.0, 8.4 }, { 6.6, 14.0, 8.4 }, { 0, 0, 0 },	   { 0, 0, 0 },
	{ 0, 0, 0 },	    { 0, 0, 0 },	{ 8.0, 8.0, 8.0 },
};

/* hwLatencies[link][algo][proto] (us); link 0 NVLink, 1 PCI, 2 NET. */
static const double hw_lat_us[3][LAGOM_ALGO_COUNT][LAGOM_PROTO_COUNT] = {
	{ { 0.6, 1.25, 4.0 },
	  { 0.6, 1.9, 3.4 },
	  { 0, 0, 3.7 },
	  { 0, 0, 2.8 },
	  { 0, 0, 25 },
	  { 0, 0, 25 },
	  { 0, 0, 4.0 } },
	{ { 1.0, 1.9, 4.0 },
	  { 1.0, 2.5, 5.7 },
	  { 0, 0, 3.7 },
	  { 0, 0, 2.8 },
	  { 0, 0, 0 },
	  { 0, 0, 0 },
	  { 0, 0, 4.0 } },
	{ { 5.0, 8.5, 14 },
	  { 2.7, 4.0, 14.0 },
	  { 0, 0, 31 },
	  { 0, 0, 30 },
	  { 0, 0, 18 },
	  { 0, 0, 20.9 },
	  { 0, 0, 14 } },
};

double lagom_nccl_hop_lat_us(int link, enum lagom_algo algo,
			     enum lagom_proto proto)
{
	double v = hw_lat_us[link][algo][proto];

	return v > 0 ? v : hw_lat_us[link][LAGOM_ALGO_RING][LAGOM_PROTO_SIMPLE];
}

static const double ll_max_bw[4][3] = { { 39.0, 39.0, 20.4 },
					{ 87.7, 22.5, 19.0 },
					{ 141.0, 45.0, 35.0 },
					{ 282.0, 90.0, 70.0 } };
static const double per_ch_ring_ll128[4][3] = { { 20, 20, 20 },
						{ 20, 20, 20 },
						{ 36.7, 36.7, 36.7 },
						{ 73.4, 34.6, 73.4 } };
static const double per_ch_tree_ll128[4][3] = { { 20, 20, 20 },
						{ 20, 20, 20 },
						{ 36.7, 36.7, 29.0 },
						{ 55.6, 31.67, 20.0 } };
static const double per_ch_tree[4][3] = { { 26.5, 18.5, 10.0 },
					  { 24.0, 23.6, 17.8 },
					  { 38.7, 41.4, 36.0 },
					  { 70.0, 42.8, 24.0 } };
static const double per_ch_nvls_tree[4][3] = { { 26.5, 18.5, 10.0 },
					       { 24.0, 23.6, 17.8 },
					       { 0, 57.7, 45.5 },
					       { 0, 96.0, 43.8 } };
static const double nvls_eff[4] = { 0, 0, 0.85, 0.74 };

/* treeCorrectionFactor[proto][log2(bytes/64)], 64 B ... 256 MiB. */
static const double tree_corr[LAGOM_PROTO_COUNT][23] = {
	{ 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,	 .6, .5,
	  .4,  .4,  .5,	 .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0 },
	{ 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,	.6, .6,
	  .6,  .6,  .6,	 .6,  .8,  .9, .9, .9, .9, 1.0, 1.0 },
	{ .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
	  .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9 },
};

/* NCCL's topology-search link bandwidth per NVLink link (GB/s). */
static double nccl_nvlink_GBps(unsigned sm_arch)
{
	if (sm_arch >= 100)
		return 40.1;
	if (sm_arch >= 90)
		return 20.6;
	if (sm_arch == 86 || sm_arch == 89)
		return 12.0;
	return 20.0;
}

static bool nvlink_reaches(const struct lagom_hw *hw, unsigned ppn)
{
	if (hw->intra == LAGOM_INTRA_NVSWITCH)
		return true;
	return hw->intra == LAGOM_INTRA_NVLINK && ppn - 1 <= hw->nvlink_peers;
}

/* nccl.md 3.5: ring channels from the topology search, duplication and
 * postset doubling, clamped to 64. */
static unsigned comm_channels(const struct lagom_hw *hw,
			      const struct lagom_comm *comm)
{
	unsigned nch;
	double per_ch;

	if (comm->ranks_per_node <= 1) {
		unsigned nics = hw->nic_count ? hw->nic_count : 1;
		nch = 2 * (nics < 16 ? nics : 16);
	} else if (hw->intra != LAGOM_INTRA_PCIE) {
		unsigned links = hw->intra_links < 16 ? hw->intra_links : 16;
		nch = links ? links : 1;
		per_ch = hw->intra_links * nccl_nvlink_GBps(hw->gpu.sm_arch) /
			 nch;
		if (per_ch >= 25 &&
		    !(hw->gpu.sm_arch > 80 && per_ch < 50 && nch > 4))
			nch *= 2;
		nch *= 2;
		if (hw->gpu.sm_arch >= 90 && comm->nodes > 1 && per_ch > 45 &&
		    nch < 16)
			nch *= 2;
	} else {
		nch = hw->pcie_gen >= 4 ? 4 : 2;
	}
	return nch > LAGOM_NCHANNELS_MAX ? LAGOM_NCHANNELS_MAX : nch;
}

unsigned lagom_nccl_comm_channels_nocheck(const struct lagom_hw *hw,
					  const struct lagom_comm *comm)
{
	return comm_channels(hw, comm);
}

unsigned lagom_nccl_comm_channels(const struct lagom_hw *hw,
				  const struct lagom_comm *comm)
{
	if (lagom_hw_check(hw, NULL) || lagom_comm_check(hw, comm, NULL))
		return 0;
	return comm_channels(hw, comm);
}

static bool ll128_enabled(const struct lagom_hw *hw,
			  const struct lagom_comm *comm)
{
	if (hw->gpu.sm_arch < 70)
		return false;
	if (comm->ranks_per_node > 1 &&
	    !nvlink_reaches(hw, comm->ranks_per_node))
		return false;
	return comm->nodes <= 1 || hw->nic_gdr;
}

static bool algo_allowed(const struct lagom_hw *hw,
			 const struct lagom_comm *comm, enum lagom_coll coll,
			 enum lagom_algo algo)
{
	bool ar = coll == LAGOM_COLL_ALLREDUCE;
	bool agrs = coll == LAGOM_COLL_ALLGATHER ||
		    coll == LAGOM_COLL_REDUCESCATTER;
	bool nvsw = hw->intra == LAGOM_INTRA_NVSWITCH &&
		    hw->gpu.sm_arch >= 90 && comm->ranks_per_node >= 2;

	switch (algo) {
	case LAGOM_ALGO_RING:
		return coll <= LAGOM_COLL_REDUCE;
	case LAGOM_ALGO_TREE:
		return ar && comm->ranks >= 2;
	case LAGOM_ALGO_COLLNET_DIRECT:
		return hw->collnet && comm->nodes > 1 &&
		       hw->intra == LAGOM_INTRA_NVSWITCH && (ar || agrs);
	case LAGOM_ALGO_COLLNET_CHAIN:
		return hw->collnet && comm->nodes > 1 && ar;
	case LAGOM_ALGO_NVLS: /* multi-node NVLS needs CollNet (nccl.md 3.4) */
		return nvsw && comm->nodes == 1 ? ar || agrs
						: nvsw && ar && hw->collnet;
	case LAGOM_ALGO_NVLS_TREE:
		return nvsw && ar && comm->nodes > 1;
	case LAGOM_ALGO_PAT:
		return agrs && comm->ranks_per_node == 1 && comm->nodes > 1 &&
		       hw->gpu.sm_arch >= 60;
	default:
		return false;
	}
}

bool lagom_coll_supported(const struct lagom_hw *hw,
			  const struct lagom_comm *comm, enum lagom_coll coll,
			  enum lagom_algo algo, enum lagom_proto proto)
{
	if (lagom_call_check(hw, comm, coll, NULL))
		return false;
	return lagom_coll_allowed_nocheck(hw, comm, coll, algo, proto);
}

bool lagom_coll_allowed_nocheck(const struct lagom_hw *hw,
				const struct lagom_comm *comm,
				enum lagom_coll coll, enum lagom_algo algo,
				enum lagom_proto proto)
{
	struct lagom_hw hw_buf;
	struct lagom_comm comm_buf;

	if (hw->nvl_domain_nodes > 1)
		lagom_domain_view(hw, comm, &hw_buf, &comm_buf, &hw, &comm);
	if ((int)algo < 0 || algo >= LAGOM_ALGO_COUNT || (int)proto < 0 ||
	    proto >= LAGOM_PROTO_COUNT)
		return false;
	if (coll == LAGOM_COLL_ALLTOALL || coll == LAGOM_COLL_SENDRECV ||
	    comm->ranks == 1)
		return algo == LAGOM_ALGO_RING && proto == LAGOM_PROTO_SIMPLE;
	if (!algo_allowed(hw, comm, coll, algo))
		return false;
	if (algo != LAGOM_ALGO_RING && algo != LAGOM_ALGO_TREE &&
	    proto != LAGOM_PROTO_SIMPLE)
		return false;
	if (proto == LAGOM_PROTO_LL128)
		return ll128_enabled(hw, comm);
	return true;
}

struct nccl_ctx {
	const struct lagom_hw *hw;
	const struct lagom_comm *comm;
	enum lagom_coll coll;
	unsigned nch;
	int row, col;
	double bw_intra; /* GB/s per GPU, NCCL's view */
	double bw_inter; /* GB/s per node */
};

static double nccl_bus_bw(const struct nccl_ctx *c, enum lagom_algo a,
			  enum lagom_proto p)
{
	const struct lagom_comm *comm = c->comm;
	double bus = comm->nodes > 1 ? fmin(c->bw_intra, c->bw_inter)
				     : c->bw_intra;
	double ppn = comm->ranks_per_node;
	double intra;

	switch (a) {
	case LAGOM_ALGO_NVLS:
	case LAGOM_ALGO_NVLS_TREE:
		intra = c->bw_intra * nvls_eff[c->row] * 15.0 / 16.0 *
			(c->coll == LAGOM_COLL_ALLREDUCE ? 2 : (ppn - 1) / ppn);
		if (comm->nodes == 1)
			return intra;
		bus = fmin(intra,
			   c->bw_inter * (a == LAGOM_ALGO_NVLS_TREE &&
							  comm->nodes <= 2
						  ? 2
						  : 1));
		if (a == LAGOM_ALGO_NVLS_TREE)
			bus = fmin(bus,
				   c->nch * per_ch_nvls_tree[c->row][c->col]);
		return bus;
	case LAGOM_ALGO_TREE:
		/* Two nodes: each sends the data once (needs GPUDirect RDMA;
		 * host-staged sockets gain nothing, NVIDIA/nccl#209). */
		if (comm->nodes == 2 && c->hw->nic_gdr)
			bus = fmin(c->bw_intra, 2 * c->bw_inter);
		if (p == LAGOM_PROTO_LL)
			return fmin(bus / 3.8, ll_max_bw[c->row][c->col]);
		if (p == LAGOM_PROTO_LL128)
			return fmin(bus * (comm->nodes == 1 ? 7.0 / 9
							    : 120.0 / 128),
				    c->nch * per_ch_tree_ll128[c->row][c->col]);
		return fmin(0.92 * bus, c->nch * per_ch_tree[c->row][c->col]);
	case LAGOM_ALGO_RING:
		if (p == LAGOM_PROTO_LL)
			return fmin(ll_max_bw[c->row][c->col], 0.5 * bus);
		if (p == LAGOM_PROTO_LL128)
			return fmin(0.92 * bus,
				    c->nch * per_ch_ring_ll128[c->row][c->col]);
		return bus;
	case LAGOM_ALGO_PAT:
		return 0.75 * bus;
	default:
		return ppn * fmin(c->bw_intra, 0.9 * c->bw_inter) / 2;
	}
}

static double nccl_nsteps(enum lagom_coll coll, double n)
{
	if (coll == LAGOM_COLL_ALLREDUCE)
		return 2 * (n - 1);
	if (coll == LAGOM_COLL_ALLGATHER || coll == LAGOM_COLL_REDUCESCATTER)
		return n - 1;
	return n;
}

static double nccl_alg_bw(const struct nccl_ctx *c, enum lagom_algo a,
			  enum lagom_proto p)
{
	double bus = nccl_bus_bw(c, a, p);
	double n = c->comm->ranks;
	bool agrs = c->coll == LAGOM_COLL_ALLGATHER ||
		    c->coll == LAGOM_COLL_REDUCESCATTER;

	if (a == LAGOM_ALGO_RING || a == LAGOM_ALGO_NVLS ||
	    a == LAGOM_ALGO_NVLS_TREE)
		return bus * n / nccl_nsteps(c->coll, n);
	if (agrs)
		return bus;
	return bus * 0.5;
}

static double nccl_latency_us(const struct nccl_ctx *c, enum lagom_algo a,
			      enum lagom_proto p)
{
	const struct lagom_comm *comm = c->comm;
	int link = c->hw->intra == LAGOM_INTRA_PCIE ? 1 : 0;
	double nodes = comm->nodes, ppn = comm->ranks_per_node;
	double overhead = (p == LAGOM_PROTO_SIMPLE ? 3.0 : 1.0);
	double intra = hw_lat_us[link][a][p];
	double inter = hw_lat_us[2][comm->ranks_per_node == 1 ? 0 : a][p];
	double log_nodes = log2(nodes);
	double nsteps = nccl_nsteps(c->coll, comm->ranks), ninter;

	if (comm->nodes > 1)
		intra = fmax(intra, overhead);
	switch (a) {
	case LAGOM_ALGO_RING:
		if (c->coll > LAGOM_COLL_REDUCESCATTER)
			return base_lat_us[a][p] + intra;
		ninter = (c->coll == LAGOM_COLL_ALLREDUCE ? 2 : 1) *
			 (nodes - 1);
		nsteps = c->coll == LAGOM_COLL_ALLREDUCE ? 2 * (comm->ranks - 1)
							 : comm->ranks - 1;
		return base_lat_us[a][p] + (nsteps - ninter) * intra +
		       ninter * inter;
	case LAGOM_ALGO_TREE:
		return base_lat_us[a][p] +
		       2 * ((ppn - 1) * intra + log_nodes * inter);
	case LAGOM_ALGO_NVLS:
		return intra + (nodes > 1 ? inter : 0);
	case LAGOM_ALGO_NVLS_TREE:
		return intra + 2 * log_nodes * inter;
	case LAGOM_ALGO_PAT:
		return base_lat_us[a][p] + log_nodes * inter / 3.5 +
		       2.8 * comm->ranks;
	case LAGOM_ALGO_COLLNET_DIRECT:
		return 2 * (fmin(1, ppn - 1) * intra + (ppn - 1) * 0.4) + inter;
	default:
		return 2 * (ppn - 1) * intra + inter;
	}
}

/* nccl.md 3.4: time = latency + bytes / bw, with Tree's correction. */
static double nccl_time_us(const struct nccl_ctx *c, enum lagom_algo a,
			   enum lagom_proto p, uint64_t bytes)
{
	double bw = nccl_alg_bw(c, a, p);
	double lat = nccl_latency_us(c, a, p);

	if (!(bw > 0))
		return INFINITY;
	if (a == LAGOM_ALGO_TREE && c->coll == LAGOM_COLL_ALLREDUCE) {
		int idx = (int)log2(fmax(1.0, (double)bytes / 64.0));
		bw *= tree_corr[p][idx < 0 ? 0 : idx > 22 ? 22 : idx];
	}
	if (a == LAGOM_ALGO_RING && p == LAGOM_PROTO_SIMPLE &&
	    c->coll == LAGOM_COLL_ALLREDUCE && c->comm->nodes > 1)
		lat *= c->hw->gpu.sm_arch < 80 ? 1.9 : 1.4;
	return lat + (double)bytes / (1000.0 * bw);
}

static void nccl_ctx_init(struct nccl_ctx *c, const struct lagom_hw *hw,
			  const struct lagom_comm *comm, enum lagom_coll coll)
{
	c->hw = hw;
	c->comm = comm;
	c->coll = coll;
	c->nch = comm_channels(hw, comm);
	c->row = arch_row(hw->gpu.sm_arch);
	c->col = node_col(comm->nodes);
	if (comm->ranks_per_node <= 1)
		c->bw_intra = 1e6;
	else if (nvlink_reaches(hw, comm->ranks_per_node))
		c->bw_intra = hw->intra_links *
			      nccl_nvlink_GBps(hw->gpu.sm_arch);
	else
		c->bw_intra = hw->pcie_gen >= 4 ? 24.0 : 12.0;
	c->bw_inter = hw->nic_count * hw->nic_Bps / GB;
	if (!(c->bw_inter > 0))
		c->bw_inter = 12.0;
}

/* nccl.md 3.5: fewer channels, then fewer threads, for small messages. */
static void nccl_channels_threads(const struct nccl_ctx *c,
				  struct lagom_coll_config *cfg, uint64_t bytes)
{
	unsigned nc = c->nch, nt;
	double thr;

	if (cfg->algo == LAGOM_ALGO_NVLS || cfg->algo == LAGOM_ALGO_NVLS_TREE)
		nc = c->hw->gpu.sm_arch >= 100 ? 24 : 16;
	nt = cfg->proto == LAGOM_PROTO_LL128 ? 640 : 512;
	thr = cfg->proto == LAGOM_PROTO_SIMPLE ? 64 : 8;
	if (cfg->algo == LAGOM_ALGO_RING && cfg->proto == LAGOM_PROTO_LL)
		thr *= c->comm->ranks;
	if (cfg->algo == LAGOM_ALGO_RING || cfg->algo == LAGOM_ALGO_TREE) {
		while ((double)bytes < nc * nt * thr && nc >= 2)
			nc--;
		while ((double)bytes < nc * nt * thr && nt % 128 == 0 &&
		       nt > 64)
			nt /= 2;
	}
	if (cfg->algo == LAGOM_ALGO_RING && cfg->proto == LAGOM_PROTO_SIMPLE)
		nt += 32;
	if (cfg->algo == LAGOM_ALGO_TREE && cfg->proto == LAGOM_PROTO_SIMPLE)
		nt += 128;
	if (nt < 96)
		nt = 96;
	if (cfg->algo == LAGOM_ALGO_TREE || cfg->algo == LAGOM_ALGO_PAT)
		nt = 640;
	cfg->nchannels = nc;
	cfg->nthreads = nt;
}

int lagom_nccl_default(const struct lagom_hw *hw, const struct lagom_comm *comm,
		       enum lagom_coll coll, uint64_t bytes,
		       struct lagom_coll_config *out, struct lagom_error *err)
{
	struct lagom_coll_config best = { .algo = LAGOM_ALGO_RING,
					  .proto = LAGOM_PROTO_SIMPLE };
	const struct lagom_hw *vhw;
	const struct lagom_comm *vcomm;
	struct lagom_hw hw_buf;
	struct lagom_comm comm_buf;
	struct nccl_ctx c;
	double best_us = INFINITY;
	int rc;

	rc = lagom_call_check(hw, comm, coll, err);
	if (rc)
		return rc;
	if (bytes == 0)
		return lagom_errprintf(err, EINVAL, "message size must be > 0");
	lagom_domain_view(hw, comm, &hw_buf, &comm_buf, &vhw, &vcomm);
	nccl_ctx_init(&c, vhw, vcomm, coll);
	for (int a = 0; a < LAGOM_ALGO_COUNT; a++) {
		for (int p = 0; p < LAGOM_PROTO_COUNT; p++) {
			double t;
			if (!lagom_coll_allowed_nocheck(vhw, vcomm, coll, a, p))
				continue;
			t = nccl_time_us(&c, a, p, bytes);
			if (t < best_us) {
				best_us = t;
				best.algo = a;
				best.proto = p;
			}
		}
	}
	nccl_channels_threads(&c, &best, bytes);
	if (coll == LAGOM_COLL_ALLTOALL || coll == LAGOM_COLL_SENDRECV)
		best.nchannels = c.nch;
	best.chunk_bytes = lagom_chunk_default_bytes(best.algo, best.proto);
	if (best.chunk_bytes > bytes)
		best.chunk_bytes = bytes;
	rc = lagom_coll_config_check_nocheck(hw, comm, coll, bytes, &best, err);
	if (rc)
		return rc;
	*out = best;
	return 0;
}
