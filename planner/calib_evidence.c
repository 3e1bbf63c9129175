/*
 * planner/calib_evidence.c - from measurement records to the measured
 * classes `lagom calibrate` fits (planner/calib.h says which time of a
 * class is kept and why).  Pure: parsed records in, model inputs out.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/calib.h"
#include "measurement/learn.h"
#include "measurement/record.h"

#define RUN_ID_MAX (2 * LAGOM_REC_TOKEN_MAX + 2)

struct ev_run {
	char id[RUN_ID_MAX];
	uint64_t min_ns;
};

struct ev_class {
	enum lagom_coll coll;
	uint64_t bytes;
	unsigned ranks, nodes, channels;
	enum lagom_algo algo;
	enum lagom_proto proto;
	size_t nruns;
	struct ev_run runs[LAGOM_CALIB_MAX_RUNS];
};

struct lagom_calib_evidence {
	struct ev_class *cls;
	size_t n;
	size_t dropped;
	char (*run_ids)[RUN_ID_MAX];
	size_t nrun_ids;
};

struct lagom_calib_evidence *lagom_calib_evidence_create(void)
{
	struct lagom_calib_evidence *ev = calloc(1, sizeof(*ev));

	if (ev)
		ev->cls = calloc(LAGOM_CALIB_MAX_CLASSES, sizeof(*ev->cls));
	if (ev && ev->cls)
		ev->run_ids = calloc(LAGOM_CALIB_MAX_CLASSES,
				     sizeof(*ev->run_ids));
	if (ev && (!ev->cls || !ev->run_ids)) {
		lagom_calib_evidence_destroy(ev);
		return NULL;
	}
	return ev;
}

void lagom_calib_evidence_destroy(struct lagom_calib_evidence *ev)
{
	if (!ev)
		return;
	free(ev->cls);
	free(ev->run_ids);
	free(ev);
}

size_t lagom_calib_evidence_classes(const struct lagom_calib_evidence *ev)
{
	return ev->n;
}

size_t lagom_calib_evidence_runs(const struct lagom_calib_evidence *ev)
{
	return ev->nrun_ids;
}

size_t lagom_calib_evidence_dropped(const struct lagom_calib_evidence *ev)
{
	return ev->dropped;
}

static int note_run(struct lagom_calib_evidence *ev, const char *id)
{
	for (size_t i = 0; i < ev->nrun_ids; i++)
		if (strcmp(ev->run_ids[i], id) == 0)
			return 0;
	if (ev->nrun_ids == LAGOM_CALIB_MAX_CLASSES)
		return -1;
	snprintf(ev->run_ids[ev->nrun_ids++], RUN_ID_MAX, "%s", id);
	return 0;
}

static struct ev_class *find_class(struct lagom_calib_evidence *ev,
				   const struct ev_class *key)
{
	for (size_t i = 0; i < ev->n; i++) {
		struct ev_class *c = &ev->cls[i];
		if (c->coll == key->coll && c->bytes == key->bytes &&
		    c->ranks == key->ranks && c->nodes == key->nodes &&
		    c->channels == key->channels && c->algo == key->algo &&
		    c->proto == key->proto)
			return c;
	}
	if (ev->n == LAGOM_CALIB_MAX_CLASSES)
		return NULL;
	ev->cls[ev->n] = *key;
	ev->cls[ev->n].nruns = 0;
	return &ev->cls[ev->n++];
}

static void add_time(struct lagom_calib_evidence *ev, struct ev_class *c,
		     const char *run, uint64_t min_ns)
{
	for (size_t i = 0; i < c->nruns; i++)
		if (strcmp(c->runs[i].id, run) == 0) {
			if (min_ns < c->runs[i].min_ns)
				c->runs[i].min_ns = min_ns;
			return;
		}
	if (c->nruns == LAGOM_CALIB_MAX_RUNS) {
		ev->dropped++;
		return;
	}
	snprintf(c->runs[c->nruns].id, RUN_ID_MAX, "%s", run);
	c->runs[c->nruns++].min_ns = min_ns;
}

int lagom_calib_evidence_add(struct lagom_calib_evidence *ev,
			     const struct lagom_rec *r)
{
	char run[RUN_ID_MAX];

	/* outside Slurm every process is its own run */
	if (strcmp(r->job, "-") == 0)
		snprintf(run, sizeof(run), "pid:%llu",
			 (unsigned long long)r->pid);
	else
		snprintf(run, sizeof(run), "%s.%s", r->job, r->step);
	for (uint32_t ci = 0; ci < r->n_comms; ci++) {
		const struct lagom_rec_comm *m = &r->comm[ci];
		for (uint32_t i = 0; i < m->n_classes; i++) {
			const struct lagom_rec_class *k = &m->cls[i];
			struct ev_class key = { .ranks = m->ranks,
						.nodes = m->nodes };
			struct lagom_learn_class mc;
			struct ev_class *c;

			/* send and recv alone are half a sendrecv: the
			 * calibration fits collectives only */
			if (k->gpu_n == 0 || k->gpu_min_ns == 0 ||
			    m->nodes == 0 || k->op == LAGOM_NCCL_FUNC_SEND ||
			    k->op == LAGOM_NCCL_FUNC_RECV ||
			    lagom_learn_class(m, k, &mc) != 0)
				continue;
			key.coll = mc.coll;
			key.bytes = mc.bytes;
			key.algo = mc.config.algo;
			key.proto = mc.config.proto;
			key.channels = mc.config.nchannels;
			c = find_class(ev, &key);
			if (!c || note_run(ev, run)) {
				ev->dropped++;
				continue;
			}
			add_time(ev, c, run, k->gpu_min_ns);
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The median over runs of each run's fastest call, seconds. */
static double class_time_s(const struct ev_class *c)
{
	uint64_t v[LAGOM_CALIB_MAX_RUNS];
	size_t n = c->nruns;

	for (size_t i = 0; i < n; i++)
		v[i] = c->runs[i].min_ns;
	qsort(v, n, sizeof(v[0]), cmp_u64);
	if (n % 2)
		return (double)v[n / 2] * 1e-9;
	return ((double)v[n / 2 - 1] + (double)v[n / 2]) * 0.5e-9;
}

static int cmp_meas(const void *pa, const void *pb)
{
	const struct lagom_net_meas *a = pa, *b = pb;
	const unsigned long long ka[] = { a->comm.nodes,   a->comm.ranks,
					  a->coll,	   a->bytes,
					  a->cfg.algo,	   a->cfg.proto,
					  a->cfg.nchannels },
				 kb[] = { b->comm.nodes,   b->comm.ranks,
					  b->coll,	   b->bytes,
					  b->cfg.algo,	   b->cfg.proto,
					  b->cfg.nchannels };

	for (size_t i = 0; i < sizeof(ka) / sizeof(ka[0]); i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return 0;
}

size_t lagom_calib_evidence_meas(const struct lagom_calib_evidence *ev,
				 const struct lagom_hw *hw,
				 struct lagom_net_meas *m, size_t max,
				 size_t *refused)
{
	size_t n = 0, bad = 0;

	for (size_t i = 0; i < ev->n && n < max; i++) {
		const struct ev_class *c = &ev->cls[i];
		struct lagom_net_meas x = {
			.hw = *hw,
			.coll = c->coll,
			.bytes = c->bytes,
			.cfg = { .algo = c->algo,
				 .proto = c->proto,
				 .nchannels = c->channels },
			.time_s = class_time_s(c),
		};

		if (c->nodes < 2)
			continue;
		memset(&x.hw.net_site, 0, sizeof(x.hw.net_site));
		x.comm = (struct lagom_comm){
			.ranks = c->ranks,
			.nodes = c->nodes,
			.ranks_per_node = c->ranks / c->nodes,
			.hops = LAGOM_HOPS_SAME_LEAF,
		};
		if (c->ranks % c->nodes ||
		    lagom_call_check(&x.hw, &x.comm, x.coll, NULL) ||
		    lagom_coll_config_check_nocheck(&x.hw, &x.comm, x.coll,
						    x.bytes, &x.cfg, NULL)) {
			bad++;
			continue;
		}
		m[n++] = x;
	}
	qsort(m, n, sizeof(*m), cmp_meas);
	if (refused)
		*refused = bad;
	return n;
}
