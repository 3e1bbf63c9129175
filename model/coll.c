/*
 * model/coll.c - collective time x_j(theta_j) (method section 2,
 * "communication"): latency + the bottleneck of the intra-node and network
 * paths, each capped by what NC channels can move, + per-step overhead of
 * the chunk pipeline.  Equations and constants: doc/model.md.
 */
#include <errno.h>
#include <math.h>

#include "model/model_int.h"
#include "model/netdense.h"

/* Calibrated once on tests/fixtures/measurements/nccl-busbw.csv. */
static const struct {
	double ch_tcp_Bps; /* per-channel network rate (sockets) */
	double proto_link[LAGOM_PROTO_COUNT]; /* payload share of a link */
	double proto_ch[LAGOM_PROTO_COUNT];   /* per-channel rate factor */
	double eff_nvlink, eff_nvswitch, eff_pcie;
	double eff_tree, eff_pat, eff_nvls[4];
	double pcie_cross_socket; /* > 4 GPUs on PCIe cross the sockets */
	double step_us[LAGOM_PROTO_COUNT]; /* per pipeline step */
	double nvls_lat_us;
	double proto_lat[LAGOM_PROTO_COUNT]; /* hop latency vs Simple */
	double base_lat_us[LAGOM_PROTO_COUNT];
} K = {
	.ch_tcp_Bps = 2e9,
	.proto_link = { 0.5, 0.92, 1.0 },
	.proto_ch = { 0.5, 0.9, 1.0 },
	.eff_nvlink = 0.75,
	.eff_nvswitch = 0.8,
	.eff_pcie = 0.85,
	.eff_tree = 0.9,
	.eff_pat = 0.75,
	.eff_nvls = { 0, 0, 0.62, 0.6 },
	.pcie_cross_socket = 0.8,
	.step_us = { 0.0, 0.1, 0.2 },
	.nvls_lat_us = 25.0,
	.proto_lat = { 0.2, 0.5, 1.0 },
	.base_lat_us = { 4.4, 6.0, 5.0 },
};

static int arch_row(unsigned sm_arch)
{
	return sm_arch >= 100 ? 3 : sm_arch >= 90 ? 2 : sm_arch >= 80 ? 1 : 0;
}

uint64_t lagom_chunk_default_bytes(enum lagom_algo algo, enum lagom_proto proto)
{
	if (proto == LAGOM_PROTO_LL)
		return 32768;
	if (proto == LAGOM_PROTO_LL128)
		return 576000;
	if (algo == LAGOM_ALGO_RING)
		return 2 * 1024 * 1024;
	if (algo == LAGOM_ALGO_NVLS || algo == LAGOM_ALGO_NVLS_TREE)
		return 128 * 1024;
	return 512 * 1024;
}

uint64_t lagom_chunk_max_bytes(enum lagom_proto proto)
{
	if (proto == LAGOM_PROTO_LL)
		return 262144;
	if (proto == LAGOM_PROTO_LL128)
		return 4608000;
	return 4 * 1024 * 1024;
}

int lagom_comm_check(const struct lagom_hw *hw, const struct lagom_comm *comm,
		     struct lagom_error *err)
{
	if (!comm)
		return lagom_errprintf(err, EINVAL, "no communicator");
	if (comm->ranks == 0 || comm->nodes == 0 || comm->ranks_per_node == 0)
		return lagom_errprintf(err, EINVAL,
				       "communicator needs ranks, nodes and "
				       "ranks per node > 0 (got %u/%u/%u)",
				       comm->ranks, comm->nodes,
				       comm->ranks_per_node);
	if ((uint64_t)comm->nodes * comm->ranks_per_node != comm->ranks)
		return lagom_errprintf(
			err, EINVAL, "ranks %u != nodes %u x ranks per node %u",
			comm->ranks, comm->nodes, comm->ranks_per_node);
	if (comm->ranks_per_node > hw->gpus_per_node)
		return lagom_errprintf(err, EINVAL,
				       "%u ranks per node but %u GPUs per node",
				       comm->ranks_per_node, hw->gpus_per_node);
	if ((int)comm->hops < 0 || comm->hops >= LAGOM_HOPS_COUNT)
		return lagom_errprintf(err, EINVAL, "invalid hops %d",
				       (int)comm->hops);
	if (comm->nodes > 1 && hw->nic_count == 0)
		return lagom_errprintf(err, EINVAL,
				       "%u nodes but the hardware has no NIC",
				       comm->nodes);
	if (comm->time_scale != 0 &&
	    !(comm->time_scale >= LAGOM_TIME_SCALE_MIN &&
	      comm->time_scale <= LAGOM_TIME_SCALE_MAX))
		return lagom_errprintf(err, EINVAL,
				       "time scale %g outside %g..%g",
				       comm->time_scale, LAGOM_TIME_SCALE_MIN,
				       LAGOM_TIME_SCALE_MAX);
	return 0;
}

int lagom_call_check(const struct lagom_hw *hw, const struct lagom_comm *comm,
		     enum lagom_coll coll, struct lagom_error *err)
{
	int rc = lagom_hw_check(hw, err);

	if (rc == 0)
		rc = lagom_comm_check(hw, comm, err);
	if (rc)
		return rc;
	if ((int)coll < 0 || coll >= LAGOM_COLL_COUNT)
		return lagom_errprintf(err, EINVAL, "invalid collective %d",
				       (int)coll);
	return 0;
}

int lagom_coll_config_check_nocheck(const struct lagom_hw *hw,
				    const struct lagom_comm *comm,
				    enum lagom_coll coll, uint64_t bytes,
				    const struct lagom_coll_config *cfg,
				    struct lagom_error *err)
{
	if (!cfg)
		return lagom_errprintf(err, EINVAL, "no configuration");
	if (bytes == 0)
		return lagom_errprintf(err, EINVAL, "message size must be > 0");
	if (cfg->nchannels == 0 || cfg->nchannels > LAGOM_NCHANNELS_MAX)
		return lagom_errprintf(err, EINVAL,
				       "channels must be 1..%d, got %u",
				       LAGOM_NCHANNELS_MAX, cfg->nchannels);
	if (cfg->nthreads &&
	    (cfg->nthreads % 32 || cfg->nthreads < LAGOM_NTHREADS_MIN ||
	     cfg->nthreads > LAGOM_NTHREADS_MAX))
		return lagom_errprintf(err, EINVAL,
				       "threads must be a multiple of 32 in "
				       "[64, 640], got %u",
				       cfg->nthreads);
	if (cfg->chunk_bytes > bytes)
		return lagom_errprintf(err, EINVAL,
				       "chunk %llu bytes larger than the %llu "
				       "byte buffer",
				       (unsigned long long)cfg->chunk_bytes,
				       (unsigned long long)bytes);
	if ((int)cfg->proto < 0 || cfg->proto >= LAGOM_PROTO_COUNT ||
	    (int)cfg->algo < 0 || cfg->algo >= LAGOM_ALGO_COUNT)
		return lagom_errprintf(err, EINVAL,
				       "invalid algorithm/protocol");
	if (cfg->chunk_bytes > lagom_chunk_max_bytes(cfg->proto))
		return lagom_errprintf(
			err, EINVAL,
			"chunk %llu bytes above the %s maximum "
			"%llu",
			(unsigned long long)cfg->chunk_bytes,
			lagom_proto_name(cfg->proto),
			(unsigned long long)lagom_chunk_max_bytes(cfg->proto));
	if (!lagom_coll_allowed_nocheck(hw, comm, coll, cfg->algo, cfg->proto))
		return lagom_errprintf(
			err, EINVAL, "%s/%s not available for %s here",
			lagom_algo_name(cfg->algo),
			lagom_proto_name(cfg->proto), lagom_coll_name(coll));
	return 0;
}

void lagom_hw_bw_achievable(struct lagom_hw *hw)
{
	if (hw->bw_measured)
		return;
	hw->intra_link_Bps *= hw->intra == LAGOM_INTRA_NVSWITCH ? K.eff_nvswitch
								: K.eff_nvlink;
	hw->pcie_Bps *= K.eff_pcie;
	hw->nic_Bps *= lagom_netcal_fitted.eff[lagom_hw_transport(hw)];
	hw->bw_measured = true;
}

double lagom_intra_Bps(const struct lagom_hw *hw, unsigned ppn)
{
	bool raw = hw->bw_measured;
	double nvlink = hw->intra_links * hw->intra_link_Bps;
	double pcie = hw->pcie_Bps * (raw ? 1.0 : K.eff_pcie) *
		      (ppn > 4 && !raw ? K.pcie_cross_socket : 1.0);

	if (ppn <= 1)
		return INFINITY;
	if (hw->intra == LAGOM_INTRA_NVSWITCH)
		return nvlink * (raw ? 1.0 : K.eff_nvswitch);
	nvlink *= raw ? 1.0 : K.eff_nvlink;
	if (hw->intra == LAGOM_INTRA_NVLINK) {
		if (ppn - 1 <= hw->nvlink_peers)
			return nvlink;
		return fmin(nvlink, pcie);
	}
	return pcie;
}

/* Bytes one GPU moves over the intra-node fabric and one node over its
 * NICs (per direction) for one call of S bytes. */
struct traffic {
	double intra_bytes;
	double net_bytes;
	double hops_intra;
	double hops_net;
	double algo_eff;
	double steps; /* pipeline steps per loop */
	double slice; /* chunks per loop */
	bool p2p;     /* alltoall */
};

static void ring_traffic(const struct lagom_comm *comm, enum lagom_coll coll,
			 double S, struct traffic *t)
{
	double n = comm->ranks, N = comm->nodes;
	double factor = coll == LAGOM_COLL_ALLREDUCE	   ? 2 * (n - 1) / n
			: coll <= LAGOM_COLL_REDUCESCATTER ? (n - 1) / n
							   : 1.0;
	double per_node = coll == LAGOM_COLL_ALLREDUCE ? 2 : 1;

	t->intra_bytes = comm->ranks_per_node > 1 ? S * factor : 0;
	t->net_bytes = N > 1 ? S * factor : 0;
	t->steps = coll == LAGOM_COLL_ALLREDUCE ? 2 * (n - 1) : n - 1;
	t->hops_net = per_node * (N - 1);
	t->hops_intra = t->steps - t->hops_net;
	t->slice = coll <= LAGOM_COLL_REDUCESCATTER ? n : 1;
	t->algo_eff = 1.0;
}

static void p2p_traffic(const struct lagom_comm *comm, enum lagom_coll coll,
			double S, struct traffic *t)
{
	double n = comm->ranks, N = comm->nodes, ppn = comm->ranks_per_node;

	if (coll == LAGOM_COLL_SENDRECV) {
		t->intra_bytes = N > 1 ? 0 : S;
		t->net_bytes = N > 1 ? S : 0;
		t->hops_intra = N > 1 ? 0 : 1;
		t->hops_net = N > 1 ? 1 : 0;
	} else {
		t->intra_bytes = S * (ppn - 1) / n;
		t->net_bytes = ppn * S * (n - ppn) / n;
		t->hops_intra = ppn > 1 ? 1 : 0;
		t->hops_net = N > 1 ? 1 : 0;
		t->p2p = true;
	}
	t->steps = 1;
	t->slice = 1;
	t->algo_eff = 1.0;
}

static void traffic_of(const struct lagom_hw *hw, const struct lagom_comm *comm,
		       enum lagom_coll coll, enum lagom_algo algo, double S,
		       const struct lagom_netcal *cal, struct traffic *t)
{
	double n = comm->ranks, N = comm->nodes, ppn = comm->ranks_per_node;
	double lognodes;

	if (coll == LAGOM_COLL_ALLTOALL || coll == LAGOM_COLL_SENDRECV) {
		p2p_traffic(comm, coll, S, t);
		return;
	}
	ring_traffic(comm, coll, S, t);
	if (algo == LAGOM_ALGO_RING)
		return; /* the common case: no log2 */
	lognodes = N > 1 ? ceil(log2(N)) : 0;
	switch (algo) {
	case LAGOM_ALGO_TREE:
		t->intra_bytes = ppn > 1 ? 2 * S * (ppn - 1) / ppn : 0;
		t->net_bytes = N > 1 ? (N == 2 ? S / cal->tree2_eff : 2 * S)
				     : 0;
		t->hops_intra = 2 * (ppn - 1);
		t->hops_net = 2 * lognodes;
		t->steps = t->hops_intra + t->hops_net;
		t->slice = 1;
		t->algo_eff = K.eff_tree;
		break;
	case LAGOM_ALGO_NVLS:
	case LAGOM_ALGO_NVLS_TREE:
		t->intra_bytes = S * (ppn - 1) / ppn;
		if (N == 2)
			t->net_bytes = S / cal->tree2_eff;
		else if (N > 2)
			t->net_bytes = algo == LAGOM_ALGO_NVLS_TREE
					       ? 2 * S
					       : 2 * S * (N - 1) / N;
		t->hops_intra = 1;
		t->hops_net = algo == LAGOM_ALGO_NVLS ? (N > 1) : 2 * lognodes;
		t->steps = 2;
		t->slice = 1;
		t->algo_eff = K.eff_nvls[arch_row(hw->gpu.sm_arch)];
		break;
	case LAGOM_ALGO_PAT:
		t->hops_net = lognodes;
		t->hops_intra = 0;
		t->algo_eff = K.eff_pat;
		break;
	case LAGOM_ALGO_COLLNET_DIRECT:
	case LAGOM_ALGO_COLLNET_CHAIN:
		/* reduce within the node, the switch reduces across nodes */
		t->intra_bytes = ppn > 1 ? 2 * S * (ppn - 1) / ppn : 0;
		t->net_bytes = S;
		t->hops_intra = 2 * (ppn - 1);
		t->hops_net = 1;
		t->steps = t->hops_intra + 1;
		t->slice = 1;
		t->algo_eff = K.eff_tree;
		break;
	default:
		break;
	}
	(void)n;
}

static double thread_factor(const struct lagom_coll_config *cfg)
{
	double nt_default = cfg->proto == LAGOM_PROTO_LL128 ? 640 : 544;
	double nt = cfg->nthreads ? cfg->nthreads : nt_default;

	if (nt >= nt_default) /* pow(>= 1, 0.1) >= 1: the cap, exactly */
		return 1.0;
	return fmin(1.0, pow(nt / nt_default, 0.1));
}

/*
 * Path rates: link bandwidth x efficiencies, capped by what NC channels
 * move.  The part that does not depend on NC is prepared once (rates_prep),
 * so a caller can price a whole channel grid (lagom_coll_times_s_nocheck).
 */
struct rates {
	double intra_link_Bps; /* intra-node link rate x efficiencies */
	double net_link_Bps;   /* the node's NICs x efficiencies */
	double ch_Bps;	       /* one channel, intra-node */
	double ch_net_Bps;     /* one channel towards the network */
	double fan;	       /* alltoall: every GPU's channels */
};

static void rates_prep(const struct lagom_hw *hw, const struct lagom_comm *comm,
		       enum lagom_coll coll,
		       const struct lagom_coll_config *cfg,
		       const struct traffic *t, const struct lagom_netcal *cal,
		       struct rates *r)
{
	double f = K.proto_ch[cfg->proto] * thread_factor(cfg);
	double ch = lagom_channel_Bps_nocheck(hw, comm) * f;
	double ceiling = lagom_channel_ceiling_Bps(hw->gpu.sm_arch) * f;
	double ch_net = (hw->nic_gdr ? cal->ch_net_Bps : K.ch_tcp_Bps) *
			K.proto_ch[cfg->proto];
	double link = K.proto_link[cfg->proto] * t->algo_eff;
	double net = lagom_nic_line_Bps(hw, comm) *
		     (hw->bw_measured ? 1.0 : cal->eff[lagom_hw_transport(hw)]);

	/* multimem: the switch does the copies, and NCCL's own NVLS counts
	 * (16-32, ceil(32 / ranks) under NCCL_CTA_POLICY=efficiency) are
	 * sized to the per-CTA ceiling, not to the ring's share */
	if (cfg->algo == LAGOM_ALGO_NVLS || cfg->algo == LAGOM_ALGO_NVLS_TREE) {
		ceiling *= 2;
		ch = hw->ch_Bps > 0 ? 2 * ch : ceiling;
	}
	if (coll == LAGOM_COLL_SENDRECV)
		net = fmin(net, hw->nic_Bps);
	r->intra_link_Bps = lagom_intra_Bps(hw, comm->ranks_per_node) * link;
	r->net_link_Bps = net * link;
	r->ch_Bps = ch;
	r->ch_net_Bps = fmin(ceiling, ch_net);
	r->fan = coll == LAGOM_COLL_ALLTOALL ? comm->ranks_per_node : 1;
}

/*
 * Latency: launch, the protocol's base, every hop of the longest path.
 * Across nodes each network step also pays the transport's software cost
 * and each intra-node step the proxy's progress (fitted, 2.1); an
 * alltoall pays per peer.
 */
static double hop_latency_s(const struct lagom_hw *hw,
			    const struct lagom_comm *comm,
			    const struct lagom_coll_config *cfg,
			    const struct traffic *t,
			    const struct lagom_netcal *cal)
{
	double pl = K.proto_lat[cfg->proto];
	int link = hw->intra == LAGOM_INTRA_PCIE ? 1 : 0;
	double w_net = lagom_nccl_hop_lat_us(2, cfg->algo, cfg->proto) /
		       lagom_nccl_hop_lat_us(2, LAGOM_ALGO_RING,
					     LAGOM_PROTO_SIMPLE);
	double w_intra = lagom_nccl_hop_lat_us(link, cfg->algo, cfg->proto) /
			 lagom_nccl_hop_lat_us(link, LAGOM_ALGO_RING,
					       LAGOM_PROTO_SIMPLE);
	double net = hw->net_lat_us +
		     (comm->hops == LAGOM_HOPS_SPINE ? hw->spine_lat_us : 0) +
		     cal->step_us[lagom_hw_transport(hw)];
	double intra = hw->intra_lat_us * pl;
	double us = hw->launch_us + K.base_lat_us[cfg->proto];

	if (comm->nodes > 1)
		intra += cal->mn_step_us * w_intra;
	if (cfg->algo == LAGOM_ALGO_NVLS || cfg->algo == LAGOM_ALGO_NVLS_TREE)
		us += K.nvls_lat_us;
	else
		us += t->hops_intra * intra;
	us += t->hops_net * net * w_net;
	if (cfg->algo == LAGOM_ALGO_PAT)
		us += 0.5 * comm->ranks;
	if (t->p2p)
		us += cal->p2p_peer_us * (comm->ranks - 1);
	return us * 1e-6;
}

/* Pipeline: each loop moves `slice` chunks per channel in `steps` steps;
 * every step costs a fixed synchronisation overhead. */
static double step_overhead_s(const struct lagom_coll_config *cfg,
			      const struct traffic *t, double S, double nc,
			      double fill_s_per_byte)
{
	double chunk = cfg->chunk_bytes ? (double)cfg->chunk_bytes
					: (double)lagom_chunk_default_bytes(
						  cfg->algo, cfg->proto);
	double per_channel = S / nc;
	double loops = ceil(per_channel / (t->slice * chunk));
	double first = fmin(chunk, per_channel / t->slice);

	return loops * t->steps * K.step_us[cfg->proto] * 1e-6 +
	       first * fill_s_per_byte;
}

static double bus_factor(enum lagom_coll coll, double n)
{
	if (coll == LAGOM_COLL_ALLREDUCE)
		return 2 * (n - 1) / n;
	if (coll == LAGOM_COLL_ALLGATHER || coll == LAGOM_COLL_REDUCESCATTER ||
	    coll == LAGOM_COLL_ALLTOALL)
		return (n - 1) / n;
	return 1.0;
}

/*
 * Bytes of device memory (HBM) one GPU reads and writes for one collective
 * (doc/model.md 4): each byte it sends on the bus is read once and each byte
 * it receives written once (2 x the bus bytes), the protocol's FIFO words
 * carry flags (LL: 8 bytes per 4 of data, LL128: 128 per 120), a reduction
 * reads the local operand of every received chunk it reduces, and an
 * alltoall copies the rank's own block (read and write).
 */
double lagom_coll_mem_bytes(const struct lagom_comm *comm, enum lagom_coll coll,
			    uint64_t bytes, enum lagom_proto proto)
{
	double n = comm->ranks ? comm->ranks : 1, S = (double)bytes;
	double wire = S * bus_factor(coll, n);
	double flags = proto == LAGOM_PROTO_LL	    ? 2.0
		       : proto == LAGOM_PROTO_LL128 ? 128.0 / 120.0
						    : 1.0;
	double mem = 2 * wire * flags;

	if (n < 2)
		return coll == LAGOM_COLL_ALLTOALL ? 2 * S : 0;
	if (coll == LAGOM_COLL_ALLREDUCE || coll == LAGOM_COLL_REDUCESCATTER)
		mem += S * (n - 1) / n;
	else if (coll == LAGOM_COLL_REDUCE)
		mem += S;
	else if (coll == LAGOM_COLL_ALLTOALL)
		mem += 2 * S / n;
	return mem;
}

/* What x_j(theta_j) needs besides the channel count. */
struct coll_prep {
	struct traffic t;
	struct rates r;
	double S, lat;
	double fill; /* s per byte of the first chunk (network pipeline) */
	double ppn;  /* > 0: a PCIe node, where the NIC traffic of each GPU
			shares its link with the intra-node traffic */
	double gpu_link_Bps; /* that link's achievable rate */
	double scale;	     /* the communicator's measured correction */
	/* a site's dense fit that covers the class (model/netdense.h) */
	const struct lagom_net_dense *dense;
	struct lagom_dense_meas dm;
	double dense_floor_s;
};

static void coll_prep(const struct lagom_hw *hw, const struct lagom_comm *comm,
		      enum lagom_coll coll, uint64_t bytes,
		      const struct lagom_coll_config *config,
		      const struct lagom_netcal *cal, struct coll_prep *c)
{
	struct lagom_hw hw_buf;
	struct lagom_comm comm_buf;
	struct lagom_netcal site_buf;

	*c = (struct coll_prep){ .S = (double)bytes,
				 .scale = comm->time_scale > 0
						  ? comm->time_scale
						  : 1.0 };
	lagom_domain_view(hw, comm, &hw_buf, &comm_buf, &hw, &comm);
	cal = lagom_netcal_site(hw, comm->nodes, cal, &site_buf);
	c->dense = lagom_dense_site_entry(hw, comm, coll, bytes, config, &c->dm,
					  &c->dense_floor_s);
	traffic_of(hw, comm, coll, config->algo, c->S, cal, &c->t);
	rates_prep(hw, comm, coll, config, &c->t, cal, &c->r);
	c->lat = hop_latency_s(hw, comm, config, &c->t, cal);
	if (c->t.net_bytes > 0) {
		c->fill = cal->net_fill * c->t.hops_net / c->r.ch_net_Bps;
		if (hw->intra == LAGOM_INTRA_PCIE && comm->ranks_per_node > 1) {
			c->ppn = comm->ranks_per_node;
			c->gpu_link_Bps = hw->pcie_Bps *
					  K.proto_link[config->proto];
		}
	}
}

/* x_j(theta_j) at nc channels: latency + bottleneck + pipeline steps. */
static double coll_time_at(const struct coll_prep *c,
			   const struct lagom_coll_config *config, double nc)
{
	double intra_Bps = fmin(c->r.intra_link_Bps, nc * c->r.ch_Bps);
	double net_Bps = fmin(c->r.net_link_Bps,
			      nc * c->r.ch_net_Bps * c->r.fan);
	double bw_s = fmax(c->t.intra_bytes > 0 ? c->t.intra_bytes / intra_Bps
						: 0,
			   c->t.net_bytes > 0 ? c->t.net_bytes / net_Bps : 0);
	double dense_s;

	if (c->dense && lagom_dense_site_time_at(c->dense, &c->dm, nc,
						 c->dense_floor_s, &dense_s))
		return dense_s * c->scale;

	if (c->ppn > 0) /* one PCIe link carries both */
		bw_s = fmax(bw_s,
			    (c->t.intra_bytes + c->t.net_bytes / c->ppn) /
				    fmin(c->gpu_link_Bps, nc * c->r.ch_Bps));

	return (c->lat + bw_s +
		step_overhead_s(config, &c->t, c->S, nc, c->fill)) *
	       c->scale;
}

/* x_j(theta_j) of checked arguments; also fills *out when not NULL. */
static double coll_time(const struct lagom_hw *hw,
			const struct lagom_comm *comm, enum lagom_coll coll,
			uint64_t bytes, const struct lagom_coll_config *config,
			const struct lagom_netcal *cal,
			struct lagom_coll_time *out)
{
	struct coll_prep c;
	double time, S = (double)bytes;

	coll_prep(hw, comm, coll, bytes, config, cal, &c);
	time = coll_time_at(&c, config, config->nchannels);
	if (out)
		*out = (struct lagom_coll_time){
			.time_s = time,
			.algbw_Bps = S / time,
			.busbw_Bps = S / time * bus_factor(coll, comm->ranks),
			.lat_s = c.lat * c.scale,
		};
	return time;
}

void lagom_coll_times_s_nocheck(const struct lagom_hw *hw,
				const struct lagom_comm *comm,
				enum lagom_coll coll, uint64_t bytes,
				const struct lagom_coll_config *cfg,
				const unsigned *nchannels, size_t n,
				double *time_s)
{
	struct coll_prep c;

	coll_prep(hw, comm, coll, bytes, cfg, &lagom_netcal_fitted, &c);
	for (size_t i = 0; i < n; i++)
		time_s[i] = coll_time_at(&c, cfg, nchannels[i]);
}

double lagom_coll_time_s_nocheck(const struct lagom_hw *hw,
				 const struct lagom_comm *comm,
				 enum lagom_coll coll, uint64_t bytes,
				 const struct lagom_coll_config *cfg)
{
	return coll_time(hw, comm, coll, bytes, cfg, &lagom_netcal_fitted,
			 NULL);
}

double lagom_coll_time_cal_s(const struct lagom_hw *hw,
			     const struct lagom_comm *comm,
			     enum lagom_coll coll, uint64_t bytes,
			     const struct lagom_coll_config *cfg,
			     const struct lagom_netcal *cal)
{
	return coll_time(hw, comm, coll, bytes, cfg, cal, NULL);
}

int lagom_coll_predict(const struct lagom_hw *hw, const struct lagom_comm *comm,
		       enum lagom_coll coll, uint64_t bytes,
		       const struct lagom_coll_config *config,
		       struct lagom_coll_time *out, struct lagom_error *err)
{
	int rc = lagom_call_check(hw, comm, coll, err);

	if (rc == 0)
		rc = lagom_coll_config_check_nocheck(hw, comm, coll, bytes,
						     config, err);
	if (rc)
		return rc;
	if (!out)
		return lagom_errprintf(err, EINVAL, "no output");
	coll_time(hw, comm, coll, bytes, config, &lagom_netcal_fitted, out);
	return 0;
}
