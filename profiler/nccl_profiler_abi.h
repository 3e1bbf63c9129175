/*
 * profiler/nccl_profiler_abi.h - NCCL's profiler-plugin ABI v4, v5 and v6,
 * declared by lagom.
 *
 * NCCL installs no profiler header; a plugin declares the structures itself
 * (as lagom's tuner does, tuner/nccl_tuner_abi.h; the result and logger
 * types both use are common/nccl_abi.h's).  Layouts were read from NVIDIA/nccl at the
 * release tags (src/include/plugin/profiler/profiler_v{4,5,6}.h,
 * src/include/plugin/nccl_profiler.h) and written anew here:
 *
 *   v4  NCCL 2.27  init(ctx*, mask*, commName, commHash, nNodes, nRanks,
 *                  rank, log); descriptor type is a uint8_t
 *   v5  NCCL 2.28  init(ctx*, commId, mask*, commName, nNodes, nRanks,
 *                  rank, log); descriptor type is a uint64_t; API events
 *                  (GroupApi, CollApi, P2pApi, KernelLaunch); a Coll's
 *                  parentObj is its CollApi handle, coll.parentGroup its
 *                  Group handle
 *   v6  NCCL 2.29  v5's functions; the descriptor union gains copy-engine
 *                  collective events (ceColl, ceCollSync, ceCollBatch)
 *
 * The first three members (type, parentObj, rank) and every v5 union member
 * have the same offsets in v5 and v6: a v6 descriptor can be read through
 * the v5 view for every event v5 knows.  tests/profiler/test_profiler_abi.c
 * checks the offsets lagom relies on.
 *
 * Kernel-channel timestamps: kernelCh.pTimer at startEvent and
 * stateArgs.kernelCh.pTimer at recordEventState(KernelChStop) are the GPU's
 * globaltimer in nanoseconds, polled by NCCL's proxy thread.
 */
#ifndef LAGOM_PROFILER_NCCL_PROFILER_ABI_H
#define LAGOM_PROFILER_NCCL_PROFILER_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/nccl_abi.h" /* lagom_nccl_result_t, logger */

/* Event types (the activation-mask bits). */
#define LAGOM_PROF_GROUP (1u << 0)
#define LAGOM_PROF_COLL (1u << 1)
#define LAGOM_PROF_P2P (1u << 2)
#define LAGOM_PROF_PROXY_OP (1u << 3)
#define LAGOM_PROF_PROXY_STEP (1u << 4)
#define LAGOM_PROF_PROXY_CTRL (1u << 5)
#define LAGOM_PROF_KERNEL_CH (1u << 6)
#define LAGOM_PROF_NET_PLUGIN (1u << 7)
#define LAGOM_PROF_GROUP_API (1u << 8)	    /* v5+ */
#define LAGOM_PROF_COLL_API (1u << 9)	    /* v5+ */
#define LAGOM_PROF_P2P_API (1u << 10)	    /* v5+ */
#define LAGOM_PROF_KERNEL_LAUNCH (1u << 11) /* v5+ */
#define LAGOM_PROF_CE_COLL (1u << 12)	    /* v6 */
#define LAGOM_PROF_CE_SYNC (1u << 13)	    /* v6 */
#define LAGOM_PROF_CE_BATCH (1u << 14)	    /* v6 */

/* ncclProfilerEventState_t values lagom names (one enum for v4..v6). */
typedef enum {
	LAGOM_PROF_STATE_PROXY_OP_IN_PROGRESS = 19,
	LAGOM_PROF_STATE_PROXY_STEP_SEND_GPU_WAIT = 8,
	LAGOM_PROF_STATE_PROXY_STEP_SEND_WAIT = 9,
	LAGOM_PROF_STATE_PROXY_STEP_RECV_WAIT = 10,
	LAGOM_PROF_STATE_PROXY_CTRL_IDLE = 13,
	LAGOM_PROF_STATE_PROXY_CTRL_APPEND_END = 18,
	LAGOM_PROF_STATE_NET_PLUGIN_UPDATE = 21,
	LAGOM_PROF_STATE_KERNEL_CH_STOP = 22,
	LAGOM_PROF_STATE_GROUP_START_API_STOP = 23,
	LAGOM_PROF_STATE_GROUP_END_API_START = 24,
	LAGOM_PROF_STATE_CE_COLL_START = 25, /* v6 */
	LAGOM_PROF_STATE_CE_COLL_COMPLETE = 26,
} lagom_prof_state_t;

/* Union members shared by v4, v5 and v6. */
struct lagom_prof_proxy_op {
	pid_t pid;
	uint8_t channelId;
	int peer;
	int nSteps;
	int chunkSize;
	int isSend;
};

struct lagom_prof_kernel_ch {
	uint8_t channelId;
	uint64_t pTimer; /* GPU globaltimer at the channel's start, ns */
};

struct lagom_prof_net_plugin {
	int64_t id;
	void *data;
};

/* ncclProfilerEventDescr_v4_t */
struct lagom_prof_descr_v4 {
	uint8_t type;
	void *parentObj;
	int rank;
	union {
		struct {
			uint64_t seqNumber;
			const char *func;
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			const char *datatype;
			uint8_t nChannels;
			uint8_t nWarps;
			const char *algo;
			const char *proto;
		} coll;
		struct {
			const char *func;
			void *buff;
			const char *datatype;
			size_t count;
			int peer;
			uint8_t nChannels;
		} p2p;
		struct lagom_prof_proxy_op proxyOp;
		struct {
			int step;
		} proxyStep;
		struct lagom_prof_kernel_ch kernelCh;
		struct lagom_prof_net_plugin netPlugin;
	};
};

/* The v5 union members; v6 repeats them at the same offsets. */
#define LAGOM_PROF_V5_MEMBERS                 \
	struct {                              \
		bool graphCaptured;           \
		int groupDepth;               \
	} groupApi;                           \
	struct {                              \
		const char *func;             \
		size_t count;                 \
		const char *datatype;         \
		int root;                     \
		void *stream;                 \
		bool graphCaptured;           \
	} collApi;                            \
	struct {                              \
		const char *func;             \
		size_t count;                 \
		const char *datatype;         \
		void *stream;                 \
		bool graphCaptured;           \
	} p2pApi;                             \
	struct {                              \
		void *stream;                 \
	} kernelLaunch;                       \
	struct {                              \
		uint64_t seqNumber;           \
		const char *func;             \
		const void *sendBuff;         \
		void *recvBuff;               \
		size_t count;                 \
		int root;                     \
		const char *datatype;         \
		uint8_t nChannels;            \
		uint8_t nWarps;               \
		const char *algo;             \
		const char *proto;            \
		void *parentGroup;            \
	} coll;                               \
	struct {                              \
		const char *func;             \
		void *buff;                   \
		const char *datatype;         \
		size_t count;                 \
		int peer;                     \
		uint8_t nChannels;            \
		void *parentGroup;            \
	} p2p;                                \
	struct lagom_prof_proxy_op proxyOp;   \
	struct {                              \
		int step;                     \
	} proxyStep;                          \
	struct lagom_prof_kernel_ch kernelCh; \
	struct lagom_prof_net_plugin netPlugin

/* ncclProfilerEventDescr_v5_t */
struct lagom_prof_descr_v5 {
	uint64_t type;
	void *parentObj;
	int rank;
	union {
		LAGOM_PROF_V5_MEMBERS;
	};
};

/* ncclProfilerEventDescr_v6_t: v5 plus the copy-engine events. */
struct lagom_prof_descr_v6 {
	uint64_t type;
	void *parentObj;
	int rank;
	union {
		LAGOM_PROF_V5_MEMBERS;
		struct {
			uint64_t seqNumber;
			const char *func;
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			const char *datatype;
			const char *syncStrategy;
			bool intraBatchSync;
			uint32_t batchSize;
			uint32_t numBatches;
			uint32_t ceSeqNum;
			void *stream;
		} ceColl;
		struct {
			bool isComplete;
			int nRanks;
		} ceCollSync;
		struct {
			int numOps;
			size_t totalBytes;
			bool useIntraSync;
		} ceCollBatch;
	};
};

/* ncclProfilerEventStateArgs_v4_t .. v6 (one layout). */
union lagom_prof_state_args {
	struct {
		size_t transSize;
	} proxyStep;
	struct {
		int appendedProxyOps;
	} proxyCtrl;
	struct {
		void *data;
	} netPlugin;
	struct {
		uint64_t pTimer; /* GPU globaltimer at the channel's end, ns */
	} kernelCh;
};

typedef lagom_nccl_result_t (*lagom_prof_stop_fn)(void *eHandle);
typedef lagom_nccl_result_t (*lagom_prof_record_fn)(
	void *eHandle, lagom_prof_state_t eState,
	union lagom_prof_state_args *eStateArgs);
typedef lagom_nccl_result_t (*lagom_prof_finalize_fn)(void *context);

/* ncclProfiler_v4_t */
struct lagom_nccl_profiler_v4 {
	const char *name;
	lagom_nccl_result_t (*init)(void **context, int *eActivationMask,
				    const char *commName, uint64_t commHash,
				    int nNodes, int nranks, int rank,
				    lagom_nccl_logger_t logfn);
	lagom_nccl_result_t (*startEvent)(void *context, void **eHandle,
					  struct lagom_prof_descr_v4 *eDescr);
	lagom_prof_stop_fn stopEvent;
	lagom_prof_record_fn recordEventState;
	lagom_prof_finalize_fn finalize;
};

/* init of v5 and v6. */
typedef lagom_nccl_result_t (*lagom_prof_init_v5_fn)(
	void **context, uint64_t commId, int *eActivationMask,
	const char *commName, int nNodes, int nranks, int rank,
	lagom_nccl_logger_t logfn);

/* ncclProfiler_v5_t */
struct lagom_nccl_profiler_v5 {
	const char *name;
	lagom_prof_init_v5_fn init;
	lagom_nccl_result_t (*startEvent)(void *context, void **eHandle,
					  struct lagom_prof_descr_v5 *eDescr);
	lagom_prof_stop_fn stopEvent;
	lagom_prof_record_fn recordEventState;
	lagom_prof_finalize_fn finalize;
};

/* ncclProfiler_v6_t */
struct lagom_nccl_profiler_v6 {
	const char *name;
	lagom_prof_init_v5_fn init;
	lagom_nccl_result_t (*startEvent)(void *context, void **eHandle,
					  struct lagom_prof_descr_v6 *eDescr);
	lagom_prof_stop_fn stopEvent;
	lagom_prof_record_fn recordEventState;
	lagom_prof_finalize_fn finalize;
};

#endif /* LAGOM_PROFILER_NCCL_PROFILER_ABI_H */
