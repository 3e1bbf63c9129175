/*
 * profile/profile.h - a node's profile: what lagom-prolog measured on one
 * node, as a plain struct, its JSON file format (doc/profile-format.md), a
 * strict reader with trust checks and an atomic writer.
 *
 * Who uses it: lagom-prolog writes one file per node into the admin's profile
 * directory; the SPANK plugin and the CLI read them.
 *
 * Contract:
 * - Functions return 0 or a negative errno and, on failure, fill err (NULL
 *   allowed) with one line naming the file and the JSON path at fault, e.g.
 *   "profile /var/lib/lagom/gpu001.json: measurements.hbm_bw.unit: expected
 *   \"B/s\", got \"GB/s\"".  Nothing is written to an out-parameter on
 *   failure.
 * - A struct lagom_profile is self-contained (fixed-size arrays and strings,
 *   no inner pointers, about 30 KiB: keep it on the heap): copy it with
 *   memcpy.  Profiles returned through a
 *   `struct lagom_profile **out` are heap-allocated, owned by the caller and
 *   freed with lagom_profile_destroy() (NULL allowed).
 * - errno values: -EINVAL malformed profile (bad JSON, schema, units, numbers),
 *   -EPROTONOSUPPORT unknown format or major version, -EFBIG over
 *   LAGOM_PROFILE_MAX_BYTES, -EPERM failed trust check, -ENOENT no such
 *   profile, -ENOMEM, other negative errnos from the system calls.
 * - Thread-safe: no global state (jansson's allocator hooks are global, but
 *   only tests change them).
 * - Linking: libprofile.la libmodel.la libcommon.la $(JANSSON_LIBS) -lm.
 *
 * The plugin's use: for each node of the step,
 *	struct lagom_trust trust = { .owner_uid = slurm_uid (0: root only) };
 *	rc = lagom_profile_load_node(cfg.profile_dir, node, &trust, &p, &err);
 *	rc == 0: lagom_profile_to_hw(p, &hw, &err), lagom_profile_destroy(p);
 *	rc < 0: log err.text once and fall back (fail open).
 */
#ifndef LAGOM_PROFILE_PROFILE_H
#define LAGOM_PROFILE_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "model/model.h"
#include "model/model_fit.h" /* struct lagom_fit_report */

#define LAGOM_PROFILE_FORMAT "lagom-profile"
#define LAGOM_PROFILE_VERSION_MAJOR 1
#define LAGOM_PROFILE_VERSION_MINOR 1
/* Files larger than this are rejected unread. */
#define LAGOM_PROFILE_MAX_BYTES (1024 * 1024)
/* Most points in the NCCL bandwidth grid and in the contention curve. */
#define LAGOM_PROFILE_MAX_POINTS 512
/* Longest node name (Slurm NodeName), excluding the NUL. */
#define LAGOM_PROFILE_NAME_MAX 63
#define LAGOM_PROFILE_TEXT_MAX 127
/* The hardware's bounds: the profile's parser and the cluster digest's
 * reader take the same (a digest made from valid profiles always reads). */
#define LAGOM_PROFILE_CPU_CORES_MAX (1 << 20)
#define LAGOM_PROFILE_NUMA_NODES_MAX 4096
#define LAGOM_PROFILE_GPU_COUNT_MAX 1024
#define LAGOM_PROFILE_GPU_SM_COUNT_MAX (1 << 16)
#define LAGOM_PROFILE_GPU_MEMORY_MAX ((int64_t)1 << 50)
/* nvlinks_per_gpu, nvlink_peers, gpus_per_pcie_switch, nic_count,
 * gpus_per_nic */
#define LAGOM_PROFILE_LINK_COUNT_MAX 1024
#define LAGOM_PROFILE_PCIE_GEN_MAX 16
#define LAGOM_PROFILE_PCIE_LANES_MAX 64
#define LAGOM_PROFILE_NVL_DOMAIN_NODES_MAX 256

/* Where a number came from. */
enum lagom_source {
	LAGOM_SOURCE_ABSENT = 0, /* not known: the field is left out */
	LAGOM_SOURCE_TABLE,	 /* "table": lagom's built-in GPU table */
	LAGOM_SOURCE_MEASURED,	 /* "measured": by lagom-prolog on this node */
};

/*
 * Precisions and collectives are model/model.h's enum lagom_precision
 * (fp32 tf32 fp16 bf16 fp8) and enum lagom_coll, with model's names in the
 * file.  Programs that link libprofile.la also link libmodel.la after it.
 */

/* A scalar with its provenance; the unit is in the field's name. */
struct lagom_quantity {
	double value; /* finite, > 0 when source != ABSENT */
	enum lagom_source source;
};

/*
 * The node's hardware as topology/ sees it, without running anything on a
 * GPU.  The fingerprint is a hash of exactly these fields, so a change of
 * hardware (a GPU or NIC more or less, another model) makes a cached profile
 * stale.  Counts are >= 0; 0 or "" means "unknown / none".
 */
struct lagom_profile_hw {
	char cpu_model[LAGOM_PROFILE_TEXT_MAX + 1];
	int cpu_cores; /* physical cores of the node */
	int numa_nodes;
	char gpu_model[LAGOM_PROFILE_TEXT_MAX + 1]; /* "" when no GPU */
	int gpu_count;
	int gpu_sm_count;	   /* SMs per GPU, 0 when unknown */
	uint64_t gpu_memory_bytes; /* per GPU, 0 when unknown */
	/* NONE (fewer than two GPUs), PCIE, NVLINK, NVSWITCH, or DEFAULT
	 * ("unknown", format 1.1: the topology did not show the fabric; the
	 * planner takes the GPU's usual one from the spec table). */
	enum lagom_intra intra;
	int nvlinks_per_gpu; /* 0 unless intra is NVLINK or NVSWITCH */
	int nvlink_peers;    /* NVLINK: GPUs one GPU reaches directly */
	int pcie_gen;	     /* GPU's PCIe link generation, 0 when unknown */
	int pcie_lanes;	     /* GPU's PCIe link width, 0 when unknown */
	int gpus_per_pcie_switch; /* GPUs under one switch uplink, 0 unknown */
	int nic_count;		  /* network adapters for inter-node traffic */
	int nic_rdma;	  /* 1: IB, RoCE or EFA (GPUDirect RDMA possible) */
	int gpus_per_nic; /* GPUs sharing one NIC, 0 when unknown */
	double nic_link_bw_Bps; /* link speed of one NIC, 0 when unknown */
	/* Optional (absent = 0): the network transport, an enum
	 * lagom_transport (0 = from nic_rdma), and the nodes of one
	 * multi-node NVLink domain (GB200/GB300 NVL72: 18; 0 = none). */
	int nic_transport;
	int nvl_domain_nodes;
};

/* One point of the intra-node NCCL bandwidth grid. */
struct lagom_busbw_point {
	enum lagom_coll collective; /* any of model's collectives */
	int channels;		    /* NCCL channels (CTAs), 1..64 */
	uint64_t chunk_bytes;	    /* NCCL chunk size used */
	uint64_t size_bytes;	    /* message size of the measurement */
	double busbw_Bps;	    /* nccl-tests "bus bandwidth" */
};

/*
 * One point of the contention curve: time of a dense GEMM running beside a
 * kernel that holds `ctas` CTAs resident and moves data in chunk_bytes pieces
 * (as NCCL's channels do), divided by the GEMM's time alone.  >= 1 in
 * practice; any finite value > 0 is accepted.
 */
struct lagom_contention_point {
	int ctas;
	uint64_t chunk_bytes;
	double slowdown;
};

struct lagom_profile_measurements {
	struct lagom_quantity gemm_flops[LAGOM_PREC_COUNT]; /* FLOP/s, 1 GPU */
	struct lagom_quantity hbm_bw_Bps;   /* device memory copy rate, 1 GPU */
	struct lagom_quantity intra_bw_Bps; /* GPU-to-GPU, one direction */
	struct lagom_quantity nic_bw_Bps;   /* one NIC, one direction */

	enum lagom_source busbw_source; /* ABSENT: no grid */
	int busbw_nranks;		/* GPUs in the measured communicator */
	size_t n_busbw;
	struct lagom_busbw_point busbw[LAGOM_PROFILE_MAX_POINTS];

	enum lagom_source contention_source;	   /* ABSENT: no curve */
	enum lagom_precision contention_precision; /* of the GEMM */
	size_t n_contention;
	struct lagom_contention_point contention[LAGOM_PROFILE_MAX_POINTS];
};

struct lagom_profile_provenance {
	char lagom_version[32];	       /* always set */
	char nccl_version[32];	       /* "2.28.9", "" when unknown */
	char cuda_runtime_version[32]; /* "13.0", "" when unknown */
	char cuda_driver_version[32];  /* "13.0", "" when unknown */
	int64_t created_unix_s;	       /* when the profile was measured */
	char note[LAGOM_PROFILE_TEXT_MAX + 1]; /* why something is missing */
};

struct lagom_profile {
	/* Read: the file's version; written: always the current one. */
	int version_major;
	int version_minor;
	char node[LAGOM_PROFILE_NAME_MAX + 1]; /* Slurm node name */
	char hostname[LAGOM_PROFILE_TEXT_MAX + 1];
	struct lagom_profile_hw hw;
	/* "fnv1a64:" + 16 hex digits of the hardware section; the writer sets
	 * it, the reader checks it. */
	char fingerprint[32];
	struct lagom_profile_measurements meas;
	struct lagom_profile_provenance prov;
};

/* Trust policy of the reader. */
struct lagom_trust {
	/* The directory and the file must be owned by root or by this uid
	 * (SlurmUser; 0 means root only) and not writable by group or
	 * others.  The file must be a regular file reached without following a
	 * symlink. */
	uid_t owner_uid;
};

/* New profile for `node`, version set, everything else zero/ABSENT.
 * NULL on a bad node name (see lagom_profile_node_name_ok) or no memory. */
struct lagom_profile *lagom_profile_create(const char *node);

void lagom_profile_destroy(struct lagom_profile *profile);

/* 1 when name can name a profile file: 1..63 bytes of [A-Za-z0-9._-], not
 * starting with '.', so "<dir>/<name>.json" never leaves <dir>. */
int lagom_profile_node_name_ok(const char *name);

/* Fill out (33 bytes) with the fingerprint of hw: "fnv1a64:" + 16 hex. */
void lagom_profile_fingerprint(const struct lagom_profile_hw *hw, char *out,
			       size_t len);

/* Names used in the file; NULL for an out-of-range value. */
const char *lagom_source_name(enum lagom_source source);
/* "none", "pcie", "nvlink", "nvswitch", "unknown" (DEFAULT: the topology
 * did not show the fabric); NULL out of range. */
const char *lagom_profile_intra_name(enum lagom_intra intra);

/*
 * Parse and validate a profile held in memory (len bytes, need not be
 * NUL-terminated).  Strict: unknown keys are errors unless the file's minor
 * version is newer than this lagom's, wrong types, missing required fields,
 * non-finite or out-of-range numbers, wrong units and a fingerprint that does
 * not match the hardware section are all -EINVAL; another format or major
 * version is -EPROTONOSUPPORT; len > LAGOM_PROFILE_MAX_BYTES is -EFBIG.
 */
int lagom_profile_from_buffer(const char *buf, size_t len,
			      struct lagom_profile **out,
			      struct lagom_error *err);

/*
 * Serialise profile (sets its version to the current one, computes the
 * fingerprint) into *out, a NUL-terminated string the caller frees with
 * free().  The output ends with a newline and reads back with
 * lagom_profile_from_buffer.  -EINVAL if the profile would not validate.
 */
int lagom_profile_to_string(const struct lagom_profile *profile, char **out,
			    struct lagom_error *err);

/* The same, through jansson values (for the CLI).  to_json returns a new
 * reference or NULL (err says why); from_json only borrows json. */
struct json_t;
struct json_t *lagom_profile_to_json(const struct lagom_profile *profile,
				     struct lagom_error *err);
int lagom_profile_from_json(const struct json_t *json,
			    struct lagom_profile **out,
			    struct lagom_error *err);

/*
 * Read and validate the profile at path.  With trust (not NULL), path's
 * directory and the file must pass the trust policy; the file is opened with
 * O_NOFOLLOW relative to the opened directory and checked with fstat on the
 * opened descriptor (no race between check and read).  trust == NULL reads
 * without these checks (the CLI's relaxed mode, user-named files); symlinks
 * are then followed.
 */
int lagom_profile_read_file(const char *path, const struct lagom_trust *trust,
			    struct lagom_profile **out,
			    struct lagom_error *err);

/*
 * Read "<dir>/<node>.json" with the trust policy (trust NULL: none), and
 * check that the file's node field is `node`.  -ENOENT when there is no
 * profile for that node.
 */
int lagom_profile_load_node(const char *dir, const char *node,
			    const struct lagom_trust *trust,
			    struct lagom_profile **out,
			    struct lagom_error *err);

/*
 * The same, in a directory opened once with lagom_profile_dir_open() (dfd;
 * dir names it in messages): one open per profile instead of a walk from
 * "/" each time, the same checks and messages.  st (NULL allowed) gets the
 * fstat of the file that was read.
 */
struct stat;
int lagom_profile_load_node_at(int dfd, const char *dir, const char *node,
			       const struct lagom_trust *trust,
			       struct lagom_profile **out, struct stat *st,
			       struct lagom_error *err);

/*
 * Open dir for the readers above: with trust, the walk from "/" that checks
 * every ancestor and dir itself (lagom_profile_read_file's rules); without,
 * plainly.  Returns a descriptor (O_DIRECTORY, close-on-exec) or a negative
 * errno with "directory DIR: ..." in err.
 */
int lagom_profile_dir_open(const char *dir, const struct lagom_trust *trust,
			   struct lagom_error *err);

/*
 * Read the regular file base of the directory dfd under the trust policy of
 * profiles (trust NULL: none): never through a symlink, owner and mode
 * checked on the opened descriptor, at most max bytes (-EFBIG beyond,
 * refused unread when fstat already says so).  *buf (malloc'd, not
 * NUL-terminated) and *len on success; st (NULL allowed) gets its fstat.
 */
int lagom_profile_read_at(int dfd, const char *base,
			  const struct lagom_trust *trust, size_t max,
			  char **buf, size_t *len, struct stat *st,
			  struct lagom_error *err);

/*
 * Write profile to "<dir>/<node>.json" atomically: a temporary file in dir,
 * written, fsync'd, mode 0644, renamed over the old file, then dir fsync'd.
 * Readers see the old file or the new one, never a mix, even when several
 * writers race (the last rename wins).  On failure the temporary file is
 * removed and the old profile stays.  Temporary files of the same node
 * older than 10 minutes (left by a writer that was killed) are removed
 * after a successful write.
 */
int lagom_profile_write_atomic(const char *dir,
			       const struct lagom_profile *profile,
			       struct lagom_error *err);

/* The same into the directory dfd (dir names it in messages): the writer
 * that runs as root (lagom-prolog) opens dfd with lagom_profile_dir_open()
 * and trust, so it writes only where a reader would read. */
int lagom_profile_write_atomic_at(int dfd, const char *dir,
				  const struct lagom_profile *profile,
				  struct lagom_error *err);

/*
 * The cost model's view of a profiled node, and the one translation of a
 * profile's facts into it, made at plan time (the planner and the cluster
 * digest call it): lagom_hw_from_spec() for the profile's GPU model, GPU
 * count and fabric ("unknown": the GPU's usual one), lagom_hw_set_nics()
 * with the NICs' line rate in B/s as the profile holds it (the measured
 * nic_bw when present), then every value the hardware section knows (SM
 * count, memory, NVLink links and peers, PCIe link, GPUs per NIC, RDMA,
 * transport, NVLink domain) and every measurement present (GEMM rate per
 * precision -> gpu.tflops, HBM -> gpu.hbm_Bps, intra_bw -> intra_link_Bps
 * per link or pcie_Bps, nic_bw -> nic_Bps) overrides the table.  A measured
 * contention curve is fitted (lagom_profile_fit_contention()) into the
 * model's contention coefficients; when the fit refuses the curve the
 * built-in coefficients stay and this is no error (call
 * lagom_profile_fit_contention() to see why).  A measured NCCL busbw grid
 * gives one channel's rate (hw->ch_Bps, lagom_channel_fit() per
 * collective, the smallest kept; doc/model.md 2.8); a grid that does not
 * fit leaves 0 (the model's rule) and is no error.
 * Errors: -ENODEV when the profile has no GPU, -EINVAL when the GPU model is
 * not in the built-in table or the result fails lagom_hw_check().
 */
int lagom_profile_to_hw(const struct lagom_profile *profile,
			struct lagom_hw *out, struct lagom_error *err);

/*
 * Fit the profile's measured contention curve into hw's contention
 * coefficients (model/model.h lagom_contention_fit(); the probe is
 * lagom-prolog's 8192^3 GEMM seen as 4096 blocks of 128 x 128 tiles with
 * mem_bound 0.2, doc/model.md 4.1).  hw: the node's hardware, usually from
 * lagom_profile_to_hw(); updated only on success.  rep may be NULL.
 * Errors: -ENODATA when the profile has no measured curve (absent or
 * "table"), -EINVAL when the fit refuses the curve (err says why, e.g.
 * "profile gpu001: contention fit: 1 points with channels > 0, need 2 or
 * more"), -ENOMEM.  For the CLI: shows whether to_hw used the curve.
 */
int lagom_profile_fit_contention(const struct lagom_profile *profile,
				 struct lagom_hw *hw,
				 struct lagom_fit_report *rep,
				 struct lagom_error *err);

#endif /* LAGOM_PROFILE_PROFILE_H */
