/*
 * trace/trace_int.h - private to trace/: the compact records the streaming
 * reader keeps of one trace file, and the analysis that turns them into a
 * workload (doc/workload-import.md).
 */
#ifndef LAGOM_TRACE_INTERNAL_H
#define LAGOM_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

#define TR_NAME_CAP 160		/* bytes of a name kept (the hash is full) */
#define TR_MAX_NAMES (1u << 16) /* distinct kernel names kept */
#define TR_MAX_DEVICES 64
#define TR_MAX_STEPS 4096
#define TR_MAX_COMMS (1u << 20)
#define TR_MAX_TOKEN (1u << 20) /* longest JSON string or number */

enum tr_kind {
	TR_COMPUTE,
	TR_NCCL,
	TR_MEMOP
};

/* A GPU activity: kernel, memcpy or memset (times in microseconds). */
struct tr_gpu {
	double ts_us, dur_us;
	uint64_t corr;
	uint64_t ext;
	int32_t stream;
	int32_t comm;	/* index into comms (args copied onto the kernel) */
	uint32_t name;	/* index into names */
	uint32_t grid;	/* blocks (x*y*z) */
	uint32_t block; /* threads (x*y*z) */
	uint32_t smem;
	uint16_t regs;
	uint8_t kind;
	uint8_t device;
};

/* A launch or synchronisation call on the host. */
struct tr_runtime {
	uint64_t corr;
	uint64_t tid;
	double ts_us;
};

enum tr_size_src {
	TR_SRC_KERNEL,
	TR_SRC_RPC,
	TR_SRC_ANNOT
};

/* A collective's description from record_param_comms, an nccl:* annotation
 * or the args Kineto copies onto the NCCL kernel. */
struct tr_comm {
	double ts_us, dur_us;
	uint64_t tid;
	uint64_t ext;
	uint64_t in_bytes, out_bytes;
	unsigned group;
	bool op_known;
	enum lagom_coll op;
	uint8_t src;
	char pg[48];
};

/* An RPC size record's External id and index in comms. */
struct tr_rpc_key {
	uint64_t ext;
	size_t index;
};

/* A non-kernel size record's thread, start and index in comms. */
struct tr_encl_key {
	uint64_t tid;
	double ts_us;
	size_t index;
};

struct tr_step {
	double ts_us, dur_us;
	unsigned n;
};

struct tr_device {
	int id;
	char name[LAGOM_NAME_MAX];
	struct lagom_trace_device dev;
};

struct tr_name {
	uint64_t hash;
	char text[TR_NAME_CAP];
	double mem_bound; /* class rule or CUPTI */
	bool cupti;
};

struct tr_file {
	struct tr_gpu *gpu;
	size_t ngpu, capgpu;
	struct tr_runtime *rt;
	size_t nrt, caprt;
	struct tr_comm *comms;
	size_t ncomms, capcomms;
	struct tr_step steps[TR_MAX_STEPS];
	size_t nsteps;
	struct tr_device devices[TR_MAX_DEVICES];
	size_t ndevices;
	struct tr_name *names;
	size_t nnames, capnames;
	uint32_t *name_index; /* open addressing, TR_MAX_NAMES * 2 slots */
	/* stream waits / event records: host times, for the step counts */
	double *syncs;
	size_t nsyncs, capsyncs;
	uint8_t *sync_kind; /* 0 wait, 1 record */
	/* the RPC records of comms by (ext, index), made once the file is
	 * read: tr_size_of() looks an External id up in log time */
	struct tr_rpc_key *rpc;
	size_t nrpc;
	/* the other non-kernel records of comms by (tid, ts_us, index), and
	 * their longest dur_us: the record enclosing a launch in log time */
	struct tr_encl_key *encl;
	size_t nencl;
	double encl_max_dur_us;

	bool is_object, has_events, hip;
	size_t cpu_ops, kernels, nccl, cupti_ranges;
	bool cupti_dram;
	int rank, world_size;
	char nccl_version[32];
	char backend[16];
	uint64_t base_time_ns;
};

/* trace/parse.c: strtod(text, NULL), bit for bit, faster for the plain
 * decimals a trace is made of. */
double tr_to_double(const char *text);

/* trace/parse.c: read one file or buffer into f (zeroed by the caller);
 * label names it in messages. */
int tr_parse_file(const char *path, struct tr_file *f, struct lagom_error *err);
/* The same, reporting to progress (NULL: none) as trace.h says. */
int tr_parse_file_progress(const char *path, lagom_trace_progress_fn progress,
			   void *ctx, struct tr_file *f,
			   struct lagom_error *err);
int tr_parse_buffer(const void *data, size_t size, struct tr_file *f,
		    struct lagom_error *err);
void tr_file_free(struct tr_file *f);

/* trace/build.c: checks and analysis of the parsed files into imp. */
int tr_build(struct tr_file *files, size_t nfiles, const char *const *labels,
	     struct lagom_trace_import *imp, struct lagom_error *err);

/* trace/build.c: the size record of an NCCL kernel, or NULL. */
const struct tr_comm *tr_size_of(const struct tr_file *f,
				 const struct tr_gpu *k);

/* trace/build.c: the size of collective op that record c describes (its
 * input; all-gather: output; send/recv: the larger). */
uint64_t tr_coll_bytes(enum lagom_coll op, const struct tr_comm *c);

/* trace/contention.c: per f->gpu index, the estimated alone time of a
 * compute kernel on device dev_id (its own duration when it ran alone, the
 * median alone duration of its kind when it ran beside NCCL, NAN when its
 * kind never ran alone often enough); NULL on ENOMEM.  Caller frees. */
double *tr_alone_estimates(const struct tr_file *f, int dev_id);

/* trace/contention.c: the contention table of files[0] into imp. */
int tr_contention(const struct tr_file *f, const struct lagom_trace_device *d,
		  int dev_id, struct lagom_trace_import *imp,
		  struct lagom_error *err);

/* Median of v[0..n) (sorted in place); 0 for n == 0. */
double tr_median(double *v, size_t n);

/* Collective from a name: record_param_comms "Collective name", the part
 * after "nccl:" of an annotation, or an NCCL kernel name's second word
 * (the collective only: never the algorithm or protocol). */
bool tr_coll_from_name(const char *s, enum lagom_coll *out);
unsigned tr_dtype_bytes(const char *s);
/* The protocol an NCCL kernel (name, threads per block) ran;
 * LAGOM_PROTO_COUNT when they do not tell (rules.c). */
enum lagom_proto tr_nccl_proto(const char *name, unsigned block);

#endif /* LAGOM_TRACE_INTERNAL_H */
