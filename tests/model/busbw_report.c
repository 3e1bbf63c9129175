/*
 * tests/model/busbw_report.c - the collective model against published
 * nccl-tests figures it was, and was not, fitted on.
 *
 *   busbw_report [--check] [--emit-netcal] [--rows] [DIR]
 *
 * DIR (default $LAGOM_FIXTURES/measurements or tests/fixtures/
 * measurements) holds nccl-busbw.csv and nccl-busbw-multinode.csv.  Every
 * row becomes model inputs (busbw_rows.c: spec-sheet hardware, the row's
 * NICs and transport, NCCL's default or the forced configuration).  The
 * network calibration (model/netcal_int.h) is fitted with lagom_net_fit() on
 * every row not flagged problem_reported ("in-sample"), and once per
 * system on all the other systems' rows, predicting the left-out system
 * ("leave-one-system-out", LOSO).  Beside them: the model with its prior,
 * hand-set calibration, and two trivial baselines (the bottleneck's line
 * rate with no latency; a constant busbw per size band, the median of the
 * other systems).  Error of a row: |predicted busbw / measured - 1|.
 *
 * --check exits 1 when: the committed calibration (model/netcal_data.c)
 * is not what the fit gives now; a size band's LOSO median error on the
 * multi-node rows exceeds its tolerance (LOSO_TOL below) or is not below
 * both trivial baselines; nccl-busbw.csv's rows (in-sample) have a median
 * error above 25 % or a row off by more than 2x.
 * --emit-netcal prints the fitted calibration as model/netcal_data.c's
 * generated block.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/model/busbw_rows.h"

#define MIB_ (1024.0 * 1024.0)
#define BANDS 3

static const char *const band_names[BANDS] = { "< 1 MiB", "1-64 MiB",
					       ">= 64 MiB" };
/* The make-check tolerance on the LOSO median error per band: the issue's
 * goal is 20 %; where that is not reached, the achieved figure plus a
 * margin (doc/model.md 7 says which). */
static const double LOSO_TOL[BANDS] = { 0.19, 0.20, 0.18 };

enum col {
	C_IN,
	C_LOSO,
	C_PRIOR,
	C_LINE,
	C_CONST,
	C_COUNT
};
static const char *const col_names[C_COUNT] = { "in-sample", "LOSO", "prior",
						"line-rate", "const" };

static struct busbw_row rows[ROWS_MAX];
static double pred_s[C_COUNT][ROWS_MAX];

static int band_of(uint64_t bytes)
{
	return bytes < MIB_ ? 0 : bytes < 64 * MIB_ ? 1 : 2;
}

static double row_err(size_t i, double t_pred)
{
	return fabs(rows[i].obs.time_s / t_pred - 1.0);
}

static double busbw_of(size_t i, double t)
{
	return (double)rows[i].obs.bytes * rows[i].bus_factor / t / 1e9;
}

/* Does any fitted parameter act on this row? */
static bool row_fitted(const struct busbw_row *r)
{
	struct lagom_hw hb;
	struct lagom_comm cb;
	const struct lagom_hw *vh;
	const struct lagom_comm *vc;

	lagom_domain_view(&r->obs.hw, &r->obs.comm, &hb, &cb, &vh, &vc);
	return vc->nodes > 1 || r->obs.coll == LAGOM_COLL_ALLTOALL;
}

static int fit_without(size_t n, int leave_out, struct lagom_netcal *cal,
		       double *rms)
{
	static struct lagom_net_obs obs[ROWS_MAX];
	struct lagom_error err = { 0 };
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (!rows[i].problem && (int)rows[i].obs.group != leave_out)
			obs[m++] = rows[i].obs;
	if (lagom_net_fit(obs, m, NULL, cal, rms, &err)) {
		fprintf(stderr, "busbw_report: fit: %s\n", err.text);
		return -1;
	}
	return 0;
}

static double predict(size_t i, const struct lagom_netcal *cal)
{
	const struct lagom_net_obs *o = &rows[i].obs;

	return lagom_coll_time_cal_s(&o->hw, &o->comm, o->coll, o->bytes,
				     &o->cfg, cal);
}

/* Trivial baseline 1: the bottleneck's line rate, no latency. */
static double line_rate_time(size_t i)
{
	const struct lagom_net_obs *o = &rows[i].obs;
	struct lagom_hw hb;
	struct lagom_comm cb;
	const struct lagom_hw *h;
	const struct lagom_comm *c;
	double bw;

	lagom_domain_view(&o->hw, &o->comm, &hb, &cb, &h, &c);
	if (c->nodes > 1)
		bw = lagom_nic_line_Bps(h, c);
	else if (h->intra == LAGOM_INTRA_PCIE)
		bw = h->pcie_Bps;
	else
		bw = h->intra_links * h->intra_link_Bps;
	return (double)o->bytes * rows[i].bus_factor / bw;
}

/* Trivial baseline 2: the other systems' median busbw in the row's band. */
static void const_baseline(size_t n)
{
	static double v[ROWS_MAX];

	for (size_t i = 0; i < n; i++) {
		size_t m = 0;
		int b = band_of(rows[i].obs.bytes);
		for (size_t j = 0; j < n; j++)
			if (!rows[j].problem &&
			    rows[j].obs.group != rows[i].obs.group &&
			    band_of(rows[j].obs.bytes) == b)
				v[m++] = busbw_of(j, rows[j].obs.time_s);
		pred_s[C_CONST][i] = m ? (double)rows[i].obs.bytes *
						     rows[i].bus_factor /
						     (rows_median(v, m) * 1e9)
				       : INFINITY;
	}
}

static int loso(size_t n, unsigned groups, const struct lagom_netcal *full)
{
	for (unsigned g = 0; g < groups; g++) {
		struct lagom_netcal cal = *full;
		bool fitted = false;
		for (size_t i = 0; i < n; i++)
			if (rows[i].obs.group == g && row_fitted(&rows[i]))
				fitted = true;
		/* A system no parameter acts on predicts the same either
		 * way: the full fit stands for its own left-out fit. */
		if (fitted && fit_without(n, (int)g, &cal, NULL))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (rows[i].obs.group == g)
				pred_s[C_LOSO][i] = predict(i, &cal);
	}
	return 0;
}

static void print_rows(size_t n)
{
	printf("%-34s %5s %11s %-18s %9s %9s %9s %7s\n", "system", "ranks",
	       "bytes", "config", "measured", "in-sampl", "LOSO", "ratio");
	for (size_t i = 0; i < n; i++) {
		const struct lagom_coll_config *c = &rows[i].obs.cfg;
		char cfg[40];
		snprintf(cfg, sizeof(cfg), "%s/%s/%u", lagom_algo_name(c->algo),
			 lagom_proto_name(c->proto), c->nchannels);
		printf("%-34.34s %5u %11llu %-18s %9.2f %9.2f %9.2f %7.3f%s\n",
		       rows[i].system, rows[i].obs.comm.ranks,
		       (unsigned long long)rows[i].obs.bytes, cfg,
		       busbw_of(i, rows[i].obs.time_s),
		       busbw_of(i, pred_s[C_IN][i]),
		       busbw_of(i, pred_s[C_LOSO][i]),
		       rows[i].obs.time_s / pred_s[C_LOSO][i],
		       rows[i].problem ? " P" : "");
	}
}

/* Median error per band and column over the multi-node file's rows
 * without a reported problem. */
static void band_table(size_t n, double med[BANDS][C_COUNT])
{
	static double v[ROWS_MAX];

	printf("\nnccl-busbw-multinode.csv, rows without a reported problem: "
	       "median |busbw error|\n%-10s %5s",
	       "band", "rows");
	for (int c = 0; c < C_COUNT; c++)
		printf(" %10s", col_names[c]);
	printf("\n");
	for (int b = 0; b < BANDS; b++) {
		size_t m = 0;
		for (int c = 0; c < C_COUNT; c++) {
			m = 0;
			for (size_t i = 0; i < n; i++)
				if (rows[i].multinode && !rows[i].problem &&
				    band_of(rows[i].obs.bytes) == b)
					v[m++] = row_err(i, pred_s[c][i]);
			med[b][c] = rows_median(v, m);
		}
		printf("%-10s %5zu", band_names[b], m);
		for (int c = 0; c < C_COUNT; c++)
			printf(" %9.1f%%", 100 * med[b][c]);
		printf("\n");
	}
}

static void system_table(size_t n, unsigned groups)
{
	static double vi[ROWS_MAX], vl[ROWS_MAX];

	printf("\nper system (multi-node file): median |busbw error|, rows "
	       "with a reported problem apart\n%-44s %5s %10s %10s %5s %10s\n",
	       "system", "rows", "in-sample", "LOSO", "P", "P LOSO");
	for (unsigned g = 0; g < groups; g++) {
		size_t m = 0, p = 0, first = n;
		for (size_t i = 0; i < n; i++) {
			if (rows[i].obs.group != g || !rows[i].multinode)
				continue;
			first = first < i ? first : i;
			if (rows[i].problem)
				vl[ROWS_MAX / 2 + p++] = row_err(
					i, pred_s[C_LOSO][i]);
			else {
				vi[m] = row_err(i, pred_s[C_IN][i]);
				vl[m++] = row_err(i, pred_s[C_LOSO][i]);
			}
		}
		if (first == n)
			continue;
		printf("%-44.44s %5zu %9.1f%% %9.1f%% %5zu %9.1f%%\n",
		       rows[first].system, m, 100 * rows_median(vi, m),
		       100 * rows_median(vl, m), p,
		       100 * rows_median(vl + ROWS_MAX / 2, p));
	}
}

/* nccl-busbw.csv in-sample: the single-node calibration must hold. */
static bool busbw_file_ok(size_t n)
{
	static double v[ROWS_MAX];
	double worst = 1.0, med;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		double r;
		if (rows[i].multinode)
			continue;
		r = rows[i].obs.time_s / pred_s[C_IN][i];
		v[m++] = fabs(r - 1);
		worst = fmax(worst, fmax(r, 1 / r));
	}
	med = rows_median(v, m);
	printf("\nnccl-busbw.csv: %zu rows, in-sample median |busbw error| "
	       "%.1f %%, worst factor %.2fx (tolerance 25 %%, 2x)\n",
	       m, 100 * med, worst);
	return med <= 0.25 && worst <= 2.0;
}

static void print_netcal(FILE *out, const struct lagom_netcal *c)
{
	fprintf(out, "const struct lagom_netcal lagom_netcal_fitted = {\n"
		     "\t.eff = { ");
	for (int t = 0; t < LAGOM_NET_COUNT; t++)
		fprintf(out, "%.6f%s", c->eff[t],
			t + 1 < LAGOM_NET_COUNT ? ", " : " },\n");
	fprintf(out, "\t.step_us = { ");
	for (int t = 0; t < LAGOM_NET_COUNT; t++)
		fprintf(out, "%.6f%s", c->step_us[t],
			t + 1 < LAGOM_NET_COUNT ? ", " : " },\n");
	fprintf(out,
		"\t.mn_step_us = %.6f,\n\t.tree2_eff = %.6f,\n"
		"\t.p2p_peer_us = %.6f,\n\t.net_fill = %.6f,\n"
		"\t.ch_net_Bps = %.6e,\n};\n",
		c->mn_step_us, c->tree2_eff, c->p2p_peer_us, c->net_fill,
		c->ch_net_Bps);
}

/* The committed constants equal a re-fit (printed precision). */
static bool netcal_matches(const struct lagom_netcal *a,
			   const struct lagom_netcal *b)
{
	const double *x = (const double *)a, *y = (const double *)b;
	size_t k = sizeof(*a) / sizeof(double);

	for (size_t i = 0; i < k; i++)
		if (fabs(x[i] - y[i]) > 2e-6 * fmax(1.0, fabs(y[i])))
			return false;
	return true;
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *env = getenv("LAGOM_FIXTURES");
	char path[1024], dflt[900];
	bool check = false, emit = false, show_rows = false, ok = true;
	double med[BANDS][C_COUNT], rms;
	struct lagom_netcal full;
	size_t n = 0, skipped = 0;
	unsigned groups;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--check") == 0)
			check = true;
		else if (strcmp(argv[i], "--emit-netcal") == 0)
			emit = true;
		else if (strcmp(argv[i], "--rows") == 0)
			show_rows = true;
		else
			dir = argv[i];
	}
	if (!dir) {
		snprintf(dflt, sizeof(dflt), "%s/measurements",
			 env ? env : "tests/fixtures");
		dir = dflt;
	}
	snprintf(path, sizeof(path), "%s/nccl-busbw.csv", dir);
	if (busbw_rows_read(path, false, rows, &n, &skipped, stderr))
		return 2;
	snprintf(path, sizeof(path), "%s/nccl-busbw-multinode.csv", dir);
	if (busbw_rows_read(path, true, rows, &n, &skipped, stderr))
		return 2;
	groups = busbw_rows_group(rows, n);
	if (fit_without(n, -1, &full, &rms))
		return 2;
	if (emit) {
		print_netcal(stdout, &full);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		pred_s[C_IN][i] = predict(i, &full);
		pred_s[C_PRIOR][i] = predict(i, &lagom_netcal_prior);
		pred_s[C_LINE][i] = line_rate_time(i);
	}
	const_baseline(n);
	if (loso(n, groups, &full))
		return 2;
	if (show_rows)
		print_rows(n);
	busbw_rows_conventions(stdout);
	printf("rows %zu (skipped %zu), systems %u; fit rms log error %.3f\n",
	       n, skipped, groups, rms);
	printf("fitted calibration (in-sample):\n");
	print_netcal(stdout, &full);
	band_table(n, med);
	system_table(n, groups);
	ok = busbw_file_ok(n);
	if (!netcal_matches(&lagom_netcal_fitted, &full)) {
		printf("model/netcal_data.c differs from the re-fit: "
		       "regenerate it with --emit-netcal\n");
		ok = false;
	}
	for (int b = 0; b < BANDS; b++) {
		bool band_ok = med[b][C_LOSO] <= LOSO_TOL[b] &&
			       med[b][C_LOSO] < med[b][C_LINE] &&
			       med[b][C_LOSO] < med[b][C_CONST];
		printf("band %-9s LOSO %.1f %% (tolerance %.0f %%, beats "
		       "line-rate %.1f %% and const %.1f %%): %s\n",
		       band_names[b], 100 * med[b][C_LOSO], 100 * LOSO_TOL[b],
		       100 * med[b][C_LINE], 100 * med[b][C_CONST],
		       band_ok ? "ok" : "FAIL");
		ok = ok && band_ok;
	}
	return check && !ok ? 1 : 0;
}
