/*
 * tests/model/calib_report.c - `lagom calibrate`'s fit on the published
 * multi-node sweeps (tests/fixtures/measurements/nccl-busbw-multinode.csv),
 * as if each system's site had run it on its own profiler records.
 *
 * How each system becomes records (what libnccl-profiler-lagom.so would
 * have written for such runs, doc/profiler.md): one system (one hardware:
 * GPU, NICs, transport) is one site; every published row is one class of
 * a communicator of the row's ranks and nodes, with the algorithm,
 * protocol and channels NCCL ran (lagom_nccl_default() for `auto` rows,
 * the forced ones otherwise: busbw_rows.c), NCCL's byte count (the
 * nccl-tests size, divided by the ranks for allgather/reducescatter) and
 * 20 timed calls.  Three runs (job steps) per site, each of two tasks:
 * the rank that arrived last, whose fastest call is the published time,
 * and one that waited for it (fastest call 1.25x); the third run was
 * contended (every time 1.4x).  Each record goes through the profiler's
 * own writer and strict reader (lagom_rec_format, lagom_rec_parse), then
 * `lagom calibrate`'s own evidence (planner/consensus.c, the records
 * being the site's calibration account's) keeps per class the median over
 * runs of each run's fastest call, which is the published time.
 *
 * What a few real jobs would show: per collective, node count and ranks,
 * the three rows nearest 8 KiB, 1 MiB and 1 GiB are the site's
 * training classes; the fit (lagom_net_site_fit) sees only them and the
 * other rows are predicted ("left out by size").  The site starts from
 * what lagom would ship had it never seen this system: the built-in
 * network constants fitted without it (lagom_net_fit on the other
 * systems, busbw_report's leave-one-system-out), and its calibration is
 * fitted on top of that base.  Also printed: the same fit on every row
 * (in sample), the uncalibrated base (left out by system), the shipped
 * constants (which saw these rows: in sample) and the line rate (busbw =
 * the NICs' line rate, no latency).  Error of a row:
 * |measured / predicted time - 1| (busbw error).  Every calibrated
 * prediction must respect the physical bound (doc/model.md 2.5): no time
 * below the bytes every node must move across the network at the NICs'
 * line rate.
 *
 * --check: exit 1 unless, per system band with at least MIN_ROWS rows
 * left out, the calibrated median error left out by size is within 10 %
 * and the uncalibrated one left out by system within 25 %, or the band
 * is a listed known miss (known[]: why, and a ceiling it must stay
 * within); over all systems each band is within ALL_TOL, below the
 * uncalibrated model and the line rate, the uncalibrated one within
 * 25 %; and the bound holds on every row.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/calib.h"
#include "planner/consensus.h"
#include "model/netdense.h"
#include "measurement/record.h"
#include "tests/model/busbw_rows.h"

#define BANDS 3
#define MIN_ROWS 3
#define MIB_ (1024.0 * 1024.0)
#define MAX_UNITS 64

static const char *const band_names[BANDS] = { "< 1 MiB", "1-64 MiB",
					       ">= 64 MiB" };
/* Issue #26's goals: the median error left out by size within 10 % in
 * every band of every system with MIN_ROWS rows left out in it, and the
 * uncalibrated model left out by system within 25 %.  Bands that miss
 * (doc/model.md 2.7 says why) are listed in known[]; over all systems,
 * per band, the calibrated left-out median within ALL_TOL (achieved plus
 * about two points) and below both the uncalibrated model left out by
 * system and the line rate. */
static const double GOAL = 0.10;
static const double ALL_TOL[BANDS] = { 0.14, 0.16, 0.13 };
static const double UNCAL_GOAL = 0.25;
/* The dense fit left out by size, over all systems per band, on the rows
 * it covers (achieved plus about two points). */
static const double DENSE_TOL[BANDS] = { 0.12, 0.12, 0.08 };
static size_t first_row[MAX_UNITS];

static struct busbw_row rows[ROWS_MAX];
static unsigned unit_of[ROWS_MAX];
static bool train[ROWS_MAX];
static struct lagom_net_meas meas[ROWS_MAX];

enum col {
	C_OUT,
	C_IN,
	C_BUILTIN,
	C_SHIPPED,
	C_LINE,
	C_COUNT,
	/* the dense fit (model/netdense.h) in the site's calibration, the
	 * model pricing what it covers and the base the rest: left out by
	 * size (every size of the system predicted by the fit on its other
	 * sizes) and in sample */
	C_DOUT = C_COUNT,
	C_DIN,
	C_ALL
};
static double pred[C_ALL][ROWS_MAX];
static bool covered[C_ALL][ROWS_MAX];

static int band_of(uint64_t bytes)
{
	return bytes < MIB_ ? 0 : bytes < 64 * MIB_ ? 1 : 2;
}

static bool same_hw(const struct lagom_hw *a, const struct lagom_hw *b)
{
	return strcmp(a->gpu.name, b->gpu.name) == 0 &&
	       a->gpus_per_node == b->gpus_per_node &&
	       a->nic_count == b->nic_count && a->nic_Bps == b->nic_Bps &&
	       a->transport == b->transport && a->collnet == b->collnet &&
	       a->nvl_domain_nodes == b->nvl_domain_nodes &&
	       a->intra == b->intra;
}

/* Units: one per system and hardware, multi-node rows without a
 * reported problem.  Returns the count. */
static unsigned make_units(size_t n, size_t *first)
{
	unsigned nu = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned u;
		unit_of[i] = MAX_UNITS;
		if (rows[i].problem || !rows[i].multinode ||
		    rows[i].obs.comm.nodes < 2)
			continue;
		for (u = 0; u < nu; u++)
			if (rows[first[u]].obs.group == rows[i].obs.group &&
			    same_hw(&rows[first[u]].obs.hw, &rows[i].obs.hw))
				break;
		if (u == nu && nu < MAX_UNITS)
			first[nu++] = i;
		if (u < nu)
			unit_of[i] = u;
	}
	return nu;
}

/* Training rows: per unit, collective, nodes and ranks, the rows nearest
 * (in log size) to each target. */
static void pick_training(size_t n)
{
	static const double target[] = { 8192.0, 1 * MIB_, 1024 * MIB_ };

	for (size_t i = 0; i < n; i++) {
		const struct lagom_net_obs *o = &rows[i].obs;
		if (unit_of[i] == MAX_UNITS)
			continue;
		for (size_t k = 0; k < sizeof(target) / sizeof(target[0]);
		     k++) {
			size_t best = i;
			double bd = INFINITY;
			for (size_t j = 0; j < n; j++) {
				const struct lagom_net_obs *p = &rows[j].obs;
				double d;
				if (unit_of[j] != unit_of[i] ||
				    p->coll != o->coll ||
				    p->comm.nodes != o->comm.nodes ||
				    p->comm.ranks != o->comm.ranks)
					continue;
				d = fabs(log((double)p->bytes / target[k]));
				if (d < bd)
					bd = d, best = j;
			}
			if (best == i)
				train[i] = true;
		}
	}
}

static unsigned rec_op(enum lagom_coll c)
{
	switch (c) {
	case LAGOM_COLL_ALLREDUCE:
		return LAGOM_NCCL_FUNC_ALLREDUCE;
	case LAGOM_COLL_ALLGATHER:
		return LAGOM_NCCL_FUNC_ALLGATHER;
	case LAGOM_COLL_REDUCESCATTER:
		return LAGOM_NCCL_FUNC_REDUCESCATTER;
	case LAGOM_COLL_BROADCAST:
		return LAGOM_NCCL_FUNC_BROADCAST;
	case LAGOM_COLL_REDUCE:
		return LAGOM_NCCL_FUNC_REDUCE;
	case LAGOM_COLL_ALLTOALL:
		return LAGOM_NCCL_FUNC_ALLTOALL;
	default:
		return LAGOM_NCCL_FUNC_SENDRECV;
	}
}

/* One task's record of one run of unit u's rows (all or training). */
static int write_record(size_t n, unsigned u, bool only_train, int run,
			int task, char *text, size_t len)
{
	static struct lagom_rec r;
	const double slow = (task ? 1.25 : 1.0) * (run == 2 ? 1.4 : 1.0);

	memset(&r, 0, sizeof(r));
	r.abi = 5;
	snprintf(r.job, sizeof(r.job), "%u", 1000 + u);
	snprintf(r.step, sizeof(r.step), "%d", run);
	r.task = task;
	r.pid = 4000 + (uint64_t)task;
	r.start_unix = 1764200000;
	r.written_unix = 1764200060;
	for (size_t i = 0; i < n; i++) {
		const struct lagom_net_obs *o = &rows[i].obs;
		struct lagom_rec_comm *m = NULL;
		struct lagom_rec_class *k;
		uint64_t ns = (uint64_t)llround(o->time_s * slow * 1e9);

		if (unit_of[i] != u || (only_train && !train[i]))
			continue;
		for (uint32_t c = 0; c < r.n_comms; c++)
			if (r.comm[c].nodes == o->comm.nodes &&
			    r.comm[c].ranks == o->comm.ranks)
				m = &r.comm[c];
		if (!m) {
			if (r.n_comms == LAGOM_REC_MAX_COMMS)
				return -1;
			m = &r.comm[r.n_comms++];
			m->id = 0x1000 + r.n_comms;
			m->ranks = o->comm.ranks;
			m->nodes = o->comm.nodes;
			m->rank = task ? m->ranks - 1 : 0;
		}
		if (m->n_classes == LAGOM_REC_MAX_CLASSES)
			return -1;
		k = &m->cls[m->n_classes++];
		k->op = (uint8_t)rec_op(o->coll);
		k->algo = (uint8_t)o->cfg.algo;
		k->proto = (uint8_t)o->cfg.proto;
		k->channels = (uint8_t)o->cfg.nchannels;
		k->bytes = o->bytes;
		if (o->coll == LAGOM_COLL_ALLGATHER ||
		    o->coll == LAGOM_COLL_REDUCESCATTER)
			k->bytes = o->bytes / o->comm.ranks;
		if (k->bytes == 0)
			k->bytes = 1;
		k->count = k->gpu_n = 20;
		k->gpu_min_ns = ns ? ns : 1;
		k->gpu_max_ns = k->gpu_min_ns * 13 / 10;
		k->gpu_ns = k->gpu_min_ns * 22;
	}
	return lagom_rec_format(&r, text, len);
}

/* Unit u's classes through records, the strict reader and the evidence
 * `lagom calibrate` keeps (planner/consensus.h: the site's own
 * calibration account, so each class's time is the median over its runs
 * of each run's fastest call): into m, in the evidence's order.  Returns
 * the count, or -1. */
#define SITE_UID 990u
static long unit_meas(size_t n, unsigned u, bool only_train,
		      const struct lagom_hw *hw, struct lagom_net_meas *m)
{
	static char text[LAGOM_REC_MAX_BYTES];
	static struct lagom_rec r, scratch;
	struct lagom_consensus *cs = lagom_consensus_create(SITE_UID);
	struct lagom_consensus_stats st;
	struct lagom_error err = { 0 };
	size_t got = 0;

	for (int run = 0; cs && run < 3; run++)
		for (int task = 0; task < 2; task++) {
			int len = write_record(n, u, only_train, run, task,
					       text, sizeof(text));
			if (len < 0 ||
			    lagom_rec_parse(text, (size_t)len, &r, &scratch,
					    &err) ||
			    lagom_consensus_add(cs, SITE_UID, &r, &err)) {
				fprintf(stderr, "record of unit %u: %s\n", u,
					len < 0 ? "not written" : err.text);
				lagom_consensus_destroy(cs);
				return -1;
			}
		}
	if (cs)
		got = lagom_consensus_meas(cs, hw, LAGOM_CONSENSUS_NO_UID, m,
					   ROWS_MAX, &st);
	lagom_consensus_destroy(cs);
	if (!cs || got == (size_t)-1)
		return -1;
	if (st.refused)
		fprintf(stderr, "unit %u: %zu classes refused\n", u,
			st.refused);
	return (long)got;
}

/* The row's class among m (the evidence's form of it). */
static const struct lagom_net_meas *find_meas(size_t i,
					      const struct lagom_net_meas *m,
					      size_t nm)
{
	const struct lagom_net_obs *o = &rows[i].obs;
	uint64_t b = o->bytes;

	if (o->coll == LAGOM_COLL_ALLGATHER ||
	    o->coll == LAGOM_COLL_REDUCESCATTER)
		b = (o->bytes / o->comm.ranks) * o->comm.ranks;
	for (size_t k = 0; k < nm; k++)
		if (m[k].coll == o->coll && m[k].bytes == (b ? b : 1) &&
		    m[k].comm.nodes == o->comm.nodes &&
		    m[k].comm.ranks == o->comm.ranks &&
		    m[k].cfg.algo == o->cfg.algo &&
		    m[k].cfg.proto == o->cfg.proto &&
		    m[k].cfg.nchannels == o->cfg.nchannels)
			return &m[k];
	return NULL;
}

/* The least time physics allows: the bytes every node must move across
 * the network (doc/model.md 2.5) at the NICs' line rate. */
static double bound_s(const struct lagom_net_meas *m)
{
	struct lagom_hw hb;
	struct lagom_comm cb;
	const struct lagom_hw *h;
	const struct lagom_comm *c;

	lagom_domain_view(&m->hw, &m->comm, &hb, &cb, &h, &c);
	return lagom_net_line_floor_s(h, c, m->coll, m->cfg.algo, m->bytes);
}

static double line_rate_s(size_t i)
{
	const struct lagom_net_obs *o = &rows[i].obs;
	struct lagom_hw hb;
	struct lagom_comm cb;
	const struct lagom_hw *h;
	const struct lagom_comm *c;

	lagom_domain_view(&o->hw, &o->comm, &hb, &cb, &h, &c);
	return (double)o->bytes * rows[i].bus_factor / lagom_nic_line_Bps(h, c);
}

static double err_of(size_t i, double t)
{
	return fabs(rows[i].obs.time_s / t - 1.0);
}

/* Fit unit u on its training rows (or all), predict every row of it. */
/* The built-in network calibration fitted without unit u's system
 * (lagom_net_fit on every other system's rows, as busbw_report's
 * leave-one-system-out): what a site of a system lagom never saw starts
 * from. */
static int base_without(size_t n, unsigned group, struct lagom_netcal *cal)
{
	static struct lagom_net_obs obs[ROWS_MAX];
	struct lagom_error err = { 0 };
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (!rows[i].problem && rows[i].obs.group != group)
			obs[m++] = rows[i].obs;
	if (lagom_net_fit(obs, m, NULL, cal, NULL, &err)) {
		fprintf(stderr, "base fit: %s\n", err.text);
		return -1;
	}
	return 0;
}

static int run_unit(size_t n, unsigned u, size_t first, bool all, enum col col,
		    const struct lagom_netcal *base, size_t *bound_fail,
		    struct lagom_net_site_report *rep,
		    struct lagom_net_calib *fitted)
{
	static struct lagom_net_meas fit_m[ROWS_MAX];
	struct lagom_net_calib calib;
	struct lagom_error err = { 0 };
	long nm = unit_meas(n, u, !all, &rows[first].obs.hw, fit_m);
	long na = unit_meas(n, u, false, &rows[first].obs.hw, meas);

	if (nm <= 0 || na <= 0 ||
	    lagom_net_site_fit_base(fit_m, (size_t)nm, base, &calib, rep,
				    &err)) {
		fprintf(stderr, "unit %u: fit: %s\n", u, err.text);
		return -1;
	}
	if (fitted)
		*fitted = calib;
	for (size_t i = 0; i < n; i++) {
		const struct lagom_net_meas *m;
		if (unit_of[i] != u)
			continue;
		m = find_meas(i, meas, (size_t)na);
		if (!m) {
			fprintf(stderr, "row %zu: no class\n", i);
			return -1;
		}
		pred[col][i] = lagom_net_meas_predict_base_s(m, &calib, base);
		pred[C_BUILTIN][i] = lagom_net_meas_predict_base_s(m, NULL,
								   base);
		pred[C_SHIPPED][i] = lagom_net_meas_predict_s(m, NULL);
		pred[C_LINE][i] = line_rate_s(i);
		if (pred[col][i] < bound_s(m) * (1 - 1e-9)) {
			fprintf(stderr, "row %zu beats the line rate\n", i);
			(*bound_fail)++;
		}
	}
	return 0;
}

/* Whether calib's dense fit prices m's class (the model's view). */
static bool dense_covers(const struct lagom_net_meas *m,
			 const struct lagom_net_calib *calib)
{
	struct lagom_hw hw = m->hw;

	lagom_hw_apply_calib(&hw, calib);
	return lagom_dense_site_error(&hw, &m->comm, m->coll, m->bytes,
				      &m->cfg) >= 0;
}

/* Unit u's dense fit: in sample (every class) and left out by size
 * (each size predicted by the fit on the unit's other sizes). */
static int run_dense(size_t n, unsigned u, size_t first,
		     const struct lagom_netcal *base, size_t *bound_fail,
		     size_t *written)
{
	static struct lagom_net_meas all[ROWS_MAX], rest[ROWS_MAX];
	struct lagom_dense_site_report rep;
	struct lagom_net_calib cal;
	struct lagom_error err = { 0 };
	long na = unit_meas(n, u, false, &rows[first].obs.hw, all);

	if (na <= 0)
		return -1;
	memset(&cal, 0, sizeof(cal));
	if (lagom_dense_site_fit(all, (size_t)na, &cal, &rep, &err)) {
		fprintf(stderr, "unit %u: dense fit: %s\n", u, err.text);
		return -1;
	}
	for (int t = 0; t < LAGOM_NET_COUNT; t++)
		for (int b = 0; b < LAGOM_NET_BANDS; b++)
			for (int a = 0; a < LAGOM_NET_DENSE_ALGOS; a++)
				*written += rep.why[t][b][a] ==
					    LAGOM_DS_WRITTEN;
	for (size_t i = 0; i < n; i++) {
		const struct lagom_net_meas *m;
		struct lagom_net_calib out;
		size_t r = 0;

		if (unit_of[i] != u)
			continue;
		if (!(m = find_meas(i, all, (size_t)na)))
			return -1;
		pred[C_DIN][i] = lagom_net_meas_predict_base_s(m, &cal, base);
		covered[C_DIN][i] = dense_covers(m, &cal);
		for (long k = 0; k < na; k++)
			if (all[k].bytes != m->bytes)
				rest[r++] = all[k];
		memset(&out, 0, sizeof(out));
		if (r && lagom_dense_site_fit(rest, r, &out, NULL, &err))
			return -1;
		pred[C_DOUT][i] = lagom_net_meas_predict_base_s(m, &out, base);
		covered[C_DOUT][i] = dense_covers(m, &out);
		for (int c = C_DOUT; c <= C_DIN; c++)
			if (pred[c][i] < bound_s(m) * (1 - 1e-9)) {
				fprintf(stderr,
					"row %zu: the dense fit beats the line "
					"rate\n",
					i);
				(*bound_fail)++;
			}
	}
	return 0;
}

/* A constant's value in a base calibration (what the site starts from). */
static double base_of(const struct lagom_netcal *c, int p,
		      enum lagom_transport t)
{
	const double v[LAGOM_NP_COUNT] = {
		[LAGOM_NP_EFF] = c->eff[t],
		[LAGOM_NP_STEP_US] = c->step_us[t],
		[LAGOM_NP_MN_STEP_US] = c->mn_step_us,
		[LAGOM_NP_FILL] = c->net_fill,
		[LAGOM_NP_CH_NET] = c->ch_net_Bps,
		[LAGOM_NP_TREE2] = c->tree2_eff,
	};

	return v[p];
}

static void print_fit(size_t first, const struct lagom_net_site_report *rep,
		      const struct lagom_net_calib *calib,
		      const struct lagom_netcal *base)
{
	enum lagom_transport t = lagom_hw_transport(&rows[first].obs.hw);

	for (int b = 0; b < LAGOM_NET_BANDS; b++) {
		if (!rep->rows[t][b])
			continue;
		printf("  fit %s, %s, %s nodes: %zu classes;",
		       rows[first].system, lagom_transport_name(t),
		       lagom_net_band_name(b), rep->rows[t][b]);
		for (int p = 0; p < LAGOM_NP_COUNT; p++)
			if (calib->t[t].set[b][p])
				printf(" %s %s %.4g (base %.4g)",
				       lagom_net_param_name(p),
				       rep->verdict[t][b][p] ==
						       LAGOM_NV_AT_BOUND
					       ? "at bound"
					       : "fitted",
				       calib->t[t].value[b][p],
				       base_of(base, p, t));
		printf("\n");
	}
}

/* Which rows of a unit and band a median takes. */
enum rows_of {
	R_ALL,
	R_HELD_OUT, /* not training rows */
	R_COVERED,  /* priced by the column's dense fit */
};

/* Median error of column c over unit u's rows (MAX_UNITS: all units) of
 * band b that `which` takes; NAN when none. */
static double median_rows(int c, size_t n, unsigned u, int band,
			  enum rows_of which, size_t *count)
{
	static double v[ROWS_MAX];
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if ((u == MAX_UNITS ? unit_of[i] != MAX_UNITS
				    : unit_of[i] == u) &&
		    band_of(rows[i].obs.bytes) == band &&
		    (which != R_HELD_OUT || !train[i]) &&
		    (which != R_COVERED || covered[c][i]))
			v[m++] = err_of(i, pred[c][i]);
	*count = m;
	return m ? rows_median(v, m) : NAN;
}

static double median_of(enum col c, size_t n, unsigned u, int band,
			bool held_out, size_t *count)
{
	return median_rows(c, n, u, band, held_out ? R_HELD_OUT : R_ALL, count);
}

static double dense_median(int c, size_t n, unsigned u, int band,
			   bool only_covered, size_t *count)
{
	return median_rows(c, n, u, band, only_covered ? R_COVERED : R_ALL,
			   count);
}

/*
 * The best a single constant factor on the predictions could do on the
 * band's left-out rows (an oracle that sees them): the least median
 * |measured / (f x predicted) - 1| over f.  Above the goal, no constant
 * the calibration might move (each scales the band's times, or shifts
 * them by a latency that is near-constant within a band) could meet it:
 * the model's shape inside the band (the protocol switch points, the
 * curve between them, the measurement's own jitter) is the limit.
 * Within the goal, the band's constant is simply not determined by the
 * three training sizes.
 */
static double oracle_of(enum col c, size_t n, unsigned u, int band)
{
	static double r[ROWS_MAX], v[ROWS_MAX];
	double best = INFINITY;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (unit_of[i] == u && band_of(rows[i].obs.bytes) == band &&
		    !train[i])
			r[m++] = rows[i].obs.time_s / pred[c][i];
	for (size_t j = 0; j < m; j++) {
		for (size_t i = 0; i < m; i++)
			v[i] = fabs(r[i] / r[j] - 1);
		best = fmin(best, rows_median(v, m));
	}
	return best;
}

/*
 * System bands known to miss a goal, each with why (doc/model.md 2.7,
 * the numbers from this report) and the figure it must stay within: a
 * miss not listed, or a listed one over its ceiling, fails --check.
 */
struct known_miss {
	const char *system; /* prefix of the system's name */
	int band;
	enum col col; /* C_OUT: the 10 % goal; C_BUILTIN: the 25 % one */
	double ceiling;
	const char *why;
};

static const struct known_miss known[] = {
	/* left out by size, the 10 % goal */
	{ "Nebius", 0, C_OUT, 0.20,
	  "rows 8 B-128 KiB scatter 29.9-45.7 us (neighbours 50 % apart), "
	  "model flat 38.6-40.9 us; one latency (step_us) for LL and LL128 "
	  "and the 1 MiB LL128 class 9 % under: the LOCO gate keeps it" },
	{ "Lambda", 0, C_OUT, 0.18,
	  "8 KiB class 42.1 us vs 36.1; measured rises 35.5-47.4 us to "
	  "128 KiB, model flat 34.6-36.3; step_us fitted to both LL and "
	  "LL128 classes (33 us) makes this band 20 %: one latency for both" },
	{ "Lambda", 1, C_OUT, 0.20,
	  "shape: LL128 tree 1-16 MiB measured 114-187 us (about 105 us "
	  "fixed), model 68-179 us; best single factor 11.6 %" },
	{ "Lambda", 2, C_OUT, 0.28,
	  "2-node NVLS tree: 1 GiB 4723 us predicted, 2972 measured "
	  "(line-rate bound 2684); eff already at its bound 1.0, no site "
	  "constant in range reaches it" },
	{ "GCP", 2, C_OUT, 0.15,
	  "two classes only; eff fitted 0.44 on them, the 1 MiB class "
	  "(85 % off, TCPX's latency) pulls it; a single factor: 0.9 %" },
	{ "HGX-H100", 1, C_OUT, 0.27,
	  "shape: forced ring/simple 2-node rows (157-199 us vs 244-329 "
	  "predicted, no training class of them) and the 8-node 8 MiB row "
	  "(889 us, 3.5x its trend); best single factor 20.3 %" },
	{ "HGX-H100", 2, C_OUT, 0.145,
	  "8 nodes: 64 MiB 12 % fast, 1 GiB 60 % slow (5640 us measured, "
	  "9032 predicted): measured rate rises with size, the model's "
	  "does not; step_us 11.5 fitted but no LOCO gain" },
	{ "CoreWeave-GB200", 2, C_OUT, 0.17,
	  "360 nodes: measured about 4.4 ms + 4.9 us/MiB (512 MiB 7108 us, "
	  "16 GiB 84625); the model has no fixed cost of that size, so "
	  "the two classes disagree on ch_net (left out, 31 % apart) and "
	  "the band gate refuses it (fitted, 16 GiB went to 176 ms, 28.6 %); "
	  "uncalibrated 14.6 %, best single factor 9.2 %" },
	{ "CoreWeave-H100", 2, C_OUT, 0.40,
	  "CollNet chain (SHARP) 1.55x slow at every size (512 MiB 4628 "
	  "us vs 2985): its in-network rate is no site constant; a single "
	  "factor: 0.2 %" },
	{ "OCI", 2, C_OUT, 0.14,
	  "RoCE eff at its bound 1.0 (model 12 % slow at 64 MiB-8 GiB); "
	  "best single factor 8.9 %" },
	{ "RTX6000D", 0, C_OUT, 0.20,
	  "alltoall over PCIe: step_us fitted to its bound 0 (base 17.9) "
	  "and still 44 us vs 33-40 measured: the per-peer cost "
	  "(p2p_peer_us) is not a site constant" },
	{ "RTX6000D", 1, C_OUT, 0.20,
	  "alltoall 2-16 MiB 1.2-1.3x slow (same cause); a single factor: "
	  "3.9 %" },
	/* uncalibrated, left out by system, the 25 % goal */
	{ "AWS", 0, C_BUILTIN, 1.05,
	  "EFA borrows InfiniBand's step_us (17.1 us) when left out; EFA's "
	  "own fits 68.5 us (SRD software path): no other system shows it" },
	{ "AWS", 1, C_BUILTIN, 0.65, "same: EFA's per-step cost" },
	{ "Lambda", 1, C_BUILTIN, 0.28,
	  "B200 one channel's intra-node share (22.5 GB/s at NCCL's 32, "
	  "doc/model.md 2.8) at NCCL's reduced channel counts of 1-16 MiB: "
	  "25.5 % (was under 25 % with the 45 GB/s per-CTA ceiling)" },
	{ "Lambda", 2, C_BUILTIN, 0.32, "see the left-out-by-size line" },
	{ "GCP", 2, C_BUILTIN, 0.71,
	  "TCPX borrows TCP's eff (0.85); its own fits 0.44" },
	{ "CoreWeave-H100", 2, C_BUILTIN, 0.40, "CollNet chain's rate" },
	{ "RTX6000D", 0, C_BUILTIN, 0.44,
	  "alltoall per-peer cost over PCIe (1 KiB: 61.7 us vs 37.7)" },
	{ "A100-SXM4", 2, C_BUILTIN, 0.70,
	  "4x HDR200 at 0.61 of line rate (fitted); the other systems' "
	  "InfiniBand eff is 1.0" },
};

static const struct known_miss *known_of(unsigned u, int band, enum col c)
{
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		if (known[k].band == band && known[k].col == c &&
		    strncmp(rows[first_row[u]].system, known[k].system,
			    strlen(known[k].system)) == 0)
			return &known[k];
	return NULL;
}

/* One goal of one system band: 0 met, 1 a known miss within its
 * ceiling, -1 a failure.  Prints what it found. */
static int judge(unsigned u, int band, enum col c, double med, double goal,
		 double oracle)
{
	const struct known_miss *k = known_of(u, band, c);
	const char *what = c == C_OUT ? "left out by size"
				      : "uncalibrated, left out by system";

	if (med <= goal) {
		if (k)
			printf("  note: %s %s %s: %.1f %% now within %.0f %%; "
			       "drop it from the known misses\n",
			       rows[first_row[u]].system, band_names[band],
			       what, 100 * med, 100 * goal);
		return 0;
	}
	printf("  miss: %s | %s | %s %.1f %% > %.0f %% (best constant factor "
	       "%.1f %%): %s%s\n",
	       rows[first_row[u]].system, band_names[band], what, 100 * med,
	       100 * goal, 100 * oracle, k ? k->why : "NOT A KNOWN MISS",
	       k && med > k->ceiling ? " -- OVER ITS CEILING" : "");
	return k && med <= k->ceiling ? 1 : -1;
}

/* The dense fit's table (per system and band, then all) and the
 * issue's targets per band.  Returns the failures of --check: over all
 * systems, per band with covered rows, the dense fit's left-out median
 * over DENSE_TOL or not below the uncalibrated model's on those rows. */
static int report_dense(size_t n, unsigned nu, size_t written)
{
	int fails = 0;

	printf("\ndense fit in the calibration (%zu transport/band/algorithm "
	       "fits dense enough, doc/calibration-format.md); left out by "
	       "size: each size predicted by the fit on the system's other "
	       "sizes, the base model pricing what the fit does not cover\n",
	       written);
	printf("system | band | rows | covered left out | dense, left out by "
	       "size (covered rows) | same rows uncalibrated | same rows line "
	       "rate | dense, left out by size (all rows) | dense, in sample "
	       "(covered rows)\n");
	for (unsigned u = 0; u <= nu; u++) {
		unsigned uu = u == nu ? MAX_UNITS : u;
		for (int b = 0; b < BANDS; b++) {
			static double vu[ROWS_MAX], vl[ROWS_MAX];
			size_t k, kc, kin, nv = 0;
			double out_c = dense_median(C_DOUT, n, uu, b, true,
						    &kc);
			double out_a = dense_median(C_DOUT, n, uu, b, false,
						    &k);
			double in_c = dense_median(C_DIN, n, uu, b, true, &kin);
			double unc, line;
			bool bad;

			if (k == 0)
				continue;
			for (size_t i = 0; i < n; i++)
				if ((uu == MAX_UNITS ? unit_of[i] != MAX_UNITS
						     : unit_of[i] == uu) &&
				    band_of(rows[i].obs.bytes) == b &&
				    covered[C_DOUT][i]) {
					vu[nv] = err_of(i, pred[C_BUILTIN][i]);
					vl[nv++] = err_of(i, pred[C_LINE][i]);
				}
			unc = nv ? rows_median(vu, nv) : NAN;
			line = nv ? rows_median(vl, nv) : NAN;
			bad = u == nu && kc > 0 &&
			      (out_c > DENSE_TOL[b] || out_c >= unc);
			fails += bad;
			if (kc == 0 && u < nu)
				continue;
			printf("%s | %s | %zu | %zu | %.1f %% | %.1f %% | %.1f %% "
			       "| %.1f %% | %.1f %%%s\n",
			       u == nu ? "dense all"
				       : rows[first_row[u]].system,
			       band_names[b], k, kc, 100 * out_c, 100 * unc,
			       100 * line, 100 * out_a, 100 * in_c,
			       bad ? "  FAIL" : "");
		}
	}
	return fails;
}

/* The targets per band over all systems (printed, the checks
 * are report()'s and report_dense()'s). */
static void report_targets(size_t n)
{
	printf("\ntargets (issue 33), per size band over all systems, median "
	       "|measured / predicted - 1|:\n");
	printf("band | calibrated on three sizes, left out (goal 10 %%) | "
	       "uncalibrated, left out by system (goal 25 %%) | dense fit, "
	       "left out by size (covered rows)\n");
	for (int b = 0; b < BANDS; b++) {
		size_t k, ku, kd;
		double out = median_of(C_OUT, n, MAX_UNITS, b, true, &k);
		double unc = median_of(C_BUILTIN, n, MAX_UNITS, b, false, &ku);
		double dn = dense_median(C_DOUT, n, MAX_UNITS, b, true, &kd);

		printf("target %s | %.1f %% (%zu rows) %s | %.1f %% (%zu rows) "
		       "%s | %.1f %% (%zu rows)\n",
		       band_names[b], 100 * out, k,
		       out <= GOAL ? "met" : "MISSED", 100 * unc, ku,
		       unc <= UNCAL_GOAL ? "met" : "MISSED", 100 * dn, kd);
	}
}

static int report(size_t n, unsigned nu, bool check)
{
	int fails = 0, over = 0, over_u = 0, met = 0, met_u = 0;

	printf("system | band | left-out rows | calibrated, left out by size "
	       "| calibrated, in-sample | uncalibrated, left out by system | "
	       "shipped constants (in-sample) | line rate | best constant "
	       "factor (left out by size)\n");
	for (unsigned u = 0; u <= nu; u++) {
		unsigned uu = u == nu ? MAX_UNITS : u;
		for (int b = 0; b < BANDS; b++) {
			size_t k, kin, kall;
			double med[C_COUNT], oracle = NAN, unc_all;
			char oracle_s[32];
			bool bad;
			for (int c = 0; c < C_COUNT; c++)
				med[c] = median_of(c, n, uu, b, c != C_IN,
						   c == C_IN ? &kin : &k);
			if (k == 0)
				continue;
			/* left out by system: every row of the system */
			unc_all = median_of(C_BUILTIN, n, uu, b, false, &kall);
			if (u < nu)
				oracle = oracle_of(C_OUT, n, u, b);
			if (isnan(oracle))
				snprintf(oracle_s, sizeof(oracle_s), "-");
			else
				snprintf(oracle_s, sizeof(oracle_s), "%.1f %%",
					 100 * oracle);
			bad = u == nu && (med[C_OUT] > ALL_TOL[b] ||
					  med[C_OUT] >= med[C_BUILTIN] ||
					  med[C_OUT] >= med[C_LINE] ||
					  unc_all > UNCAL_GOAL);
			fails += bad;
			printf("%s | %s | %zu | %.1f %% | %.1f %% | %.1f %% | "
			       "%.1f %% | %.1f %% | %s%s\n",
			       u == nu ? "all" : rows[first_row[u]].system,
			       band_names[b], k, 100 * med[C_OUT],
			       100 * med[C_IN], 100 * unc_all,
			       100 * med[C_SHIPPED], 100 * med[C_LINE],
			       oracle_s, bad ? "  FAIL" : "");
			if (u == nu || k < MIN_ROWS)
				continue;
			switch (judge(u, b, C_OUT, med[C_OUT], GOAL, oracle)) {
			case 0:
				met++;
				break;
			case 1:
				over++;
				break;
			default:
				fails++;
			}
			switch (judge(u, b, C_BUILTIN, unc_all, UNCAL_GOAL,
				      oracle_of(C_BUILTIN, n, u, b))) {
			case 0:
				met_u++;
				break;
			case 1:
				over_u++;
				break;
			default:
				fails++;
			}
		}
	}
	printf("left out by size: %d system bands within the 10 %% goal, %d "
	       "known misses\n",
	       met, over);
	printf("uncalibrated, left out by system: %d system bands within the "
	       "25 %% goal, %d known misses\n",
	       met_u, over_u);
	return check ? fails : 0;
}

int main(int argc, char **argv)
{
	static size_t first[MAX_UNITS];
	bool check = argc > 1 && strcmp(argv[1], "--check") == 0;
	const char *dir = argv[argc - 1];
	char path[4096];
	size_t n = 0, skipped = 0, bound_fail = 0, dense_written = 0;
	unsigned nu;
	int fails;

	if (argc < 2) {
		fprintf(stderr, "usage: calib_report [--check] DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/nccl-busbw.csv", dir);
	if (busbw_rows_read(path, false, rows, &n, &skipped, stderr))
		return 2;
	snprintf(path, sizeof(path), "%s/nccl-busbw-multinode.csv", dir);
	if (busbw_rows_read(path, true, rows, &n, &skipped, stderr))
		return 2;
	busbw_rows_group(rows, n);
	nu = make_units(n, first);
	pick_training(n);
	for (unsigned u = 0; u < nu; u++) {
		struct lagom_net_site_report rep;
		struct lagom_net_calib calib;
		struct lagom_netcal base;
		if (base_without(n, rows[first[u]].obs.group, &base) ||
		    run_unit(n, u, first[u], false, C_OUT, &base, &bound_fail,
			     &rep, &calib) ||
		    run_unit(n, u, first[u], true, C_IN, &base, &bound_fail,
			     NULL, NULL))
			return 2;
		print_fit(first[u], &rep, &calib, &base);
		if (run_dense(n, u, first[u], &base, &bound_fail,
			      &dense_written))
			return 2;
	}
	if (getenv("CALIB_ROWS"))
		for (size_t i = 0; i < n; i++)
			if (unit_of[i] != MAX_UNITS)
				printf("row %.20s %s %u nodes %llu B %s/%s/%u%s: "
				       "measured %.1f us, left out %.1f, "
				       "uncalibrated %.1f\n",
				       rows[i].system,
				       lagom_coll_name(rows[i].obs.coll),
				       rows[i].obs.comm.nodes,
				       (unsigned long long)rows[i].obs.bytes,
				       lagom_algo_name(rows[i].obs.cfg.algo),
				       lagom_proto_name(rows[i].obs.cfg.proto),
				       rows[i].obs.cfg.nchannels,
				       train[i] ? " (train)" : "",
				       rows[i].obs.time_s * 1e6,
				       pred[C_OUT][i] * 1e6,
				       pred[C_BUILTIN][i] * 1e6);
	memcpy(first_row, first, sizeof(first_row));
	fails = report(n, nu, check);
	fails += check ? report_dense(n, nu, dense_written)
		       : (report_dense(n, nu, dense_written), 0);
	report_targets(n);
	printf("physical bound: %zu calibrated predictions below the line "
	       "rate\n",
	       bound_fail);
	if (check && (fails || bound_fail)) {
		printf("FAIL: %d bands over tolerance\n", fails);
		return 1;
	}
	return 0;
}
