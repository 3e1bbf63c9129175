/*
 * model/names.c - names of collectives, algorithms, protocols, precisions,
 * fabrics and hop classes, as doc/plan-format.md spells them.  NCCL's
 * (collectives, algorithms, protocols) are common/nccl_names.h's.
 */
#include <errno.h>
#include <strings.h>

#include "common/nccl_names.h"
#include "model/model.h"

/* The model's collectives in NCCL's numbering; their names are NCCL's
 * (common/nccl_names.h). */
static const lagom_nccl_func_t coll_func[LAGOM_COLL_COUNT] = {
	[LAGOM_COLL_ALLREDUCE] = LAGOM_NCCL_FUNC_ALLREDUCE,
	[LAGOM_COLL_ALLGATHER] = LAGOM_NCCL_FUNC_ALLGATHER,
	[LAGOM_COLL_REDUCESCATTER] = LAGOM_NCCL_FUNC_REDUCESCATTER,
	[LAGOM_COLL_BROADCAST] = LAGOM_NCCL_FUNC_BROADCAST,
	[LAGOM_COLL_REDUCE] = LAGOM_NCCL_FUNC_REDUCE,
	[LAGOM_COLL_ALLTOALL] = LAGOM_NCCL_FUNC_ALLTOALL,
	[LAGOM_COLL_SENDRECV] = LAGOM_NCCL_FUNC_SENDRECV,
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

const char *lagom_coll_name(enum lagom_coll coll)
{
	if ((int)coll < 0 || coll >= LAGOM_COLL_COUNT)
		return NULL;
	return lagom_nccl_func_names[coll_func[coll]];
}

int lagom_coll_parse(const char *name, enum lagom_coll *out)
{
	const char *c;

	for (int i = 0; name && i < LAGOM_COLL_COUNT; i++) {
		c = lagom_nccl_func_names[coll_func[i]];
		if (strcasecmp(c, name) == 0) {
			*out = (enum lagom_coll)i;
			return 0;
		}
	}
	return -EINVAL;
}

int lagom_coll_nccl_func(enum lagom_coll coll)
{
	if ((int)coll < 0 || coll >= LAGOM_COLL_COUNT)
		return -1;
	return (int)coll_func[coll];
}

int lagom_coll_from_nccl_func(int func, enum lagom_coll *out)
{
	for (int i = 0; i < LAGOM_COLL_COUNT; i++)
		if ((int)coll_func[i] == func) {
			*out = (enum lagom_coll)i;
			return 0;
		}
	return -EINVAL;
}
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
