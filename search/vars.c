/*
 * search/vars.c - the names of the variables lagom sets (search/search.h
 * enum lagom_search_var): the one list, which the environment's writer
 * (encode.c) and a node's check (spank/carrier_trust.c) both read.  On its
 * own so that a reader links the names without the encoder.
 */
#include "search/search.h"

const char *const lagom_search_var_names[LAGOM_VAR_COUNT] = {
	[LAGOM_VAR_NCCL_MIN_CTAS] = "NCCL_MIN_CTAS",
	[LAGOM_VAR_NCCL_MAX_CTAS] = "NCCL_MAX_CTAS",
	[LAGOM_VAR_NCCL_BUFFSIZE] = "NCCL_BUFFSIZE",
	[LAGOM_VAR_NCCL_NTHREADS] = "NCCL_NTHREADS",
	[LAGOM_VAR_NCCL_ALGO] = "NCCL_ALGO",
	[LAGOM_VAR_NCCL_PROTO] = "NCCL_PROTO",
	[LAGOM_VAR_NCCL_CTA_POLICY] = "NCCL_CTA_POLICY",
	[LAGOM_VAR_NCCL_TUNER_PLUGIN] = "NCCL_TUNER_PLUGIN",
	[LAGOM_VAR_LAGOM_PLAN] = "LAGOM_PLAN",
	[LAGOM_VAR_TORCH_NCCL_HIGH_PRIORITY] = "TORCH_NCCL_HIGH_PRIORITY",
	[LAGOM_VAR_CUDA_DEVICE_MAX_CONNECTIONS] = "CUDA_DEVICE_MAX_CONNECTIONS",
	[LAGOM_VAR_LAGOM_PLAN_ID] = "LAGOM_PLAN_ID",
	[LAGOM_VAR_LAGOM_PREDICTED_SPEEDUP] = "LAGOM_PREDICTED_SPEEDUP",
};
