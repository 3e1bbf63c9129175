/*
 * plan/plan.h - the LAGOM_PLAN format in one place (doc/plan-format.md):
 * its constants and names, the records as C structs, the encoder (search/
 * and the planner write with it) and the strict decoder (the tuner reads
 * with it).
 *
 * libc and common/ only: this folder is compiled into
 * libnccl-tuner-lagom.so, which runs inside the user's process (no jansson,
 * hwloc or Slurm: tests/tuner/symbols.sh).  No I/O, no allocation, no
 * state; the caller owns every buffer.  The encoder uses no printf-family
 * function (the search's pure core links none).
 *
 * Numbering is NCCL's own: ops are ncclFunc_t (0 broadcast .. 4 allreduce,
 * 5 sendrecv, 8 alltoall), algorithms and protocols the indices of
 * common/nccl_names.h, the CTA policy NCCL_CTA_POLICY's values.
 *
 * Versions: the header's "1" or "1.<minor>".  A decoder refuses another
 * major.  In the env record every field is key=value: the keys of format
 * 1.0 are required, keys of later minors are optional and default to "not
 * set".  A plan of a newer minor than LAGOM_PLAN_FORMAT_MINOR may carry env
 * keys, and coll fields after chunk=, this decoder does not know: they are
 * ignored.  In a plan of this minor or older they are errors.  The encoder
 * writes the smallest minor that expresses the plan, the 1.0 keys always
 * and a later key only when it is set, so a new knob changes neither the
 * text nor the id of a plan that does not use it.
 */
#ifndef LAGOM_PLAN_PLAN_H
#define LAGOM_PLAN_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/nccl_names.h"

#define LAGOM_PLAN_FORMAT_MAJOR 1
#define LAGOM_PLAN_FORMAT_MINOR 1 /* newest minor this code reads */
#define LAGOM_PLAN_MAX_BYTES 65536
#define LAGOM_PLAN_MAX_COLLS 256
#define LAGOM_PLAN_VERSION_MAX 32 /* bytes of the lagom version, NUL too */
#define LAGOM_PLAN_MAX_NCHANNELS 64
#define LAGOM_PLAN_MIN_NTHREADS 64
#define LAGOM_PLAN_MAX_NTHREADS 512

/* algo / proto "any": lagom leaves NCCL's choice alone. */
#define LAGOM_PLAN_ANY (-1)

/* NCCL_CTA_POLICY (NCCL 2.27+; ncclConfig_t.CTAPolicy), NCCL's values. */
enum lagom_cta_policy {
	LAGOM_CTA_POLICY_DEFAULT = 0, /* "default": lagom does not set it */
	LAGOM_CTA_POLICY_EFFICIENCY = 1,
	LAGOM_CTA_POLICY_ZERO = 2,
	LAGOM_CTA_POLICY_COUNT
};

/* "default" "efficiency" "zero" */
extern const char *const lagom_cta_policy_names[LAGOM_CTA_POLICY_COUNT];

/* One "coll" record in NCCL's numbering. */
struct lagom_plan_wire_coll {
	int op;		    /* ncclFunc_t */
	uint64_t min_bytes; /* inclusive */
	uint64_t max_bytes; /* inclusive */
	uint64_t ranks;	    /* communicator shape the record applies to */
	uint64_t nodes;
	int algo;	      /* NCCL_ALGO_* index or LAGOM_PLAN_ANY */
	int proto;	      /* NCCL_PROTO_* index or LAGOM_PLAN_ANY */
	unsigned nchannels;   /* wire key nc=; 0 = leave NCCL's choice */
	uint64_t chunk_bytes; /* 0 = leave NCCL's choice */
};

/*
 * The "env" record: the process-wide NCCL values lagom sets with the plan
 * (NCCL reads them from the environment itself; the tuner only logs them).
 * 0 / LAGOM_PLAN_ANY: lagom does not set that variable.
 */
struct lagom_plan_wire_env {
	unsigned tuner;		     /* 1: NCCL_TUNER_PLUGIN and LAGOM_PLAN */
	unsigned min_ctas, max_ctas; /* NCCL_MIN_CTAS / NCCL_MAX_CTAS */
	uint64_t buffsize_bytes;     /* NCCL_BUFFSIZE */
	unsigned nthreads;	     /* NCCL_NTHREADS */
	int algo;		     /* NCCL_ALGO: index or LAGOM_PLAN_ANY */
	int proto;		     /* NCCL_PROTO: index or LAGOM_PLAN_ANY */
	unsigned cta_policy;	     /* NCCL_CTA_POLICY (format 1.1) */
};

/* A whole plan as the text holds it.  Plain data (about 16 KiB). */
struct lagom_plan_wire {
	unsigned minor; /* decoded: the text's minor; ignored by the encoder */
	char lagom_version[LAGOM_PLAN_VERSION_MAX];
	uint64_t plan_id; /* decoded: as written (not recomputed) */
	uint64_t job_id;  /* 0: written outside Slurm */
	uint64_t ranks;	  /* the step's world */
	uint64_t nodes;
	struct lagom_plan_wire_env env;
	size_t ncolls;
	struct lagom_plan_wire_coll colls[LAGOM_PLAN_MAX_COLLS];
};

/*
 * One variable of the environment a plan sets (design.md "What lagom
 * sets"), the one name=value form from the search to the task: the
 * planner's result, the carrier srun sends and the node's decision all hold
 * it.  Who owns the strings is said where an array of them is kept.
 */
struct lagom_env_var {
	char *name;
	char *value;
};

/*
 * Parse len bytes of text (no NUL needed; a NUL byte is invalid) into *out.
 * Returns 0, -E2BIG when len exceeds LAGOM_PLAN_MAX_BYTES or there are more
 * than LAGOM_PLAN_MAX_COLLS coll records, or -EINVAL for anything else that
 * does not parse (doc/plan-format.md "Rules for readers"); err (may be
 * NULL) then says which record and why.  On failure *out holds no
 * meaningful data.
 */
int lagom_plan_wire_decode(const char *text, size_t len,
			   struct lagom_plan_wire *out,
			   struct lagom_error *err);

/*
 * The plan id: 64-bit FNV-1a of the records after the header exactly as
 * lagom_plan_wire_encode() writes them (env, every coll, end, with the ';'
 * between them).  -EINVAL for a plan the format cannot hold, -ENOSPC when
 * its text would exceed LAGOM_PLAN_MAX_BYTES.
 */
int lagom_plan_wire_id(const struct lagom_plan_wire *w, uint64_t *id,
		       struct lagom_error *err);

/*
 * Write the text of w (NUL-terminated) into buf: the header with the
 * smallest minor that expresses w and the id lagom_plan_wire_id() gives,
 * then the records.  w->minor and w->plan_id are not read; *id (may be
 * NULL) receives the id.  Only what a decoder accepts is written: -EINVAL
 * for a value out of range, -ENOSPC when len (or LAGOM_PLAN_MAX_BYTES) is
 * too small; buf is then "".
 */
int lagom_plan_wire_encode(const struct lagom_plan_wire *w, char *buf,
			   size_t len, uint64_t *id, struct lagom_error *err);

/*
 * First record among colls[0..n) for (op, n_bytes) whose shape is exactly
 * (ranks, nodes), or NULL.
 */
const struct lagom_plan_wire_coll *lagom_plan_wire_find(
	const struct lagom_plan_wire_coll *colls, size_t n, int op,
	uint64_t n_bytes, uint64_t ranks, uint64_t nodes);

/* The plan's op name for an ncclFunc_t ("allreduce"), or NULL. */
const char *lagom_plan_op_name(int op);
/* The ncclFunc_t of an op name (n bytes at s), or -1. */
int lagom_plan_op_parse(const char *s, size_t n);

/* v in canonical decimal into buf (NUL-terminated); returns buf. */
#define LAGOM_PLAN_U64_MAX_CHARS 21 /* 20 digits and the NUL */
char *lagom_plan_format_u64(uint64_t v, char buf[LAGOM_PLAN_U64_MAX_CHARS]);
/* A plan id as the text (and LAGOM_PLAN_ID) writes it: 16 lowercase hex
 * digits and the NUL; returns buf. */
char *lagom_plan_format_id(uint64_t id, char buf[17]);

/*
 * The plan's numbers: canonical unsigned decimal ("0" or [1-9][0-9]*) of n
 * bytes at s that fits 64 bits.  Returns 0, or -1 (*out untouched).  The
 * tuner reads SLURM_JOB_ID with it too, so both sides of the job check
 * follow one rule.
 */
int lagom_plan_parse_u64(const char *s, size_t n, uint64_t *out);

#endif /* LAGOM_PLAN_PLAN_H */
