/*
 * profiler/prof_abi.c - the symbols NCCL looks up: ncclProfiler_v6 (NCCL
 * 2.29+), ncclProfiler_v5 (2.28) and ncclProfiler_v4 (2.27; 2.28 and 2.29
 * also accept it through their v4 adapters).
 *
 * What each event does:
 *   Group          a non-NULL marker handle (NCCL 2.27 starts Coll events
 *                  only under a Group handle), nothing recorded
 *   Coll, P2p      the collective's class is counted; the handle names its
 *                  slot in the ring of collectives in flight
 *   KernelCh       start: the channel's GPU start; KernelChStop state: its
 *                  GPU stop; the last channel closes the collective's time
 *   anything else  a NULL handle (API, proxy, network, copy-engine events)
 * Every entry point returns ncclSuccess whatever it is given: a profiler
 * must never fail a collective.  Only NCCL's NULL checks are relied on;
 * handles are validated before use (prof_int.h).
 */
#include "config.h"

#include "profiler/prof_int.h"

#define PROF_EXPORT __attribute__((visibility("default")))
#define PROF_NAME "lagom"

/* The body shared by the three startEvent versions (same member names). */
#define START_EVENT(context, eHandle, d)                                       \
	do {                                                                   \
		struct pf_coll c_ = { 0 };                                     \
		if (!(eHandle))                                                \
			return LAGOM_NCCL_SUCCESS;                             \
		*(eHandle) = NULL;                                             \
		if (!(d) || !(context))                                        \
			return LAGOM_NCCL_SUCCESS;                             \
		switch ((d)->type) {                                           \
		case LAGOM_PROF_GROUP:                                         \
			*(eHandle) = (void *)(uintptr_t)PF_KIND_GROUP;         \
			break;                                                 \
		case LAGOM_PROF_COLL:                                          \
			c_.func = (d)->coll.func;                              \
			c_.datatype = (d)->coll.datatype;                      \
			c_.algo = (d)->coll.algo;                              \
			c_.proto = (d)->coll.proto;                            \
			c_.count = (d)->coll.count;                            \
			c_.channels = (d)->coll.nChannels;                     \
			*(eHandle) = pf_start_coll((context), &c_);            \
			break;                                                 \
		case LAGOM_PROF_P2P:                                           \
			c_.func = (d)->p2p.func;                               \
			c_.datatype = (d)->p2p.datatype;                       \
			c_.count = (d)->p2p.count;                             \
			c_.channels = (d)->p2p.nChannels;                      \
			c_.p2p = 1;                                            \
			*(eHandle) = pf_start_coll((context), &c_);            \
			break;                                                 \
		case LAGOM_PROF_KERNEL_CH:                                     \
			*(eHandle) = pf_start_kernel_ch((d)->parentObj,        \
							(d)->kernelCh.pTimer); \
			break;                                                 \
		default:                                                       \
			break;                                                 \
		}                                                              \
		return LAGOM_NCCL_SUCCESS;                                     \
	} while (0)

static lagom_nccl_result_t start_v4(void *context, void **eHandle,
				    struct lagom_prof_descr_v4 *d)
{
	START_EVENT(context, eHandle, d);
}

static lagom_nccl_result_t start_v5(void *context, void **eHandle,
				    struct lagom_prof_descr_v5 *d)
{
	START_EVENT(context, eHandle, d);
}

static lagom_nccl_result_t start_v6(void *context, void **eHandle,
				    struct lagom_prof_descr_v6 *d)
{
	START_EVENT(context, eHandle, d);
}

/* A Coll's stop only means "enqueued"; its time comes from its channels. */
static lagom_nccl_result_t stop_event(void *eHandle)
{
	return LAGOM_NCCL_SUCCESS;
}

static lagom_nccl_result_t record_state(void *eHandle,
					lagom_prof_state_t eState,
					union lagom_prof_state_args *args)
{
	if (eHandle)
		pf_record(eHandle, (int)eState, args);
	return LAGOM_NCCL_SUCCESS;
}

static lagom_nccl_result_t finalize(void *context)
{
	if (context)
		pf_finalize(context);
	return LAGOM_NCCL_SUCCESS;
}

static lagom_nccl_result_t init_v4(void **context, int *mask,
				   const char *commName, uint64_t commHash,
				   int nNodes, int nranks, int rank,
				   lagom_nccl_logger_t logfn)
{
	pf_init(context, commHash, mask, commName, nNodes, nranks, rank, logfn,
		4);
	return LAGOM_NCCL_SUCCESS;
}

static lagom_nccl_result_t init_v5(void **context, uint64_t commId, int *mask,
				   const char *commName, int nNodes, int nranks,
				   int rank, lagom_nccl_logger_t logfn)
{
	pf_init(context, commId, mask, commName, nNodes, nranks, rank, logfn,
		5);
	return LAGOM_NCCL_SUCCESS;
}

static lagom_nccl_result_t init_v6(void **context, uint64_t commId, int *mask,
				   const char *commName, int nNodes, int nranks,
				   int rank, lagom_nccl_logger_t logfn)
{
	pf_init(context, commId, mask, commName, nNodes, nranks, rank, logfn,
		6);
	return LAGOM_NCCL_SUCCESS;
}

PROF_EXPORT const struct lagom_nccl_profiler_v4 ncclProfiler_v4 = {
	.name = PROF_NAME,
	.init = init_v4,
	.startEvent = start_v4,
	.stopEvent = stop_event,
	.recordEventState = record_state,
	.finalize = finalize,
};

PROF_EXPORT const struct lagom_nccl_profiler_v5 ncclProfiler_v5 = {
	.name = PROF_NAME,
	.init = init_v5,
	.startEvent = start_v5,
	.stopEvent = stop_event,
	.recordEventState = record_state,
	.finalize = finalize,
};

PROF_EXPORT const struct lagom_nccl_profiler_v6 ncclProfiler_v6 = {
	.name = PROF_NAME,
	.init = init_v6,
	.startEvent = start_v6,
	.stopEvent = stop_event,
	.recordEventState = record_state,
	.finalize = finalize,
};
