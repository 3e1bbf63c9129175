/*
 * tests/profiler/harness.c - see harness.h.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/profiler/harness.h"

int hp_mask;
unsigned long hp_calls;

void *hp_module(void)
{
	static void *handle; /* one load per process, as NCCL does */
	const char *dir = getenv("top_builddir");
	char path[4096];

	const char *nccl = getenv("NCCL_PROFILER_PLUGIN");

	if (handle)
		return handle;
	/* inside a job step: the path lagom's SPANK plugin set, as NCCL
	 * would dlopen it */
	if (nccl && nccl[0] == '/')
		snprintf(path, sizeof(path), "%s", nccl);
	else
		snprintf(path, sizeof(path),
			 "%s/.libs/libnccl-profiler-lagom.so", dir ? dir : ".");
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
	return handle;
}

const void *hp_symbol(int version)
{
	static const void *cache[8]; /* dlsym once, as NCCL does */
	char name[32];
	void *m;

	if (version < 0 || version > 7)
		return NULL;
	if (cache[version])
		return cache[version];
	m = hp_module();
	snprintf(name, sizeof(name), "ncclProfiler_v%d", version);
	cache[version] = m ? dlsym(m, name) : NULL;
	return cache[version];
}

void hp_logger(lagom_nccl_log_level_t level, unsigned long flags,
	       const char *file, int line, const char *fmt, ...)
{
	const char *path = getenv("HP_LOG");
	va_list ap;
	FILE *f;

	if (!path || !(f = fopen(path, "a")))
		return;
	fprintf(f, "%d %lu ", (int)level, flags);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

int hp_init(struct hp_comm *c, int version, uint64_t comm_id, const char *name,
	    int n_nodes, int n_ranks, int rank)
{
	const void *sym = hp_symbol(version);

	c->version = version;
	c->ctx = (void *)0x1; /* NCCL's slot: init must set it */
	if (!sym)
		return -1;
	if (version == 4)
		return ((const struct lagom_nccl_profiler_v4 *)sym)
			->init(&c->ctx, &hp_mask, name, comm_id, n_nodes,
			       n_ranks, rank, hp_logger);
	return ((const struct lagom_nccl_profiler_v5 *)sym)
		->init(&c->ctx, comm_id, &hp_mask, name, n_nodes, n_ranks, rank,
		       hp_logger);
}

/* NCCL 2.27 always finalizes; 2.28 and 2.29 only a context that was set. */
int hp_finalize(struct hp_comm *c)
{
	const struct lagom_nccl_profiler_v5 *p = hp_symbol(c->version);

	if (c->version > 4 && !c->ctx)
		return 0;
	return p->finalize(c->ctx);
}

static void fill_v4(struct lagom_prof_descr_v4 *d, uint64_t type, void *parent,
		    const struct hp_coll *k, uint64_t ptimer)
{
	memset(d, 0, sizeof(*d));
	d->type = (uint8_t)type;
	d->parentObj = parent;
	if (type == LAGOM_PROF_COLL && k) {
		d->coll.func = k->func;
		d->coll.count = k->count;
		d->coll.datatype = k->datatype;
		d->coll.nChannels = (uint8_t)k->nchannels;
		d->coll.nWarps = 16;
		d->coll.algo = k->algo;
		d->coll.proto = k->proto;
	} else if (type == LAGOM_PROF_P2P && k) {
		d->p2p.func = k->func;
		d->p2p.datatype = k->datatype;
		d->p2p.count = k->count;
		d->p2p.peer = k->peer;
		d->p2p.nChannels = (uint8_t)k->nchannels;
	} else if (type == LAGOM_PROF_KERNEL_CH) {
		d->kernelCh.pTimer = ptimer;
	}
}

/* v5 and v6 fill the same members; parent_group is coll.parentGroup. */
#define FILL_V5(d, type, parent, k, ptimer, group)                    \
	do {                                                          \
		memset(&(d), 0, sizeof(d));                           \
		(d).type = (type);                                    \
		(d).parentObj = (parent);                             \
		if ((type) == LAGOM_PROF_COLL && (k)) {               \
			(d).coll.func = (k)->func;                    \
			(d).coll.count = (k)->count;                  \
			(d).coll.datatype = (k)->datatype;            \
			(d).coll.nChannels = (uint8_t)(k)->nchannels; \
			(d).coll.nWarps = 16;                         \
			(d).coll.algo = (k)->algo;                    \
			(d).coll.proto = (k)->proto;                  \
			(d).coll.parentGroup = (group);               \
		} else if ((type) == LAGOM_PROF_P2P && (k)) {         \
			(d).p2p.func = (k)->func;                     \
			(d).p2p.datatype = (k)->datatype;             \
			(d).p2p.count = (k)->count;                   \
			(d).p2p.peer = (k)->peer;                     \
			(d).p2p.nChannels = (uint8_t)(k)->nchannels;  \
			(d).p2p.parentGroup = (group);                \
		} else if ((type) == LAGOM_PROF_COLL_API && (k)) {    \
			(d).collApi.func = (k)->func;                 \
			(d).collApi.count = (k)->count;               \
			(d).collApi.datatype = (k)->datatype;         \
		} else if ((type) == LAGOM_PROF_GROUP_API) {          \
			(d).groupApi.groupDepth = 1;                  \
		} else if ((type) == LAGOM_PROF_KERNEL_CH) {          \
			(d).kernelCh.pTimer = (ptimer);               \
		}                                                     \
	} while (0)

static void *current_group; /* coll.parentGroup for the next start */

int hp_start(struct hp_comm *c, void **h, uint64_t type, void *parent,
	     const struct hp_coll *k, uint64_t ptimer)
{
	const void *sym = hp_symbol(c->version);

	hp_calls++;
	*h = NULL;
	if (c->version == 4) {
		struct lagom_prof_descr_v4 d;

		fill_v4(&d, type, parent, k, ptimer);
		return ((const struct lagom_nccl_profiler_v4 *)sym)
			->startEvent(c->ctx, h, &d);
	}
	if (c->version == 5) {
		struct lagom_prof_descr_v5 d;

		FILL_V5(d, type, parent, k, ptimer, current_group);
		return ((const struct lagom_nccl_profiler_v5 *)sym)
			->startEvent(c->ctx, h, &d);
	} else {
		struct lagom_prof_descr_v6 d;

		FILL_V5(d, type, parent, k, ptimer, current_group);
		return ((const struct lagom_nccl_profiler_v6 *)sym)
			->startEvent(c->ctx, h, &d);
	}
}

int hp_stop(struct hp_comm *c, void *h)
{
	const struct lagom_nccl_profiler_v5 *p = hp_symbol(c->version);

	hp_calls++;
	return p->stopEvent(h);
}

int hp_record(struct hp_comm *c, void *h, int state,
	      union lagom_prof_state_args *args)
{
	const struct lagom_nccl_profiler_v5 *p = hp_symbol(c->version);

	hp_calls++;
	return p->recordEventState(h, (lagom_prof_state_t)state, args);
}

#define RC(x)                           \
	do {                            \
		int r_ = (x);           \
		if (r_ != 0 && rc == 0) \
			rc = r_;        \
	} while (0)

#define GROUP_API_MASK                                                     \
	(LAGOM_PROF_GROUP_API | LAGOM_PROF_P2P_API | LAGOM_PROF_COLL_API | \
	 LAGOM_PROF_KERNEL_LAUNCH | LAGOM_PROF_GROUP | LAGOM_PROF_COLL |   \
	 LAGOM_PROF_P2P | LAGOM_PROF_PROXY_OP | LAGOM_PROF_PROXY_STEP |    \
	 LAGOM_PROF_KERNEL_CH | LAGOM_PROF_NET_PLUGIN)
#define TASK_MASK                                                             \
	(LAGOM_PROF_PROXY_OP | LAGOM_PROF_PROXY_STEP | LAGOM_PROF_KERNEL_CH | \
	 LAGOM_PROF_NET_PLUGIN)
#define PLAN_MASK \
	(LAGOM_PROF_GROUP | LAGOM_PROF_COLL | LAGOM_PROF_P2P | TASK_MASK)

static unsigned task_bit(const struct hp_coll *k)
{
	return k->p2p ? LAGOM_PROF_P2P : LAGOM_PROF_COLL;
}

/* NCCL 2.28/2.29: API events while the user calls, then the plan. */
static int host_v5(struct hp_comm *c, struct hp_coll *k, int n)
{
	void *gapi = NULL, *api[HP_MAX_GROUP] = { 0 }, *grp = NULL;
	unsigned m = (unsigned)hp_mask;
	int i, rc = 0;

	if (m & GROUP_API_MASK)
		RC(hp_start(c, &gapi, LAGOM_PROF_GROUP_API, NULL, NULL, 0));
	for (i = 0; i < n; i++) {
		unsigned bit = k[i].p2p ? LAGOM_PROF_P2P_API
					: LAGOM_PROF_COLL_API;

		if (m & (bit | task_bit(&k[i]) | TASK_MASK))
			RC(hp_start(c, &api[i], bit, gapi, &k[i], 0));
		if (api[i])
			RC(hp_stop(c, api[i])); /* stopped before the Coll */
	}
	if (gapi) {
		RC(hp_record(c, gapi, LAGOM_PROF_STATE_GROUP_START_API_STOP,
			     NULL));
		RC(hp_record(c, gapi, LAGOM_PROF_STATE_GROUP_END_API_START,
			     NULL));
	}
	if (m & PLAN_MASK)
		RC(hp_start(c, &grp, LAGOM_PROF_GROUP, NULL, NULL, 0));
	current_group = grp;
	for (i = 0; i < n; i++)
		if (m & (task_bit(&k[i]) | TASK_MASK))
			RC(hp_start(c, &k[i].handle, task_bit(&k[i]), api[i],
				    &k[i], 0));
	current_group = NULL;
	for (i = 0; i < n; i++)
		if (k[i].handle)
			RC(hp_stop(c, k[i].handle));
	if (grp)
		RC(hp_stop(c, grp));
	if (gapi)
		RC(hp_stop(c, gapi));
	return rc;
}

/* NCCL 2.27: the plan's Group, and tasks only under a non-NULL Group. */
static int host_v4(struct hp_comm *c, struct hp_coll *k, int n)
{
	unsigned m = (unsigned)hp_mask;
	void *grp = NULL;
	int i, rc = 0;

	if (m & PLAN_MASK)
		RC(hp_start(c, &grp, LAGOM_PROF_GROUP, NULL, NULL, 0));
	for (i = 0; i < n; i++)
		if (grp && (m & (task_bit(&k[i]) | TASK_MASK)))
			RC(hp_start(c, &k[i].handle, task_bit(&k[i]), grp,
				    &k[i], 0));
	for (i = 0; i < n; i++)
		if (k[i].handle)
			RC(hp_stop(c, k[i].handle));
	if (grp)
		RC(hp_stop(c, grp));
	return rc;
}

int hp_host_part(struct hp_comm *c, struct hp_coll *calls, int n)
{
	int i;

	if (n > HP_MAX_GROUP)
		return -1;
	for (i = 0; i < n; i++)
		calls[i].handle = NULL;
	return c->version == 4 ? host_v4(c, calls, n) : host_v5(c, calls, n);
}

int hp_proxy_part(struct hp_comm *c, struct hp_coll *k, int n)
{
	union lagom_prof_state_args a;
	int i, ch, rc = 0;
	void *kh;

	for (i = 0; i < n; i++) {
		if (!k[i].handle || !k[i].gpu_ns ||
		    !(hp_mask & LAGOM_PROF_KERNEL_CH))
			continue;
		for (ch = 0; ch < k[i].nchannels && ch < HP_MAX_CH; ch++) {
			uint64_t t0 = k[i].gpu_start +
				      (uint64_t)ch * k[i].skew_ns;

			RC(hp_start(c, &kh, LAGOM_PROF_KERNEL_CH, k[i].handle,
				    &k[i], t0));
			if (!kh)
				continue;
			memset(&a, 0, sizeof(a));
			a.kernelCh.pTimer = t0 + k[i].gpu_ns;
			RC(hp_record(c, kh, LAGOM_PROF_STATE_KERNEL_CH_STOP,
				     &a));
			RC(hp_stop(c, kh));
		}
	}
	/* net transport callback: stopEvent on a handle never started */
	RC(hp_stop(c, NULL));
	return rc;
}

int hp_group(struct hp_comm *c, struct hp_coll *calls, int n)
{
	int rc = hp_host_part(c, calls, n);
	int rc2 = hp_proxy_part(c, calls, n);

	return rc ? rc : rc2;
}

int hp_proxy_noise(struct hp_comm *c, struct hp_coll *k)
{
	union lagom_prof_state_args a;
	void *op = NULL, *step = NULL, *ctrl = NULL, *net = NULL;
	int got = 0;

	memset(&a, 0, sizeof(a));
	hp_start(c, &op, LAGOM_PROF_PROXY_OP, k->handle, k, 0);
	hp_start(c, &step, LAGOM_PROF_PROXY_STEP, op, k, 0);
	hp_start(c, &ctrl, LAGOM_PROF_PROXY_CTRL, NULL, NULL, 0);
	hp_start(c, &net, LAGOM_PROF_NET_PLUGIN, step, NULL, 0);
	got = !!op + !!step + !!ctrl + !!net;
	/* What NCCL would send next for handles it got (never for NULL). */
	a.proxyStep.transSize = 4096;
	hp_record(c, step ? step : (void *)0,
		  LAGOM_PROF_STATE_PROXY_STEP_SEND_WAIT, &a);
	hp_record(c, op, LAGOM_PROF_STATE_PROXY_OP_IN_PROGRESS, &a);
	hp_record(c, ctrl, LAGOM_PROF_STATE_PROXY_CTRL_IDLE, &a);
	hp_stop(c, net);
	hp_stop(c, step);
	hp_stop(c, op);
	hp_stop(c, ctrl);
	return got;
}
