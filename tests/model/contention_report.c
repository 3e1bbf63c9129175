/*
 * tests/model/contention_report.c - contention predictors against
 * the slowdowns real training traces measured (doc/model.md 4).
 *
 *   contention_report [--check] [--rows] TRACE...
 *
 * Each TRACE (PyTorch/Kineto, as `lagom workload import` reads it) gives
 * the importer's contention table: compute kernels of one kind alone and
 * beside NCCL kernels of one op, channels, threads and size (power of two),
 * slowdown = median beside / median alone.  Only plausible rows (slowdown
 * >= 1 - LAGOM_FIT_NOISE) are used.  Each row is predicted by:
 *   none      the trivial "no slowdown" predictor (1.0);
 *   waves     the model's wave factor alone (contention coefficients 0);
 *   built-in  the model with its built-in contention coefficients, on the
 *             trace's GPU, with the row's grid, blocks per SM, memory-bound
 *             share and NCCL channels (chunk: the 2 MiB default);
 * and by three one-constant families, each times the model's wave factor
 * (the row's grid beside its channels):
 *   gamma*k   the built-in gamma(NC, C) scaled by k;
 *   rate      1 + k * x, x = the row's NCCL kernels' achieved rate (median
 *             bytes / kernel duration) over the GPU's HBM bandwidth;
 *   rate*m    1 + k * m * x, m the kernel's memory-bound share;
 * with k fitted (least summed |log(predicted / measured)| on a grid) on
 * the other traces (LOTO), on the other row groups (LOGO; a group: one
 * trace's rows beside one power of two of NCCL bytes), or on all rows
 * (in-sample).  The report prints the median |predicted / measured - 1|
 * and the mean |log(predicted / measured)| per trace and over all rows;
 * --rows prints every row.
 *
 * --check exits 1 when a trace yields no plausible row, a figure is not
 * finite, or on some trace the rate driver left out (LOTO or LOGO) does
 * not beat "no slowdown" on the median by CHECK_MARGIN (doc/model.md 4).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "tests/model/busbw_rows.h"
#include "trace/trace.h"

#define MAX_TRACES 8
#define MAX_ROWS 4096
#define MAX_GROUPS 256
#define CHECK_MARGIN 0.01 /* 1 point of median |error| */
#define K_STEPS 1024	  /* a family's constant on 0 .. K_MAX */

/* One-constant families of predictors, each with the wave factor of the
 * row's grid beside its NCCL channels. */
enum family {
	F_GAMMA,  /* the built-in gamma(NC, C) scaled by k */
	F_RATE,	  /* 1 + k * x, x = the NCCL kernels' rate / HBM bandwidth */
	F_RATE_M, /* 1 + k * m * x (m: the kernel's memory-bound share) */
	F_COUNT
};
static const char *const family_names[F_COUNT] = { "gamma*k", "rate",
						   "rate*m" };
static const double k_max[F_COUNT] = { 8, 64, 64 };

/* How a family's constant is chosen for a row. */
enum fit {
	FIT_LOTO, /* on the other traces */
	FIT_LOGO, /* on the other row groups (trace, collective size) */
	FIT_IN,	  /* on every row */
	FIT_COUNT
};
static const char *const fit_names[FIT_COUNT] = { "LOTO", "LOGO", "in" };

#define NCOLS (3 + F_COUNT * FIT_COUNT)
#define COL(f, fit) (3 + (f)*FIT_COUNT + (fit))

struct row {
	int trace, group;
	struct lagom_hw hw;
	struct lagom_kernel k;
	unsigned nc;
	char kernel[LAGOM_NAME_MAX];
	double nccl_mib;
	double x; /* nccl_Bps / hbm_Bps */
	double measured;
	double pred[NCOLS]; /* none, waves, built-in, then family x fit */
};

static struct row rows[MAX_ROWS];
static size_t nrows;
static int ngroups;
static int rows_group_log2[MAX_GROUPS];

/* The wave factor (grid known) times the family's global term. */
static double predict(const struct row *r, enum family f, double k)
{
	struct lagom_hw hw = r->hw;
	double t = r->k.time_s, g;

	if (f == F_GAMMA) {
		hw.contention_sm *= k;
		hw.contention_l2 *= k;
	} else {
		hw.contention_sm = 0;
		hw.contention_l2 = 0;
	}
	if (lagom_compute_time(&hw, &r->k, r->nc, 0, &t, NULL))
		return NAN;
	g = f == F_RATE	    ? k * r->x
	    : f == F_RATE_M ? k * r->k.mem_bound * r->x
			    : 0;
	return t / r->k.time_s * (1 + g);
}

/* The k of least summed |log(predicted / measured)| over the rows whose
 * trace is not skip_trace and whose group is not skip_group (-1: none
 * skipped), on a grid of K_STEPS steps. */
static double fit_k(enum family f, int skip_trace, int skip_group)
{
	double best = 1, best_cost = INFINITY;

	for (int s = 0; s <= K_STEPS; s++) {
		double k = k_max[f] * s / K_STEPS, cost = 0;
		for (size_t i = 0; i < nrows; i++)
			if (rows[i].trace != skip_trace &&
			    rows[i].group != skip_group)
				cost += fabs(log(predict(&rows[i], f, k) /
						 rows[i].measured));
		if (cost < best_cost)
			best_cost = cost, best = k;
	}
	return best;
}

/* Mean |log(predicted / measured)| of column col over trace's rows (-1:
 * all): the loss the constants are fitted on. */
static double mean_log_of(int trace, int col)
{
	double sum = 0;
	size_t m = 0;

	for (size_t i = 0; i < nrows; i++)
		if (trace < 0 || rows[i].trace == trace) {
			sum += fabs(log(rows[i].pred[col] / rows[i].measured));
			m++;
		}
	return m ? sum / (double)m : NAN;
}

/* Median |predicted / measured - 1| of column col over trace's rows (-1:
 * all); col -1: the median measured slowdown. */
static double median_of(int trace, int col)
{
	static double v[MAX_ROWS];
	size_t m = 0;

	for (size_t i = 0; i < nrows; i++)
		if (trace < 0 || rows[i].trace == trace)
			v[m++] = col < 0 ? rows[i].measured
					 : fabs(rows[i].pred[col] /
							rows[i].measured -
						1);
	return rows_median(v, m);
}

static int load(const char *path, int trace, unsigned *nc_out, char *gpu_out,
		size_t gpu_len)
{
	struct lagom_trace_import *imp = NULL;
	struct lagom_error err = { 0 };
	struct lagom_hw hw;
	unsigned gpus;
	size_t before = nrows;
	int group0 = ngroups;

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
		int g = group0;
		if (!c->plausible || c->nccl_channels == 0 ||
		    c->nccl_channels >= hw.gpu.sm_count)
			continue;
		/* row group: this trace's collectives of one power of two */
		while (g < ngroups && rows_group_log2[g] != c->nccl_size_log2)
			g++;
		if (g == ngroups) {
			if (ngroups == MAX_GROUPS)
				continue;
			rows_group_log2[ngroups++] = c->nccl_size_log2;
		}
		*r = (struct row){
			.trace = trace,
			.group = g,
			.hw = hw,
			.k = { .time_s = c->alone_us * 1e-6,
			       .grid_blocks = c->grid_blocks,
			       .blocks_per_sm = c->blocks_per_sm,
			       .mem_bound = c->mem_bound },
			.nc = c->nccl_channels,
			.x = c->nccl_Bps / hw.gpu.hbm_Bps,
			.measured = c->slowdown,
			.nccl_mib = c->nccl_bytes / (1024.0 * 1024.0),
		};
		snprintf(r->kernel, sizeof(r->kernel), "%s", c->kernel);
		*nc_out = c->nccl_channels;
		nrows++;
	}
	lagom_trace_import_destroy(imp);
	return nrows > before ? 0 : 1;
}

/* Per row group: its trace, NCCL size, rows, and the medians of the NCCL
 * rate, of x and of the measured slowdown. */
static void print_groups(void)
{
	static double v[3][MAX_ROWS];

	printf("\n%-5s %5s %9s %4s %8s %6s %9s\n", "group", "trace",
	       "NCCL size", "rows", "GB/s", "x %", "measured");
	for (int g = 0; g < ngroups; g++) {
		size_t m = 0;
		int trace = -1;
		for (size_t i = 0; i < nrows; i++)
			if (rows[i].group == g) {
				v[0][m] = rows[i].x * rows[i].hw.gpu.hbm_Bps;
				v[1][m] = rows[i].x;
				v[2][m++] = rows[i].measured;
				trace = rows[i].trace;
			}
		printf("g%-4d %5d %7s%-2d %4zu %8.2f %6.2f %8.3fx\n", g, trace,
		       "2^", rows_group_log2[g], m, rows_median(v[0], m) * 1e-9,
		       100 * rows_median(v[1], m), rows_median(v[2], m));
	}
}

static void print_rows(void)
{
	printf("\n%-3s %-32s %6s %4s %8s %8s %6s %8s %8s %8s %9s\n", "#",
	       "kernel", "grid", "m", "NCCL MiB", "GB/s", "x %", "measured",
	       "built-in", "rate in", "rate LOTO");
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		printf("%-3d %-32.32s %6u %4.2f %8.2f %8.2f %6.2f %7.3fx "
		       "%7.3fx %7.3fx %8.3fx\n",
		       r->trace, r->kernel, r->k.grid_blocks, r->k.mem_bound,
		       r->nccl_mib, r->x * r->hw.gpu.hbm_Bps * 1e-9, 100 * r->x,
		       r->measured, r->pred[2], r->pred[COL(F_RATE, FIT_IN)],
		       r->pred[COL(F_RATE, FIT_LOTO)]);
	}
}

int main(int argc, char **argv)
{
	const char *paths[MAX_TRACES];
	char gpu[MAX_TRACES][LAGOM_GPU_NAME_MAX];
	unsigned nc[MAX_TRACES];
	int ntraces = 0;
	bool check = false, show_rows = false, ok = true;
	double k_in[F_COUNT];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--check") == 0)
			check = true;
		else if (strcmp(argv[i], "--rows") == 0)
			show_rows = true;
		else if (ntraces < MAX_TRACES)
			paths[ntraces++] = argv[i];
	}
	if (ntraces == 0) {
		fprintf(stderr, "usage: contention_report [--check] [--rows] "
				"TRACE...\n");
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
	printf("constant of least |log error| (in-sample; without trace t; "
	       "without group g)\n");
	for (int f = 0; f < F_COUNT; f++) {
		double k_loto[MAX_TRACES], k_logo[MAX_GROUPS];
		k_in[f] = fit_k(f, -1, -1);
		printf("  %-8s in %.3f", family_names[f], k_in[f]);
		for (int t = 0; t < ntraces; t++) {
			k_loto[t] = ntraces > 1 ? fit_k(f, t, -1) : k_in[f];
			printf(", -t%d %.3f", t, k_loto[t]);
		}
		for (int g = 0; g < ngroups; g++) {
			k_logo[g] = ngroups > 1 ? fit_k(f, -1, g) : k_in[f];
			printf(", -g%d %.3f", g, k_logo[g]);
		}
		printf("\n");
		for (size_t i = 0; i < nrows; i++) {
			struct row *r = &rows[i];
			r->pred[COL(f, FIT_LOTO)] = predict(r, f,
							    k_loto[r->trace]);
			r->pred[COL(f, FIT_LOGO)] = predict(r, f,
							    k_logo[r->group]);
			r->pred[COL(f, FIT_IN)] = predict(r, f, k_in[f]);
		}
	}
	for (size_t i = 0; i < nrows; i++) {
		rows[i].pred[0] = 1.0;
		rows[i].pred[1] = predict(&rows[i], F_GAMMA, 0.0);
		rows[i].pred[2] = predict(&rows[i], F_GAMMA, 1.0);
	}
	print_groups();
	for (int stat = 0; stat < 2; stat++) {
		printf(stat ? "\nmean |log(predicted / measured)| (the fitted loss)\n"
			    : "\nmedian |slowdown error| (plausible rows)\n");
		printf("%-4s %-10s %3s %4s %8s %6s %6s %8s", "#", "gpu", "nc",
		       "rows", "measured", "none", "waves", "built-in");
		for (int f = 0; f < F_COUNT; f++)
			for (int fit = 0; fit < FIT_COUNT; fit++) {
				char name[32];
				snprintf(name, sizeof(name), "%s %s",
					 family_names[f], fit_names[fit]);
				printf(" %*s", fit == 0 ? 14 : 9, name);
			}
		printf("\n");
		for (int t = -1; t < ntraces; t++) {
			size_t m = 0;
			for (size_t i = 0; i < nrows; i++)
				m += t < 0 || rows[i].trace == t;
			if (t < 0)
				printf("%-4s %-10s %3s", "all", "", "");
			else
				printf("%-4d %-10.10s %3u", t, gpu[t], nc[t]);
			printf(" %4zu %7.3fx", m, median_of(t, -1));
			for (int col = 0; col < NCOLS; col++) {
				double e = stat ? mean_log_of(t, col)
						: median_of(t, col);
				ok = ok && isfinite(e);
				printf(" %*.1f%%",
				       col < 3 ? (col == 2 ? 7 : 5)
				       : (col - 3) % FIT_COUNT == 0 ? 13
								    : 8,
				       100 * e);
			}
			printf("\n");
		}
	}
	printf("(measured: the median slowdown; nc: NCCL channels beside; "
	       "LOTO: constant fitted\n without the row's trace, LOGO: "
	       "without its row group, in: on all rows)\n");
	/* What is enforced: on every trace, the rate driver's left-out
	 * constants (LOTO and LOGO) beat "no slowdown" on the median by
	 * CHECK_MARGIN. */
	for (int t = 0; t < ntraces; t++)
		for (int fit = FIT_LOTO; fit <= FIT_LOGO; fit++) {
			double none = median_of(t, 0);
			double rate = median_of(t, COL(F_RATE, fit));
			bool beats = rate <= none - CHECK_MARGIN;
			printf("trace %d: rate %s %.1f%% vs no slowdown %.1f%%: "
			       "%s by %.1f points (needed: %.1f)\n",
			       t, fit_names[fit], 100 * rate, 100 * none,
			       rate < none ? "beats it" : "loses",
			       100 * fabs(none - rate), 100 * CHECK_MARGIN);
			ok = ok && beats;
		}
	if (show_rows)
		print_rows();
	return check && !ok ? 1 : 0;
}
