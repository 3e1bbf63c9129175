/*
 * common/nccl_names.c - NCCL's operation, algorithm and protocol names
 * (common/nccl_names.h).
 */
#include "config.h"

#include "common/nccl_names.h"

const char *const lagom_nccl_func_names[LAGOM_NCCL_NUM_FUNCS] = {
	[LAGOM_NCCL_FUNC_BROADCAST] = "broadcast",
	[LAGOM_NCCL_FUNC_REDUCE] = "reduce",
	[LAGOM_NCCL_FUNC_ALLGATHER] = "allgather",
	[LAGOM_NCCL_FUNC_REDUCESCATTER] = "reducescatter",
	[LAGOM_NCCL_FUNC_ALLREDUCE] = "allreduce",
	[LAGOM_NCCL_FUNC_SENDRECV] = "sendrecv",
	[LAGOM_NCCL_FUNC_SEND] = "send",
	[LAGOM_NCCL_FUNC_RECV] = "recv",
	[LAGOM_NCCL_FUNC_ALLTOALL] = "alltoall",
	[LAGOM_NCCL_FUNC_SCATTER] = "scatter",
	[LAGOM_NCCL_FUNC_GATHER] = "gather",
};

const char *const lagom_nccl_algo_names[LAGOM_NCCL_NUM_ALGOS] = {
	"tree", "ring",	    "collnetdirect", "collnetchain",
	"nvls", "nvlstree", "pat",
};

const char *const lagom_nccl_algo_record_names[LAGOM_NCCL_NUM_ALGOS] = {
	"tree",	     "ring", "collnet_direct", "collnet_chain", "nvls",
	"nvls_tree", "pat",
};

const char *const lagom_nccl_proto_names[LAGOM_NCCL_NUM_PROTOS] = {
	"ll",
	"ll128",
	"simple",
};
