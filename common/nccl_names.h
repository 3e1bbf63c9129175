/*
 * common/nccl_names.h - the one table of names per NCCL concept, indexed by
 * NCCL's own numbers (common/nccl_abi.h): operations (ncclFunc_t),
 * algorithms (NCCL_ALGO_TREE = 0 ... NCCL_ALGO_PAT = 6) and protocols
 * (NCCL_PROTO_LL = 0, LL128 = 1, SIMPLE = 2).  Data only: the model
 * (model/names.c), LAGOM_PLAN (plan/), the tuner, the SPANK plugin's
 * carrier check and the measurement record (measurement/record.c) all read
 * it.
 *
 * Spelling: every format lagom writes spells these the same way (as
 * LAGOM_PLAN and the CLI do), except that the measurement record keeps the
 * algorithm spelling of its version 1 (lagom_nccl_algo_record_names,
 * doc/vocabulary.md "Spellings").
 */
#ifndef LAGOM_COMMON_NCCL_NAMES_H
#define LAGOM_COMMON_NCCL_NAMES_H

#include "common/nccl_abi.h"

/* "broadcast" "reduce" "allgather" "reducescatter" "allreduce" "sendrecv"
 * "send" "recv" "alltoall" "scatter" "gather" */
extern const char *const lagom_nccl_func_names[LAGOM_NCCL_NUM_FUNCS];
/* "tree" "ring" "collnetdirect" "collnetchain" "nvls" "nvlstree" "pat" */
extern const char *const lagom_nccl_algo_names[LAGOM_NCCL_NUM_ALGOS];
/* The same algorithms as the measurement record (doc/profiler.md) has
 * written them since its version 1: "collnet_direct" "collnet_chain"
 * "nvls_tree", the others as above. */
extern const char *const lagom_nccl_algo_record_names[LAGOM_NCCL_NUM_ALGOS];
/* "ll" "ll128" "simple" */
extern const char *const lagom_nccl_proto_names[LAGOM_NCCL_NUM_PROTOS];

#endif /* LAGOM_COMMON_NCCL_NAMES_H */
