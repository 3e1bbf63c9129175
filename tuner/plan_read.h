/*
 * tuner/plan_read.h - the tuner's own strict reader of the LAGOM_PLAN text.
 *
 * The text format is doc/plan-format.md (written by search/'s
 * lagom_plan_encode()).  The reader links nothing but libc: it is compiled
 * into libnccl-tuner-lagom.so, which runs inside the user's process.  It does
 * no I/O, no allocation and keeps no state; the caller owns every buffer.
 *
 * Strictness (anything else makes the whole plan invalid):
 *   - at most TUNER_PLAN_MAX_BYTES bytes of printable ASCII; records separated
 *     by ';' or '\n', fields by exactly one space; one optional '\n' may
 *     follow the final "end" record (a file written by a shell) and nothing
 *     else may;
 *   - the header is "lagom-plan 1 <version> <16 lowercase hex> job=<u64>
 *     ranks=<R> nodes=<N>" with 1 <= N <= R;
 *   - the second record is "env tuner=<0|1> ctas=<min>-<max>
 *     buffsize=<bytes> nthreads=<n> algo=<A|any> proto=<P|any>", all seven
 *     fields in that order: ctas 0-0 or 1 <= min <= max <= 64, buffsize at
 *     most INT64_MAX, nthreads 0 or a multiple of 32 in 64..512; a plan
 *     without it is invalid;
 *   - each "coll" record has all ten fields in the documented order; numbers
 *     are canonical unsigned decimal (no sign, no leading zero, no overflow
 *     of 64 bits); min-bytes <= max-bytes; 1 <= nodes <= ranks; the entry's
 *     ranks and nodes are at most the header's; nc is 0..64;
 *   - at most TUNER_PLAN_MAX_ENTRIES coll records, then "end".
 * The plan id is kept, not recomputed: the reader does not check the hash.
 */
#ifndef LAGOM_TUNER_PLAN_READ_H
#define LAGOM_TUNER_PLAN_READ_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define TUNER_PLAN_MAX_BYTES 65536
#define TUNER_PLAN_MAX_ENTRIES 256
#define TUNER_PLAN_VERSION_MAX 32 /* bytes of the lagom version, NUL included */
#define TUNER_PLAN_MAX_NC 64
#define TUNER_PLAN_MIN_NTHREADS 64
#define TUNER_PLAN_MAX_NTHREADS 512

/* algo / proto of an entry that leaves NCCL's choice alone ("any"). */
#define TUNER_PLAN_ANY (-1)

/* One "coll" record, translated to NCCL's numbering. */
struct tuner_plan_entry {
	int func;	    /* ncclFunc_t: 0 broadcast .. 4 allreduce,
			     * 5 sendrecv, 8 alltoall */
	uint64_t min_bytes; /* inclusive */
	uint64_t max_bytes; /* inclusive */
	uint64_t ranks;	    /* communicator shape the entry applies to */
	uint64_t nodes;
	int algo;	      /* NCCL_ALGO_* index or TUNER_PLAN_ANY */
	int proto;	      /* NCCL_PROTO_* index or TUNER_PLAN_ANY */
	unsigned nc;	      /* channels, 0 = leave NCCL's choice */
	uint64_t chunk_bytes; /* 0 = leave NCCL's choice */
};

/*
 * The "env" record: the process-wide NCCL values lagom set for the step
 * (NCCL reads them from the environment itself; the tuner only logs them).
 * 0 / TUNER_PLAN_ANY: lagom did not set that variable.
 */
struct tuner_plan_env {
	unsigned tuner;		     /* 1: lagom set NCCL_TUNER_PLUGIN */
	unsigned min_ctas, max_ctas; /* NCCL_MIN_CTAS / NCCL_MAX_CTAS */
	uint64_t buffsize_bytes;     /* NCCL_BUFFSIZE */
	unsigned nthreads;	     /* NCCL_NTHREADS */
	int algo;		     /* NCCL_ALGO: NCCL_ALGO_* index or ANY */
	int proto;		     /* NCCL_PROTO: NCCL_PROTO_* index or ANY */
};

struct tuner_plan {
	char lagom_version[TUNER_PLAN_VERSION_MAX];
	uint64_t plan_id;
	uint64_t job_id; /* 0: written outside Slurm */
	uint64_t ranks;	 /* the step's world */
	uint64_t nodes;
	struct tuner_plan_env env;
	size_t n_entries;
	struct tuner_plan_entry entries[TUNER_PLAN_MAX_ENTRIES];
};

/*
 * Parse len bytes of text (no NUL needed; a NUL byte is invalid) into *plan.
 * Returns 0, -E2BIG when len exceeds TUNER_PLAN_MAX_BYTES or there are more
 * than TUNER_PLAN_MAX_ENTRIES entries, or -EINVAL for anything else that
 * does not parse; err (may be NULL) then says which record and why.  On
 * failure *plan holds no meaningful data.
 */
int tuner_plan_parse(const char *text, size_t len, struct tuner_plan *plan,
		     struct lagom_error *err);

/*
 * First entry for (func, n_bytes) among entries[0..n) whose shape is
 * (ranks, nodes), or NULL.
 */
const struct tuner_plan_entry *tuner_plan_find(
	const struct tuner_plan_entry *entries, size_t n, int func,
	uint64_t n_bytes, uint64_t ranks, uint64_t nodes);

/*
 * The plan's numbers: canonical unsigned decimal ("0" or [1-9][0-9]*) of n
 * bytes at s that fits 64 bits.  Returns 0, or -1 (*out untouched).  The
 * tuner reads SLURM_JOB_ID with it too, so both sides of the job check
 * follow one rule.
 */
int tuner_parse_u64(const char *s, size_t n, uint64_t *out);

#endif /* LAGOM_TUNER_PLAN_READ_H */
