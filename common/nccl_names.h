/*
 * common/nccl_names.h - the one table of NCCL's algorithm and protocol
 * names, indexed by NCCL's own numbers (NCCL_ALGO_TREE = 0 ... NCCL_ALGO_PAT
 * = 6; NCCL_PROTO_LL = 0, LL128 = 1, SIMPLE = 2), spelled as LAGOM_PLAN and
 * the CLI write them.  Data only: the model (model/names.c) and the tuner's
 * plan reader both read it.
 */
#ifndef LAGOM_COMMON_NCCL_NAMES_H
#define LAGOM_COMMON_NCCL_NAMES_H

#define LAGOM_NCCL_NUM_ALGOS 7
#define LAGOM_NCCL_NUM_PROTOS 3

/* "tree" "ring" "collnetdirect" "collnetchain" "nvls" "nvlstree" "pat" */
extern const char *const lagom_nccl_algo_names[LAGOM_NCCL_NUM_ALGOS];
/* "ll" "ll128" "simple" */
extern const char *const lagom_nccl_proto_names[LAGOM_NCCL_NUM_PROTOS];

#endif /* LAGOM_COMMON_NCCL_NAMES_H */
