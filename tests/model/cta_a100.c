/*
 * tests/model/cta_a100.c - what one CTA carries, against the A100 CTA sweep
 * (tests/fixtures/measurements/overlap-cta-sweep-a100.csv; doc/model.md
 * 2.8).
 *
 *   cta_a100 [--check] [--ch-GBps C] CSV
 *
 * The sweep: 8 x A100-SXM4-80GB on NVSwitch, an N x N fp32 matmul beside an
 * all-reduce of B bytes, mean iteration time at k = 1..32 CTAs, per
 * algorithm/protocol (auto = NCCL's choice).  Its points compose serially:
 * the iteration is the matmul plus the all-reduce at k CTAs (at 64 MiB:
 * 14.2 ms at 1 CTA, 9.0 at 12), so the check is of the collective's time
 * over k, which is what the channel rate prices.  Prediction of a row:
 * tau(N) + x(k), x = lagom_coll_predict() of the row's all-reduce on
 * lagom_hw_from_spec("A100-SXM") (auto: lagom_nccl_default()'s algorithm
 * and protocol; tree/ring as named), tau(N) the matmul alone, the one
 * fitted number per N: the median of (measured - x) over the training rows.
 *
 * In-sample: tau from every row of N.  Left out: for N = 4096 (four
 * message sizes) each size's rows predicted with tau fitted on the other
 * sizes; for N = 2048 and 6144 (one size) each algorithm/protocol curve
 * predicted with tau from the other curves.  Baseline: the same split,
 * predicting every left-out row by the training rows' median (CTAs do not
 * matter).  Noise: the spread of the 1 MiB rows of N = 4096, where the
 * collective is 0.1 ms of 8.5: the median |t / median - 1|.
 *
 * --check exits 1 unless the left-out median error is within the
 * tolerance (2 x the noise) and below the baseline's, and the 64 MiB
 * curves of NCCL's choice and of ring/simple (what plans pin) are within
 * 10 % at every k (where the channel rate decides).  Every curve's worst
 * is printed: tree and LL128 at 1-2 CTAs are slower than the model's
 * protocol factors say (up to 14 %), not checked.
 * --ch-GBps C replaces the model's channel rate (hw.ch_Bps) to show the
 * check can fail (e.g. 45, the Blackwell ceiling).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

#define MAX_ROWS 512
#define TOL_NOISE 2.0
#define TOL_64MIB 0.10

struct row {
	unsigned n;	 /* matmul size */
	uint64_t bytes;	 /* all-reduce */
	int algo, proto; /* -1 = auto */
	unsigned ctas;
	double t_ms;
	double x_ms; /* predicted collective */
};

static int field(const char *line, int idx, char *out, size_t len)
{
	int f = 0;
	bool q = false;
	size_t o = 0;

	for (const char *p = line; *p && *p != '\n'; p++) {
		if (*p == '"') {
			q = !q;
		} else if (*p == ',' && !q) {
			if (f++ == idx)
				break;
		} else if (f == idx && o + 1 < len) {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	return f >= idx ? 0 : -1;
}

static int parse_row(const char *line, struct row *r)
{
	char compute[96], bytes[32], algo[16], proto[16], ctas[8], t[16];
	enum lagom_algo a;
	enum lagom_proto p;

	if (field(line, 5, compute, sizeof(compute)) ||
	    field(line, 6, bytes, sizeof(bytes)) ||
	    field(line, 7, algo, sizeof(algo)) ||
	    field(line, 8, proto, sizeof(proto)) ||
	    field(line, 9, ctas, sizeof(ctas)) || field(line, 10, t, sizeof(t)))
		return -1;
	r->n = (unsigned)strtoul(compute, NULL, 10);
	r->bytes = strtoull(bytes, NULL, 10);
	r->ctas = (unsigned)strtoul(ctas, NULL, 10);
	r->t_ms = strtod(t, NULL);
	r->algo = r->proto = -1;
	if (strcmp(algo, "auto") != 0) {
		if (lagom_algo_parse(algo, &a) || lagom_proto_parse(proto, &p))
			return -1;
		r->algo = (int)a;
		r->proto = (int)p;
	}
	return r->n && r->bytes && r->ctas && r->t_ms > 0 ? 0 : -1;
}

static int predict(const struct lagom_hw *hw, struct row *r)
{
	struct lagom_comm comm = { .ranks = 8,
				   .nodes = 1,
				   .ranks_per_node = 8 };
	struct lagom_coll_config c;
	struct lagom_coll_time t;
	struct lagom_error err = { 0 };

	if (lagom_nccl_default(hw, &comm, LAGOM_COLL_ALLREDUCE, r->bytes, &c,
			       &err)) {
		fprintf(stderr, "cta_a100: %s\n", err.text);
		return -1;
	}
	if (r->algo >= 0) {
		c.algo = (enum lagom_algo)r->algo;
		c.proto = (enum lagom_proto)r->proto;
		c.chunk_bytes = 0;
	}
	c.nchannels = r->ctas;
	if (lagom_coll_predict(hw, &comm, LAGOM_COLL_ALLREDUCE, r->bytes, &c,
			       &t, &err)) {
		fprintf(stderr, "cta_a100: %s\n", err.text);
		return -1;
	}
	r->x_ms = t.time_s * 1e3;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A curve: one (N, bytes, algo, proto). */
static bool same_curve(const struct row *a, const struct row *b)
{
	return a->n == b->n && a->bytes == b->bytes && a->algo == b->algo &&
	       a->proto == b->proto;
}

/* Whether row j trains the prediction of row i's fold. */
static bool trains(const struct row *rows, size_t i, size_t j, bool loo,
		   bool multi_size)
{
	if (rows[j].n != rows[i].n)
		return false;
	if (!loo)
		return true;
	if (multi_size)
		return rows[j].bytes != rows[i].bytes;
	return !same_curve(&rows[i], &rows[j]);
}

struct errs {
	double model, baseline;
	double worst64;	    /* 64 MiB, NCCL's choice and ring/simple */
	double worst64_all; /* 64 MiB, every curve */
};

static void evaluate(const struct row *rows, size_t n, bool loo, struct errs *e)
{
	double *em = calloc(n, sizeof(double)), *eb = calloc(n, sizeof(double));
	double *tr = calloc(n, sizeof(double)), *tb = calloc(n, sizeof(double));

	e->worst64 = e->worst64_all = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0, sizes = 0;
		double tau, base, pred;

		for (size_t j = 0; j < n; j++)
			if (rows[j].n == rows[i].n &&
			    rows[j].bytes != rows[i].bytes)
				sizes++;
		for (size_t j = 0; j < n; j++)
			if (trains(rows, i, j, loo, sizes > 0)) {
				tr[k] = rows[j].t_ms - rows[j].x_ms;
				tb[k++] = rows[j].t_ms;
			}
		tau = median(tr, k);
		base = median(tb, k);
		pred = tau + rows[i].x_ms;
		em[i] = fabs(pred / rows[i].t_ms - 1);
		eb[i] = fabs(base / rows[i].t_ms - 1);
		if (rows[i].bytes != 64u << 20)
			continue;
		e->worst64_all = fmax(e->worst64_all, em[i]);
		if (rows[i].algo < 0 || (rows[i].algo == LAGOM_ALGO_RING &&
					 rows[i].proto == LAGOM_PROTO_SIMPLE))
			e->worst64 = fmax(e->worst64, em[i]);
	}
	e->model = median(em, n);
	e->baseline = median(eb, n);
	free(em);
	free(eb);
	free(tr);
	free(tb);
}

static double noise(const struct row *rows, size_t n)
{
	double *v = calloc(n, sizeof(double)), m, r;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (rows[i].n == 4096 && rows[i].bytes == 1u << 20)
			v[k++] = rows[i].t_ms;
	m = median(v, k);
	for (size_t i = 0; i < k; i++)
		v[i] = fabs(v[i] / m - 1);
	r = median(v, k);
	free(v);
	return r;
}

static void print_curves(const struct row *rows, size_t n)
{
	printf("64 MiB all-reduce beside the 4096^3 matmul, auto: k, measured "
	       "ms, predicted collective ms\n");
	for (size_t i = 0; i < n; i++)
		if (rows[i].bytes == 64u << 20 && rows[i].algo < 0)
			printf("  k %2u  %7.3f  x %6.3f\n", rows[i].ctas,
			       rows[i].t_ms, rows[i].x_ms);
}

int main(int argc, char **argv)
{
	static struct row rows[MAX_ROWS];
	const char *path = NULL;
	bool check = false;
	double ch_GBps = 0, tol, nz;
	struct lagom_hw hw;
	struct errs in, out;
	char line[1024];
	size_t n = 0;
	FILE *f;
	bool ok;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--check") == 0)
			check = true;
		else if (strcmp(argv[i], "--ch-GBps") == 0 && i + 1 < argc)
			ch_GBps = strtod(argv[++i], NULL);
		else
			path = argv[i];
	}
	if (!path || !(f = fopen(path, "r")))
		return fprintf(stderr, "usage: cta_a100 [--check] "
				       "[--ch-GBps C] CSV\n"),
		       2;
	if (lagom_hw_from_spec("A100-SXM", 8, LAGOM_INTRA_DEFAULT, 0, 0, &hw,
			       NULL))
		return 2;
	hw.ch_Bps = ch_GBps * 1e9;
	if (!fgets(line, sizeof(line), f))
		return 2;
	while (n < MAX_ROWS && fgets(line, sizeof(line), f))
		if (parse_row(line, &rows[n]) == 0 &&
		    predict(&hw, &rows[n]) == 0)
			n++;
	fclose(f);
	evaluate(rows, n, false, &in);
	evaluate(rows, n, true, &out);
	nz = noise(rows, n);
	tol = TOL_NOISE * nz;
	printf("rows %zu; one channel %.1f GB/s; noise (1 MiB rows) %.1f %%\n",
	       n,
	       lagom_channel_Bps(&hw,
				 &(struct lagom_comm){ .ranks = 8,
						       .nodes = 1,
						       .ranks_per_node = 8 }) /
		       1e9,
	       nz * 100);
	printf("median |error|   in-sample %5.1f %%   left-out %5.1f %%   "
	       "baseline (CTAs ignored) left-out %5.1f %%\n",
	       in.model * 100, out.model * 100, out.baseline * 100);
	printf("64 MiB rows: worst left-out |error| %.1f %% (NCCL's choice and "
	       "ring/simple), %.1f %% (every curve: tree and LL128 move less "
	       "per CTA than the model's protocol factors say)\n",
	       out.worst64 * 100, out.worst64_all * 100);
	print_curves(rows, n);
	ok = n == 280 && out.model <= tol && out.model < out.baseline &&
	     out.worst64 <= TOL_64MIB;
	printf("check: left-out %.1f %% <= %.1f %% (2 x noise), below the "
	       "baseline, 64 MiB within %.0f %%: %s\n",
	       out.model * 100, tol * 100, TOL_64MIB * 100,
	       ok ? "ok" : "FAILED");
	return check && !ok ? 1 : 0;
}
