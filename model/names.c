/*
 * model/names.c - names of collectives, algorithms, protocols, precisions,
 * fabrics and hop classes, as doc/plan-format.md spells them.
 */
#include <errno.h>
#include <strings.h>

#include "common/nccl_names.h"
#include "model/model.h"

static const char *const coll_names[LAGOM_COLL_COUNT] = {
	"allreduce", "allgather", "reducescatter", "broadcast",
	"reduce",    "alltoall",  "sendrecv",
};

/* Algorithm and protocol names: common/nccl_names.h (shared with the
 * tuner), in NCCL's numbering, which enum lagom_algo/lagom_proto follow. */
_Static_assert(LAGOM_ALGO_COUNT == LAGOM_NCCL_NUM_ALGOS, "algorithm table");
_Static_assert(LAGOM_PROTO_COUNT == LAGOM_NCCL_NUM_PROTOS, "protocol table");

static const char *const precision_names[LAGOM_PREC_COUNT] = {
	"fp32", "tf32", "fp16", "bf16", "fp8",
};

static const unsigned precision_bytes[LAGOM_PREC_COUNT] = { 4, 4, 2, 2, 1 };

static const char *const intra_names[LAGOM_INTRA_COUNT] = {
	"pcie", "nvlink", "nvswitch", "default", "none", /* profiles only */
};

static const char *const hops_names[LAGOM_HOPS_COUNT] = {
	"node",
	"leaf",
	"spine",
};

static const char *const transport_names[LAGOM_NET_COUNT] = {
	"default", "ib", "roce", "efa", "tcpx", "tcp",
};

static int find_name(const char *const *names, int count, const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < count; i++)
		if (strcasecmp(names[i], name) == 0)
			return i;
	return -1;
}

#define NAME_FUNCS(prefix, type, table, count)               \
	const char *prefix##_name(type value)                \
	{                                                    \
		if ((int)value < 0 || (int)value >= (count)) \
			return NULL;                         \
		return table[value];                         \
	}                                                    \
	int prefix##_parse(const char *name, type *out)      \
	{                                                    \
		int i = find_name(table, (count), name);     \
		if (i < 0)                                   \
			return -EINVAL;                      \
		*out = (type)i;                              \
		return 0;                                    \
	}

NAME_FUNCS(lagom_coll, enum lagom_coll, coll_names, LAGOM_COLL_COUNT)
NAME_FUNCS(lagom_algo, enum lagom_algo, lagom_nccl_algo_names, LAGOM_ALGO_COUNT)
NAME_FUNCS(lagom_proto, enum lagom_proto, lagom_nccl_proto_names,
	   LAGOM_PROTO_COUNT)
NAME_FUNCS(lagom_precision, enum lagom_precision, precision_names,
	   LAGOM_PREC_COUNT)
NAME_FUNCS(lagom_intra, enum lagom_intra, intra_names, LAGOM_INTRA_COUNT)
NAME_FUNCS(lagom_hops, enum lagom_hops, hops_names, LAGOM_HOPS_COUNT)
NAME_FUNCS(lagom_transport, enum lagom_transport, transport_names,
	   LAGOM_NET_COUNT)

unsigned lagom_precision_bytes(enum lagom_precision prec)
{
	if ((int)prec < 0 || prec >= LAGOM_PREC_COUNT)
		return 0;
	return precision_bytes[prec];
}
