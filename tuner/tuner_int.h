/*
 * tuner/tuner_int.h - private to tuner/: shared between tuner.c (plan
 * loading, per-communicator context) and tuner_abi.c (the exported ABI
 * structs and the cost-table edits).  Nothing here is exported from
 * libnccl-tuner-lagom.so (tuner/tuner.map exports only ncclTunerPlugin_v*).
 */
#ifndef LAGOM_TUNER_TUNER_INT_H
#define LAGOM_TUNER_TUNER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "tuner/nccl_tuner_abi.h"
#include "plan/plan.h"

/* Per-communicator context: the plan records of this communicator's shape. */
struct lagom_tuner {
	uint64_t n_ranks;
	uint64_t n_nodes;
	size_t ncolls;
	struct lagom_plan_wire_coll colls[];
};

/*
 * init of every ABI version.  Reads LAGOM_PLAN (inline text or "@/path"),
 * checks it (doc/plan-format.md, this lagom's version, SLURM_JOB_ID, the
 * communicator fits the plan's world) and logs exactly one line through log
 * (NULL allowed).  Always returns success; *context is NULL (no-op for this
 * communicator) unless some plan entry has this shape.  The context is freed
 * with tuner_free().
 */
lagom_nccl_result_t tuner_init(void **context, size_t n_ranks, size_t n_nodes,
			       lagom_nccl_logger_t log);

/* The first entry for (coll_type, n_bytes) or NULL; t may be NULL. */
const struct lagom_plan_wire_coll *tuner_lookup(const struct lagom_tuner *t,
						int coll_type, size_t n_bytes);

void tuner_free(struct lagom_tuner *t);

#endif /* LAGOM_TUNER_TUNER_INT_H */
