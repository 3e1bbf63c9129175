/*
 * trace/trace.h - import a workload from PyTorch profiler (Kineto
 * Chrome-trace JSON) traces: `lagom workload import` (doc/workload-import.md).
 *
 * An adapter outside the pure core: it reads files (plain or gzip, through
 * zlib) with a streaming JSON parser (yajl), so memory grows with the number
 * of GPU activities kept (about 60 bytes each, capped at
 * LAGOM_TRACE_MAX_GPU_EVENTS), never with the file size; JSON nesting deeper
 * than LAGOM_TRACE_MAX_DEPTH is refused.
 *
 * Ownership: lagom_trace_import() returns a new struct lagom_trace_import
 * that the caller frees with lagom_trace_import_destroy() (NULL does
 * nothing); everything it points to belongs to it.
 *
 * Errors: 0, or a negative errno with one line in err:
 *  -ENOENT/-EACCES...  a file cannot be opened (the errno of open());
 *  -EINVAL             not a usable trace: truncated gzip, not JSON, JSON
 *                      that is not a trace, a CPU-only trace, no NCCL kernel,
 *                      an AMD/HIP trace, ranks of different runs mixed,
 *                      nesting too deep, more activities than the caps;
 *  -ENOMEM.
 */
#ifndef LAGOM_TRACE_TRACE_H
#define LAGOM_TRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "model/model.h"

#define LAGOM_TRACE_MAX_FILES 64
#define LAGOM_TRACE_MAX_DEPTH 64
#define LAGOM_TRACE_MAX_GPU_EVENTS (4u << 20)
#define LAGOM_TRACE_MAX_RUNTIME_EVENTS (8u << 20)
/* Samples needed on each side before a contention row is reported. */
#define LAGOM_TRACE_MIN_SAMPLES 3
/* Largest interquartile range of a kind's samples, relative to their
 * median, for them to count as one piece of work. */
#define LAGOM_TRACE_MAX_SPREAD 0.25
/* Version of the contention table's JSON (doc/workload-import.md). */
#define LAGOM_CONTENTION_SCHEMA 3

/* What the importer knows about one kernel of the workload it built. */
struct lagom_trace_kernel_info {
	bool idle;	 /* host gaps and copies: never slowed (grid 1, m 0) */
	bool estimated;	 /* part of time_s is from kernels never seen alone */
	unsigned merged; /* trace kernels summed into it */
	const char *mem_bound_src; /* "class", "cupti" or "none" (idle) */
};

/* What the trace measured of one collective of the workload. */
struct lagom_trace_coll_info {
	char comm[LAGOM_NAME_MAX]; /* process group name, or "stream-N" */
	uint64_t total_bytes;	   /* alltoall: all ranks' send buffers */
	unsigned channels;	   /* kernel grid = NCCL channels */
	unsigned threads;	   /* kernel block = NCCL threads */
	double time_s;		   /* fastest instance over the ranks given */
	const char *size_src;	   /* "kernel-args", "record_param_comms",
				 "annotation" */
};

/* One row of the measured contention table. */
struct lagom_trace_contention {
	char kernel[LAGOM_NAME_MAX]; /* truncated kernel name */
	uint64_t kernel_hash;	     /* FNV-1a 64 of the full name */
	unsigned grid_blocks;
	unsigned block_threads;
	unsigned blocks_per_sm;
	double mem_bound;
	enum lagom_coll nccl_op;
	unsigned nccl_channels;
	unsigned nccl_threads;
	/* The protocol those NCCL kernels ran, from their name and threads
	 * (doc/workload-import.md); LAGOM_PROTO_COUNT: unknown. */
	enum lagom_proto nccl_proto;
	/* The NCCL kernels the beside samples lay in, grouped by size: the
	 * power of two of their bytes (log2 floor; -1 when unsized), their
	 * median bytes and median achieved rate bytes / kernel duration (0
	 * when unsized).  One rank's kernel duration includes waiting for
	 * its peers, so the rate is a lower bound of what it moved. */
	int nccl_size_log2;
	uint64_t nccl_bytes;
	double nccl_Bps;
	unsigned alone_n;
	unsigned beside_n;
	double alone_us;  /* median */
	double beside_us; /* median */
	double slowdown;  /* beside_us / alone_us */
	bool plausible;	  /* slowdown >= 1 - LAGOM_FIT_NOISE: a faster kernel
			     beside NCCL means the kind mixes different work */
};

struct lagom_trace_import {
	struct lagom_workload *workload; /* owned */
	/* per workload kernel, index region * LAGOM_REGION_MAX_KERNELS + k */
	struct lagom_trace_kernel_info *kinfo;
	/* per workload collective, index region * LAGOM_REGION_MAX_COLLS + j */
	struct lagom_trace_coll_info *cinfo;

	char gpu[LAGOM_NAME_MAX];
	char nccl_version[32]; /* "" when the trace does not say */
	unsigned sms;
	unsigned gpus_visible; /* deviceProperties entries */
	unsigned world_size;
	unsigned ranks_given; /* traces imported */
	int rank;	      /* rank of the first trace, -1 unknown */

	unsigned steps;	      /* ProfilerStep#N seen (0: whole trace) */
	unsigned first_step;  /* N of the first step */
	unsigned rep_step;    /* N of the representative step */
	double rep_step_s;    /* its measured CPU duration */
	double mean_step_s;   /* mean measured duration of all steps */
	double rep_window_s;  /* its GPU window */
	size_t kernels;	      /* GPU kernels in the first trace */
	size_t nccl_kernels;  /* of which NCCL */
	size_t unsized_colls; /* NCCL kernels with no size (skipped) */
	size_t stream_waits;  /* cudaStreamWaitEvent in the step */
	size_t event_records; /* cudaEventRecord in the step */
	size_t cupti_ranges;  /* cuda_profiler_range events */
	bool cupti_dram;      /* they carry DRAM byte counters */
	double busy_s;	      /* compute kernels' union in the step */
	double serial_s;      /* of which overlapping no collective */
	double overlap_s;     /* of which overlapping a collective */

	struct lagom_trace_contention *rows; /* owned */
	size_t nrows;
};

int lagom_trace_import(const char *const *paths, size_t npaths,
		       struct lagom_trace_import **out,
		       struct lagom_error *err);

/*
 * How far the reading of one trace file is: called after each read of the
 * file (every 64 KiB) with its path, the bytes read so far and its size
 * (as fstat gave it: for a gzip file, the compressed bytes), and once more
 * with done_bytes == total_bytes when the file is read.
 */
typedef void (*lagom_trace_progress_fn)(void *ctx, const char *path,
					uint64_t done_bytes,
					uint64_t total_bytes);

/* lagom_trace_import() that reports its reading to progress (NULL: none). */
int lagom_trace_import_progress(const char *const *paths, size_t npaths,
				lagom_trace_progress_fn progress, void *ctx,
				struct lagom_trace_import **out,
				struct lagom_error *err);

/* The same from one in-memory trace (the fuzz target); data is borrowed. */
int lagom_trace_import_buffer(const void *data, size_t size,
			      struct lagom_trace_import **out,
			      struct lagom_error *err);

void lagom_trace_import_destroy(struct lagom_trace_import *imp);

/*
 * Replay (doc/workload-import.md): the imported workload's iteration time
 * predicted by the model on the trace's GPU (built-in table, one node,
 * gpus_visible GPUs), each collective with the channels and threads NCCL
 * used in the trace.  -EINVAL when the GPU is not in the table.
 */
struct lagom_trace_replay {
	double predicted_s;
	double measured_s; /* rep_step_s */
	double error;	   /* (predicted - measured) / measured */
	char hw_gpu[LAGOM_GPU_NAME_MAX];
};
int lagom_trace_replay(const struct lagom_trace_import *imp,
		       struct lagom_trace_replay *out, struct lagom_error *err);

/* Occupancy: resident blocks per SM by the CUDA occupancy rules. */
struct lagom_trace_device {
	unsigned sm_arch; /* compute capability x 10 */
	unsigned sms;
	unsigned max_threads_per_sm;
	unsigned regs_per_sm;
	unsigned smem_per_sm;
	unsigned warp_size;
};
unsigned lagom_trace_blocks_per_sm(const struct lagom_trace_device *dev,
				   unsigned block_threads, unsigned regs,
				   unsigned smem_bytes);

/* Memory-bound share of a kernel by its class (name rule). */
double lagom_trace_mem_bound_class(const char *kernel_name);

/* A contention row's protocol as the table writes it: "ll", "ll128",
 * "simple", or "unknown" (LAGOM_PROTO_COUNT or out of range). */
const char *lagom_trace_proto_name(enum lagom_proto proto);

#endif /* LAGOM_TRACE_TRACE_H */
