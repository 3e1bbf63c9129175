/*
 * tests/model/dense_report.c - the dense calibration form (model/
 * netdense.h) on data it did not fit: the published node-count sweeps of
 * nccl-busbw-algo-nodes.csv (rows with no reported problem, 2 nodes and
 * more).  Per system, collective and algorithm (as the row names it), the
 * form is fitted on one node count's sweep (the node count with the most
 * rows, the smallest on a tie) and predicts every other node count of the
 * same group; median |measured / predicted - 1| per size band (< 1 MiB,
 * 1-64 MiB, >= 64 MiB) over all groups, and leave-one-class-out inside
 * each fitted sweep of three rows or more.
 *
 * The rows say neither the protocol nor the channels: every row is taken
 * as Simple on 16 channels, "auto" as a ring (the latency that grows
 * linearly with the node count, as AWS EFA's does, is a ring's); so the
 * per-protocol constants cannot be told apart here (the synthetic sweeps
 * of tests/model/test_netdense.c do that).  A time the row lacks is its
 * bus bandwidth's (nccl-tests: bytes x bus factor / busbw).
 *
 *   dense_report [--check [TOLERANCE]] FILE.csv
 * --check: exit 1 when a size band's median is over TOLERANCE (0.15).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/netdense.h"

#define MAX_ROWS 1024
#define NF 14

struct row {
	char sys[160], algo_text[96];
	struct lagom_dense_meas m;
	int group;
};

static struct row rows[MAX_ROWS];
static size_t nrows;

/* Split one CSV line (quoted fields, "" inside quotes) into f[NF]. */
static int split(char *line, char **f)
{
	int n = 0;
	char *p = line, *w;

	while (n < NF) {
		bool q = *p == '"';
		f[n++] = w = p + q;
		if (q) {
			p++;
			for (;;) {
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else if (!*p) {
					return -1;
				} else {
					*w++ = *p++;
				}
			}
		} else {
			while (*p && *p != ',' && *p != '\n')
				*w++ = *p++;
		}
		if (*p != ',') {
			*w = '\0';
			break;
		}
		*w = '\0';
		p++;
	}
	return n;
}

static double bus_factor(enum lagom_coll c, double N)
{
	return c == LAGOM_COLL_ALLREDUCE ? 2 * (N - 1) / N
	       : c == LAGOM_COLL_ALLGATHER || c == LAGOM_COLL_REDUCESCATTER
		       ? (N - 1) / N
		       : 1;
}

static int load(const char *path)
{
	char line[2048];
	FILE *fp = fopen(path, "r");

	if (!fp) {
		perror(path);
		return -1;
	}
	if (!fgets(line, sizeof(line), fp)) {
		fclose(fp);
		return -1;
	}
	while (fgets(line, sizeof(line), fp) && nrows < MAX_ROWS) {
		char *f[NF];
		struct row r = { 0 };
		unsigned gpn, nodes;
		double busbw, us;

		if (split(line, f) < 13 || strcmp(f[12], "no") != 0 || !*f[9] ||
		    sscanf(f[1], "%u", &gpn) != 1 ||
		    sscanf(f[2], "%u", &nodes) != 1 || nodes < 2)
			continue;
		if (strcmp(f[7], "all_reduce") == 0)
			r.m.coll = LAGOM_COLL_ALLREDUCE;
		else if (strcmp(f[7], "all_gather") == 0)
			r.m.coll = LAGOM_COLL_ALLGATHER;
		else
			continue;
		snprintf(r.sys, sizeof(r.sys), "%s", f[0]);
		snprintf(r.algo_text, sizeof(r.algo_text), "%s", f[8]);
		r.m.algo = strncmp(f[8], "Tree", 4) == 0 ? LAGOM_ALGO_TREE
			   : strncmp(f[8], "Ring", 4) == 0 ||
					   strncmp(f[8], "auto", 4) == 0
				   ? LAGOM_ALGO_RING
				   : LAGOM_ALGO_NVLS;
		r.m.proto = LAGOM_PROTO_SIMPLE;
		r.m.nodes = nodes;
		r.m.ranks = nodes * gpn;
		r.m.nchannels = 16;
		r.m.bytes = strtoull(f[9], NULL, 10);
		if (*f[11] && sscanf(f[11], "%lf", &us) == 1 && us > 0)
			r.m.time_s = us * 1e-6;
		else if (sscanf(f[10], "%lf", &busbw) == 1 && busbw > 0)
			r.m.time_s = (double)r.m.bytes *
				     bus_factor(r.m.coll, r.m.ranks) /
				     (busbw * 1e9);
		else
			continue;
		rows[nrows++] = r;
	}
	fclose(fp);
	return 0;
}

static int band(uint64_t b)
{
	return b < (1u << 20) ? 0 : b < (64u << 20) ? 1 : 2;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const char *const band_names[] = { "< 1 MiB", "1-64 MiB", ">= 64 MiB" };

int main(int argc, char **argv)
{
	static double err[3][MAX_ROWS], loco[MAX_ROWS];
	static struct lagom_dense_meas fit_m[MAX_ROWS], rest[MAX_ROWS];
	size_t nerr[3] = { 0 }, nloco = 0, ngroups = 0;
	double tol = 0.15;
	bool check = false;
	int ai = 1, fail = 0;

	if (ai < argc && strcmp(argv[ai], "--check") == 0) {
		check = true;
		ai++;
		if (ai + 1 < argc)
			tol = atof(argv[ai++]);
	}
	if (ai >= argc || load(argv[ai]) != 0 || nrows == 0) {
		fprintf(stderr,
			"usage: dense_report [--check [TOL]] FILE.csv\n");
		return 2;
	}
	for (size_t i = 0; i < nrows; i++)
		rows[i].group = -1;
	for (size_t i = 0; i < nrows; i++) {
		size_t cnt[128] = { 0 };
		unsigned best = 0;
		size_t nf = 0, nv = 0;
		struct lagom_dense_fit f;
		struct lagom_error e = { 0 };
		int g;

		if (rows[i].group >= 0)
			continue;
		g = (int)ngroups++;
		for (size_t j = i; j < nrows; j++)
			if (rows[j].group < 0 &&
			    strcmp(rows[j].sys, rows[i].sys) == 0 &&
			    strcmp(rows[j].algo_text, rows[i].algo_text) == 0 &&
			    rows[j].m.coll == rows[i].m.coll) {
				rows[j].group = g;
				if (rows[j].m.nodes < 128)
					cnt[rows[j].m.nodes]++;
			}
		for (unsigned n = 2; n < 128; n++)
			if (cnt[n] > cnt[best])
				best = n;
		for (size_t j = i; j < nrows; j++)
			if (rows[j].group == g) {
				if (rows[j].m.nodes == best)
					fit_m[nf++] = rows[j].m;
				else
					nv++;
			}
		if (nv == 0 || lagom_dense_fit(fit_m, nf, &f, &e) != 0)
			continue;
		printf("%.40s | %s | %.30s | fitted on %u nodes (%zu rows):",
		       rows[i].sys,
		       rows[i].m.coll == LAGOM_COLL_ALLREDUCE ? "allreduce"
							      : "allgather",
		       rows[i].algo_text, best, nf);
		for (int p = 0; p < LAGOM_DP_COUNT; p++)
			if (f.set[p])
				printf(" %s %.4g", lagom_dense_param_name(p),
				       f.value[p]);
		printf("\n");
		for (size_t j = i; j < nrows; j++) {
			double e1;
			if (rows[j].group != g || rows[j].m.nodes == best)
				continue;
			e1 = fabs(rows[j].m.time_s / lagom_dense_predict_s(
							     &rows[j].m, &f) -
				  1);
			err[band(rows[j].m.bytes)]
			   [nerr[band(rows[j].m.bytes)]++] = e1;
			if (getenv("DENSE_ROWS"))
				printf("  %u nodes %llu B: measured %.1f us, "
				       "predicted %.1f us (%.1f %%)\n",
				       rows[j].m.nodes,
				       (unsigned long long)rows[j].m.bytes,
				       rows[j].m.time_s * 1e6,
				       lagom_dense_predict_s(&rows[j].m, &f) *
					       1e6,
				       100 * e1);
		}
		/* leave-one-class-out inside the fitted sweep */
		for (size_t k = 0; nf >= 3 && k < nf; k++) {
			size_t r = 0;
			struct lagom_dense_fit fk;
			for (size_t j = 0; j < nf; j++)
				if (j != k)
					rest[r++] = fit_m[j];
			if (lagom_dense_fit(rest, r, &fk, &e) == 0)
				loco[nloco++] = fabs(
					fit_m[k].time_s /
						lagom_dense_predict_s(&fit_m[k],
								      &fk) -
					1);
		}
	}
	printf("other node counts, median |measured / predicted - 1| per "
	       "size band:\n");
	for (int b = 0; b < 3; b++) {
		double med;
		if (!nerr[b]) {
			printf("  %-10s no rows\n", band_names[b]);
			continue;
		}
		med = median(err[b], nerr[b]);
		printf("  %-10s %4zu rows %6.1f %%%s\n", band_names[b], nerr[b],
		       100 * med, med > tol ? "  OVER" : "");
		fail |= med > tol;
	}
	if (nloco)
		printf("leave-one-class-out in the fitted sweeps: %zu classes, "
		       "median %.1f %%\n",
		       nloco, 100 * median(loco, nloco));
	return check && fail ? 1 : 0;
}
