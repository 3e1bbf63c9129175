/*
 * common/nccl_names.c - NCCL's algorithm and protocol names
 * (common/nccl_names.h).
 */
#include "config.h"

#include "common/nccl_names.h"

const char *const lagom_nccl_algo_names[LAGOM_NCCL_NUM_ALGOS] = {
	"tree", "ring",	    "collnetdirect", "collnetchain",
	"nvls", "nvlstree", "pat",
};

const char *const lagom_nccl_proto_names[LAGOM_NCCL_NUM_PROTOS] = {
	"ll",
	"ll128",
	"simple",
};
