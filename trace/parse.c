/*
 * trace/parse.c - stream one Kineto trace (plain or gzip) through yajl and
 * keep compact records of what the importer needs: GPU activities, launch
 * calls, collectives' sizes, ProfilerStep#N, device properties.  Nothing
 * else of an event is kept, so memory follows the number of GPU activities
 * and never the size of the file, of a name or of the CPU side.
 *
 * Hostile input: nesting deeper than LAGOM_TRACE_MAX_DEPTH and a string or
 * number longer than TR_MAX_TOKEN are refused before yajl buffers them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h> /* MIN */
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "common/hash.h"
#include "trace/trace_int.h"

#define CHUNK (64u << 10)
#define SMALL 48

enum top {
	TOP_NONE,
	TOP_EVENTS,
	TOP_DEVICES,
	TOP_DIST,
	TOP_BASE,
	TOP_OTHER
};

/* The event being read (depth 3 object of traceEvents). */
struct ev {
	char ph[4], cat[SMALL];
	char name[TR_NAME_CAP];
	uint64_t name_hash;
	size_t name_len;
	double ts, dur;
	bool has_ts, has_dur;
	uint64_t tid;
	bool has_corr, has_ext, has_stream;
	long long corr, ext, stream, device, regs, smem;
	long long grid[3], block[3];
	int ngrid, nblock;
	char coll[SMALL], dtype[SMALL], pg[48], in_type[SMALL];
	long long in_nelems, out_nelems, group;
	bool has_in, has_out;
	long long dims_prod;
	int dims_arrays;
	bool dims_any;
	double dram_bytes, flops;
	bool has_dram;
};

struct parser {
	struct tr_file *f;
	struct lagom_error *err;
	int depth;
	enum top top;
	char key1[SMALL], key3[SMALL], key4[SMALL];
	bool in_args;
	bool root_seen;
	struct ev ev;
	struct tr_device dev;
	int dev_depth_ok;
	int rc; /* our own error, set before cancelling */
	/* pre-scan of raw bytes */
	bool in_string, escape;
	size_t token_len;
};

static void copy_small(char *dst, size_t cap, const unsigned char *s, size_t n)
{
	size_t k = n < cap - 1 ? n : cap - 1;
	memcpy(dst, s, k);
	dst[k] = '\0';
}

/* The first byte before the library call: most keys differ there. */
static inline bool key_is(const char *k, const char *want)
{
	return k[0] == want[0] && strcmp(k, want) == 0;
}

static int fail(struct parser *p, int code, const char *msg)
{
	if (!p->rc) {
		lagom_errprintf(p->err, code, "%s", msg);
		p->rc = -code;
	}
	return 0;
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem, size_t max)
{
	size_t ncap;
	void *m;

	if (n < *cap)
		return 0;
	if (n >= max)
		return -E2BIG;
	ncap = *cap ? *cap * 2 : 1024;
	if (ncap > max)
		ncap = max;
	m = realloc(*arr, ncap * elem);
	if (!m)
		return -ENOMEM;
	*arr = m;
	*cap = ncap;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Names: interned by full hash, text truncated.                       */

static int intern(struct parser *p, uint32_t *out)
{
	struct tr_file *f = p->f;
	const size_t slots = (size_t)TR_MAX_NAMES * 2;
	size_t i;

	if (!f->name_index) {
		f->name_index = malloc(slots * sizeof(uint32_t));
		if (!f->name_index)
			return -ENOMEM;
		memset(f->name_index, 0xff, slots * sizeof(uint32_t));
	}
	for (i = p->ev.name_hash % slots;; i = (i + 1) % slots) {
		uint32_t id = f->name_index[i];
		if (id == UINT32_MAX)
			break;
		if (f->names[id].hash == p->ev.name_hash) {
			*out = id;
			return 0;
		}
	}
	if (grow((void **)&f->names, &f->capnames, f->nnames, sizeof(*f->names),
		 TR_MAX_NAMES))
		return -E2BIG;
	f->names[f->nnames] = (struct tr_name){ .hash = p->ev.name_hash };
	memcpy(f->names[f->nnames].text, p->ev.name, sizeof(p->ev.name));
	f->names[f->nnames].mem_bound = lagom_trace_mem_bound_class(p->ev.name);
	f->name_index[i] = (uint32_t)f->nnames;
	*out = (uint32_t)f->nnames++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Finishing one event.                                                */

static bool prefix(const char *s, const char *pre)
{
	/* the first byte before the library call, as key_is() */
	return s[0] == pre[0] && strncmp(s, pre, strlen(pre)) == 0;
}

static bool is_nccl_kernel(const char *name)
{
	return prefix(name, "ncclKernel_") || prefix(name, "ncclDevKernel_") ||
	       prefix(name, "void ncclKernel_") ||
	       prefix(name, "void ncclDevKernel_");
}

static int add_comm(struct parser *p, uint8_t src, int32_t *index)
{
	struct tr_file *f = p->f;
	struct ev *e = &p->ev;
	struct tr_comm *c;
	unsigned esz;

	if (grow((void **)&f->comms, &f->capcomms, f->ncomms, sizeof(*f->comms),
		 TR_MAX_COMMS))
		return fail(p, EINVAL, "more collectives than the cap");
	c = &f->comms[f->ncomms];
	*c = (struct tr_comm){ .ts_us = e->ts,
			       .dur_us = e->dur,
			       .tid = e->tid,
			       .ext = (uint64_t)e->ext,
			       .src = src,
			       .group = e->group > 0 && e->group < (1 << 24)
						? (unsigned)e->group
						: 0 };
	if (src == TR_SRC_ANNOT) {
		esz = tr_dtype_bytes(e->in_type);
		c->op_known = tr_coll_from_name(e->name + 5, &c->op);
		if (!e->dims_any || !esz)
			return 1;
		c->in_bytes = c->out_bytes = (uint64_t)e->dims_prod * esz;
	} else {
		esz = tr_dtype_bytes(e->dtype);
		c->op_known = tr_coll_from_name(e->coll, &c->op);
		if (!esz || !e->has_in || e->in_nelems < 0 || e->out_nelems < 0)
			return 1;
		c->in_bytes = (uint64_t)e->in_nelems * esz;
		c->out_bytes = (uint64_t)e->out_nelems * esz;
	}
	memcpy(c->pg, e->pg, sizeof(c->pg));
	if (index)
		*index = (int32_t)f->ncomms;
	f->ncomms++;
	return 1;
}

static int finish_gpu(struct parser *p, uint8_t kind)
{
	struct tr_file *f = p->f;
	struct ev *e = &p->ev;
	struct tr_gpu *g;
	uint32_t name = 0;
	long long grid = 1, block = 1;

	if (!e->has_ts || !e->has_dur || e->dur < 0)
		return 1;
	if (grow((void **)&f->gpu, &f->capgpu, f->ngpu, sizeof(*f->gpu),
		 LAGOM_TRACE_MAX_GPU_EVENTS))
		return fail(p, EINVAL,
			    "more GPU activities than the importer's cap");
	if (intern(p, &name))
		return fail(p, EINVAL, "too many distinct kernel names");
	/* Factors and products are capped as they go (2^31 x 2^31 fits in a
	 * long long), so a hostile grid cannot overflow. */
	for (int i = 0; i < e->ngrid; i++) {
		grid *= e->grid[i] > 0 ? MIN(e->grid[i], 1ll << 31) : 1;
		grid = MIN(grid, 1ll << 31);
	}
	for (int i = 0; i < e->nblock; i++) {
		block *= e->block[i] > 0 ? MIN(e->block[i], 4096) : 1;
		block = MIN(block, 4096);
	}
	g = &f->gpu[f->ngpu];
	*g = (struct tr_gpu){
		.ts_us = e->ts,
		.dur_us = e->dur,
		.corr = (uint64_t)e->corr,
		.ext = (uint64_t)e->ext,
		.stream = (int32_t)e->stream,
		.comm = -1,
		.name = name,
		.grid = grid < (1ll << 31) ? (uint32_t)grid : 1u << 31,
		.block = block < 4096 ? (uint32_t)block : 4096,
		.smem = e->smem > 0 && e->smem < (1 << 30) ? (uint32_t)e->smem
							   : 0,
		.regs = e->regs > 0 && e->regs < 65536 ? (uint16_t)e->regs : 0,
		.kind = kind,
		.device = e->device >= 0 && e->device < 255 ? (uint8_t)e->device
							    : 0,
	};
	if (kind == TR_MEMOP)
		return 1;
	f->kernels++;
	if (kind == TR_NCCL) {
		f->nccl++;
		if (e->coll[0] && add_comm(p, TR_SRC_KERNEL, &g->comm) == 0)
			return 0;
		f->ngpu++;
		return 1;
	}
	f->ngpu++;
	return 1;
}

static int finish_runtime(struct parser *p)
{
	struct tr_file *f = p->f;
	struct ev *e = &p->ev;
	bool wait = key_is(e->name, "cudaStreamWaitEvent");
	bool record = key_is(e->name, "cudaEventRecord");

	if (prefix(e->name, "hip"))
		f->hip = true;
	if ((wait || record) && e->has_ts) {
		if (grow((void **)&f->syncs, &f->capsyncs, f->nsyncs,
			 sizeof(double), LAGOM_TRACE_MAX_RUNTIME_EVENTS))
			return fail(p, EINVAL, "too many runtime calls");
		uint8_t *k = realloc(f->sync_kind, f->capsyncs);
		if (!k)
			return fail(p, ENOMEM, "out of memory");
		f->sync_kind = k;
		f->syncs[f->nsyncs] = e->ts;
		f->sync_kind[f->nsyncs++] = record;
	}
	if (!e->has_corr || !e->has_ts)
		return 1;
	if (grow((void **)&f->rt, &f->caprt, f->nrt, sizeof(*f->rt),
		 LAGOM_TRACE_MAX_RUNTIME_EVENTS))
		return fail(p, EINVAL,
			    "more runtime calls than the importer's cap");
	f->rt[f->nrt++] = (struct tr_runtime){ .corr = (uint64_t)e->corr,
					       .tid = e->tid,
					       .ts_us = e->ts };
	return 1;
}

static int finish_cpu(struct parser *p)
{
	struct tr_file *f = p->f;
	struct ev *e = &p->ev;

	if (prefix(e->name, "ProfilerStep#") && e->has_ts && e->has_dur) {
		if (f->nsteps >= TR_MAX_STEPS)
			return fail(p, EINVAL, "too many ProfilerStep#");
		f->steps[f->nsteps++] = (struct tr_step){
			.ts_us = e->ts,
			.dur_us = e->dur,
			.n = (unsigned)strtoul(e->name + 13, NULL, 10)
		};
		return 1;
	}
	if (!e->has_ts || !e->has_dur)
		return 1;
	if (key_is(e->name, "record_param_comms") && e->coll[0])
		return add_comm(p, TR_SRC_RPC, NULL);
	if (prefix(e->name, "nccl:"))
		return add_comm(p, TR_SRC_ANNOT, NULL);
	return 1;
}

static int finish_event(struct parser *p)
{
	struct ev *e = &p->ev;
	const char *cat = e->cat;

	if (key_is(cat, "kernel"))
		return finish_gpu(p, is_nccl_kernel(e->name) ? TR_NCCL
							     : TR_COMPUTE);
	if (key_is(cat, "gpu_memcpy") || key_is(cat, "gpu_memset"))
		return finish_gpu(p, TR_MEMOP);
	if (key_is(cat, "cuda_runtime") || key_is(cat, "cuda_driver"))
		return finish_runtime(p);
	if (key_is(cat, "cuda_profiler_range")) {
		p->f->cupti_ranges++;
		p->f->cupti_dram = p->f->cupti_dram || e->has_dram;
		return 1;
	}
	if (key_is(cat, "cpu_op") || key_is(cat, "user_annotation")) {
		p->f->cpu_ops++;
		return finish_cpu(p);
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* yajl callbacks.                                                     */

static bool in_event(const struct parser *p)
{
	return p->top == TOP_EVENTS && p->depth >= 3;
}

/*
 * strtod(buf) for the numbers a trace is made of: an integer, or a decimal
 * without exponent, whose digits make an integer of at most 2^53 and that
 * has at most 22 decimals, is the quotient of two doubles that hold it
 * exactly (the digits, a power of ten), which IEEE division rounds
 * correctly: the very value strtod gives (Clinger's fast path).  Kineto's
 * timestamps (16 digits of microseconds) take it.  Anything else goes to
 * strtod.
 */
double tr_to_double(const char *buf)
{
	static const double pow10[] = { 1e0,  1e1,  1e2,  1e3,	1e4,  1e5,
					1e6,  1e7,  1e8,  1e9,	1e10, 1e11,
					1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
					1e18, 1e19, 1e20, 1e21, 1e22 };
	const char *c = buf;
	uint64_t m = 0;
	int frac = -1;
	bool neg = *c == '-';

	c += neg;
	for (; *c; c++) {
		unsigned d = (unsigned)(unsigned char)*c - '0';

		if (d <= 9) {
			/* m grows: past 2^53 it stays past (and m * 10 + 9
			 * never wraps from at most 2^53) */
			m = m * 10 + d;
			if (m > (1ull << 53))
				return strtod(buf, NULL);
			frac += frac >= 0;
		} else if (*c == '.' && frac < 0) {
			frac = 0;
		} else {
			return strtod(buf, NULL);
		}
	}
	if (c == buf + neg || frac > 22 || (frac == 0 && c[-1] == '.'))
		return strtod(buf, NULL);
	{
		double d = (double)m / pow10[frac > 0 ? frac : 0];

		return neg ? -d : d;
	}
}

/* A number's text as a long long: 0 out of range (or NaN), never an
 * undefined conversion. */
static long long to_ll(double d)
{
	return d > -9e18 && d < 9e18 ? (long long)d : 0;
}

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define NO_FLAG SIZE_MAX

/* The integer arguments of an event the importer reads: where each goes
 * in struct ev, and its "seen" flag (NO_FLAG: none). */
static const struct arg_number {
	const char *key;
	size_t at, has;
} arg_numbers[] = {
	{ "correlation", offsetof(struct ev, corr),
	  offsetof(struct ev, has_corr) },
	{ "External id", offsetof(struct ev, ext),
	  offsetof(struct ev, has_ext) },
	{ "stream", offsetof(struct ev, stream),
	  offsetof(struct ev, has_stream) },
	{ "device", offsetof(struct ev, device), NO_FLAG },
	{ "registers per thread", offsetof(struct ev, regs), NO_FLAG },
	{ "shared memory", offsetof(struct ev, smem), NO_FLAG },
	{ "In msg nelems", offsetof(struct ev, in_nelems),
	  offsetof(struct ev, has_in) },
	{ "Out msg nelems", offsetof(struct ev, out_nelems),
	  offsetof(struct ev, has_out) },
	{ "Group size", offsetof(struct ev, group), NO_FLAG },
};

/* A number of an event: converted only where a key the importer reads
 * wants it (most of a trace's numbers are ids and indices it skips). */
static void take_event_number(struct parser *p, const char *s, size_t n)
{
	char buf[64];
	struct ev *e = &p->ev;
	long long *dst = NULL;
	bool *has = NULL;
	double d;

	if (p->depth == 3) {
		const char *k = p->key3;

		if (key_is(k, "tid") || key_is(k, "pid")) {
			copy_small(buf, sizeof(buf), (const unsigned char *)s,
				   n);
			e->tid = lagom_fnv1a64_update(
				e->tid ? e->tid : LAGOM_FNV1A64_INIT, buf,
				strlen(buf));
			return;
		}
		if (!key_is(k, "ts") && !key_is(k, "dur"))
			return;
		copy_small(buf, sizeof(buf), (const unsigned char *)s, n);
		d = tr_to_double(buf);
		if (k[0] == 't')
			e->ts = d, e->has_ts = true;
		else
			e->dur = d, e->has_dur = true;
		return;
	}
	if (!p->in_args || p->depth > 6)
		return;
	if (p->depth == 4) {
		const char *k = p->key4;

		for (size_t i = 0; !dst && i < ARRAY_LEN(arg_numbers); i++) {
			const struct arg_number *a = &arg_numbers[i];

			if (!key_is(k, a->key))
				continue;
			dst = (long long *)((char *)e + a->at);
			if (a->has != NO_FLAG)
				has = (bool *)((char *)e + a->has);
		}
		if (!dst && !prefix(k, "dram__bytes") &&
		    !prefix(k, "smsp__sass_thread_inst_executed_op_"))
			return;
		copy_small(buf, sizeof(buf), (const unsigned char *)s, n);
		d = tr_to_double(buf);
		if (dst) {
			*dst = to_ll(d);
			if (has)
				*has = true;
		} else if (k[0] == 'd') {
			e->dram_bytes += d;
			e->has_dram = true;
		} else {
			e->flops += d;
		}
		return;
	}
	if (p->depth == 5) {
		bool grid = key_is(p->key4, "grid") && e->ngrid < 3;
		bool block = !grid && key_is(p->key4, "block") && e->nblock < 3;

		if (!grid && !block)
			return;
		copy_small(buf, sizeof(buf), (const unsigned char *)s, n);
		if (grid)
			e->grid[e->ngrid++] = to_ll(tr_to_double(buf));
		else
			e->block[e->nblock++] = to_ll(tr_to_double(buf));
		return;
	}
	if (p->depth == 6 && key_is(p->key4, "Input Dims") &&
	    p->ev.dims_arrays == 1) {
		long long v;

		copy_small(buf, sizeof(buf), (const unsigned char *)s, n);
		v = to_ll(tr_to_double(buf));
		if (v < 0 || (e->dims_prod && v > (1ll << 40) / e->dims_prod))
			e->dims_prod = 0;
		else
			e->dims_prod = e->dims_any ? e->dims_prod * v : v;
		e->dims_any = true;
	}
}

static void take_number(struct parser *p, const char *s, size_t n)
{
	char buf[64];
	long long v;
	double d;

	if (p->top == TOP_EVENTS) {
		if (in_event(p))
			take_event_number(p, s, n);
		return;
	}
	copy_small(buf, sizeof(buf), (const unsigned char *)s, n);
	d = tr_to_double(buf);
	v = to_ll(d);
	if (p->top == TOP_DEVICES && p->depth == 3) {
		struct lagom_trace_device *dv = &p->dev.dev;
		const char *k = p->key3;
		unsigned u = d >= 0 && d < 4e9 ? (unsigned)d : 0;
		if (key_is(k, "id"))
			p->dev.id = (int)v;
		else if (key_is(k, "numSms"))
			dv->sms = u;
		else if (key_is(k, "computeMajor"))
			dv->sm_arch += u * 10;
		else if (key_is(k, "computeMinor"))
			dv->sm_arch += u;
		else if (key_is(k, "maxThreadsPerMultiprocessor"))
			dv->max_threads_per_sm = u;
		else if (key_is(k, "regsPerMultiprocessor"))
			dv->regs_per_sm = u;
		else if (key_is(k, "sharedMemPerMultiprocessor"))
			dv->smem_per_sm = u;
		else if (key_is(k, "warpSize"))
			dv->warp_size = u;
		return;
	}
	if (p->top == TOP_DIST && p->depth == 2) {
		if (key_is(p->key3, "rank"))
			p->f->rank = (int)v;
		else if (key_is(p->key3, "world_size"))
			p->f->world_size = (int)v;
		return;
	}
	if (p->top == TOP_BASE && p->depth == 1)
		p->f->base_time_ns = d > 0 ? (uint64_t)d : 0;
}

static void take_string(struct parser *p, const unsigned char *s, size_t n)
{
	struct ev *e = &p->ev;

	if (p->top == TOP_DEVICES && p->depth == 3) {
		if (key_is(p->key3, "name"))
			copy_small(p->dev.name, sizeof(p->dev.name), s, n);
		else if (key_is(p->key3, "gcnArchName"))
			p->f->hip = true;
		return;
	}
	if (p->top == TOP_DIST && p->depth == 2) {
		if (key_is(p->key3, "nccl_version"))
			copy_small(p->f->nccl_version,
				   sizeof(p->f->nccl_version), s, n);
		else if (key_is(p->key3, "backend"))
			copy_small(p->f->backend, sizeof(p->f->backend), s, n);
		return;
	}
	if (!in_event(p))
		return;
	if (p->depth == 3) {
		const char *k = p->key3;
		if (key_is(k, "ph"))
			copy_small(e->ph, sizeof(e->ph), s, n);
		else if (key_is(k, "cat"))
			copy_small(e->cat, sizeof(e->cat), s, n);
		else if (key_is(k, "name")) {
			copy_small(e->name, sizeof(e->name), s, n);
			e->name_hash = lagom_fnv1a64(s, n);
			e->name_len = n;
		} else if (key_is(k, "tid") || key_is(k, "pid"))
			e->tid = lagom_fnv1a64_update(
				e->tid ? e->tid : LAGOM_FNV1A64_INIT, s, n);
		return;
	}
	if (p->depth == 4 && p->in_args) {
		const char *k = p->key4;
		if (key_is(k, "Collective name"))
			copy_small(e->coll, sizeof(e->coll), s, n);
		else if (key_is(k, "dtype"))
			copy_small(e->dtype, sizeof(e->dtype), s, n);
		else if (key_is(k, "Process Group Name"))
			copy_small(e->pg, sizeof(e->pg), s, n);
		return;
	}
	if (p->depth == 5 && p->in_args && key_is(p->key4, "Input type") &&
	    !e->in_type[0])
		copy_small(e->in_type, sizeof(e->in_type), s, n);
}

static int cb_null(void *ctx)
{
	return 1;
}

static int cb_bool(void *ctx, int b)
{
	return 1;
}

static int cb_number(void *ctx, const char *s, size_t n)
{
	take_number(ctx, s, n);
	return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	take_string(ctx, s, n);
	return 1;
}

static int open_container(struct parser *p, bool map)
{
	p->depth++;
	if (p->depth > LAGOM_TRACE_MAX_DEPTH)
		return fail(p, EINVAL, "JSON nesting deeper than 64 levels");
	if (p->depth == 1) {
		p->root_seen = true;
		p->f->is_object = map;
		return 1;
	}
	if (p->depth == 2 && p->top == TOP_EVENTS && !map)
		p->f->has_events = true;
	if (p->depth == 3 && p->top == TOP_EVENTS && map)
		memset(&p->ev, 0, sizeof(p->ev));
	if (p->depth == 3 && p->top == TOP_DEVICES && map)
		memset(&p->dev, 0, sizeof(p->dev));
	if (p->depth == 4 && in_event(p) && map && key_is(p->key3, "args"))
		p->in_args = true;
	if (p->depth == 6 && p->in_args && key_is(p->key4, "Input Dims"))
		p->ev.dims_arrays++;
	return 1;
}

static int close_container(struct parser *p)
{
	int rc = 1;

	if (p->depth == 3 && p->top == TOP_EVENTS)
		rc = finish_event(p);
	if (p->depth == 3 && p->top == TOP_DEVICES &&
	    p->f->ndevices < TR_MAX_DEVICES) {
		p->dev.dev.sm_arch = p->dev.dev.sm_arch;
		p->f->devices[p->f->ndevices++] = p->dev;
	}
	if (p->depth == 4)
		p->in_args = false;
	if (p->depth == 2)
		p->top = TOP_NONE;
	p->depth--;
	return rc;
}

static int cb_start_map(void *ctx)
{
	return open_container(ctx, true);
}

static int cb_end_map(void *ctx)
{
	return close_container(ctx);
}

static int cb_start_array(void *ctx)
{
	return open_container(ctx, false);
}

static int cb_end_array(void *ctx)
{
	return close_container(ctx);
}

static int cb_key(void *ctx, const unsigned char *s, size_t n)
{
	struct parser *p = ctx;

	if (p->depth == 1) {
		copy_small(p->key1, sizeof(p->key1), s, n);
		p->top = key_is(p->key1, "traceEvents")		  ? TOP_EVENTS
			 : key_is(p->key1, "deviceProperties")	  ? TOP_DEVICES
			 : key_is(p->key1, "distributedInfo")	  ? TOP_DIST
			 : key_is(p->key1, "baseTimeNanoseconds") ? TOP_BASE
								  : TOP_OTHER;
	} else if (p->depth == 2 || p->depth == 3)
		copy_small(p->key3, sizeof(p->key3), s, n);
	else if (p->depth == 4)
		copy_small(p->key4, sizeof(p->key4), s, n);
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_key,
	.yajl_end_map = cb_end_map,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end_array,
};

/* ------------------------------------------------------------------ */
/* Feeding: token-length guard, yajl, gzip.                            */

/* Bytes that end a number or literal token outside strings. */
static bool is_structural(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '[' ||
	       c == ']' || c == '{' || c == '}' || c == ',' || c == ':';
}

static int too_long(struct parser *p)
{
	fail(p, EINVAL,
	     p->in_string ? "a JSON string longer than 1 MiB"
			  : "a JSON token longer than 1 MiB");
	return -1;
}

/* What the guard must look at: in a string, the quote and the backslash;
 * outside, the quote and the bytes that end a token. */
enum {
	G_COUNT,
	G_QUOTE,
	G_BACKSLASH,
	G_END
};

struct guard_table {
	unsigned char in[256], out[256];
};

static const struct guard_table *guard_table(void)
{
	static struct guard_table t;
	static bool made;

	if (!made) { /* the same bytes every time: racing is harmless */
		for (int c = 0; c < 256; c++)
			t.out[c] = is_structural((unsigned char)c) ? G_END
								   : G_COUNT;
		t.out['"'] = G_QUOTE;
		t.in['"'] = G_QUOTE;
		t.in['\\'] = G_BACKSLASH;
		made = true;
	}
	return &t;
}

/* Whether the 8 bytes at b hold a quote or a backslash: a byte equal to
 * c is a zero byte of x ^ c..c, and (y - 0x01..01) & ~y & 0x80..80 is
 * nonzero exactly when y has a zero byte. */
static inline bool quote_or_backslash(const unsigned char *b)
{
	const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
	uint64_t x, q, s;

	memcpy(&x, b, sizeof(x));
	q = x ^ (ones * '"');
	s = x ^ (ones * '\\');
	return (((q - ones) & ~q) | ((s - ones) & ~s)) & highs;
}

/* The bytes of the 8 at b equal to c: the high bit of each such byte set
 * (exact per byte, so the bits can be counted). */
static inline uint64_t bytes_equal(uint64_t x, unsigned char c)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
	uint64_t y = x ^ (0x0101010101010101ull * c);

	return ~(((y & low7) + low7) | y | low7);
}

/* Whether one of the 8 bytes of x is c. */
static inline bool has_byte(uint64_t x, unsigned char c)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t y = x ^ (ones * c);

	return (y - ones) & ~y & (ones << 7);
}

/*
 * Every byte of a string but its closing quote counts towards its token,
 * and every byte of a number or literal; a table says which bytes change
 * the state, and the loops skip the others (most of a trace).  This is the
 * exact guard, byte by byte; with first_only it stops after the byte that
 * ends the token open at b.  The bytes looked at, or -1 after too_long().
 */
static ssize_t guard_exact(struct parser *p, const unsigned char *b, size_t n,
			   bool first_only)
{
	const struct guard_table *t = guard_table();
	size_t i = 0, start;

	while (i < n) {
		if (p->in_string && p->escape) {
			p->escape = false;
			p->token_len++;
			i++;
		} else if (p->in_string) {
			for (start = i;
			     i + 8 <= n && !quote_or_backslash(b + i); i += 8)
				;
			for (; i < n && t->in[b[i]] == G_COUNT; i++)
				;
			p->token_len += i - start;
			if (i < n && t->in[b[i]] == G_BACKSLASH) {
				p->escape = true;
				p->token_len++;
				i++;
			} else if (i < n && p->token_len <= TR_MAX_TOKEN) {
				p->in_string = false;
				p->token_len = 0;
				if (first_only)
					return (ssize_t)i + 1;
				i++;
			}
		} else {
			for (start = i; i < n && t->out[b[i]] == G_COUNT; i++)
				;
			p->token_len += i - start;
			if (p->token_len <= TR_MAX_TOKEN && i < n) {
				p->in_string = t->out[b[i]] == G_QUOTE;
				p->token_len = 0;
				if (first_only)
					return (ssize_t)i + 1;
				i++;
			}
		}
		if (p->token_len > TR_MAX_TOKEN)
			return too_long(p);
	}
	return (ssize_t)n;
}

/*
 * The guard of one chunk of at most TR_MAX_TOKEN bytes: only the token
 * open when it begins (carried from the chunks before) and the one open
 * when it ends (carried to the next) can be longer than the chunk, so the
 * tokens between them need not be measured, only the string state
 * followed: eight bytes without a backslash flip it once per quote.  The
 * last token's length is then counted back from the chunk's end.  The
 * same state, counts and errors as guard_exact() over the whole chunk.
 */
static int guard(struct parser *p, const unsigned char *b, size_t n)
{
	const struct guard_table *t = guard_table();
	const uint64_t highs = 0x8080808080808080ull;
	bool in_string, escape = false;
	ssize_t first;
	size_t i, k;

	if (n > TR_MAX_TOKEN)
		return guard_exact(p, b, n, false) < 0 ? -1 : 0;
	first = guard_exact(p, b, n, true);
	if (first < 0 || (size_t)first >= n)
		return first < 0 ? -1 : 0;
	/* the state through the middle: the token at b[first] is new */
	in_string = p->in_string;
	for (i = (size_t)first; i < n;) {
		uint64_t x, y;

		if (!escape && i + 16 <= n) {
			memcpy(&x, b + i, sizeof(x));
			memcpy(&y, b + i + 8, sizeof(y));
			if (!has_byte(x, '\\') && !has_byte(y, '\\')) {
				/* the quotes' count, odd or even: their high
				 * bits moved to the bytes' low bits, summed
				 * into the top byte */
				uint64_t q = (bytes_equal(x, '"') & highs) >> 7;

				q += (bytes_equal(y, '"') & highs) >> 7;
				in_string ^= (q * 0x0101010101010101ull) >> 56 &
					     1;
				i += 16;
				continue;
			}
		}
		if (escape)
			escape = false;
		else if (in_string && b[i] == '\\')
			escape = true;
		else if (b[i] == '"')
			in_string = !in_string;
		i++;
	}
	/* the last token: back to the byte that began it */
	if (in_string) {
		for (k = n; k > (size_t)first && b[k - 1] != '"'; k--)
			;
		/* a quote after a backslash may be escaped: count exactly */
		if (k > (size_t)first && k >= 2 && b[k - 2] == '\\')
			return guard_exact(p, b + first, n - (size_t)first,
					   false) < 0
				       ? -1
				       : 0;
	} else {
		for (k = n; k > (size_t)first && t->out[b[k - 1]] == G_COUNT;
		     k--)
			;
	}
	p->in_string = in_string;
	p->escape = escape;
	p->token_len = n - k;
	return 0;
}

static int feed(struct parser *p, yajl_handle h, const unsigned char *b,
		size_t n)
{
	yajl_status st;

	if (guard(p, b, n))
		return p->rc;
	st = yajl_parse(h, b, n);
	if (st == yajl_status_ok)
		return 0;
	if (p->rc)
		return p->rc;
	return lagom_errprintf(p->err, EINVAL, "not JSON (error near byte %zu)",
			       yajl_get_bytes_consumed(h));
}

struct source {
	int fd;
	const unsigned char *mem;
	size_t size, off;
	/* a file's reader reports its progress */
	lagom_trace_progress_fn progress;
	void *ctx;
	const char *path;
	uint64_t done, total;
};

static ssize_t source_read(struct source *s, unsigned char *buf, size_t n)
{
	ssize_t r;

	if (s->mem) {
		size_t k = s->size - s->off < n ? s->size - s->off : n;
		memcpy(buf, s->mem + s->off, k);
		s->off += k;
		return (ssize_t)k;
	}
	do
		r = read(s->fd, buf, n);
	while (r < 0 && errno == EINTR);
	if (r > 0 && s->progress) {
		s->done += (uint64_t)r;
		s->progress(s->ctx, s->path, s->done,
			    s->total > s->done ? s->total : s->done);
	}
	return r;
}

static int run_gzip(struct parser *p, yajl_handle h, struct source *src,
		    unsigned char *in, size_t have, unsigned char *out)
{
	z_stream z = { 0 };
	int zr = Z_OK, rc = 0;

	z.avail_out = 1; /* nothing pending yet */
	bool ended = false;
	ssize_t r;

	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return lagom_errprintf(p->err, ENOMEM, "zlib: out of memory");
	z.next_in = in;
	z.avail_in = (uInt)have;
	for (;;) {
		if (z.avail_in == 0 && (z.avail_out != 0 || ended)) {
			r = source_read(src, in, CHUNK);
			if (r < 0) {
				rc = lagom_errprintf(p->err, errno, "read: %s",
						     strerror(errno));
				break;
			}
			if (r == 0)
				break;
			z.next_in = in;
			z.avail_in = (uInt)r;
		}
		if (ended) { /* another gzip member follows */
			if (inflateReset(&z) != Z_OK)
				break;
			ended = false;
		}
		z.next_out = out;
		z.avail_out = CHUNK;
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			rc = lagom_errprintf(p->err, EINVAL,
					     "corrupt gzip data (%s)",
					     z.msg ? z.msg : "zlib error");
			break;
		}
		if ((rc = feed(p, h, out, CHUNK - z.avail_out)))
			break;
		ended = zr == Z_STREAM_END;
	}
	if (!rc && !ended)
		rc = lagom_errprintf(p->err, EINVAL,
				     "truncated gzip file (the stream ends "
				     "before its end marker)");
	inflateEnd(&z);
	return rc;
}

static int cmp_rpc(const void *a, const void *b)
{
	const struct tr_rpc_key *x = a, *y = b;

	if (x->ext != y->ext)
		return x->ext < y->ext ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static int cmp_encl(const void *a, const void *b)
{
	const struct tr_encl_key *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts_us != y->ts_us)
		return x->ts_us < y->ts_us ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* f->encl: the non-kernel records by thread and start (then order). */
static int index_encl(struct tr_file *f, struct lagom_error *err)
{
	size_t n = 0;

	for (size_t i = 0; i < f->ncomms; i++)
		n += f->comms[i].src != TR_SRC_KERNEL;
	if (n == 0)
		return 0;
	if (!(f->encl = malloc(n * sizeof(*f->encl))))
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < f->ncomms; i++) {
		const struct tr_comm *c = &f->comms[i];

		if (c->src == TR_SRC_KERNEL)
			continue;
		f->encl[f->nencl++] = (struct tr_encl_key){ .tid = c->tid,
							    .ts_us = c->ts_us,
							    .index = i };
		if (f->nencl == 1 || c->dur_us > f->encl_max_dur_us)
			f->encl_max_dur_us = c->dur_us;
	}
	qsort(f->encl, f->nencl, sizeof(*f->encl), cmp_encl);
	return 0;
}

/* f->rpc: the RPC records by External id (then by their order); and
 * f->encl. */
static int index_rpc(struct tr_file *f, struct lagom_error *err)
{
	size_t n = 0;

	for (size_t i = 0; i < f->ncomms; i++)
		n += f->comms[i].src == TR_SRC_RPC;
	if (n == 0)
		return index_encl(f, err);
	if (!(f->rpc = malloc(n * sizeof(*f->rpc))))
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < f->ncomms; i++)
		if (f->comms[i].src == TR_SRC_RPC)
			f->rpc[f->nrpc++] = (struct tr_rpc_key){
				.ext = f->comms[i].ext, .index = i
			};
	qsort(f->rpc, f->nrpc, sizeof(*f->rpc), cmp_rpc);
	return index_encl(f, err);
}

static int run(struct parser *p, struct source *src)
{
	unsigned char *in = malloc(CHUNK), *out = malloc(CHUNK);
	yajl_handle h = yajl_alloc(&callbacks, NULL, p);
	ssize_t r;
	int rc = 0;

	if (!in || !out || !h) {
		rc = lagom_errprintf(p->err, ENOMEM, "out of memory");
		goto out;
	}
	r = source_read(src, in, CHUNK);
	if (r < 0) {
		rc = lagom_errprintf(p->err, errno, "read: %s",
				     strerror(errno));
		goto out;
	}
	if (r >= 2 && in[0] == 0x1f && in[1] == 0x8b)
		rc = run_gzip(p, h, src, in, (size_t)r, out);
	else
		while (r > 0 && !(rc = feed(p, h, in, (size_t)r)))
			r = source_read(src, in, CHUNK);
	if (!rc && r < 0)
		rc = lagom_errprintf(p->err, errno, "read: %s",
				     strerror(errno));
	if (!rc && yajl_complete_parse(h) != yajl_status_ok)
		rc = p->rc ? p->rc
			   : lagom_errprintf(p->err, EINVAL,
					     "not JSON (the document ends "
					     "early)");
	if (!rc && !p->root_seen)
		rc = lagom_errprintf(p->err, EINVAL, "not JSON (empty)");
	if (!rc)
		rc = index_rpc(p->f, p->err);
out:
	if (h)
		yajl_free(h);
	free(in);
	free(out);
	return rc;
}

static void init(struct parser *p, struct tr_file *f, struct lagom_error *err)
{
	memset(f, 0, sizeof(*f));
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->err = err;
	f->rank = -1;
	f->world_size = 0;
}

int tr_parse_file_progress(const char *path, lagom_trace_progress_fn progress,
			   void *ctx, struct tr_file *f,
			   struct lagom_error *err)
{
	struct parser *p = malloc(sizeof(*p));
	struct source src = {
		.fd = -1, .progress = progress, .ctx = ctx, .path = path
	};
	struct stat st;
	int rc;

	if (!p)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	init(p, f, err);
	src.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (src.fd < 0) {
		rc = lagom_errprintf(err, errno, "%s", strerror(errno));
		free(p);
		return rc;
	}
	if (fstat(src.fd, &st) == 0 && st.st_size > 0)
		src.total = (uint64_t)st.st_size;
	rc = run(p, &src);
	if (rc == 0 && progress)
		progress(ctx, path, src.done, src.done);
	close(src.fd);
	free(p);
	return rc;
}

int tr_parse_file(const char *path, struct tr_file *f, struct lagom_error *err)
{
	return tr_parse_file_progress(path, NULL, NULL, f, err);
}

int tr_parse_buffer(const void *data, size_t size, struct tr_file *f,
		    struct lagom_error *err)
{
	struct parser *p = malloc(sizeof(*p));
	struct source src = { .fd = -1, .mem = data, .size = size };
	int rc;

	if (!p)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	init(p, f, err);
	if (size == 0)
		rc = lagom_errprintf(err, EINVAL, "not JSON (empty)");
	else
		rc = run(p, &src);
	free(p);
	return rc;
}

void tr_file_free(struct tr_file *f)
{
	if (!f)
		return;
	free(f->gpu);
	free(f->rt);
	free(f->comms);
	free(f->names);
	free(f->name_index);
	free(f->syncs);
	free(f->sync_kind);
	free(f->rpc);
	free(f->encl);
	memset(f, 0, sizeof(*f));
}
