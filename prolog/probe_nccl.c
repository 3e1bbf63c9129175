/*
 * prolog/probe_nccl.c - intra-node NCCL bus bandwidth over a grid of
 * channel counts and chunk sizes (the model's communication term, method
 * section 1), through the dlopen'd NCCL.  NCCL reads NCCL_BUFFSIZE once per
 * process, so each buffer size runs in its own forked process, before the
 * probing process touches CUDA.  Channels are pinned per communicator with
 * ncclConfig_t minCTAs = maxCTAs.  The ABI below is NCCL 2.28's
 * (its nccl.h, ncclConfig_t); older NCCLs read only the fields their
 * version knows.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prolog/probe_cuda_int.h"

#define NCCL_MAX_GPUS 16
#define NCCL_MSG_BYTES ((size_t)64 << 20)
#define NCCL_REPS 5
#define NCCL_FLOAT32 7
#define NCCL_SUM 0
#define GRID_MAX 32

typedef struct {
	char internal[128];
} nccl_uid;

/* ncclConfig_t as of NCCL 2.28 (80 bytes on x86-64). */
struct nccl_config {
	size_t size;
	unsigned magic;
	unsigned version;
	int blocking, cga_cluster_size, min_ctas, max_ctas;
	const char *net_name;
	int split_share, traffic_class;
	const char *comm_name;
	int collnet_enable, cta_policy, shrink_share, nvls_ctas;
	int nchannels_per_net_peer, nvlink_centric_sched;
};

struct nccl {
	void *handle;
	int (*GetVersion)(int *version);
	int (*GetUniqueId)(nccl_uid *id);
	int (*CommInitRankConfig)(void **comm, int nranks, nccl_uid id,
				  int rank, struct nccl_config *config);
	int (*CommDestroy)(void *comm);
	int (*GroupStart)(void);
	int (*GroupEnd)(void);
	int (*AllReduce)(const void *send, void *recv, size_t count, int type,
			 int op, void *comm, void *stream);
	int (*AllGather)(const void *send, void *recv, size_t count, int type,
			 void *comm, void *stream);
	int (*ReduceScatter)(const void *send, void *recv, size_t count,
			     int type, int op, void *comm, void *stream);
};

static int nccl_load(struct nccl *n, struct probe_result *res)
{
	static const char *const names[] = { "libnccl.so.2", "libnccl.so",
					     NULL };
	const struct probe_sym syms[] = {
		{ "ncclGetVersion", (void **)&n->GetVersion },
		{ "ncclGetUniqueId", (void **)&n->GetUniqueId },
		{ "ncclCommInitRankConfig", (void **)&n->CommInitRankConfig },
		{ "ncclCommDestroy", (void **)&n->CommDestroy },
		{ "ncclGroupStart", (void **)&n->GroupStart },
		{ "ncclGroupEnd", (void **)&n->GroupEnd },
		{ "ncclAllReduce", (void **)&n->AllReduce },
		{ "ncclAllGather", (void **)&n->AllGather },
		{ "ncclReduceScatter", (void **)&n->ReduceScatter },
		{ NULL, NULL },
	};

	n->handle = probe_dlopen(names, syms, res);
	return n->handle ? 0 : -ENOENT;
}

struct ranks {
	int n;
	void *comm[NCCL_MAX_GPUS];
	void *stream[NCCL_MAX_GPUS];
	void *send[NCCL_MAX_GPUS], *recv[NCCL_MAX_GPUS];
};

static int comms_init(const struct cudart *rt, const struct nccl *nc,
		      struct ranks *r, int channels, int version)
{
	struct nccl_config cfg = {
		.size = sizeof(cfg),
		.magic = 0xcafebeef,
		.version = (unsigned)(version < 22809 ? version : 22809),
		.blocking = 1,
		.cga_cluster_size = INT_MIN,
		.min_ctas = channels,
		.max_ctas = channels,
		.split_share = INT_MIN,
		.traffic_class = INT_MIN,
		.collnet_enable = INT_MIN,
		.cta_policy = INT_MIN,
		.shrink_share = INT_MIN,
		.nvls_ctas = INT_MIN,
		.nchannels_per_net_peer = INT_MIN,
		.nvlink_centric_sched = INT_MIN,
	};
	nccl_uid id;
	int bad = nc->GetUniqueId(&id) || nc->GroupStart();

	for (int d = 0; d < r->n && !bad; d++)
		bad = rt->SetDevice(d) ||
		      nc->CommInitRankConfig(&r->comm[d], r->n, id, d, &cfg);
	return nc->GroupEnd() || bad ? -1 : 0;
}

static int launch(const struct nccl *nc, const struct ranks *r,
		  enum lagom_coll coll)
{
	size_t count = NCCL_MSG_BYTES / 4 / (size_t)r->n;
	int bad = nc->GroupStart();

	for (int d = 0; d < r->n && !bad; d++) {
		if (coll == LAGOM_COLL_ALLREDUCE)
			bad = nc->AllReduce(r->send[d], r->recv[d],
					    count * r->n, NCCL_FLOAT32,
					    NCCL_SUM, r->comm[d], r->stream[d]);
		else if (coll == LAGOM_COLL_ALLGATHER)
			bad = nc->AllGather(r->send[d], r->recv[d], count,
					    NCCL_FLOAT32, r->comm[d],
					    r->stream[d]);
		else
			bad = nc->ReduceScatter(r->send[d], r->recv[d], count,
						NCCL_FLOAT32, NCCL_SUM,
						r->comm[d], r->stream[d]);
	}
	return nc->GroupEnd() || bad ? -1 : 0;
}

/* nccl-tests' bus bandwidth of one collective over NCCL_MSG_BYTES. */
static double busbw_of(const struct cudart *rt, const struct nccl *nc,
		       const struct ranks *r, enum lagom_coll coll)
{
	double t0, t, factor;

	if (launch(nc, r, coll) < 0)
		return -1;
	for (int d = 0; d < r->n; d++)
		if (rt->SetDevice(d) || rt->StreamSynchronize(r->stream[d]))
			return -1;
	t0 = prolog_now();
	for (int i = 0; i < NCCL_REPS; i++)
		if (launch(nc, r, coll) < 0)
			return -1;
	for (int d = 0; d < r->n; d++)
		if (rt->SetDevice(d) || rt->StreamSynchronize(r->stream[d]))
			return -1;
	t = (prolog_now() - t0) / NCCL_REPS;
	factor = (double)(r->n - 1) / r->n;
	if (coll == LAGOM_COLL_ALLREDUCE)
		factor *= 2;
	return t > 0 ? NCCL_MSG_BYTES / t * factor : -1;
}

struct grid {
	size_t n;
	struct lagom_busbw_point pts[GRID_MAX];
};

static void run_grid(const struct cudart *rt, const struct nccl *nc,
		     struct ranks *r, uint64_t chunk, int version,
		     double deadline, struct grid *out)
{
	static const int channels[] = { 2, 4, 8, 16, 32 };
	static const enum lagom_coll colls[] = { LAGOM_COLL_ALLREDUCE,
						 LAGOM_COLL_ALLGATHER,
						 LAGOM_COLL_REDUCESCATTER };

	for (size_t c = 0; c < 5 && prolog_now() < deadline; c++) {
		if (comms_init(rt, nc, r, channels[c], version) < 0)
			return;
		for (size_t k = 0; k < 3 && out->n < GRID_MAX; k++) {
			double bw = busbw_of(rt, nc, r, colls[k]);

			if (bw > 0)
				out->pts[out->n++] = (struct lagom_busbw_point){
					colls[k], channels[c], chunk,
					NCCL_MSG_BYTES, bw
				};
		}
		for (int d = 0; d < r->n; d++)
			nc->CommDestroy(r->comm[d]);
	}
}

/* In the forked process: one NCCL_BUFFSIZE, all channel counts. */
static void grid_process(int gpus_per_node, size_t buffsize, double deadline,
			 int fd)
{
	struct probe_result scratch = { 0 };
	struct cudart rt = { 0 };
	struct nccl nc = { 0 };
	struct ranks r = { .n = gpus_per_node };
	struct grid g = { 0 };
	char env[32];
	int version = 0, bad = 0;

	snprintf(env, sizeof(env), "%zu", buffsize);
	setenv("NCCL_BUFFSIZE", env, 1);
	if (cudart_load(&rt, &scratch) < 0 || nccl_load(&nc, &scratch) < 0)
		_exit(1);
	nc.GetVersion(&version);
	for (int d = 0; d < r.n && !bad; d++)
		bad = rt.SetDevice(d) ||
		      rt.StreamCreateWithFlags(&r.stream[d],
					       CUDA_STREAM_NON_BLOCKING) ||
		      rt.Malloc(&r.send[d], NCCL_MSG_BYTES) ||
		      rt.Malloc(&r.recv[d], NCCL_MSG_BYTES);
	/* Simple-protocol ring chunk = BUFFSIZE / 8 steps x 4 (doc/profile-format.md). */
	if (!bad)
		run_grid(&rt, &nc, &r, buffsize / 2, version, deadline, &g);
	_exit(write(fd, &g, sizeof(g)) == (ssize_t)sizeof(g) ? 0 : 1);
}

static void collect(struct probe_result *res, const struct grid *g)
{
	struct lagom_profile_measurements *m = &res->meas;

	for (size_t i = 0; i < g->n && i < GRID_MAX; i++) {
		if (m->n_busbw >= LAGOM_PROFILE_MAX_POINTS)
			return;
		m->busbw[m->n_busbw++] = g->pts[i];
		if (g->pts[i].busbw_Bps > m->intra_bw_Bps.value)
			m->intra_bw_Bps = (struct lagom_quantity){
				g->pts[i].busbw_Bps, LAGOM_SOURCE_MEASURED
			};
	}
}

/* Fork one grid process and take its points, killing it at the deadline. */
static void one_buffsize(struct probe_result *res, int gpus_per_node, size_t bs,
			 double deadline)
{
	struct grid g = { 0 };
	struct pollfd pfd;
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		grid_process(gpus_per_node, bs, deadline, fds[1]);
	}
	close(fds[1]);
	pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	if (pid > 0 &&
	    poll(&pfd, 1, (int)((deadline - prolog_now()) * 1000) + 1) == 1 &&
	    read(fds[0], &g, sizeof(g)) == (ssize_t)sizeof(g))
		collect(res, &g);
	else
		probe_note(res, "NCCL grid with NCCL_BUFFSIZE=%zu: no result",
			   bs);
	close(fds[0]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

int probe_nccl(struct probe_result *res, int gpus_per_node, double deadline,
	       bool verbose)
{
	static const size_t buffsizes[] = { 1 << 20, 4 << 20, 16 << 20 };
	struct nccl nc = { 0 };
	int v = 0;

	if (nccl_load(&nc, res) < 0)
		return -ENOENT;
	if (nc.GetVersion(&v) == 0 && v > 0)
		snprintf(res->nccl_version, sizeof(res->nccl_version),
			 "%d.%d.%d", v / 10000, v % 10000 / 100, v % 100);
	dlclose(nc.handle);
	if (gpus_per_node < 2) {
		probe_note(res, "NCCL grid needs 2 or more GPUs");
		return -ENODEV;
	}
	if (gpus_per_node > NCCL_MAX_GPUS)
		gpus_per_node = NCCL_MAX_GPUS;
	for (size_t i = 0; i < 3 && prolog_now() < deadline; i++)
		one_buffsize(res, gpus_per_node, buffsizes[i], deadline);
	if (res->meas.n_busbw > 0) {
		res->meas.busbw_source = LAGOM_SOURCE_MEASURED;
		res->meas.busbw_nranks = gpus_per_node;
	}
	if (verbose)
		fprintf(stderr, "lagom-prolog: NCCL grid: %zu points\n",
			res->meas.n_busbw);
	return 0;
}
