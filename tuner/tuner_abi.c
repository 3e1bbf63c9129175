/*
 * tuner/tuner_abi.c - the symbols NCCL looks up (ncclTunerPlugin_v2..v6) and
 * the per-call answers they give from the plan.
 *
 * Method, part "apply": an entry's channel count replaces NCCL's per-call
 * maximum; its algorithm/protocol are imposed through the cost table:
 *   algo and proto set   the cell is set to 0.0 (NCCL takes the minimum)
 *   only algo set        every available cell of the other algorithms -> -1
 *   only proto set       every available cell of the other protocols -> -1
 * A cell NCCL marked -1 (unavailable) is never written to anything else.  If
 * the plan's choice is unavailable, the whole entry is dropped for this call
 * (its channel count belonged to that choice): NCCL decides alone.
 */
#include "config.h"

#include "tuner/tuner_int.h"

#define TUNER_EXPORT __attribute__((visibility("default")))
#define MAX_TABLE_DIM 64 /* sanity bound on numAlgo / numProto */
#define TUNER_NAME "lagom"

static int cell_available(float v)
{
	return v >= 0.0f;
}

static int force_cell(float *table, int num_proto, int algo, int proto)
{
	float *cell = &table[algo * num_proto + proto];

	if (!cell_available(*cell))
		return 0;
	*cell = 0.0f;
	return 1;
}

/* Forbid every available cell outside row keep_algo (or column keep_proto). */
static int keep_only(float *table, int num_algo, int num_proto, int keep_algo,
		     int keep_proto)
{
	int a, p, any = 0;

	for (a = 0; a < num_algo; a++)
		for (p = 0; p < num_proto; p++)
			if ((a == keep_algo || p == keep_proto) &&
			    cell_available(table[a * num_proto + p]))
				any = 1;
	if (!any)
		return 0;
	for (a = 0; a < num_algo; a++)
		for (p = 0; p < num_proto; p++)
			if (a != keep_algo && p != keep_proto &&
			    cell_available(table[a * num_proto + p]))
				table[a * num_proto + p] =
					LAGOM_NCCL_ALGO_PROTO_IGNORE;
	return 1;
}

/* Edit the cost table for e; 1 when the plan's choice could be applied. */
static int apply_choice(const struct lagom_plan_wire_coll *e, float *table,
			int num_algo, int num_proto)
{
	if (e->algo == LAGOM_PLAN_ANY && e->proto == LAGOM_PLAN_ANY)
		return 1;
	if (!table || num_algo <= 0 || num_proto <= 0 ||
	    num_algo > MAX_TABLE_DIM || num_proto > MAX_TABLE_DIM ||
	    e->algo >= num_algo || e->proto >= num_proto)
		return 0;
	if (e->algo != LAGOM_PLAN_ANY && e->proto != LAGOM_PLAN_ANY)
		return force_cell(table, num_proto, e->algo, e->proto);
	if (e->algo != LAGOM_PLAN_ANY)
		return keep_only(table, num_algo, num_proto, e->algo, -1);
	return keep_only(table, num_algo, num_proto, -1, e->proto);
}

/* getCollInfo of v3..v6: regBuff and numPipeOps do not change the answer. */
static lagom_nccl_result_t get_coll_info_v4(void *context, int coll_type,
					    size_t n_bytes, int num_pipe_ops,
					    float **cost_table, int num_algo,
					    int num_proto, int reg_buff,
					    int *nchannels)
{
	const struct lagom_plan_wire_coll *e;

	e = tuner_lookup(context, coll_type, n_bytes);
	if (!e)
		return LAGOM_NCCL_SUCCESS;
	if (apply_choice(e, (float *)cost_table, num_algo, num_proto) &&
	    e->nchannels > 0 && nchannels)
		*nchannels = (int)e->nchannels;
	return LAGOM_NCCL_SUCCESS;
}

static lagom_nccl_result_t get_coll_info_v3(void *context, int coll_type,
					    size_t n_bytes, int num_pipe_ops,
					    float **cost_table, int num_algo,
					    int num_proto, int *nchannels)
{
	return get_coll_info_v4(context, coll_type, n_bytes, num_pipe_ops,
				cost_table, num_algo, num_proto, 0, nchannels);
}

/* v2 (NCCL 2.21: six algorithms, no PAT) answers a pair, not a table. */
static int v2_supported(int algo, int coll_net_support, int nvls_support)
{
	switch (algo) {
	case LAGOM_NCCL_ALGO_TREE:
	case LAGOM_NCCL_ALGO_RING:
		return 1;
	case LAGOM_NCCL_ALGO_COLLNET_DIRECT:
	case LAGOM_NCCL_ALGO_COLLNET_CHAIN:
		return coll_net_support;
	case LAGOM_NCCL_ALGO_NVLS:
	case LAGOM_NCCL_ALGO_NVLS_TREE:
		return nvls_support;
	default:
		return 0;
	}
}

static lagom_nccl_result_t get_coll_info_v2(void *context, int coll_type,
					    size_t n_bytes,
					    int coll_net_support,
					    int nvls_support, int num_pipe_ops,
					    int *algorithm, int *protocol,
					    int *nchannels)
{
	const struct lagom_plan_wire_coll *e;

	e = tuner_lookup(context, coll_type, n_bytes);
	if (!e)
		return LAGOM_NCCL_SUCCESS;
	if (e->algo != LAGOM_PLAN_ANY || e->proto != LAGOM_PLAN_ANY) {
		/* v2 can say both or neither; a half choice is dropped. */
		if (e->algo == LAGOM_PLAN_ANY || e->proto == LAGOM_PLAN_ANY ||
		    !v2_supported(e->algo, coll_net_support, nvls_support) ||
		    !algorithm || !protocol)
			return LAGOM_NCCL_SUCCESS;
		*algorithm = e->algo;
		*protocol = e->proto;
	}
	if (e->nchannels > 0 && nchannels)
		*nchannels = (int)e->nchannels;
	return LAGOM_NCCL_SUCCESS;
}

/* v6 getChunkSize: the plan's chunk, if NCCL chose the plan's algo/proto. */
static lagom_nccl_result_t get_chunk_size_v6(void *context, int coll_type,
					     size_t n_bytes, int algo,
					     int proto, int nchannels,
					     size_t *chunk_size)
{
	const struct lagom_plan_wire_coll *e;

	e = tuner_lookup(context, coll_type, n_bytes);
	if (!e || e->chunk_bytes == 0 || !chunk_size ||
	    (e->algo != LAGOM_PLAN_ANY && e->algo != algo) ||
	    (e->proto != LAGOM_PLAN_ANY && e->proto != proto) ||
	    e->chunk_bytes > SIZE_MAX)
		return LAGOM_NCCL_SUCCESS;
	*chunk_size = (size_t)e->chunk_bytes;
	return LAGOM_NCCL_SUCCESS;
}

static lagom_nccl_result_t init_v2(size_t n_ranks, size_t n_nodes,
				   lagom_nccl_logger_t log, void **context)
{
	return tuner_init(context, n_ranks, n_nodes, log);
}

/* NCCL may edit *constants here; lagom leaves NCCL's model as it is. */
static lagom_nccl_result_t init_v5(
	void **context, uint64_t comm_id, size_t n_ranks, size_t n_nodes,
	lagom_nccl_logger_t log, struct lagom_nccl_nvl_domain_info_v5 *nvl,
	struct lagom_nccl_tuner_constants_v5 *constants)
{
	return tuner_init(context, n_ranks, n_nodes, log);
}

static lagom_nccl_result_t finalize(void *context)
{
	tuner_free(context);
	return LAGOM_NCCL_SUCCESS;
}

TUNER_EXPORT const struct lagom_nccl_tuner_v2 ncclTunerPlugin_v2 = {
	.name = TUNER_NAME,
	.init = init_v2,
	.getCollInfo = get_coll_info_v2,
	.destroy = finalize,
};

TUNER_EXPORT const struct lagom_nccl_tuner_v3 ncclTunerPlugin_v3 = {
	.name = TUNER_NAME,
	.init = init_v2,
	.getCollInfo = get_coll_info_v3,
	.destroy = finalize,
};

TUNER_EXPORT const struct lagom_nccl_tuner_v4 ncclTunerPlugin_v4 = {
	.name = TUNER_NAME,
	.init = init_v2,
	.getCollInfo = get_coll_info_v4,
	.destroy = finalize,
};

TUNER_EXPORT const struct lagom_nccl_tuner_v5 ncclTunerPlugin_v5 = {
	.name = TUNER_NAME,
	.init = init_v5,
	.getCollInfo = get_coll_info_v4,
	.finalize = finalize,
};

TUNER_EXPORT const struct lagom_nccl_tuner_v6 ncclTunerPlugin_v6 = {
	.name = TUNER_NAME,
	.init = init_v5,
	.getCollInfo = get_coll_info_v4,
	.finalize = finalize,
	.getChunkSize = get_chunk_size_v6,
};
