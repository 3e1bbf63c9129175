/*
 * measurement/record.h - lagom's measurement record: what
 * libnccl-profiler-lagom.so writes for one process and what `lagom runs`
 * and the planner read back (doc/profiler.md has the text format).
 *
 * One record holds, per communicator of the process, the collective classes
 * it saw (operation, bytes, algorithm, protocol, channels) with their count,
 * GPU time from the kernel-channel timestamps and the gaps before them, and
 * the repeating sequence of classes (the iteration).  Every array has a
 * fixed bound, so a record is bounded whatever the job length.
 *
 * Writer and reader use no allocation: the caller owns the struct and the
 * text buffer.  The reader is strict: one spelling per value, every count
 * checked against its bound, every cross-reference checked; it reads files
 * any user can write (the spool is the user's).
 */
#ifndef LAGOM_MEASUREMENT_RECORD_H
#define LAGOM_MEASUREMENT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/nccl_abi.h"

#define LAGOM_REC_VERSION 1
#define LAGOM_REC_MAGIC "lagom-measure"
#define LAGOM_REC_MAX_COMMS 16
#define LAGOM_REC_MAX_CLASSES 128 /* per communicator */
#define LAGOM_REC_MAX_PERIOD 256  /* classes in one iteration */
#define LAGOM_REC_NAME_MAX 64	  /* communicator name, after escaping */
#define LAGOM_REC_TOKEN_MAX 23	  /* job, step, plan id */
#define LAGOM_REC_MAX_CHANNELS 64
#define LAGOM_REC_MAX_LINE 2048
/* The largest record the writer can produce is well under this. */
#define LAGOM_REC_MAX_BYTES (1024 * 1024)

/*
 * A class's operation is NCCL's ncclFunc_t (lagom_nccl_func_t,
 * common/nccl_abi.h: LAGOM_NCCL_FUNC_BROADCAST ... LAGOM_NCCL_FUNC_GATHER),
 * or one NCCL named that lagom does not know:
 */
#define LAGOM_REC_OP_OTHER LAGOM_NCCL_NUM_FUNCS
#define LAGOM_REC_OP_COUNT (LAGOM_REC_OP_OTHER + 1)

/* Algorithms and protocols: NCCL's indices first (common/nccl_abi.h). */
enum lagom_rec_algo {
	LAGOM_REC_ALGO_TREE = LAGOM_NCCL_ALGO_TREE,
	LAGOM_REC_ALGO_RING = LAGOM_NCCL_ALGO_RING,
	LAGOM_REC_ALGO_COLLNET_DIRECT = LAGOM_NCCL_ALGO_COLLNET_DIRECT,
	LAGOM_REC_ALGO_COLLNET_CHAIN = LAGOM_NCCL_ALGO_COLLNET_CHAIN,
	LAGOM_REC_ALGO_NVLS = LAGOM_NCCL_ALGO_NVLS,
	LAGOM_REC_ALGO_NVLS_TREE = LAGOM_NCCL_ALGO_NVLS_TREE,
	LAGOM_REC_ALGO_PAT = LAGOM_NCCL_ALGO_PAT,
	/* send/recv: NCCL names no algorithm */
	LAGOM_REC_ALGO_P2P = LAGOM_NCCL_NUM_ALGOS,
	LAGOM_REC_ALGO_CE, /* copy-engine collective (v6) */
	LAGOM_REC_ALGO_OTHER,
	LAGOM_REC_ALGO_COUNT
};

enum lagom_rec_proto {
	LAGOM_REC_PROTO_LL = LAGOM_NCCL_PROTO_LL,
	LAGOM_REC_PROTO_LL128 = LAGOM_NCCL_PROTO_LL128,
	LAGOM_REC_PROTO_SIMPLE = LAGOM_NCCL_PROTO_SIMPLE,
	/* send/recv, copy engine */
	LAGOM_REC_PROTO_NONE = LAGOM_NCCL_NUM_PROTOS,
	LAGOM_REC_PROTO_OTHER,
	LAGOM_REC_PROTO_COUNT
};

/* One collective class of one communicator. */
struct lagom_rec_class {
	uint8_t op;	  /* lagom_nccl_func_t or LAGOM_REC_OP_OTHER */
	uint8_t algo;	  /* enum lagom_rec_algo */
	uint8_t proto;	  /* enum lagom_rec_proto */
	uint8_t channels; /* NCCL's nChannels, 0..64 */
	uint64_t bytes;	  /* count x element size of NCCL's descriptor */
	uint64_t count;	  /* collectives started */
	uint64_t gpu_n;	  /* of which timed on the GPU (<= count) */
	uint64_t gpu_ns;  /* sum of GPU times */
	uint64_t gpu_min_ns, gpu_max_ns; /* 0 when gpu_n == 0 */
	uint64_t gap_n;	 /* GPU gaps measured before this class */
	uint64_t gap_ns; /* their sum */
};

struct lagom_rec_comm {
	uint64_t id; /* NCCL's commHash, the tuner's commId */
	char name[LAGOM_REC_NAME_MAX + 1]; /* escaped; "" when unnamed */
	uint32_t ranks, nodes, rank;
	uint64_t overflow;   /* collectives of classes beyond the table */
	uint64_t incomplete; /* collectives whose channels never all ended */
	uint32_t n_classes;
	struct lagom_rec_class cls[LAGOM_REC_MAX_CLASSES];
	/* The iteration: period_len classes repeating, period_n times seen
	 * in the window, period_ns mean host time of one; 0 when none. */
	uint32_t period_len;
	uint32_t period_n;
	uint64_t period_ns;
	uint16_t seq[LAGOM_REC_MAX_PERIOD]; /* class indices */
};

struct lagom_rec {
	unsigned abi; /* NCCL profiler ABI the plugin was called through */
	char job[LAGOM_REC_TOKEN_MAX + 1];  /* "-" outside Slurm */
	char step[LAGOM_REC_TOKEN_MAX + 1]; /* "-" outside Slurm */
	char plan[LAGOM_REC_TOKEN_MAX + 1]; /* LAGOM_PLAN_ID or "-" */
	int64_t task;			    /* SLURM_PROCID, -1 outside */
	uint64_t pid;
	uint64_t start_unix, written_unix; /* seconds */
	uint64_t dropped_comms;		   /* communicators beyond the table */
	uint32_t n_comms;
	struct lagom_rec_comm comm[LAGOM_REC_MAX_COMMS];
};

/* Names in the text ("allreduce", "ring", "ll128"...), NCCL's from
 * common/nccl_names.h (algorithms in the record's spelling,
 * lagom_nccl_algo_record_names); NULL out of range. */
const char *lagom_rec_op_name(unsigned op);
const char *lagom_rec_algo_name(unsigned algo);
const char *lagom_rec_proto_name(unsigned proto);

/* 1 when c is allowed in a token (job, step, plan, name): [A-Za-z0-9._:-]. */
int lagom_rec_token_char(int c);

/*
 * Format r into buf (len bytes).  Returns the text length (no NUL counted),
 * or -ENOSPC when it does not fit, or -EINVAL when r breaks a rule the
 * reader checks (the writer never produces what the reader refuses).
 */
int lagom_rec_format(const struct lagom_rec *r, char *buf, size_t len);

/*
 * Parse text (len bytes, need not be NUL-terminated) into *out.  0, or
 * -EINVAL with err saying where (line number) and why.  *out is written
 * only on success.  scratch must hold one struct lagom_rec (the parse
 * target before the copy); it keeps the function allocation-free.
 */
int lagom_rec_parse(const char *text, size_t len, struct lagom_rec *out,
		    struct lagom_rec *scratch, struct lagom_error *err);

/*
 * The byte count lagom's plan uses for a measured class (doc/plan-format.md,
 * nccl-tests' sizes): NCCL's count x element size, except allgather and
 * reducescatter, where NCCL gives one rank's part and the plan the whole
 * buffer (x ranks).
 */
uint64_t lagom_rec_plan_bytes(unsigned op, uint64_t bytes, uint32_t ranks);
/* The communicator of r whose iteration is longest (ties: the longer
 * period_ns; the first of equals), or NULL when none has one: the one
 * lagom learns from and reports. */
const struct lagom_rec_comm *lagom_rec_main_comm(const struct lagom_rec *r);
/* The plan's name of a measured operation (send and recv are the plan's
 * "sendrecv"), or NULL for one the plan has no class of. */
const char *lagom_rec_plan_op(unsigned op);

/*
 * Read and parse the record file name in the directory dfd (AT_FDCWD:
 * name is a path), with the caller's privileges, under common/io.h's
 * lagom_read_file_at(): no symbolic link, no blocking, a regular file of
 * at most LAGOM_REC_MAX_BYTES owned by owner_uid (-1: anyone's).  buf
 * (LAGOM_REC_MAX_BYTES + 1 bytes) holds the text.  0, or -errno with err
 * saying why (the caller says where).  The walk over the spool is
 * measurement/spool.h's.
 */
int lagom_rec_read_at(int dfd, const char *name, long owner_uid, char *buf,
		      struct lagom_rec *out, struct lagom_rec *scratch,
		      struct lagom_error *err);
/* The same for a path, err prefixed with it. */
int lagom_rec_read_file(const char *path, long owner_uid, char *buf,
			struct lagom_rec *out, struct lagom_rec *scratch,
			struct lagom_error *err);

/* A record file's name in a step directory: "*.rec", not a dot file. */
bool lagom_rec_is_name(const char *name);

#endif /* LAGOM_MEASUREMENT_RECORD_H */
