/*
 * trace/build.c - from parsed traces to a workload (doc/workload-import.md):
 * checks, iterations, collectives and their sizes, the representative step,
 * and its regions of summed super-kernels.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_int.h"

#define MAX_COLLS_PER_REGION 3 /* 4 segments x (compute, idle) = 8 kernels */

/* A collective of the representative step. */
struct coll {
	const struct tr_gpu *k;
	enum lagom_coll op;
	uint64_t bytes, total_bytes;
	unsigned ranks;
	char comm[LAGOM_NAME_MAX];
	uint8_t src;
	double fastest_us;
};

static int cmp_rt(const void *a, const void *b)
{
	const struct tr_runtime *x = a, *y = b;
	return (x->corr > y->corr) - (x->corr < y->corr);
}

static int cmp_step(const void *a, const void *b)
{
	const struct tr_step *x = a, *y = b;
	return (x->ts_us > y->ts_us) - (x->ts_us < y->ts_us);
}

static int cmp_gpu_ts(const void *a, const void *b)
{
	const struct tr_gpu *x = *(const struct tr_gpu *const *)a;
	const struct tr_gpu *y = *(const struct tr_gpu *const *)b;
	return (x->ts_us > y->ts_us) - (x->ts_us < y->ts_us);
}

static const struct tr_runtime *launch_of(const struct tr_file *f,
					  uint64_t corr)
{
	struct tr_runtime key = { .corr = corr };
	if (!f->nrt)
		return NULL;
	return bsearch(&key, f->rt, f->nrt, sizeof(*f->rt), cmp_rt);
}

/* ------------------------------------------------------------------ */
/* Checks.                                                             */

static int check_file(const struct tr_file *f, const char *label,
		      struct lagom_error *err)
{
	if (!f->is_object || !f->has_events)
		return lagom_errprintf(err, EINVAL,
				       "%s: JSON but not a profiler trace (no "
				       "traceEvents array)",
				       label);
	if (f->hip || strcasecmp(f->backend, "rccl") == 0)
		return lagom_errprintf(err, EINVAL,
				       "%s: an AMD/HIP trace: lagom tunes "
				       "NCCL on NVIDIA GPUs, not RCCL",
				       label);
	if (f->kernels == 0 && f->cupti_ranges)
		return lagom_errprintf(err, EINVAL,
				       "%s: no GPU kernel activity, only %zu "
				       "CUPTI range-profiler events (take the "
				       "trace with kernel activities)",
				       label, f->cupti_ranges);
	if (f->kernels == 0)
		return lagom_errprintf(err, EINVAL,
				       "%s: a CPU-only trace (no GPU kernels)",
				       label);
	if (f->nccl == 0)
		return lagom_errprintf(err, EINVAL,
				       "%s: no NCCL kernels (a single-GPU run, "
				       "or communication was not profiled)",
				       label);
	return 0;
}

static const char *device_name(const struct tr_file *f)
{
	return f->ndevices ? f->devices[0].name : "";
}

static bool same_steps(const struct tr_file *a, const struct tr_file *b)
{
	if (a->nsteps != b->nsteps)
		return false;
	for (size_t i = 0; i < a->nsteps; i++)
		if (a->steps[i].n != b->steps[i].n)
			return false;
	return true;
}

/* Traces of one run: same world size, distinct ranks, same GPU, NCCL
 * version and ProfilerStep numbers. */
static int check_same_run(const struct tr_file *files, size_t n,
			  const char *const *labels, struct lagom_error *err)
{
	for (size_t i = 1; i < n; i++) {
		const struct tr_file *a = &files[0], *b = &files[i];
		const char *why = NULL;
		if (a->world_size != b->world_size)
			why = "world sizes differ";
		else if (a->rank < 0 || a->rank == b->rank)
			why = "the same rank twice, or no rank";
		else if (strcmp(device_name(a), device_name(b)))
			why = "GPUs differ";
		else if (strcmp(a->nccl_version, b->nccl_version))
			why = "NCCL versions differ";
		else if (!same_steps(a, b))
			why = "ProfilerStep numbers differ";
		for (size_t j = 1; !why && j < i; j++)
			if (files[j].rank == b->rank)
				why = "the same rank twice";
		if (why)
			return lagom_errprintf(err, EINVAL,
					       "ranks of different runs mixed: "
					       "%s and %s (%s)",
					       labels[0], labels[i], why);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Steps.                                                              */

struct step_view {
	double w0_us, w1_us; /* GPU window */
	bool any;
};

/* The step whose host range holds a launch at ts_us (steps sorted, not
 * overlapping); nsteps when none. */
static size_t step_at(const struct tr_file *f, size_t nsteps, double ts_us)
{
	size_t lo = 0, hi = nsteps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->steps[mid].ts_us <= ts_us)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 ||
	    ts_us >= f->steps[lo - 1].ts_us + f->steps[lo - 1].dur_us)
		return nsteps;
	return lo - 1;
}

/* Window of each step from the launches of its GPU activities. */
static void step_windows(const struct tr_file *f, struct step_view *v,
			 size_t nsteps)
{
	for (size_t i = 0; i < f->ngpu; i++) {
		const struct tr_gpu *g = &f->gpu[i];
		const struct tr_runtime *r = launch_of(f, g->corr);
		size_t s = r ? step_at(f, nsteps, r->ts_us) : nsteps;
		if (s == nsteps)
			continue;
		if (!v[s].any || g->ts_us < v[s].w0_us)
			v[s].w0_us = g->ts_us;
		if (!v[s].any || g->ts_us + g->dur_us > v[s].w1_us)
			v[s].w1_us = g->ts_us + g->dur_us;
		v[s].any = true;
	}
	for (size_t s = 0; s + 1 < nsteps; s++)
		if (v[s].any && v[s + 1].any && v[s + 1].w0_us > v[s].w0_us)
			v[s].w1_us = v[s + 1].w0_us;
}

/* The representative step: drop the last step (its period is not closed)
 * and, when three or more remain, the first (warm-up); take the step of
 * median GPU window (the lower one of an even count). */
static size_t pick_step(const struct step_view *v, size_t nsteps)
{
	size_t lo = 0, hi = nsteps, idx[TR_MAX_STEPS], n = 0;

	if (nsteps >= 2)
		hi--;
	if (hi - lo >= 3)
		lo++;
	for (size_t s = lo; s < hi; s++)
		if (v[s].any)
			idx[n++] = s;
	if (!n)
		return 0;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			double a = v[idx[j - 1]].w1_us - v[idx[j - 1]].w0_us;
			double b = v[idx[j]].w1_us - v[idx[j]].w0_us;
			if (a <= b)
				break;
			size_t t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	return idx[(n - 1) / 2];
}

/* ------------------------------------------------------------------ */
/* Collectives.                                                        */

/* The innermost sized record_param_comms or nccl:* annotation on the
 * launching thread that encloses the launch. */
/*
 * The latest-starting non-kernel record of r's thread whose span holds
 * r's start (ties: the later record).  f->encl is sorted by thread, start
 * and order: from the last record of the thread starting at or before r,
 * backwards, the first that holds r is the one; none starting before
 * r's start minus the longest span can.
 */
static const struct tr_comm *enclosing(const struct tr_file *f,
				       const struct tr_runtime *r)
{
	size_t lo = 0, hi = f->nencl;

	if (!r)
		return NULL;
	while (lo < hi) { /* the first key after (tid, ts) */
		size_t mid = lo + (hi - lo) / 2;
		const struct tr_encl_key *e = &f->encl[mid];

		if (e->tid < r->tid ||
		    (e->tid == r->tid && e->ts_us <= r->ts_us))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct tr_encl_key *e = &f->encl[lo];
		const struct tr_comm *c = &f->comms[e->index];

		if (e->tid != r->tid ||
		    e->ts_us + f->encl_max_dur_us < r->ts_us)
			break;
		if (c->ts_us + c->dur_us >= r->ts_us)
			return c;
	}
	return NULL;
}

const struct tr_comm *tr_size_of(const struct tr_file *f,
				 const struct tr_gpu *k)
{
	size_t lo = 0, hi = f->nrpc;

	if (k->comm >= 0)
		return &f->comms[k->comm];
	/* the first RPC record with k's External id */
	while (k->ext && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->rpc[mid].ext < k->ext)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (k->ext && lo < f->nrpc && f->rpc[lo].ext == k->ext)
		return &f->comms[f->rpc[lo].index];
	return enclosing(f, launch_of(f, k->corr));
}

uint64_t tr_coll_bytes(enum lagom_coll op, const struct tr_comm *c)
{
	switch (op) {
	case LAGOM_COLL_ALLGATHER:
		return c->out_bytes;
	case LAGOM_COLL_SENDRECV:
		return c->in_bytes > c->out_bytes ? c->in_bytes : c->out_bytes;
	default:
		return c->in_bytes;
	}
}

/* Fill c from NCCL kernel k; false when its size is unknown. */
static bool describe(const struct tr_file *f, const struct tr_gpu *k,
		     struct coll *c)
{
	const struct tr_comm *s = tr_size_of(f, k);
	const char *kname = f->names[k->name].text;

	memset(c, 0, sizeof(*c));
	c->k = k;
	if (!s)
		return false;
	if (s->op_known)
		c->op = s->op;
	else if (!tr_coll_from_name(kname, &c->op))
		return false;
	c->bytes = tr_coll_bytes(c->op, s);
	if (!c->bytes)
		return false;
	c->ranks = s->group	       ? s->group
		   : f->world_size > 0 ? (unsigned)f->world_size
				       : 2;
	if (c->op == LAGOM_COLL_ALLTOALL)
		c->total_bytes = c->bytes * c->ranks;
	if (s->pg[0])
		snprintf(c->comm, sizeof(c->comm), "pg-%s", s->pg);
	else
		snprintf(c->comm, sizeof(c->comm), "stream-%d", k->stream);
	c->src = s->src;
	c->fastest_us = k->dur_us;
	return true;
}

/* ------------------------------------------------------------------ */
/* Segments: busy union, alone estimates, representative grid.         */

struct seg_stats {
	double busy_us, idle_us, measured_us, alone_us, mem_weighted;
	unsigned grid, bps, merged;
	bool estimated;
	bool cupti;
};

struct build {
	const struct tr_file *f;
	const struct lagom_trace_device *dev;
	const struct tr_gpu **comp; /* compute kernels of the window by ts */
	size_t ncomp;
	const double *alone_est; /* per f->gpu index; NAN = estimated */
	double w0, w1;
};

static void segment(const struct build *b, double a, double e,
		    struct seg_stats *s)
{
	double cover_end = a, wsum = 0;
	size_t n = 0;
	struct {
		unsigned grid, bps;
		double dur;
	} *items = NULL;

	memset(s, 0, sizeof(*s));
	if (e <= a)
		return;
	for (size_t i = 0; i < b->ncomp; i++) {
		const struct tr_gpu *k = b->comp[i];
		double s0 = k->ts_us > cover_end ? k->ts_us : cover_end;
		double s1 = k->ts_us + k->dur_us < e ? k->ts_us + k->dur_us : e;
		if (k->ts_us >= e)
			break;
		if (s1 > s0) {
			s->busy_us += s1 - s0;
			cover_end = s1;
		}
		if (k->ts_us < a)
			continue;
		n++;
	}
	s->idle_us = (e - a) - s->busy_us;
	if (!n)
		return;
	items = calloc(n, sizeof(*items));
	n = 0;
	for (size_t i = 0; items && i < b->ncomp; i++) {
		const struct tr_gpu *k = b->comp[i];
		size_t gi = (size_t)(k - b->f->gpu);
		double alone = b->alone_est[gi];
		if (k->ts_us >= e)
			break;
		if (k->ts_us < a)
			continue;
		s->measured_us += k->dur_us;
		if (isnan(alone)) {
			s->estimated = true;
			alone = k->dur_us;
		}
		s->alone_us += alone;
		s->mem_weighted += b->f->names[k->name].mem_bound * k->dur_us;
		s->cupti = s->cupti || b->f->names[k->name].cupti;
		items[n].grid = k->grid;
		items[n].bps = lagom_trace_blocks_per_sm(b->dev, k->block,
							 k->regs, k->smem);
		items[n].dur = k->dur_us;
		wsum += k->dur_us;
		n++;
	}
	s->merged = (unsigned)n;
	/* duration-weighted median grid: sort by grid, cross half the time */
	for (size_t i = 1; items && i < n; i++)
		for (size_t j = i; j > 0 && items[j - 1].grid > items[j].grid;
		     j--) {
			__typeof__(*items) t = items[j];
			items[j] = items[j - 1];
			items[j - 1] = t;
		}
	for (size_t i = 0; items && i < n; i++) {
		wsum -= 2 * items[i].dur;
		if (wsum <= 0 || i + 1 == n) {
			s->grid = items[i].grid;
			s->bps = items[i].bps;
			break;
		}
	}
	free(items);
}

/* ------------------------------------------------------------------ */
/* Regions.                                                            */

static size_t add_kernels(struct lagom_trace_import *imp, size_t r,
			  const struct seg_stats *s)
{
	struct lagom_region *reg = &imp->workload->regions[r];
	size_t base = r * LAGOM_REGION_MAX_KERNELS;

	if (s->busy_us > 0 && s->measured_us > 0) {
		size_t k = reg->nkernels++;
		double alone = s->busy_us * (s->alone_us / s->measured_us);
		reg->kernels[k] = (struct lagom_kernel){
			.time_s = alone * 1e-6,
			.grid_blocks = s->grid,
			.blocks_per_sm = s->bps,
			.mem_bound = s->mem_weighted / s->measured_us,
		};
		imp->kinfo[base + k] = (struct lagom_trace_kernel_info){
			.estimated = s->estimated,
			.merged = s->merged,
			.mem_bound_src = s->cupti ? "cupti" : "class",
		};
	}
	if (s->idle_us + (s->measured_us > 0 ? 0 : s->busy_us) > 1e-3) {
		size_t k = reg->nkernels++;
		double t = s->idle_us + (s->measured_us > 0 ? 0 : s->busy_us);
		reg->kernels[k] = (struct lagom_kernel){
			.time_s = t * 1e-6,
			.grid_blocks = 1,
			.blocks_per_sm = 1,
		};
		imp->kinfo[base + k] = (struct lagom_trace_kernel_info){
			.idle = true,
			.mem_bound_src = "none",
		};
	}
	return reg->nkernels;
}

/* A trace does not say where ranks ran: one node when the communicator
 * fits in the GPUs a node shows (the trace's visible devices, or 8 when it
 * shows one), else full nodes of that many GPUs. */
static void comm_of(struct lagom_region_coll *rc, const struct coll *c,
		    unsigned gpus)
{
	unsigned ranks = c->ranks ? c->ranks : 1;
	unsigned nodes = 1, ppn = ranks;

	gpus = gpus >= 2 ? gpus : 8;

	if (gpus && ranks > gpus && ranks % gpus == 0)
		nodes = ranks / gpus, ppn = gpus;
	else if (gpus && ranks > gpus)
		nodes = ranks, ppn = 1;
	rc->comm = (struct lagom_comm){
		.ranks = ranks,
		.nodes = nodes,
		.ranks_per_node = ppn,
		.hops = nodes > 1 ? LAGOM_HOPS_SAME_LEAF : LAGOM_HOPS_SAME_NODE,
	};
}

static const char *const src_names[] = { "kernel-args", "record_param_comms",
					 "annotation" };

static int regions(struct build *b, struct coll *c, size_t n,
		   struct lagom_trace_import *imp, struct lagom_error *err)
{
	size_t nreg = (n + MAX_COLLS_PER_REGION - 1) / MAX_COLLS_PER_REGION;
	double tail = b->w0;
	struct seg_stats s;

	if (nreg > 4096)
		return lagom_errprintf(err, EINVAL,
				       "%zu collectives in one step: more "
				       "than the workload format's %d",
				       n, 4096 * MAX_COLLS_PER_REGION);
	for (size_t j = 0; j < n; j++) {
		double end = c[j].k->ts_us + c[j].k->dur_us;
		tail = end > tail ? end : tail;
	}
	if (tail > b->w1)
		tail = b->w1;
	imp->workload = lagom_workload_create("", nreg);
	imp->kinfo = calloc(nreg * LAGOM_REGION_MAX_KERNELS,
			    sizeof(*imp->kinfo));
	imp->cinfo = calloc(nreg * LAGOM_REGION_MAX_COLLS, sizeof(*imp->cinfo));
	if (!imp->workload || !imp->kinfo || !imp->cinfo)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (size_t j = 0; j < n; j++) {
		size_t r = j / MAX_COLLS_PER_REGION;
		struct lagom_region *reg = &imp->workload->regions[r];
		struct lagom_region_coll *rc = &reg->colls[reg->ncolls];
		struct lagom_trace_coll_info *ci =
			&imp->cinfo[r * LAGOM_REGION_MAX_COLLS + reg->ncolls];
		double a = c[j].k->ts_us;
		double e = j + 1 < n ? c[j + 1].k->ts_us : tail;

		if (reg->ncolls == 0)
			snprintf(reg->name, sizeof(reg->name),
				 "collectives-%zu-%zu", j + 1,
				 j + MAX_COLLS_PER_REGION < n
					 ? j + MAX_COLLS_PER_REGION
					 : n);
		*rc = (struct lagom_region_coll){
			.coll = c[j].op,
			.bytes = c[j].bytes,
			.after_kernel = reg->ncolls ? (unsigned)reg->nkernels
						    : 0,
		};
		comm_of(rc, &c[j], imp->gpus_visible);
		*ci = (struct lagom_trace_coll_info){
			.total_bytes = c[j].total_bytes,
			.channels = c[j].k->grid,
			.threads = c[j].k->block,
			.time_s = c[j].fastest_us * 1e-6,
			.size_src = src_names[c[j].src],
		};
		memcpy(ci->comm, c[j].comm, sizeof(ci->comm));
		reg->ncolls++;
		reg->repeat = 1;
		segment(b, a, e < a ? a : e, &s);
		add_kernels(imp, r, &s);
		imp->overlap_s += s.busy_us * 1e-6;
	}
	segment(b, b->w0, n ? c[0].k->ts_us : b->w1, &s);
	imp->serial_s = s.busy_us * 1e-6;
	imp->workload->serial_s = (s.busy_us + s.idle_us) * 1e-6;
	segment(b, tail, b->w1, &s);
	imp->serial_s += s.busy_us * 1e-6;
	imp->workload->serial_s += (s.busy_us + s.idle_us) * 1e-6;
	imp->busy_s = imp->serial_s + imp->overlap_s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Alone estimates per kernel (shared with the contention table).       */

static const struct lagom_trace_device *main_device(const struct tr_file *f,
						    int *dev_id)
{
	for (size_t i = 0; i < f->ngpu; i++)
		if (f->gpu[i].kind == TR_NCCL) {
			*dev_id = f->gpu[i].device;
			break;
		}
	for (size_t d = 0; d < f->ndevices; d++)
		if (f->devices[d].id == *dev_id)
			return &f->devices[d].dev;
	return f->ndevices ? &f->devices[0].dev : NULL;
}

static int collect(struct build *b, int dev_id, struct coll **out_c,
		   size_t *out_n, struct lagom_trace_import *imp)
{
	const struct tr_file *f = b->f;
	struct coll *c = NULL;
	size_t n = 0, cap = 0;

	b->comp = calloc(f->ngpu ? f->ngpu : 1, sizeof(*b->comp));
	if (!b->comp)
		return -ENOMEM;
	for (size_t i = 0; i < f->ngpu; i++) {
		const struct tr_gpu *g = &f->gpu[i];
		if (g->device != dev_id || g->ts_us + g->dur_us <= b->w0 ||
		    g->ts_us >= b->w1)
			continue;
		if (g->kind == TR_COMPUTE)
			b->comp[b->ncomp++] = g;
		if (g->kind != TR_NCCL || g->ts_us < b->w0)
			continue;
		if (n == cap) {
			struct coll *m;
			cap = cap ? cap * 2 : 64;
			m = realloc(c, cap * sizeof(*c));
			if (!m) {
				free(c);
				return -ENOMEM;
			}
			c = m;
		}
		if (describe(f, g, &c[n]))
			n++;
		else
			imp->unsized_colls++;
	}
	qsort(b->comp, b->ncomp, sizeof(*b->comp), cmp_gpu_ts);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && c[j - 1].k->ts_us > c[j].k->ts_us;
		     j--) {
			struct coll t = c[j];
			c[j] = c[j - 1];
			c[j - 1] = t;
		}
	*out_c = c;
	*out_n = n;
	return 0;
}

/* Fastest instance over the other ranks' same step (index by index). */
static void fastest(struct coll *c, size_t n, struct tr_file *files,
		    size_t nfiles, unsigned step_n)
{
	for (size_t fi = 1; fi < nfiles; fi++) {
		struct tr_file *g = &files[fi];
		size_t s, j = 0;
		for (s = 0; s < g->nsteps && g->steps[s].n != step_n; s++)
			;
		if (s == g->nsteps)
			continue;
		for (size_t i = 0; i < g->ngpu && j < n; i++) {
			const struct tr_gpu *k = &g->gpu[i];
			const struct tr_runtime *r = launch_of(g, k->corr);
			if (k->kind != TR_NCCL || !r ||
			    r->ts_us < g->steps[s].ts_us ||
			    r->ts_us >= g->steps[s].ts_us + g->steps[s].dur_us)
				continue;
			if (k->dur_us < c[j].fastest_us)
				c[j].fastest_us = k->dur_us;
			j++;
		}
	}
}

static void sort_file(struct tr_file *f)
{
	/* qsort's array must not be NULL, even empty */
	if (f->nrt)
		qsort(f->rt, f->nrt, sizeof(*f->rt), cmp_rt);
	if (f->nsteps)
		qsort(f->steps, f->nsteps, sizeof(*f->steps), cmp_step);
}

static void summary(struct lagom_trace_import *imp, struct tr_file *f,
		    const struct step_view *v, size_t rep,
		    const char *const *labels, size_t nfiles)
{
	const char *base = strrchr(labels[0], '/');
	double sum = 0;

	snprintf(imp->workload->name, sizeof(imp->workload->name), "trace:%s",
		 base ? base + 1 : labels[0]);
	imp->ranks_given = (unsigned)nfiles;
	imp->rank = f->rank;
	imp->world_size = f->world_size > 0 ? (unsigned)f->world_size : 0;
	memcpy(imp->nccl_version, f->nccl_version, sizeof(imp->nccl_version));
	imp->kernels = f->kernels;
	imp->nccl_kernels = f->nccl;
	imp->cupti_ranges = f->cupti_ranges;
	imp->cupti_dram = f->cupti_dram;
	imp->steps = (unsigned)f->nsteps;
	imp->rep_window_s = (v[rep].w1_us - v[rep].w0_us) * 1e-6;
	if (f->nsteps) {
		imp->first_step = f->steps[0].n;
		imp->rep_step = f->steps[rep].n;
		imp->rep_step_s = f->steps[rep].dur_us * 1e-6;
		for (size_t s = 0; s < f->nsteps; s++)
			sum += f->steps[s].dur_us;
		imp->mean_step_s = sum / f->nsteps * 1e-6;
		for (size_t i = 0; i < f->nsyncs; i++)
			if (f->syncs[i] >= f->steps[rep].ts_us &&
			    f->syncs[i] < f->steps[rep].ts_us +
						  f->steps[rep].dur_us) {
				if (f->sync_kind[i])
					imp->event_records++;
				else
					imp->stream_waits++;
			}
	} else {
		imp->rep_step_s = imp->mean_step_s = imp->rep_window_s;
	}
}

int tr_build(struct tr_file *files, size_t nfiles, const char *const *labels,
	     struct lagom_trace_import *imp, struct lagom_error *err)
{
	struct tr_file *f = &files[0];
	struct step_view *v = NULL;
	struct build b = { .f = f };
	struct coll *c = NULL;
	size_t n = 0, rep = 0, nsteps;
	int dev_id = 0, rc;

	for (size_t i = 0; i < nfiles; i++)
		if ((rc = check_file(&files[i], labels[i], err)))
			return rc;
	if ((rc = check_same_run(files, nfiles, labels, err)))
		return rc;
	for (size_t i = 0; i < nfiles; i++)
		sort_file(&files[i]);
	b.dev = main_device(f, &dev_id);
	snprintf(imp->gpu, sizeof(imp->gpu), "%s", device_name(f));
	imp->sms = b.dev ? b.dev->sms : 0;
	imp->gpus_visible = (unsigned)f->ndevices;
	nsteps = f->nsteps;
	v = calloc(nsteps ? nsteps : 1, sizeof(*v));
	if (!v)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	if (nsteps) {
		step_windows(f, v, nsteps);
		rep = pick_step(v, nsteps);
	}
	if (!nsteps || !v[rep].any) {
		/* no ProfilerStep#: the whole trace is one iteration */
		f->nsteps = 0;
		v[0] = (struct step_view){ .any = true };
		for (size_t i = 0; i < f->ngpu; i++) {
			const struct tr_gpu *g = &f->gpu[i];
			if (!i || g->ts_us < v[0].w0_us)
				v[0].w0_us = g->ts_us;
			if (!i || g->ts_us + g->dur_us > v[0].w1_us)
				v[0].w1_us = g->ts_us + g->dur_us;
		}
		rep = 0;
	}
	b.w0 = v[rep].w0_us;
	b.w1 = v[rep].w1_us;
	b.alone_est = tr_alone_estimates(f, dev_id);
	rc = b.alone_est ? collect(&b, dev_id, &c, &n, imp) : -ENOMEM;
	if (rc) {
		rc = lagom_errprintf(err, ENOMEM, "out of memory");
		goto out;
	}
	if (n == 0) {
		rc = lagom_errprintf(err, EINVAL,
				     "%s: no NCCL kernel of the step has a "
				     "known size (no record_param_comms or "
				     "nccl:* annotation with sizes)",
				     labels[0]);
		goto out;
	}
	if (f->nsteps)
		fastest(c, n, files, nfiles, f->steps[rep].n);
	rc = regions(&b, c, n, imp, err);
	if (!rc) {
		summary(imp, f, v, rep, labels, nfiles);
		rc = tr_contention(f, b.dev, dev_id, imp, err);
	}
out:
	free(c);
	free(b.comp);
	free((void *)b.alone_est);
	free(v);
	return rc;
}
