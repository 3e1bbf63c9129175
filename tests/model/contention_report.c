/*
 * tests/model/contention_report.c - the contention term y(NC, C) against
 * the slowdowns real training traces measured (doc/model.md 4).
 *
 *   contention_report [--check] TRACE...
 *
 * Each TRACE (PyTorch/Kineto, as `lagom workload import` reads it) gives
 * the importer's contention table: compute kernels of one kind alone and
 * beside an NCCL kernel, slowdown = median beside / median alone.  Only
 * plausible rows (slowdown >= 1 - LAGOM_FIT_NOISE) are used.  Each row is
 * predicted by:
 *   none      the trivial "no slowdown" predictor (1.0);
 *   built-in  the model with its built-in contention coefficients, on the
 *             trace's GPU, with the row's grid, blocks per SM, memory-bound
 *             share and NCCL channels (chunk: the 2 MiB default);
 *   LOTO      the same with gamma scaled by one factor fitted on the
 *             other traces' rows (leave-one-trace-out);
 *   in-sample that factor fitted on every trace.
 * Error of a row: |predicted / measured - 1|; the report prints the median
 * per trace and over all rows.  The factor is the one of least summed
 * |log(predicted / measured)| on a fixed grid (0 .. 8 in steps of 1/64).
 * A trace holds one NCCL channel count, so within one trace gamma's
 * drivers (NC / SMs, NC * C / L2) move together: only their sum at that
 * point is seen, not which of them drives it.
 *
 * --check exits 1 when a trace yields no plausible row or the figures are
 * not finite (the comparison itself is reported, not enforced).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "trace/trace.h"

#define MAX_TRACES 8
#define MAX_ROWS 4096
#define SCALE_STEPS 512 /* grid 0 .. 8 in steps of 1 / 64 */

enum pred {
	P_NONE,
	P_BUILTIN,
	P_LOTO,
	P_IN,
	P_COUNT
};
static const char *const pred_names[P_COUNT] = { "none", "built-in", "LOTO",
						 "in-sample" };

struct row {
	int trace;
	struct lagom_hw hw;
	struct lagom_kernel k;
	unsigned nc;
	double measured;
	double pred[P_COUNT];
};

static struct row rows[MAX_ROWS];
static size_t nrows;

static double slowdown(const struct row *r, double scale)
{
	struct lagom_hw hw = r->hw;
	double t = r->k.time_s;

	hw.contention_sm *= scale;
	hw.contention_l2 *= scale;
	if (lagom_compute_time(&hw, &r->k, r->nc, 0, &t, NULL))
		return NAN;
	return t / r->k.time_s;
}

/* The scale of least summed |log error| over the rows of traces other
 * than skip (skip -1: all). */
static double fit_scale(int skip)
{
	double best = 1, best_cost = INFINITY;

	for (int s = 0; s <= SCALE_STEPS; s++) {
		double scale = s / 64.0, cost = 0;
		for (size_t i = 0; i < nrows; i++)
			if (rows[i].trace != skip)
				cost += fabs(log(slowdown(&rows[i], scale) /
						 rows[i].measured));
		if (cost < best_cost)
			best_cost = cost, best = scale;
	}
	return best;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_err(int trace, int p)
{
	static double v[MAX_ROWS];
	size_t m = 0;

	for (size_t i = 0; i < nrows; i++)
		if (trace < 0 || rows[i].trace == trace)
			v[m++] = fabs(rows[i].pred[p] / rows[i].measured - 1);
	if (m == 0)
		return NAN;
	qsort(v, m, sizeof(v[0]), cmp_double);
	return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

static int load(const char *path, int trace, unsigned *nc_out, char *gpu_out,
		size_t gpu_len)
{
	struct lagom_trace_import *imp = NULL;
	struct lagom_error err = { 0 };
	struct lagom_hw hw;
	unsigned gpus;
	size_t before = nrows;

	if (lagom_trace_import(&path, 1, &imp, &err)) {
		fprintf(stderr, "contention_report: %s: %s\n", path, err.text);
		return -1;
	}
	gpus = imp->gpus_visible < 2 ? 8 : imp->gpus_visible;
	gpus = gpus > 64 ? 64 : gpus; /* as lagom_trace_replay() */
	if (lagom_hw_from_spec(imp->gpu, gpus, LAGOM_INTRA_DEFAULT, 0, 0, &hw,
			       &err)) {
		fprintf(stderr, "contention_report: %s: %s\n", path, err.text);
		lagom_trace_import_destroy(imp);
		return -1;
	}
	snprintf(gpu_out, gpu_len, "%s", hw.gpu.name);
	*nc_out = 0;
	for (size_t i = 0; i < imp->nrows && nrows < MAX_ROWS; i++) {
		const struct lagom_trace_contention *c = &imp->rows[i];
		struct row *r = &rows[nrows];
		if (!c->plausible || c->nccl_channels == 0 ||
		    c->nccl_channels >= hw.gpu.sm_count)
			continue;
		*r = (struct row){
			.trace = trace,
			.hw = hw,
			.k = { .time_s = c->alone_us * 1e-6,
			       .grid_blocks = c->grid_blocks,
			       .blocks_per_sm = c->blocks_per_sm,
			       .mem_bound = c->mem_bound },
			.nc = c->nccl_channels,
			.measured = c->slowdown,
		};
		*nc_out = c->nccl_channels;
		nrows++;
	}
	lagom_trace_import_destroy(imp);
	return nrows > before ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *paths[MAX_TRACES];
	char gpu[MAX_TRACES][LAGOM_GPU_NAME_MAX];
	unsigned nc[MAX_TRACES];
	int ntraces = 0;
	bool check = false, ok = true;
	double scale_in, scale_loto[MAX_TRACES];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--check") == 0)
			check = true;
		else if (ntraces < MAX_TRACES)
			paths[ntraces++] = argv[i];
	}
	if (ntraces == 0) {
		fprintf(stderr,
			"usage: contention_report [--check] TRACE...\n");
		return 2;
	}
	for (int t = 0; t < ntraces; t++) {
		int rc = load(paths[t], t, &nc[t], gpu[t], sizeof(gpu[t]));
		if (rc < 0)
			return 2;
		if (rc > 0) {
			printf("%s: no plausible contention row\n", paths[t]);
			ok = false;
		}
	}
	scale_in = fit_scale(-1);
	for (int t = 0; t < ntraces; t++)
		scale_loto[t] = ntraces > 1 ? fit_scale(t) : scale_in;
	for (size_t i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		r->pred[P_NONE] = 1.0;
		r->pred[P_BUILTIN] = slowdown(r, 1.0);
		r->pred[P_LOTO] = slowdown(r, scale_loto[r->trace]);
		r->pred[P_IN] = slowdown(r, scale_in);
	}
	printf("gamma scale of least |log error|: in-sample %.3f", scale_in);
	for (int t = 0; t < ntraces; t++)
		printf(", without trace %d %.3f", t, scale_loto[t]);
	printf("\n\nmedian |slowdown error| (plausible rows)\n%-4s %-16s %4s "
	       "%5s %9s",
	       "#", "gpu", "nc", "rows", "measured");
	for (int p = 0; p < P_COUNT; p++)
		printf(" %10s", pred_names[p]);
	printf("\n");
	for (int t = -1; t < ntraces; t++) {
		static double v[MAX_ROWS];
		size_t m = 0;
		for (size_t i = 0; i < nrows; i++)
			if (t < 0 || rows[i].trace == t)
				v[m++] = rows[i].measured;
		qsort(v, m, sizeof(v[0]), cmp_double);
		if (t < 0)
			printf("%-4s %-16s %4s", "all", "", "");
		else
			printf("%-4d %-16.16s %4u", t, gpu[t], nc[t]);
		printf(" %5zu %8.3fx", m, m ? v[m / 2] : NAN);
		for (int p = 0; p < P_COUNT; p++) {
			double e = median_err(t, p);
			ok = ok && isfinite(e);
			printf(" %9.1f%%", 100 * e);
		}
		printf("\n");
	}
	printf("(measured: the median slowdown; nc: NCCL channels beside)\n");
	return check && !ok ? 1 : 0;
}
