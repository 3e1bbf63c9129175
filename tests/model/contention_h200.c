/*
 * tests/model/contention_h200.c - the built-in contention model beside the
 * H200 curves (doc/model.md 4).
 *
 *   contention_h200 [--check] [--resident R] [--l2-ungated] CSV PROFILE
 *                   [H100_CSV]
 *
 * CSV: bench/nccl_contention's table (tests/gpu/h200-2026-11-26/contention/
 * contention_nccl.csv): the bf16 8192^3 GEMM beside real NCCL all-reduce
 * kernels holding k channels: "idle" (one rank's kernel resident, waiting:
 * k CTAs, no traffic), plain and under MPS, and "moving" under MPS (both
 * ranks' kernels looping: 2k CTAs, traffic 2 x lagom_coll_mem_bytes() of
 * the rank's 256 MiB all-reduce at the measured rate).  The plain moving
 * column is the two processes time-slicing the GPU, not contention: unused.
 * PROFILE: lagom-prolog's profile of the same GPU; its curve (the same GEMM
 * beside the probe's hold kernel, k CTAs copying their chunk through L2) is
 * printed beside the model, not checked (doc/model.md 4 says why).
 *
 * The model: lagom_compute_time_rate() on lagom_hw_from_spec("H200") with
 * the GEMM as the model sees it (4096 blocks of 128 x 128, one per SM,
 * memory-bound share 0.2) and NCCL's ring/simple chunk.  The resident
 * constant is refitted here: least squares of log(predicted / measured)
 * over the 18 NCCL points, on a grid of 0.001 (--resident R evaluates R
 * instead of the built-in).  The chunk L2 term is the built-in's, gated by
 * the collective's traffic (x 0.25-0.36 % here: shut); --l2-ungated takes
 * the gate off (the term as before #26: 64 x 2 MiB chunks past the knee).
 *
 * H100_CSV: the same bench on an H100 (tests/gpu/h100-2026-11-27/
 * contention/contention_nccl.csv) with three kernels and a "hog" (k CTAs
 * copying through HBM as fast as they can, rate measured): printed, not
 * checked: the 8192^3 GEMM beside the model as above (lagom_hw_from_spec
 * ("H100-SXM")); the other kernels' idle curves; and per k the hog's x
 * (its rate alone / the triad's rate alone) with the GEMM's and the
 * triad's slowdown beside the hog over their slowdown beside NCCL's idle
 * kernel at the same k (the traffic's own share) next to the model's rate
 * term, and the least-squares coefficient of (that ratio - 1) on x for
 * each kernel (doc/model.md 4: the HBM term).
 *
 * --check exits 1 unless every NCCL point is within CHECK_REL (5 %) of the
 * model and the built-in constant is the fit (within CHECK_FIT).  Each
 * criterion prints a "check:" line ending "ok" or "FAILED".
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "profile/profile.h"

#define MAX_PTS 64
#define PROBE_BLOCKS 4096 /* (8192 / 128)^2 tiles, as profile/profile_hw.c */
#define PROBE_MEM_BOUND 0.2
#define AR_BYTES (256.0 * 1024 * 1024) /* bench/nccl_contention's size */
#define CHECK_REL 0.05
#define CHECK_FIT 0.001 /* the built-in is the fit */

struct point {
	const char *what; /* "idle plain", "idle mps", "moving mps" */
	unsigned ctas;
	double mem_Bps; /* HBM traffic of the NCCL kernels beside */
	double measured;
	double model;
};

static struct point pts[MAX_PTS];
static size_t npts;

static int model_at(const struct lagom_hw *hw, unsigned ctas, double mem_Bps,
		    double *out)
{
	const struct lagom_kernel k = { .time_s = 1.0,
					.grid_blocks = PROBE_BLOCKS,
					.blocks_per_sm = 1,
					.mem_bound = PROBE_MEM_BOUND };
	struct lagom_error err = { 0 };
	uint64_t chunk = lagom_chunk_default_bytes(LAGOM_ALGO_RING,
						   LAGOM_PROTO_SIMPLE);

	if (lagom_compute_time_rate(hw, &k, ctas, chunk, mem_Bps, out, &err)) {
		fprintf(stderr, "contention_h200: %s\n", err.text);
		return -1;
	}
	return 0;
}

static void add(const char *what, unsigned ctas, double mem_Bps, double s)
{
	if (npts < MAX_PTS)
		pts[npts++] = (struct point){ .what = what,
					      .ctas = ctas,
					      .mem_Bps = mem_Bps,
					      .measured = s };
}

/* The CSV's rows: mode,k,nc,algo,proto,alone,idle_ms,idle_x,moving_ms,
 * moving_x,after,calls,GBps,held,covered. */
static int read_csv(const char *path)
{
	struct lagom_comm pair = { .ranks = 2,
				   .nodes = 2,
				   .ranks_per_node = 1 };
	double per_byte = lagom_coll_mem_bytes(&pair, LAGOM_COLL_ALLREDUCE,
					       (uint64_t)AR_BYTES,
					       LAGOM_PROTO_SIMPLE) /
			  AR_BYTES;
	char line[512], mode[16];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned k, nc;
		double idle, moving, GBps;

		if (sscanf(line,
			   "%15[a-z],%u,%u,%*[A-Z],%*[A-Z],%*f,%*f,%lf,%*f,"
			   "%lf,%*f,%*u,%lf",
			   mode, &k, &nc, &idle, &moving, &GBps) != 6)
			continue;
		n++;
		if (strcmp(mode, "plain") == 0) {
			add("idle plain", k, 0, idle);
		} else if (strcmp(mode, "mps") == 0) {
			add("idle mps", k, 0, idle);
			/* both ranks' kernels on this GPU */
			add("moving mps", 2 * k, 2 * per_byte * GBps * 1e9,
			    moving);
		}
	}
	fclose(f);
	return n == 12 ? 0 : -1;
}

static int eval(const struct lagom_hw *hw, double *sq, double *worst)
{
	*sq = 0;
	*worst = 0;
	for (size_t i = 0; i < npts; i++) {
		double e;

		if (model_at(hw, pts[i].ctas, pts[i].mem_Bps, &pts[i].model))
			return -1;
		e = log(pts[i].model / pts[i].measured);
		*sq += e * e;
		*worst = fmax(*worst, fabs(pts[i].model / pts[i].measured - 1));
	}
	return 0;
}

#define MAX_H100 64
struct h100_row {
	char mode[16], kernel[64];
	unsigned k;
	double idle, moving, GBps, alone_rate, hog_x, hog_alone_GBps;
};

static int read_h100(const char *path, struct h100_row *rows, size_t *n)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return -1;
	}
	*n = 0;
	while (fgets(line, sizeof(line), f) && *n < MAX_H100) {
		struct h100_row *r = &rows[*n];

		if (sscanf(line,
			   "%15[a-z],%u,%*u,%*[A-Z],%*[A-Z],%*f,%*f,%lf,%*f,"
			   "%lf,%*f,%*u,%lf,%*u,%*u,%63[^,],%*[^,],%*f,%lf,"
			   "%*f,%*f,%*u,%*f,%lf,%*f,%lf",
			   r->mode, &r->k, &r->idle, &r->moving, &r->GBps,
			   r->kernel, &r->alone_rate, &r->hog_x,
			   &r->hog_alone_GBps) == 9)
			(*n)++;
	}
	fclose(f);
	return *n == 36 ? 0 : -1;
}

static const struct h100_row *h100_find(const struct h100_row *rows, size_t n,
					const char *mode, unsigned k,
					const char *kernel)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].mode, mode) == 0 && rows[i].k == k &&
		    strncmp(rows[i].kernel, kernel, strlen(kernel)) == 0)
			return &rows[i];
	return NULL;
}

#define GEMM "gemm_bf16_8192x8192x8192"
#define SKINNY "gemm_bf16_8192x1024x8192"
#define TRIAD "triad_f32"

/* The H100 run beside the model (printed only). */
static int print_h100(const char *path, double resident)
{
	static const char *const modes[] = { "plain", "mps" };
	static const char *const kerns[] = { GEMM, TRIAD };
	struct h100_row rows[MAX_H100];
	struct lagom_comm pair = { .ranks = 2,
				   .nodes = 2,
				   .ranks_per_node = 1 };
	double per_byte = lagom_coll_mem_bytes(&pair, LAGOM_COLL_ALLREDUCE,
					       (uint64_t)AR_BYTES,
					       LAGOM_PROTO_SIMPLE) /
			  AR_BYTES;
	struct lagom_hw hw;
	size_t n;
	double sxy[2] = { 0, 0 }, sxx[2] = { 0, 0 };

	if (read_h100(path, rows, &n) ||
	    lagom_hw_from_spec("H100-SXM", 1, LAGOM_INTRA_DEFAULT, 0, 0, &hw,
			       NULL)) {
		fprintf(stderr, "contention_h200: %s: not 36 rows\n", path);
		return -1;
	}
	if (resident >= 0)
		hw.contention_resident = resident;
	printf("\nH100 (lagom_hw_from_spec, not checked): the %s GEMM\n", GEMM);
	for (size_t m = 0; m < 2; m++)
		for (size_t i = 0; i < n; i++) {
			const struct h100_row *r = &rows[i];
			double y, ym;
			if (strcmp(r->mode, modes[m]) ||
			    strcmp(r->kernel, GEMM) ||
			    model_at(&hw, r->k, 0, &y) ||
			    model_at(&hw, 2 * r->k,
				     2 * per_byte * r->GBps * 1e9, &ym))
				continue;
			printf("h100 idle %-5s %4u %8.3f %6.3f %+6.1f%%\n",
			       r->mode, r->k, r->idle, y,
			       100 * (y / r->idle - 1));
			if (m == 1)
				printf("h100 moving mps %4u %8.3f %6.3f "
				       "%+6.1f%%\n",
				       2 * r->k, r->moving, ym,
				       100 * (ym / r->moving - 1));
		}
	printf("\nH100 idle slowdowns (plain / mps) per k\n");
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].mode, "plain") == 0) {
			const struct h100_row *q = h100_find(
				rows, n, "mps", rows[i].k, rows[i].kernel);
			printf("h100 kernel %-26s k %2u idle %.3f / %.3f\n",
			       rows[i].kernel, rows[i].k, rows[i].idle,
			       q ? q->idle : NAN);
		}
	printf("\nH100 hog: x, slowdown beside the hog / beside NCCL idle "
	       "(GEMM, triad), model rate term\n");
	for (size_t m = 0; m < 2; m++)
		for (unsigned k = 1; k <= 32; k *= 2) {
			const struct h100_row *t = h100_find(rows, n, modes[m],
							     k, TRIAD);
			double x, ratio[2];
			if (!t)
				continue;
			x = t->hog_alone_GBps / t->alone_rate;
			for (int j = 0; j < 2; j++) {
				const struct h100_row *r = h100_find(
					rows, n, modes[m], k, kerns[j]);
				ratio[j] = r ? r->hog_x / r->idle : NAN;
				sxy[j] += x * (ratio[j] - 1);
				sxx[j] += x * x;
			}
			printf("hog %-5s k %2u x %.3f GEMM %.3f triad %.3f "
			       "model %.3f\n",
			       modes[m], k, x, ratio[0], ratio[1],
			       1 + hw.contention_rate *
					       fmin(x, hw.contention_rate_cap));
		}
	printf("hog: least-squares coefficient of (ratio - 1) on x: GEMM "
	       "%.3f, triad %.3f (the model's contention_rate %.3f, capped "
	       "at x %.3f)\n",
	       sxy[0] / sxx[0], sxy[1] / sxx[1], hw.contention_rate,
	       hw.contention_rate_cap);
	return 0;
}

static int print_probe(const char *path, const struct lagom_hw *hw)
{
	struct lagom_profile *p = NULL;
	struct lagom_error err = { 0 };
	int rc = -1;

	if (lagom_profile_read_file(path, NULL, &p, &err)) {
		fprintf(stderr, "contention_h200: %s\n", err.text);
		return -1;
	}
	printf("\nprobe (hold kernel, not checked): ctas chunk measured "
	       "model error\n");
	for (size_t i = 0; i < p->meas.n_contention; i++) {
		const struct lagom_contention_point *c = &p->meas.contention[i];
		double y;

		if (c->ctas <= 0 || model_at(hw, (unsigned)c->ctas, 0, &y))
			goto out;
		printf("probe %2d %7llu %.3f %.3f %+5.1f%%\n", c->ctas,
		       (unsigned long long)c->chunk_bytes, c->slowdown, y,
		       100 * (y / c->slowdown - 1));
	}
	rc = 0;
out:
	lagom_profile_destroy(p);
	return rc;
}

int main(int argc, char **argv)
{
	struct lagom_hw hw, h;
	struct lagom_error err = { 0 };
	bool check = false, ok = true, ungated = false;
	double builtin, r = -1, best = 0, best_sq = INFINITY, sq, worst;
	const char *csv = NULL, *profile = NULL, *h100 = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--check") == 0)
			check = true;
		else if (strcmp(argv[i], "--resident") == 0 && i + 1 < argc)
			r = atof(argv[++i]);
		else if (strcmp(argv[i], "--l2-ungated") == 0)
			ungated = true;
		else if (!csv)
			csv = argv[i];
		else if (!profile)
			profile = argv[i];
		else
			h100 = argv[i];
	}
	if (!csv || !profile) {
		fprintf(stderr, "usage: contention_h200 [--check] "
				"[--resident R] [--l2-ungated] CSV PROFILE "
				"[H100_CSV]\n");
		return 2;
	}
	if (read_csv(csv)) {
		fprintf(stderr, "contention_h200: %s: not 12 rows\n", csv);
		return 2;
	}
	if (lagom_hw_from_spec("H200", 1, LAGOM_INTRA_DEFAULT, 0, 0, &hw,
			       &err)) {
		fprintf(stderr, "contention_h200: %s\n", err.text);
		return 2;
	}
	if (ungated)
		hw.contention_l2_x0 = hw.contention_l2_x1 = 0;
	builtin = hw.contention_resident;
	h = hw;
	for (int s = 0; s <= 300; s++) {
		h.contention_resident = s / 1000.0;
		if (eval(&h, &sq, &worst))
			return 2;
		if (sq < best_sq)
			best_sq = sq, best = h.contention_resident;
	}
	hw.contention_resident = r >= 0 ? r : builtin;
	if (eval(&hw, &sq, &worst))
		return 2;
	printf("H200 (lagom_hw_from_spec): resident %.3f (least squares of "
	       "log error: %.3f), sm %.3f, l2 %.3f (gated: none below x %.3f, "
	       "all from %.3f; 0: not gated), rate %.3f\n",
	       hw.contention_resident, best, hw.contention_sm, hw.contention_l2,
	       hw.contention_l2_x0, hw.contention_l2_x1, hw.contention_rate);
	printf("%-10s %4s %7s %8s %6s %7s\n", "curve", "ctas", "x %",
	       "measured", "model", "error");
	for (size_t i = 0; i < npts; i++) {
		const struct point *p = &pts[i];
		double e = p->model / p->measured - 1;
		bool in = fabs(e) <= CHECK_REL;

		printf("%-10s %4u %7.3f %8.3f %6.3f %+6.1f%%%s\n", p->what,
		       p->ctas, 100 * p->mem_Bps / hw.gpu.hbm_Bps, p->measured,
		       p->model, 100 * e, in ? "" : "  > 5 %");
		ok = ok && in;
	}
	printf("check: every NCCL point within %.0f %% (worst %.1f %%): %s\n",
	       100 * CHECK_REL, 100 * worst,
	       worst <= CHECK_REL ? "ok" : "FAILED");
	printf("check: built-in resident %.3f is the fit %.3f (within %.3f): "
	       "%s\n",
	       builtin, best, CHECK_FIT,
	       fabs(builtin - best) <= CHECK_FIT ? "ok" : "FAILED");
	ok = ok && fabs(builtin - best) <= CHECK_FIT;
	if (print_probe(profile, &hw))
		return 2;
	if (h100 && print_h100(h100, r))
		return 2;
	return check && !ok ? 1 : 0;
}
