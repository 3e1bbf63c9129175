/*
 * common/nccl_abi.h - the NCCL types and numbers both of lagom's NCCL
 * plugins use: the tuner (tuner/nccl_tuner_abi.h) and the profiler
 * (profiler/nccl_profiler_abi.h) include it, and the measurement record
 * (measurement/record.h) numbers its operations, algorithms and protocols
 * as NCCL does.
 *
 * NCCL installs no plugin header, so a plugin declares what it uses itself
 * (NCCL's ext-tuner/README.md asks implementers to do so).  Every name
 * carries a lagom_ prefix so that this header can sit next to <nccl.h> in
 * one translation unit (tests/tuner/test_nccl_header.c compares values).
 * Values as in nccl.h and NCCL's src/include (tags v2.21..v2.30).
 */
#ifndef LAGOM_COMMON_NCCL_ABI_H
#define LAGOM_COMMON_NCCL_ABI_H

/* ncclResult_t (values as in nccl.h). */
typedef enum {
	LAGOM_NCCL_SUCCESS = 0,
	LAGOM_NCCL_UNHANDLED_CUDA_ERROR = 1,
	LAGOM_NCCL_SYSTEM_ERROR = 2,
	LAGOM_NCCL_INTERNAL_ERROR = 3,
	LAGOM_NCCL_INVALID_ARGUMENT = 4,
	LAGOM_NCCL_INVALID_USAGE = 5,
	LAGOM_NCCL_REMOTE_ERROR = 6,
	LAGOM_NCCL_IN_PROGRESS = 7,
} lagom_nccl_result_t;

/* ncclDebugLogLevel */
typedef enum {
	LAGOM_NCCL_LOG_NONE = 0,
	LAGOM_NCCL_LOG_VERSION = 1,
	LAGOM_NCCL_LOG_WARN = 2,
	LAGOM_NCCL_LOG_INFO = 3,
	LAGOM_NCCL_LOG_ABORT = 4,
	LAGOM_NCCL_LOG_TRACE = 5,
} lagom_nccl_log_level_t;

/* ncclDebugLogSubSys bits lagom uses. */
#define LAGOM_NCCL_SUBSYS_INIT 0x1UL
#define LAGOM_NCCL_SUBSYS_TUNING 0x40UL

/* ncclDebugLogger_t */
typedef void (*lagom_nccl_logger_t)(lagom_nccl_log_level_t level,
				    unsigned long flags, const char *file,
				    int line, const char *fmt, ...);

/*
 * ncclFunc_t: lagom's one numbering of NCCL's operations (8..10 exist from
 * 2.28; only 0..4 reach a tuner).  LAGOM_PLAN's op numbers and the
 * measurement record's operations are these; the cost model's own
 * enum lagom_coll (model/model.h) is the plan's seven classes, mapped here
 * by lagom_coll_nccl_func() and named through common/nccl_names.h.
 */
typedef enum {
	LAGOM_NCCL_FUNC_BROADCAST = 0,
	LAGOM_NCCL_FUNC_REDUCE = 1,
	LAGOM_NCCL_FUNC_ALLGATHER = 2,
	LAGOM_NCCL_FUNC_REDUCESCATTER = 3,
	LAGOM_NCCL_FUNC_ALLREDUCE = 4,
	LAGOM_NCCL_FUNC_SENDRECV = 5,
	LAGOM_NCCL_FUNC_SEND = 6,
	LAGOM_NCCL_FUNC_RECV = 7,
	LAGOM_NCCL_FUNC_ALLTOALL = 8,
	LAGOM_NCCL_FUNC_SCATTER = 9,
	LAGOM_NCCL_FUNC_GATHER = 10,
	LAGOM_NCCL_NUM_FUNCS = 11
} lagom_nccl_func_t;

/* Algorithm and protocol indices (of the tuner's cost table). */
#define LAGOM_NCCL_ALGO_UNDEF (-1)
#define LAGOM_NCCL_ALGO_TREE 0
#define LAGOM_NCCL_ALGO_RING 1
#define LAGOM_NCCL_ALGO_COLLNET_DIRECT 2
#define LAGOM_NCCL_ALGO_COLLNET_CHAIN 3
#define LAGOM_NCCL_ALGO_NVLS 4
#define LAGOM_NCCL_ALGO_NVLS_TREE 5
#define LAGOM_NCCL_ALGO_PAT 6
#define LAGOM_NCCL_NUM_ALGOS 7

#define LAGOM_NCCL_PROTO_UNDEF (-1)
#define LAGOM_NCCL_PROTO_LL 0
#define LAGOM_NCCL_PROTO_LL128 1
#define LAGOM_NCCL_PROTO_SIMPLE 2
#define LAGOM_NCCL_NUM_PROTOS 3

#endif /* LAGOM_COMMON_NCCL_ABI_H */
