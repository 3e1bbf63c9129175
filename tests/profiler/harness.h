/*
 * tests/profiler/harness.h - drives libnccl-profiler-lagom.so the way NCCL
 * calls a profiler plugin, read from NCCL's source (src/plugin/profiler.cc
 * and the v4 adapter src/plugin/profiler/profiler_v4.cc at v2.27.7-1,
 * v2.28.9-1 and v2.29.7-1):
 *
 *   version 4 = NCCL 2.27: init(ctx*, mask*, name, hash, ...); per launched
 *     plan a Group event, and Coll/P2p events only when the Group handle is
 *     non-NULL (parentObj = Group handle); Coll stopped at enqueue
 *   version 5 = NCCL 2.28, 6 = NCCL 2.29: init(ctx*, commId, mask*, ...);
 *     GroupApi (depth of the outermost group) and CollApi/P2pApi events
 *     whenever any of several mask bits is set, GroupApi state records with
 *     NULL args, then per plan Group, Coll (parentObj = CollApi handle,
 *     coll.parentGroup = Group handle), stops at enqueue
 *   all: the proxy thread later delivers per channel KernelCh start
 *     (parentObj = the Coll handle, pTimer = GPU start),
 *     recordEventState(KernelChStop, pTimer = GPU stop), stopEvent; the
 *     network transport calls stopEvent(NULL); NCCL calls stop/record only
 *     on non-NULL handles, except that one.
 * The activation mask is one int shared by every communicator, as in NCCL.
 * No CMocka here: the benchmark uses it too.
 */
#ifndef LAGOM_TESTS_PROFILER_HARNESS_H
#define LAGOM_TESTS_PROFILER_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "profiler/nccl_profiler_abi.h"

#define HP_MAX_CH 64
#define HP_MAX_GROUP 16

extern int hp_mask;	       /* NCCL's ncclProfilerEventMask */
extern unsigned long hp_calls; /* entry points called (benchmark) */

struct hp_comm {
	int version;
	void *ctx;
};

/* One collective or p2p call as NCCL describes it. */
struct hp_coll {
	const char *func, *datatype, *algo, *proto; /* NCCL's own strings */
	size_t count;
	int nchannels;
	int p2p, peer;
	/* GPU globaltimer ns: channel c runs [start + c*skew, start + c*skew
	 * + ns]; no KernelCh events when ns == 0 */
	uint64_t gpu_start, gpu_ns, skew_ns;
	void *handle; /* the Coll/P2p handle the plugin returned */
};

/* dlopen the built module (top_builddir/.libs); NULL with a message. */
void *hp_module(void);
const void *hp_symbol(int version);

/* The logger handed to init: appends one line per call to $HP_LOG. */
void hp_logger(lagom_nccl_log_level_t level, unsigned long flags,
	       const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

int hp_init(struct hp_comm *c, int version, uint64_t comm_id, const char *name,
	    int n_nodes, int n_ranks, int rank);
int hp_finalize(struct hp_comm *c);

/*
 * One ncclGroupStart/End holding n calls (n == 1: an ungrouped call), as
 * the host thread does it, then the kernel-channel events as the proxy
 * thread delivers them.  Returns the first non-zero result of the module.
 */
int hp_group(struct hp_comm *c, struct hp_coll *calls, int n);
int hp_host_part(struct hp_comm *c, struct hp_coll *calls, int n);
int hp_proxy_part(struct hp_comm *c, struct hp_coll *calls, int n);

/* Proxy-op, proxy-step, proxy-control and network events for one call,
 * as NCCL sends them when those bits are on; returns how many non-NULL
 * handles the module gave back. */
int hp_proxy_noise(struct hp_comm *c, struct hp_coll *call);

/* The raw entry points of the version in c. */
int hp_start(struct hp_comm *c, void **h, uint64_t type, void *parent,
	     const struct hp_coll *call, uint64_t ptimer);
int hp_stop(struct hp_comm *c, void *h);
int hp_record(struct hp_comm *c, void *h, int state,
	      union lagom_prof_state_args *args);

#endif /* LAGOM_TESTS_PROFILER_HARNESS_H */
