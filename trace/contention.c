/*
 * trace/contention.c - what the trace measured about contention
 * (doc/workload-import.md, "Contention table"): compute kernels of one kind
 * (same name, grid and block) seen alone (overlapping no NCCL kernel) and
 * beside an NCCL kernel (entirely inside one), with at least
 * LAGOM_TRACE_MIN_SAMPLES samples on each side; slowdown = median beside /
 * median alone.  The same alone medians give the workload's alone times.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_int.h"

#define MAX_ROWS 4096

struct item {
	size_t gi;	/* index in f->gpu */
	long container; /* NCCL kernel it lies inside, -1 none */
	/* the kernel's kind, copied so the sort reads the items alone */
	uint32_t name, grid, block;
	bool beside; /* overlaps some NCCL kernel */
};

struct ctx {
	const struct tr_file *f;
	const struct tr_gpu **nccl; /* by ts */
	double *max_end;	    /* prefix max of ends */
	size_t nnccl;
};

static int cmp_ptr_ts(const void *a, const void *b)
{
	const struct tr_gpu *x = *(const struct tr_gpu *const *)a;
	const struct tr_gpu *y = *(const struct tr_gpu *const *)b;
	return (x->ts_us > y->ts_us) - (x->ts_us < y->ts_us);
}

static int cmp_kind(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->grid != y->grid)
		return x->grid < y->grid ? -1 : 1;
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return (x->gi > y->gi) - (x->gi < y->gi);
}

static bool same_kind(const struct tr_gpu *x, const struct tr_gpu *y)
{
	return x->name == y->name && x->grid == y->grid && x->block == y->block;
}

static void classify(const struct ctx *c, struct item *it)
{
	const struct tr_gpu *k = &c->f->gpu[it->gi];
	double s = k->ts_us, e = k->ts_us + k->dur_us;
	size_t lo = 0, hi = c->nnccl;

	it->container = -1;
	it->beside = false;
	while (lo < hi) { /* first NCCL kernel starting at or after e */
		size_t mid = lo + (hi - lo) / 2;
		if (c->nccl[mid]->ts_us < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo; j-- > 0;) {
		const struct tr_gpu *n = c->nccl[j];
		if (c->max_end[j] <= s)
			break;
		if (n->ts_us + n->dur_us <= s)
			continue;
		it->beside = true;
		if (n->ts_us <= s && n->ts_us + n->dur_us >= e)
			it->container = (long)j;
	}
}

static int setup(struct ctx *c, const struct tr_file *f, int dev_id,
		 struct item **items, size_t *nitems)
{
	size_t n = 0, m = 0;

	c->f = f;
	c->nccl = calloc(f->ngpu + 1, sizeof(*c->nccl));
	c->max_end = calloc(f->ngpu + 1, sizeof(*c->max_end));
	*items = calloc(f->ngpu + 1, sizeof(**items));
	if (!c->nccl || !c->max_end || !*items)
		return -ENOMEM;
	for (size_t i = 0; i < f->ngpu; i++) {
		if (f->gpu[i].device != dev_id)
			continue;
		if (f->gpu[i].kind == TR_NCCL)
			c->nccl[n++] = &f->gpu[i];
		else if (f->gpu[i].kind == TR_COMPUTE)
			(*items)[m++] = (struct item){
				.gi = i,
				.name = f->gpu[i].name,
				.grid = f->gpu[i].grid,
				.block = f->gpu[i].block,
			};
	}
	c->nnccl = n;
	qsort(c->nccl, n, sizeof(*c->nccl), cmp_ptr_ts);
	for (size_t j = 0; j < n; j++) {
		double e = c->nccl[j]->ts_us + c->nccl[j]->dur_us;
		c->max_end[j] = j && c->max_end[j - 1] > e ? c->max_end[j - 1]
							   : e;
	}
	for (size_t i = 0; i < m; i++)
		classify(c, &(*items)[i]);
	qsort(*items, m, sizeof(**items), cmp_kind);
	*nitems = m;
	return 0;
}

static void teardown(struct ctx *c)
{
	free(c->nccl);
	free(c->max_end);
}

/* Samples of one kind must measure one piece of work: their interquartile
 * range within LAGOM_TRACE_MAX_SPREAD of the median (v sorted). */
static bool consistent(const double *v, size_t n)
{
	double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return med > 0 &&
	       (v[(3 * n) / 4] - v[n / 4]) <= LAGOM_TRACE_MAX_SPREAD * med;
}

/* Median alone duration of the kind [a, b) of items; NAN below the
 * minimum sample count or when the samples are not consistent.  buf has
 * room for b - a values. */
static double alone_median(const struct ctx *c, const struct item *it, size_t a,
			   size_t b, double *buf, unsigned *count)
{
	size_t n = 0;
	double med;

	for (size_t i = a; i < b; i++)
		if (!it[i].beside)
			buf[n++] = c->f->gpu[it[i].gi].dur_us;
	*count = (unsigned)n;
	if (n < LAGOM_TRACE_MIN_SAMPLES)
		return NAN;
	med = tr_median(buf, n);
	return consistent(buf, n) ? med : NAN;
}

double *tr_alone_estimates(const struct tr_file *f, int dev_id)
{
	double *est = calloc(f->ngpu + 1, sizeof(*est)), *buf = NULL;
	struct item *it = NULL;
	struct ctx c = { 0 };
	size_t n = 0;

	if (!est || setup(&c, f, dev_id, &it, &n) ||
	    !(buf = calloc(n + 1, sizeof(*buf)))) {
		free(est);
		est = NULL;
		goto out;
	}
	for (size_t i = 0; i < f->ngpu; i++)
		est[i] = f->gpu[i].dur_us;
	for (size_t a = 0, b; a < n; a = b) {
		unsigned count;
		double med;
		for (b = a + 1;
		     b < n && same_kind(&f->gpu[it[a].gi], &f->gpu[it[b].gi]);
		     b++)
			;
		med = alone_median(&c, it, a, b, buf, &count);
		for (size_t i = a; i < b; i++)
			if (it[i].beside)
				est[it[i].gi] = med;
	}
out:
	free(buf);
	free(it);
	teardown(&c);
	return est;
}

static enum lagom_coll nccl_op(const struct tr_file *f, const struct tr_gpu *k)
{
	const struct tr_comm *s = tr_size_of(f, k);
	enum lagom_coll op = LAGOM_COLL_ALLREDUCE;

	if (s && s->op_known)
		return s->op;
	if (tr_coll_from_name(f->names[k->name].text, &op))
		return op;
	return LAGOM_COLL_COUNT;
}

/* A beside sample: the NCCL kernel's group key, then what is measured. */
enum {
	B_OP,
	B_CH,
	B_THR,
	B_PROTO,
	B_SIZE,
	B_KEYS,
	B_DUR = B_KEYS,
	B_BYTES,
	B_BPS,
	B_N
};

static int cmp_beside(const void *a, const void *b)
{
	const double *x = a, *y = b;
	for (int i = 0; i <= B_DUR; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static bool same_group(const double *x, const double *y)
{
	for (int i = 0; i < B_KEYS; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

/* Median of field i of the samples bs[s..e) (scratch: e - s values). */
static double field_median(const double (*bs)[B_N], size_t s, size_t e, int i,
			   double *scratch)
{
	for (size_t j = s; j < e; j++)
		scratch[j - s] = bs[j][i];
	return tr_median(scratch, e - s);
}

/* Fill sample v from compute kernel k inside NCCL kernel nk. */
static void beside_sample(const struct tr_file *f, const struct tr_gpu *nk,
			  const struct tr_gpu *k, double *v)
{
	const struct tr_comm *s = tr_size_of(f, nk);
	enum lagom_coll op = nccl_op(f, nk);
	uint64_t bytes = 0;

	if (s && op < LAGOM_COLL_COUNT)
		bytes = tr_coll_bytes(op, s);
	v[B_OP] = op;
	v[B_CH] = nk->grid;
	v[B_THR] = nk->block;
	v[B_PROTO] = tr_nccl_proto(f->names[nk->name].text, nk->block);
	v[B_SIZE] = bytes ? floor(log2((double)bytes)) : -1;
	v[B_DUR] = k->dur_us;
	v[B_BYTES] = (double)bytes;
	v[B_BPS] = bytes && nk->dur_us > 0 ? bytes / (nk->dur_us * 1e-6) : 0;
}

/* Rows of one kind: beside samples grouped by (op, channels, threads,
 * protocol, power of two of the collective's bytes). */
static int kind_rows(const struct ctx *c, const struct item *it, size_t a,
		     size_t b, double *buf, const struct lagom_trace_device *d,
		     struct lagom_trace_import *imp)
{
	const struct tr_file *f = c->f;
	const struct tr_gpu *k0 = &f->gpu[it[a].gi];
	double(*bs)[B_N] = (double(*)[B_N])buf, alone, *scratch;
	unsigned alone_n;
	size_t n = 0;

	for (size_t i = a; i < b; i++)
		if (it[i].container >= 0)
			beside_sample(f, c->nccl[it[i].container],
				      &f->gpu[it[i].gi], bs[n++]);
	if (n < LAGOM_TRACE_MIN_SAMPLES)
		return 0;
	scratch = buf + B_N * n;
	qsort(bs, n, sizeof(*bs), cmp_beside);
	alone = alone_median(c, it, a, b, scratch, &alone_n);
	if (isnan(alone) || !(alone > 0))
		return 0;
	for (size_t s = 0, e; s < n; s = e) {
		struct lagom_trace_contention *r;
		double med;
		for (e = s + 1; e < n && same_group(bs[e], bs[s]); e++)
			;
		if (e - s < LAGOM_TRACE_MIN_SAMPLES ||
		    bs[s][B_OP] >= LAGOM_COLL_COUNT || imp->nrows >= MAX_ROWS)
			continue;
		for (size_t i = s; i < e; i++)
			scratch[i - s] = bs[i][B_DUR];
		/* tr_median() sorts, as consistent() needs */
		med = tr_median(scratch, e - s);
		if (!consistent(scratch, e - s))
			continue;
		r = &imp->rows[imp->nrows++];
		*r = (struct lagom_trace_contention){
			.grid_blocks = k0->grid,
			.block_threads = k0->block,
			.blocks_per_sm = lagom_trace_blocks_per_sm(
				d, k0->block, k0->regs, k0->smem),
			.mem_bound = f->names[k0->name].mem_bound,
			.nccl_op = (enum lagom_coll)bs[s][B_OP],
			.nccl_channels = (unsigned)bs[s][B_CH],
			.nccl_threads = (unsigned)bs[s][B_THR],
			.nccl_proto = (enum lagom_proto)bs[s][B_PROTO],
			.nccl_size_log2 = (int)bs[s][B_SIZE],
			.nccl_bytes = (uint64_t)field_median(bs, s, e, B_BYTES,
							     scratch),
			.nccl_Bps = field_median(bs, s, e, B_BPS, scratch),
			.alone_n = alone_n,
			.beside_n = (unsigned)(e - s),
			.alone_us = alone,
			.beside_us = med,
			.slowdown = med / alone,
			.plausible = med / alone >= 1 - LAGOM_FIT_NOISE,
		};
		memcpy(r->kernel, f->names[k0->name].text,
		       sizeof(r->kernel) - 1);
		r->kernel_hash = f->names[k0->name].hash;
	}
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct lagom_trace_contention *x = a, *y = b;
	int s = strcmp(x->kernel, y->kernel);
	if (s)
		return s;
	if (x->kernel_hash != y->kernel_hash)
		return x->kernel_hash < y->kernel_hash ? -1 : 1;
	if (x->grid_blocks != y->grid_blocks)
		return x->grid_blocks < y->grid_blocks ? -1 : 1;
	if (x->block_threads != y->block_threads)
		return x->block_threads < y->block_threads ? -1 : 1;
	if (x->nccl_op != y->nccl_op)
		return x->nccl_op < y->nccl_op ? -1 : 1;
	if (x->nccl_channels != y->nccl_channels)
		return x->nccl_channels < y->nccl_channels ? -1 : 1;
	if (x->nccl_threads != y->nccl_threads)
		return x->nccl_threads < y->nccl_threads ? -1 : 1;
	if (x->nccl_proto != y->nccl_proto)
		return x->nccl_proto < y->nccl_proto ? -1 : 1;
	return (x->nccl_size_log2 > y->nccl_size_log2) -
	       (x->nccl_size_log2 < y->nccl_size_log2);
}

int tr_contention(const struct tr_file *f, const struct lagom_trace_device *d,
		  int dev_id, struct lagom_trace_import *imp,
		  struct lagom_error *err)
{
	struct item *it = NULL;
	struct ctx c = { 0 };
	double *buf = NULL;
	size_t n = 0;
	int rc = 0;

	imp->rows = calloc(MAX_ROWS, sizeof(*imp->rows));
	if (!imp->rows || setup(&c, f, dev_id, &it, &n) ||
	    !(buf = calloc((B_N + 1) * n + 1, sizeof(*buf)))) {
		rc = lagom_errprintf(err, ENOMEM, "out of memory");
		goto out;
	}
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1;
		     b < n && same_kind(&f->gpu[it[a].gi], &f->gpu[it[b].gi]);
		     b++)
			;
		kind_rows(&c, it, a, b, buf, d, imp);
	}
	qsort(imp->rows, imp->nrows, sizeof(*imp->rows), cmp_row);
out:
	free(buf);
	free(it);
	teardown(&c);
	return rc;
}
