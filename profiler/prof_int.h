/*
 * profiler/prof_int.h - state of libnccl-profiler-lagom.so, shared by its
 * files (prof_abi.c: NCCL's entry points; prof_event.c: the hot path;
 * prof_flush.c: the record written during the run).
 *
 * Memory: everything lives in one static struct (pf) sized at build time:
 * PF_MAX_CTX communicator contexts, each with a ring of PF_SLOTS collectives
 * in flight, LAGOM_REC_MAX_CLASSES classes and a PF_RING-long history of
 * classes for the iteration.  Nothing is allocated after load.
 *
 * Handles given to NCCL are not pointers: NCCL only stores them, tests them
 * against NULL and hands them back, so they encode (generation, context,
 * slot, kind).  A stale or foreign handle fails the generation check and is
 * ignored; nothing NCCL hands back is ever dereferenced except descriptors.
 *
 * Threads: a communicator's Coll/P2p events come from the host thread that
 * enqueues on it, its KernelCh events from its proxy thread, the flush from
 * lagom's own thread.  Counters are atomics; classes are appended under a
 * per-context spin lock and published with a release store.
 */
#ifndef LAGOM_PROFILER_PROF_INT_H
#define LAGOM_PROFILER_PROF_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "profiler/nccl_profiler_abi.h"
#include "measurement/record.h"

#define PF_MAX_CTX 32
#define PF_SLOTS 4096 /* power of two: collectives in flight per context */
#define PF_HASH 256   /* power of two, > 1.5 x LAGOM_REC_MAX_CLASSES */
#define PF_RING 512   /* power of two: recent classes, >= 2 periods */
#define PF_NO_CLASS 0xffffu

#define PF_KIND_GROUP 1u
#define PF_KIND_COLL 2u
#define PF_KIND_KCH 3u

/* The activation mask lagom asks for. */
#define PF_MASK (LAGOM_PROF_COLL | LAGOM_PROF_P2P | LAGOM_PROF_KERNEL_CH)

struct pf_slot {
	uint32_t gen; /* atomic; the handle's generation */
	uint16_t cls;
	uint8_t expect; /* kernel channels expected (NCCL's nChannels) */
	uint8_t done;	/* atomic: GPU time accounted (or given up) */
	uint32_t started, stopped;    /* atomic */
	uint64_t start_min, stop_max; /* atomic, GPU globaltimer ns */
};

struct pf_class {
	uint64_t bytes; /* key: written before publication */
	uint8_t op, algo, proto, channels;
	uint64_t count, gpu_n, gpu_ns, gpu_min, gpu_max, gap_n, gap_ns;
};

struct pf_seq {
	uint64_t pos; /* atomic: position + 1 once written */
	uint64_t t_ns;
	uint16_t cls;
};

enum {
	PF_FREE = 0,
	PF_LIVE = 1,
	PF_CLOSED = 2
};

struct pf_ctx {
	int state;	/* PF_*, changed under pf.lock */
	uint64_t order; /* opening order, to reuse the oldest closed */
	uint64_t comm_id;
	char name[LAGOM_REC_NAME_MAX + 1];
	uint32_t ranks, nodes, rank;
	uint32_t next_slot;	/* atomic */
	uint32_t n_cls;		/* atomic, published */
	int cls_lock;		/* spin lock for appends */
	uint16_t hash[PF_HASH]; /* atomic: class index + 1, 0 empty */
	struct pf_class cls[LAGOM_REC_MAX_CLASSES];
	uint64_t overflow, incomplete; /* atomic */
	uint64_t last_stop;	       /* atomic: end of the last timed one */
	uint64_t seq_n;		       /* atomic: classes pushed */
	struct pf_seq ring[PF_RING];
	struct pf_slot slot[PF_SLOTS];
};

struct pf_state {
	pthread_mutex_t lock; /* init, finalize, flush */
	pthread_cond_t wake;
	int decided, enabled;
	unsigned abi;
	unsigned flush_s;
	int dir_fd1; /* LAGOM_MEASURE_DIR's fd + 1, 0: none (keeps pf in .bss) */
	char file[96];
	char job[LAGOM_REC_TOKEN_MAX + 1], step[LAGOM_REC_TOKEN_MAX + 1];
	char plan[LAGOM_REC_TOKEN_MAX + 1];
	int64_t task;
	pid_t pid; /* the process that decided: a forked child never writes */
	uint64_t start_unix, opened;
	int live;
	int thread_running, stop;
	pthread_t thread;
	uint64_t dropped_comms;
	uint64_t flushes, flush_failures;
	struct pf_ctx ctx[PF_MAX_CTX];
	struct lagom_rec snap;
	char text[LAGOM_REC_MAX_BYTES];
};

extern struct pf_state pf;

/* prof_event.c: the ABI-independent entry points. */
struct pf_coll {
	const char *func, *datatype, *algo, *proto;
	uint64_t count;
	unsigned channels;
	int p2p;
};
int pf_init(void **context, uint64_t comm_id, int *mask, const char *comm_name,
	    int n_nodes, int n_ranks, int rank, lagom_nccl_logger_t log,
	    unsigned abi);
void *pf_start_coll(void *context, const struct pf_coll *c);
void *pf_start_kernel_ch(void *parent, uint64_t start_ns);
void pf_record(void *handle, int state,
	       const union lagom_prof_state_args *args);
void pf_finalize(void *context);

/* Element size of NCCL's datatype name; 0 when unknown. */
unsigned pf_type_size(const char *datatype);
unsigned pf_op_of(const char *func);
unsigned pf_algo_of(const char *algo);
unsigned pf_proto_of(const char *proto);

/* prof_flush.c */
/* Decide once per process whether to record, and where (pf.lock held). */
int pf_decide(lagom_nccl_logger_t log, unsigned abi);
/* Snapshot every context and write the record atomically (pf.lock held). */
int pf_flush_locked(void);
int pf_thread_start(void); /* pf.lock held */
void pf_thread_stop(void); /* pf.lock held; drops and retakes it */
/* The iteration of ctx from its recent classes (pure, for the tests). */
void pf_find_period(const uint16_t *cls, const uint64_t *t_ns, unsigned n,
		    struct lagom_rec_comm *out);

#endif /* LAGOM_PROFILER_PROF_INT_H */
