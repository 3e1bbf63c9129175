/*
 * model/model.h - lagom's unified cost model of communication/computation
 * overlap (method sections 1, 2 and 4; equations in doc/model.md).
 * Names below are never renamed; new names and fields may be added.
 *
 * This is the public API, for anyone.  Two more headers serve narrower
 * audiences (who may include which: model/model_fast.h, checked by
 * tests/purity.sh): model/model_fast.h, the search's unchecked fast path;
 * model/model_fit.h, fitting the model's constants to measurements.
 */
/* lagom-api: stable */
#ifndef LAGOM_MODEL_MODEL_H
#define LAGOM_MODEL_MODEL_H

/*
 * Given a node's hardware (struct lagom_hw), a communicator's placement
 * (struct lagom_comm), a workload (regions of compute kernels overlapped with
 * a chain of collectives) and one NCCL configuration per collective, predict
 * how long each collective takes, how much it slows the computation beside
 * it, and how long the region and the whole iteration take.
 *
 * Pure core: no I/O, environment, clock or randomness; libm and common/ only.
 * All functions are reentrant; nothing keeps state between calls.
 *
 * Conventions
 *  - Units are in the names: _s seconds, _us microseconds, _bytes bytes,
 *    _Bps bytes per second (1 GB/s = 1e9 B/s), _tflops 1e12 FLOP/s.
 *  - Functions return 0 or a negative errno (-EINVAL for bad input, -ENOMEM)
 *    and, when err is not NULL, fill err with one line saying why.  Nothing
 *    is written to an out-parameter on failure.
 *  - Input structs are borrowed: the model never keeps or frees them.
 *  - Plain structs are meant to be filled with designated initialisers;
 *    a field documented "0 = default" may be left zero.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* ------------------------------------------------------------------ */
/* Names: collectives, algorithms, protocols, precisions.              */
/* ------------------------------------------------------------------ */

/* Collectives (names as in doc/plan-format.md): the plan's seven classes,
 * dense, in the model's order; lagom_coll_nccl_func() gives NCCL's number. */
enum lagom_coll {
	LAGOM_COLL_ALLREDUCE,
	LAGOM_COLL_ALLGATHER,
	LAGOM_COLL_REDUCESCATTER,
	LAGOM_COLL_BROADCAST,
	LAGOM_COLL_REDUCE,
	LAGOM_COLL_ALLTOALL,
	LAGOM_COLL_SENDRECV,
	LAGOM_COLL_COUNT
};

/* NCCL's algorithm indices (NCCL_ALGO_TREE = 0 ... NCCL_ALGO_PAT = 6). */
enum lagom_algo {
	LAGOM_ALGO_TREE = 0,
	LAGOM_ALGO_RING = 1,
	LAGOM_ALGO_COLLNET_DIRECT = 2,
	LAGOM_ALGO_COLLNET_CHAIN = 3,
	LAGOM_ALGO_NVLS = 4,
	LAGOM_ALGO_NVLS_TREE = 5,
	LAGOM_ALGO_PAT = 6,
	LAGOM_ALGO_COUNT
};

/* NCCL's protocol indices. */
enum lagom_proto {
	LAGOM_PROTO_LL = 0,
	LAGOM_PROTO_LL128 = 1,
	LAGOM_PROTO_SIMPLE = 2,
	LAGOM_PROTO_COUNT
};

/* Numeric precision of a workload's compute and communicated tensors. */
enum lagom_precision {
	LAGOM_PREC_FP32,
	LAGOM_PREC_TF32,
	LAGOM_PREC_FP16,
	LAGOM_PREC_BF16,
	LAGOM_PREC_FP8,
	LAGOM_PREC_COUNT
};

/*
 * *_name() return a static lowercase string ("allreduce", "ring", "ll128",
 * "bf16"), or NULL for a value out of range.  *_parse() accept exactly those
 * names, case-insensitively, and return 0 or -EINVAL (out untouched).
 * Algorithm names: tree ring collnetdirect collnetchain nvls nvlstree pat.
 * Protocol names: ll ll128 simple.  Precision names: fp32 tf32 fp16 bf16 fp8.
 */
const char *lagom_coll_name(enum lagom_coll coll);
int lagom_coll_parse(const char *name, enum lagom_coll *out);
/* A collective's ncclFunc_t (common/nccl_abi.h), or -1 out of range; and
 * back: 0, or -EINVAL (out untouched) for an operation the model has no
 * collective of (send, recv, gather, scatter). */
int lagom_coll_nccl_func(enum lagom_coll coll);
int lagom_coll_from_nccl_func(int func, enum lagom_coll *out);
const char *lagom_algo_name(enum lagom_algo algo);
int lagom_algo_parse(const char *name, enum lagom_algo *out);
const char *lagom_proto_name(enum lagom_proto proto);
int lagom_proto_parse(const char *name, enum lagom_proto *out);
const char *lagom_precision_name(enum lagom_precision prec);
int lagom_precision_parse(const char *name, enum lagom_precision *out);
/* Bytes per element: 4, 4, 2, 2, 1; 0 for a value out of range. */
unsigned lagom_precision_bytes(enum lagom_precision prec);

/* ------------------------------------------------------------------ */
/* Hardware.                                                            */
/* ------------------------------------------------------------------ */

#define LAGOM_GPU_NAME_MAX 32

/* Intra-node fabric between the GPUs of one node: the one fabric enum of
 * the tree (model, topology/, profiles). */
enum lagom_intra {
	LAGOM_INTRA_PCIE,     /* PCIe only (through switches / host bridge) */
	LAGOM_INTRA_NVLINK,   /* direct NVLink: bridges (pairs) or a mesh */
	LAGOM_INTRA_NVSWITCH, /* all GPUs on NVSwitches (full bandwidth) */
	LAGOM_INTRA_DEFAULT,  /* lagom_hw_from_spec() only: from the GPU kind */
	LAGOM_INTRA_NONE,     /* profiles only: fewer than two GPUs */
	LAGOM_INTRA_COUNT
};

/* "pcie" "nvlink" "nvswitch" "default" "none"; parse is case-insensitive. */
const char *lagom_intra_name(enum lagom_intra intra);
int lagom_intra_parse(const char *name, enum lagom_intra *out);

/*
 * Network transport NCCL uses between nodes: the NIC efficiency and the
 * per-step software cost differ per transport (doc/model.md 2.1, fitted on
 * published sweeps).  DEFAULT = InfiniBand-like when hw->nic_gdr, host
 * sockets (TCP) when not.
 */
enum lagom_transport {
	LAGOM_NET_DEFAULT,
	LAGOM_NET_IB,	/* InfiniBand verbs */
	LAGOM_NET_ROCE, /* RDMA over Converged Ethernet */
	LAGOM_NET_EFA,	/* AWS Elastic Fabric Adapter (libfabric) */
	LAGOM_NET_TCPX, /* GPUDirect-TCPX/TCPXO (GCP) */
	LAGOM_NET_TCP,	/* NCCL's socket transport */
	LAGOM_NET_COUNT
};

/*
 * A site's calibration of the network constants (doc/model.md 2.7,
 * doc/calibration-format.md): values `lagom calibrate` fitted to the
 * cluster's own measured collectives, per node-count band, for one
 * transport (the hardware's).  A value whose set flag is false keeps the
 * built-in calibration.  Bands by the nodes the model prices (a
 * multi-node NVLink domain counts as one): 2, 3-8, 9 and more.
 */
enum lagom_net_param {
	LAGOM_NP_EFF,	     /* share of the NIC line rate, 0.3-1 */
	LAGOM_NP_STEP_US,    /* software cost of one network step, 0-200 us */
	LAGOM_NP_MN_STEP_US, /* intra-node step across nodes, 0-20 us */
	LAGOM_NP_FILL,	     /* network pipeline fill, 0-8 chunks */
	LAGOM_NP_CH_NET,     /* one channel's rate to the NIC, 4e9-50e9 B/s */
	LAGOM_NP_TREE2,	     /* share of the 2-node tree's doubled rate */
	LAGOM_NP_COUNT
};
#define LAGOM_NET_BANDS 3

/*
 * A dense fit (model/netdense.h, doc/model.md 2.8) of one algorithm in one
 * transport and band, as the calibration file (version 2) carries it:
 * the form's constants in lagom_dense_param order (unset: refused), per
 * protocol the bytes it was fitted over (max 0: that protocol is not
 * covered), the channels and ranks per node seen (one: a bus bandwidth
 * holds for one share of the NICs), and its leave-one-class-out median
 * error.
 * The model prices a class with it where it covers the class (model/
 * netdense.h, lagom_dense_site_time); elsewhere with the constants above.
 */
#define LAGOM_NET_DENSE_PARAMS 7
#define LAGOM_NET_DENSE_PROTOS 3 /* Simple, LL128, LL */
enum lagom_net_dense_algo {
	LAGOM_NET_DENSE_RING,
	LAGOM_NET_DENSE_TREE,
	LAGOM_NET_DENSE_ALGOS
};
struct lagom_net_dense {
	bool set[LAGOM_NET_DENSE_PARAMS];
	double value[LAGOM_NET_DENSE_PARAMS];
	uint64_t min_bytes[LAGOM_NET_DENSE_PROTOS];
	uint64_t max_bytes[LAGOM_NET_DENSE_PROTOS];
	unsigned min_channels, max_channels;
	unsigned ranks_per_node; /* the communicators' it was fitted on */
	unsigned classes;
	double err;
};

struct lagom_net_site {
	bool set[LAGOM_NET_BANDS][LAGOM_NP_COUNT];
	double value[LAGOM_NET_BANDS][LAGOM_NP_COUNT];
	struct lagom_net_dense dense[LAGOM_NET_BANDS][LAGOM_NET_DENSE_ALGOS];
};

/* The band of a communicator over nodes (model view): 0 for 2 nodes, 1
 * for 3-8, 2 for more; -1 for one node (no network). */
int lagom_net_band(unsigned nodes);
/* "2", "3-8", "9+"; NULL out of range. */
const char *lagom_net_band_name(int band);
/* "eff" "step_us" "mn_step_us" "fill" "ch_net_Bps" "tree2_eff"; NULL out of
 * range.  lagom_net_param_parse: 0 or -EINVAL. */
const char *lagom_net_param_name(enum lagom_net_param p);
int lagom_net_param_parse(const char *name, enum lagom_net_param *out);
/* The physical range of a parameter (also the fit's bounds). */
void lagom_net_param_range(enum lagom_net_param p, double *lo, double *hi);
/* The built-in value of p for transport t (what a site value replaces). */
double lagom_net_param_builtin(enum lagom_net_param p, enum lagom_transport t);
/* Every set value finite and inside its range: 0, else -EINVAL. */
int lagom_net_site_check(const struct lagom_net_site *site,
			 struct lagom_error *err);

/* "default" "ib" "roce" "efa" "tcpx" "tcp"; parse is case-insensitive. */
const char *lagom_transport_name(enum lagom_transport t);
int lagom_transport_parse(const char *name, enum lagom_transport *out);

/*
 * One GPU model from its spec sheet (the built-in table).  Bandwidths are
 * per direction.  tflops[] is dense (no sparsity) peak; 0 where the GPU has
 * no such unit (e.g. FP8 before Hopper/Ada).
 */
struct lagom_gpu_spec {
	char name[LAGOM_GPU_NAME_MAX]; /* canonical: "H100-SXM", "A40", ... */
	unsigned sm_arch;	       /* compute capability x10: 70, 80, 90 */
	unsigned sm_count;
	double tflops[LAGOM_PREC_COUNT];
	double hbm_Bps;			/* device memory bandwidth */
	uint64_t mem_bytes;		/* device memory size */
	uint64_t l2_bytes;		/* L2 cache size */
	unsigned nvlink_gen;		/* 0 = no NVLink */
	unsigned nvlink_links;		/* NVLink links per GPU */
	double nvlink_link_Bps;		/* per link, per direction */
	unsigned pcie_gen;		/* 3, 4, 5, 6 */
	unsigned pcie_lanes;		/* 16 */
	enum lagom_intra intra_default; /* usual fabric in an 8-GPU server */
};

/*
 * The built-in spec-sheet table (static, never freed).  lagom_gpu_lookup()
 * matches case-insensitively and tolerates vendor strings: "Tesla
 * V100-SXM3-32GB", "NVIDIA H100 80GB HBM3", "A10G", "NVIDIA A40",
 * "H100-PCIe", "h200".  Returns NULL when nothing matches (name NULL too).
 */
const struct lagom_gpu_spec *lagom_gpu_lookup(const char *name);
const struct lagom_gpu_spec *lagom_gpu_table(size_t *count);

/*
 * A node's hardware as the model sees it: what a node profile holds, or what
 * lagom_hw_from_spec() derives from spec sheets when nothing was measured.
 * Fields marked "profile" are measured by the profile issue's prolog when
 * available and may be overridden.
 */
struct lagom_hw {
	struct lagom_gpu_spec gpu; /* a copy; name is part of it */
	unsigned gpus_per_node;

	/* Intra-node fabric. */
	enum lagom_intra intra; /* never LAGOM_INTRA_DEFAULT here */
	double intra_link_Bps;	/* per NVLink link per direction */
	unsigned intra_links;	/* NVLink links per GPU (0 for PCIe) */
	unsigned nvlink_peers;	/* NVLINK: GPUs one GPU reaches directly */
	unsigned pcie_gen;	/* GPU<->switch generation */
	unsigned pcie_lanes;	/* GPU<->switch width */
	unsigned gpus_per_pcie_switch; /* GPUs sharing one switch uplink */
	double pcie_Bps; /* profile: achievable GPU<->GPU over PCIe */

	/* Network. */
	unsigned nic_count;    /* NICs per node used by NCCL (0 = none) */
	double nic_Bps;	       /* per NIC per direction (400 Gb/s = 50e9) */
	unsigned gpus_per_nic; /* GPUs sharing one NIC (rails) */
	bool nic_gdr;	       /* GPUDirect RDMA (IB/RoCE/EFA); false: TCP */
	bool collnet;	       /* a CollNet (SHARP) plugin is available */

	/*
	 * Bandwidth fields above are nominal (spec sheet) by default and the
	 * model applies its calibrated efficiencies (doc/model.md 2).  A
	 * profile that measured achieved bandwidths (intra_link_Bps x
	 * intra_links, pcie_Bps, nic_Bps) sets this so no efficiency factor
	 * is applied to them a second time.
	 */
	bool bw_measured;

	/* Latencies (profile). */
	double launch_us;    /* kernel launch + host overhead per collective */
	double intra_lat_us; /* one hop inside the node */
	double net_lat_us;   /* one hop across the network */
	double spine_lat_us; /* extra per hop that crosses the spine */

	/*
	 * A resident NCCL kernel's constant (doc/model.md 4): a kernel beside
	 * NC >= 1 resident NCCL CTAs takes (W(NC) + contention_resident) times
	 * its time alone, whatever NC, before the factors below.  Built-in:
	 * 0.087 on Hopper (sm_arch 90..99, fitted on an H200), 0 elsewhere.
	 */
	double contention_resident;
	/*
	 * Contention coefficients (profile; doc/model.md "computation under
	 * contention").  A kernel with memory-boundness m beside NC channels
	 * with chunk C is slowed by 1 + m * gamma,
	 *   gamma = contention_sm * NC / SMs
	 *         + contention_l2 * min(max(0, NC * C / L2 - knee),
	 *                               contention_l2_cap).
	 */
	double contention_sm;
	double contention_l2;
	double contention_l2_cap;
	/* L2-fulls of chunks in flight the L2 absorbs before they contend:
	 * the L2 term uses max(0, NC * C / L2 - contention_l2_knee). */
	double contention_l2_knee;
	/*
	 * The L2 term counts only chunks the collective streams (doc/model.md
	 * 4): it is scaled by g = clamp((x - contention_l2_x0) /
	 * (contention_l2_x1 - contention_l2_x0), 0, 1), x = mem_Bps /
	 * gpu.hbm_Bps as below; contention_l2_x1 0: not scaled (g = 1, a
	 * measured curve's term).  Built-in 0.01 and 0.03, not fitted.
	 */
	double contention_l2_x0;
	double contention_l2_x1;
	/*
	 * HBM-traffic contention (doc/model.md 4): a kernel beside a
	 * collective whose device-memory traffic runs at mem_Bps is slowed by
	 * 1 + contention_rate * min(x, contention_rate_cap), x = mem_Bps /
	 * gpu.hbm_Bps (lagom_coll_mem_bytes() / the collective's time).
	 */
	double contention_rate;
	double contention_rate_cap;
	/* Fraction of an SM one NCCL channel takes from a kernel of
	 * unknown geometry (smooth SM-share model), 0..1. */
	double channel_sm_share;

	/* Network transport (0 = LAGOM_NET_DEFAULT). */
	enum lagom_transport transport;
	/*
	 * Multi-node NVLink domain (GB200/GB300 NVL72): nodes whose GPUs
	 * reach each other over NVLink switches, the network only between
	 * domains.  0 or 1 = none.  The model treats the nodes of one domain
	 * as one NVSwitch "node" of nvl_domain_nodes x gpus_per_node GPUs
	 * (doc/model.md 2.3).  At most 256.
	 */
	unsigned nvl_domain_nodes;
	/*
	 * The site's calibration of the network constants for this
	 * hardware's transport (lagom calibrate; all unset by default and
	 * from lagom_hw_from_spec): the planner copies it from the
	 * calibration file.
	 */
	struct lagom_net_site net_site;
	/*
	 * What one channel (one CTA) moves over the intra-node fabric,
	 * Simple protocol, bytes/s (doc/model.md 2.8): the prolog's measured
	 * busbw-over-channels curve (lagom_channel_fit()); 0 = the model's
	 * rule (lagom_channel_Bps()).  Else within LAGOM_CHANNEL_BPS_MIN..MAX.
	 */
	double ch_Bps;
};

/*
 * Fill *out from the built-in table for a site without measurements.
 * gpu: a name for lagom_gpu_lookup(); intra: LAGOM_INTRA_DEFAULT takes the
 * GPU's usual fabric (NVSwitch for SXM parts from A100 on, NVLink for
 * V100-SXM, PCIe otherwise); nic_count may be 0 (single node); nic_Gbit is
 * per NIC in Gb/s (e.g. 400).  Errors: -EINVAL for an unknown GPU,
 * gpus_per_node 0 or > 64, NVLink or NVSwitch on a GPU without NVLink,
 * nic_count > 0 with nic_Gbit <= 0.  Defaults of the other fields (latencies,
 * contention coefficients): doc/model.md section 1.
 */
int lagom_hw_from_spec(const char *gpu, unsigned gpus_per_node,
		       enum lagom_intra intra, unsigned nic_count,
		       double nic_Gbit, struct lagom_hw *out,
		       struct lagom_error *err);

/*
 * Give hw nic_count NICs of nic_Bps each (bytes per second, one direction):
 * GPUs per NIC spread evenly, GPUDirect RDMA and the network latency that
 * goes with it; nic_count 0: no network.  lagom_hw_from_spec() ends with
 * it; the profile's translation (profile/) calls it with the line rate the
 * node's profile holds, in the unit the profile holds it.
 */
void lagom_hw_set_nics(struct lagom_hw *hw, unsigned nic_count, double nic_Bps);

/* Check a hw description (profile readers call this): 0 or -EINVAL. */
int lagom_hw_check(const struct lagom_hw *hw, struct lagom_error *err);

/*
 * Put hw's bandwidths on the achievable basis: when bw_measured is false,
 * multiply intra_link_Bps, pcie_Bps and nic_Bps by the model's calibrated
 * efficiencies (doc/model.md 2) and set bw_measured; a measured description
 * is left as it is.  Two descriptions can then be compared field by field
 * (the planner's weakest node).  The PCIe cross-socket factor for more than
 * four ranks per node is not a property of one link and is not applied: a
 * converted description is treated like a measured one from then on.
 */
void lagom_hw_bw_achievable(struct lagom_hw *hw);

/* ------------------------------------------------------------------ */
/* Communicators and collective configurations.                        */
/* ------------------------------------------------------------------ */

/* Farthest network distance between two nodes of the communicator. */
enum lagom_hops {
	LAGOM_HOPS_SAME_NODE, /* nodes == 1 */
	LAGOM_HOPS_SAME_LEAF, /* all nodes under one leaf switch */
	LAGOM_HOPS_SPINE,     /* traffic crosses the spine */
	LAGOM_HOPS_COUNT
};

/* "node" "leaf" "spine". */
const char *lagom_hops_name(enum lagom_hops hops);
int lagom_hops_parse(const char *name, enum lagom_hops *out);

/*
 * A communicator: ranks = nodes * ranks_per_node (checked), ranks_per_node
 * <= hw->gpus_per_node, one rank per GPU.
 */
struct lagom_comm {
	unsigned ranks;
	unsigned nodes;
	unsigned ranks_per_node;
	enum lagom_hops hops;
	/*
	 * Measured correction (doc/profiler.md): every predicted time of a
	 * collective on this communicator is multiplied by it; 0 means 1.
	 * The planner sets it per collective class from an earlier measured
	 * step; else within [LAGOM_TIME_SCALE_MIN, LAGOM_TIME_SCALE_MAX].
	 */
	double time_scale;
};
#define LAGOM_TIME_SCALE_MIN 0.25
#define LAGOM_TIME_SCALE_MAX 4.0

#define LAGOM_NCHANNELS_MAX 64
#define LAGOM_NTHREADS_MIN 64
#define LAGOM_NTHREADS_MAX 640

/*
 * One NCCL configuration for one collective call.
 *  nchannels:   CTAs (= SMs taken while the collective runs), 1..64.
 *  nthreads:    threads per CTA, a multiple of 32 in [64, 640]; 0 = NCCL's
 *               default for the algorithm/protocol.
 *  chunk_bytes: payload bytes per channel per pipeline step (NCCL's chunk
 *               size, tuner v6 getChunkSize); 0 = NCCL's default
 *               (lagom_chunk_default_bytes()).  Must not exceed the message
 *               nor lagom_chunk_max_bytes(proto).
 */
struct lagom_coll_config {
	enum lagom_algo algo;
	enum lagom_proto proto;
	unsigned nchannels;
	unsigned nthreads;
	uint64_t chunk_bytes;
};

/* NCCL's default chunk (4 MiB Simple buffer -> 2 MiB ring chunk, ...). */
uint64_t lagom_chunk_default_bytes(enum lagom_algo algo,
				   enum lagom_proto proto);
/* Largest chunk the protocol's default buffer holds. */
uint64_t lagom_chunk_max_bytes(enum lagom_proto proto);

/*
 * Predicted time of one collective.  algbw = bytes / time; busbw = algbw *
 * the nccl-tests bus factor (allreduce 2(n-1)/n; allgather, reducescatter,
 * alltoall (n-1)/n; broadcast, reduce, sendrecv 1).
 */
struct lagom_coll_time {
	double time_s;
	double algbw_Bps;
	double busbw_Bps;
	double lat_s; /* the size-independent part of time_s */
};

/*
 * Collective time (method section 2, x_j(theta_j)).  bytes follow nccl-tests:
 * allreduce/broadcast/reduce the buffer; allgather the gathered output;
 * reducescatter the input (ranks x output); alltoall one rank's send buffer;
 * sendrecv the message.  bytes must be > 0.
 * Errors (-EINVAL): zero ranks or an inconsistent comm (ranks != nodes x
 * ranks_per_node, more ranks per node than GPUs, several nodes but no NIC),
 * chunk larger than the buffer or than lagom_chunk_max_bytes(), nchannels
 * out of 1..64, nthreads invalid, an algorithm/protocol the hardware does
 * not allow (lagom_coll_supported() false), an invalid hw.
 */
int lagom_coll_predict(const struct lagom_hw *hw, const struct lagom_comm *comm,
		       enum lagom_coll coll, uint64_t bytes,
		       const struct lagom_coll_config *config,
		       struct lagom_coll_time *out, struct lagom_error *err);

/*
 * What stock NCCL (2.28) allows for this collective on this hardware:
 * Tree only for allreduce; NVLS with NVSwitch and SM90+ (allreduce; AG/RS on
 * one node); NVLSTree for multi-node allreduce with NVSwitch; PAT for AG/RS
 * with one GPU per node; CollNet only with hw->collnet; LL128 where NCCL
 * enables it (SM70+, NVLink/NVSwitch inside the node, GPUDirect RDMA
 * across nodes); alltoall and sendrecv are point-to-point: RING + SIMPLE
 * stands for them, as for any collective of a single rank.  False for
 * invalid arguments.
 */
bool lagom_coll_supported(const struct lagom_hw *hw,
			  const struct lagom_comm *comm, enum lagom_coll coll,
			  enum lagom_algo algo, enum lagom_proto proto);

/*
 * What NCCL picks by itself for this call (the baseline): the algorithm and
 * protocol of lowest NCCL-model time, the communicator's channel count
 * (reduced for small messages as NCCL does), NCCL's default threads and
 * chunk.  Errors as lagom_coll_predict().
 */
int lagom_nccl_default(const struct lagom_hw *hw, const struct lagom_comm *comm,
		       enum lagom_coll coll, uint64_t bytes,
		       struct lagom_coll_config *out, struct lagom_error *err);

/*
 * Channels NCCL gives this communicator at init (comm->nChannels: topology
 * search, duplication, postset doubling; reference nccl.md 3.5), the
 * per-call maximum before small-message reduction.  0 for invalid input.
 */
unsigned lagom_nccl_comm_channels(const struct lagom_hw *hw,
				  const struct lagom_comm *comm);

/*
 * Bytes of device memory one GPU reads and writes for one collective of
 * the protocol (doc/model.md 4): 2 x the bus bytes (read to send, write
 * received), x 2 for LL's flag words (128/120 for LL128), plus the local
 * operand a reduction reads and an alltoall's own block.  comm->ranks 0 is
 * taken as 1.
 */
double lagom_coll_mem_bytes(const struct lagom_comm *comm, enum lagom_coll coll,
			    uint64_t bytes, enum lagom_proto proto);

/* ------------------------------------------------------------------ */
/* Computation under contention.                                       */
/* ------------------------------------------------------------------ */

/* How far below 1 a measured slowdown (a kernel's time beside
 * communication over its time alone) may be and still count as noise: the
 * contention fit (model/model_fit.h) and the trace importer take no
 * speedup from contention. */
#define LAGOM_FIT_NOISE 0.05

/*
 * One compute kernel (or a group of kernels treated as one).
 *  time_s:        duration alone on the whole GPU (> 0).
 *  grid_blocks:   thread blocks of the kernel; 0 = unknown (smooth SM-share
 *                 model instead of wave quantisation).
 *  blocks_per_sm: resident blocks per SM; 0 = 1.
 *  mem_bound:     0 (compute-bound) .. 1 (memory/L2-bound): how much global
 *                 contention slows it.
 *  after_coll:    in a region: 0, or j (1-based) = may start only once the
 *                 region's j-th collective has finished (TP dependencies).
 */
struct lagom_kernel {
	double time_s;
	unsigned grid_blocks;
	unsigned blocks_per_sm;
	double mem_bound;
	unsigned after_coll;
};

/*
 * Kernel time while nchannels NCCL CTAs with chunk_bytes chunks are resident
 * (method section 2; doc/model.md 4: y = (W(NC) + contention_resident) *
 * tau * (1 + m * gamma(NC, C, x))).  No traffic (x 0): the L2 term only
 * where it is not gated (contention_l2_x1 0, a fitted curve).  nchannels 0
 * gives the time alone.  chunk_bytes 0 = 2 MiB.  Never less than time_s;
 * never decreasing in nchannels (tests/model/test_contention.c).
 */
int lagom_compute_time(const struct lagom_hw *hw,
		       const struct lagom_kernel *kernel, unsigned nchannels,
		       uint64_t chunk_bytes, double *time_s,
		       struct lagom_error *err);

/*
 * The same beside a collective whose device-memory traffic runs at mem_Bps
 * (bytes/s, >= 0: lagom_coll_mem_bytes() / its time; the timeline passes
 * it): y = (W(NC) + contention_resident) * tau *
 * (1 + m * gamma(NC, C, x)) * (1 + contention_rate * min(x,
 * contention_rate_cap)), x = mem_Bps / hbm_Bps, for nchannels > 0
 * (gamma's L2 term gated by x).
 * lagom_compute_time() is mem_Bps 0.
 */
int lagom_compute_time_rate(const struct lagom_hw *hw,
			    const struct lagom_kernel *kernel,
			    unsigned nchannels, uint64_t chunk_bytes,
			    double mem_Bps, double *time_s,
			    struct lagom_error *err);

/* ------------------------------------------------------------------ */
/* Overlap regions and the timeline.                                   */
/* ------------------------------------------------------------------ */

#define LAGOM_REGION_MAX_KERNELS 8
#define LAGOM_REGION_MAX_COLLS 8
#define LAGOM_NAME_MAX 64

/*
 * One collective of a region's communication stream.
 *  ready_s:      earliest start, seconds after the region starts.
 *  after_kernel: 0, or k (1-based) = ready only once the region's k-th
 *                compute kernel has finished (gradients, TP outputs).
 */
struct lagom_region_coll {
	enum lagom_coll coll;
	uint64_t bytes;
	struct lagom_comm comm;
	double ready_s;
	unsigned after_kernel;
};

/*
 * An overlap region: kernels run one after another on the compute stream,
 * collectives one after another on the communication stream.
 *  serial_s: time of the region that overlaps nothing (added to Z).
 *  repeat:   how many times the region occurs per iteration (0 = 1),
 *            e.g. once per layer.
 */
struct lagom_region {
	char name[LAGOM_NAME_MAX];
	struct lagom_kernel kernels[LAGOM_REGION_MAX_KERNELS];
	size_t nkernels;
	struct lagom_region_coll colls[LAGOM_REGION_MAX_COLLS];
	size_t ncolls;
	double serial_s;
	unsigned repeat;
};

/*
 * Region timeline (method section 2): collective j starts at
 * s_j = max(ready_j, s_{j-1} + x_j-1); every kernel runs slowed by the
 * collective resident at the time (piecewise).
 *  x_s: when the communication stream finishes; y_s: when the compute
 *  stream finishes; z_s = max(x_s, y_s) + serial_s.
 */
struct lagom_region_time {
	double x_s;
	double y_s;
	double z_s;
	double comm_busy_s; /* sum of the collectives' durations */
	double y_alone_s;   /* compute time with no collective beside it */
	double coll_start_s[LAGOM_REGION_MAX_COLLS];
	double coll_time_s[LAGOM_REGION_MAX_COLLS];
};

/*
 * configs: one per collective of the region (region->ncolls entries), or
 * NULL for NCCL's defaults.  Errors: -EINVAL for a bad region (no kernels
 * and no collectives, counts above the maxima, a dependency index out of
 * range or a cycle) or any error of the parts.
 */
int lagom_region_time(const struct lagom_hw *hw,
		      const struct lagom_region *region,
		      const struct lagom_coll_config *configs,
		      struct lagom_region_time *out, struct lagom_error *err);

/* ------------------------------------------------------------------ */
/* Workloads (built from a model shape by catalog/, read by workload/). */
/* ------------------------------------------------------------------ */

/*
 * A workload: one training iteration as overlap regions plus the part that
 * overlaps nothing.  Owned by the caller; free with lagom_workload_destroy().
 */
struct lagom_workload {
	char name[LAGOM_NAME_MAX];
	struct lagom_region *regions; /* owned, nregions entries */
	size_t nregions;
	double serial_s; /* per iteration, outside all regions */
};

/* An empty workload with nregions zeroed regions (for readers such as
 * workload/); NULL on allocation failure or nregions > 4096. */
struct lagom_workload *lagom_workload_create(const char *name, size_t nregions);
/* Frees w and its regions; NULL does nothing. */
void lagom_workload_destroy(struct lagom_workload *w);

/* Number of collectives over all regions (the length of a configs array
 * for lagom_iteration_time()). */
size_t lagom_workload_coll_count(const struct lagom_workload *w);

/*
 * One iteration: sum over regions of repeat * Z plus w->serial_s.
 * configs: lagom_workload_coll_count(w) entries, region by region in order,
 * or NULL for NCCL's defaults.
 */
int lagom_iteration_time(const struct lagom_hw *hw,
			 const struct lagom_workload *w,
			 const struct lagom_coll_config *configs,
			 double *time_s, struct lagom_error *err);

/* ------------------------------------------------------------------ */
/* A site calibration, applied (fitted in model/model_fit.h).        */
/* ------------------------------------------------------------------ */

/* A site calibration for every transport. */
struct lagom_net_calib {
	struct lagom_net_site t[LAGOM_NET_COUNT];
};

/* hw->net_site = calib's values for hw's transport (calib NULL: unset). */
void lagom_hw_apply_calib(struct lagom_hw *hw,
			  const struct lagom_net_calib *calib);

/* ------------------------------------------------------------------ */
/* What a CTA carries, copy-engine collectives, the model's known      */
/* error (issue 32; doc/model.md 2.8-2.10).  Kept as one block.        */
/* ------------------------------------------------------------------ */

#define LAGOM_CHANNEL_BPS_MIN 1e9
#define LAGOM_CHANNEL_BPS_MAX 200e9

/*
 * The rate one channel moves over the intra-node fabric with the Simple
 * protocol (bytes/s; protocol and thread factors apply on top), for a
 * communicator comm on hw (doc/model.md 2.8): hw->ch_Bps when a curve was
 * measured; else, on NVLink/NVSwitch, the architecture's measured per-CTA
 * rate where a fixture holds one (Ampere: the A100 CTA sweep), otherwise
 * NCCL's own sizing: the fabric's achievable rate shared by the channels
 * NCCL gives the communicator (lagom_nccl_comm_channels()), never above
 * the architecture's per-CTA copy ceiling; PCIe and one rank per node:
 * the ceiling.  0 for invalid input.
 */
double lagom_channel_Bps(const struct lagom_hw *hw,
			 const struct lagom_comm *comm);

/*
 * Fit one channel's rate from a measured bus-bandwidth-over-channels curve
 * (lagom-prolog's nccl_busbw grid of one collective): the curve is read as
 * busbw(nc) = min(L, nc * c) with L its largest point; c is the median of
 * busbw / nc over the points below 0.85 L (channel-bound), or L over the
 * fewest channels measured when every point is at the link (a lower
 * bound: the curve saturates there).  Points with nchannels 0 or above
 * LAGOM_NCHANNELS_MAX or a busbw not finite and > 0 are refused.
 * -EINVAL (err says why, *ch_Bps untouched): fewer than two points, two
 * points at one channel count only, or c outside LAGOM_CHANNEL_BPS_MIN..MAX.
 */
int lagom_channel_fit(const unsigned *nchannels, const double *busbw_Bps,
		      size_t n, double *ch_Bps, struct lagom_error *err);

/*
 * Copy-engine collectives (NCCL 2.28 NCCL_CTA_POLICY=2 "zero"): NCCL moves
 * an all-gather or an alltoall of one node through the GPUs' copy engines
 * when the buffers are symmetric-registered windows (driver 12.5+): no
 * SM is taken.  LAGOM_CE_SINCE: the first NCCL_VERSION_CODE.
 * lagom_ce_supported(): those collectives, one node, ranks_per_node >= 2,
 * NVLink or NVSwitch, SM90+ (the parts NCCL's CE path is documented on),
 * nccl_version >= LAGOM_CE_SINCE; false for invalid input.
 */
#define LAGOM_CE_SINCE 22800
bool lagom_ce_supported(const struct lagom_hw *hw,
			const struct lagom_comm *comm, enum lagom_coll coll,
			unsigned nccl_version);

/*
 * Predicted time of a copy-engine collective (doc/model.md 2.9): a fixed
 * start-up LAGOM_CE_LAT_US per call plus one per peer (each peer is one
 * copy the engines serialise), and the bus bytes at LAGOM_CE_EFF of the
 * fabric's achievable rate.  Not fitted: no copy-engine measurement is in
 * the fixtures; the constants are placeholders the search only uses when a
 * site opts in (lagom_search_opts.symmetric_buffers).  Precondition:
 * lagom_ce_supported(); returns 0 otherwise.
 */
#define LAGOM_CE_LAT_US 10.0
#define LAGOM_CE_PEER_US 2.0
#define LAGOM_CE_EFF 0.8
double lagom_ce_time_s(const struct lagom_hw *hw, const struct lagom_comm *comm,
		       enum lagom_coll coll, uint64_t bytes);

/*
 * The relative error the model is known to have for one collective on this
 * hardware (doc/model.md 2.10): the median |predicted / measured - 1| of
 * the validation rows of the same interconnect class and size band
 * (below 1 MiB, 1-64 MiB, above 64 MiB; busbw.sh's tables: single node
 * NVLink/NVSwitch, PCIe, several nodes), raised to the site calibration's
 * error when one is applied and larger (not yet: built-in only).  The
 * search's deviation gate asks a gain to survive a class's time being off
 * by this much either way (doc/search.md).  In (0, 1).
 */
double lagom_model_error(const struct lagom_hw *hw,
			 const struct lagom_comm *comm, uint64_t bytes);

/*
 * The site calibration's known error for one class run with cfg (hw's
 * net_site applied; model/netdense.c): the left-out error of the dense fit
 * (struct lagom_net_dense) that prices it (its band, ranks per node,
 * algorithm, protocol, bytes and channels covered, NCCL's own chunk);
 * negative when none prices it (no calibrated error: the model
 * prices it with its constants and lagom_model_error() holds).  The
 * search's deviation gate takes it for the configurations it prices
 * (search/deviate.c, doc/model.md 2.10).
 */
double lagom_dense_site_error(const struct lagom_hw *hw,
			      const struct lagom_comm *comm,
			      enum lagom_coll coll, uint64_t bytes,
			      const struct lagom_coll_config *cfg);

#endif /* LAGOM_MODEL_MODEL_H */
