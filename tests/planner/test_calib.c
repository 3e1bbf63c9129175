/*
 * tests/planner/test_calib.c - the site calibration (doc/calibration-
 * format.md, doc/model.md 2.7): the file round-trips and its strict
 * reader refuses every hostile variant whole; the evidence from records
 * is the median over runs of each run's fastest call and does not depend
 * on the order records come in; the fit recovers a site's line-rate
 * share and keeps what its classes cannot determine.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "planner/calib.h"
#include "planner/consensus.h"
#include "model/netdense.h"
#include "measurement/record.h"

static const char good[] =
	"{\"format\": \"lagom-calibration\", \"version\": 1, "
	"\"date_unix\": 1764201600, \"classes\": 16, \"runs\": 3, "
	"\"transports\": {\"ib\": {\"2\": {\"classes\": 16, \"eff\": 0.7, "
	"\"step_us\": 40}}, \"efa\": {\"9+\": {\"classes\": 2}}}}";

static int parse(const char *text, struct lagom_calibration *c)
{
	struct lagom_error err = { 0 };

	return lagom_calibration_parse(text, strlen(text), c, &err);
}

static void test_round_trip(void **state)
{
	struct lagom_calibration c, back;
	struct lagom_error err = { 0 };
	char line[128], *text = NULL;

	(void)state;
	assert_int_equal(parse(good, &c), 0);
	assert_true(c.calib.t[LAGOM_NET_IB].set[0][LAGOM_NP_EFF]);
	assert_true(c.calib.t[LAGOM_NET_IB].value[0][LAGOM_NP_EFF] == 0.7);
	assert_false(c.calib.t[LAGOM_NET_IB].set[0][LAGOM_NP_FILL]);
	assert_int_equal(c.classes[LAGOM_NET_EFA][2], 2);
	assert_int_equal(lagom_calibration_format(&c, &text, &err), 0);
	assert_int_equal(parse(text, &back), 0);
	assert_memory_equal(&back.calib, &c.calib, sizeof(c.calib));
	assert_int_equal(back.n_runs, 3);
	free(text);
	lagom_calibration_line(&c, line, sizeof(line));
	assert_string_equal(line,
			    "calibrated from 16 classes of 3 runs, 2025-11-27");
}

/* base with its first from replaced by to, into out. */
static void variant(const char *base, const char *from, const char *to,
		    char *out, size_t len)
{
	const char *at = strstr(base, from);

	assert_non_null(at);
	snprintf(out, len, "%.*s%s%s", (int)(at - base), base, to,
		 at + strlen(from));
}

/* Each variant of the good file is refused whole. */
static void test_hostile(void **state)
{
	static const struct {
		const char *from, *to;
		int rc;
	} bad[] = {
		{ "\"lagom-calibration\"", "\"lagom-digest\"",
		  -EPROTONOSUPPORT },
		{ "\"version\": 1", "\"version\": 3", -EPROTONOSUPPORT },
		{ "\"version\": 1", "\"version\": 0", -EPROTONOSUPPORT },
		{ "\"eff\": 0.7", "\"eff\": 1.01", -EINVAL }, /* beats line */
		{ "\"eff\": 0.7", "\"eff\": \"0.7\"", -EINVAL },
		{ "\"step_us\": 40", "\"step_us\": -1", -EINVAL },
		{ "\"step_us\": 40", "\"step_us\": 40, \"step_us\": 41",
		  -EINVAL }, /* duplicate */
		{ "\"step_us\": 40", "\"user\": 1", -EINVAL },
		{ "\"ib\"", "\"infiniband\"", -EINVAL },
		{ "\"ib\"", "\"default\"", -EINVAL },
		{ "\"2\"", "\"2-8\"", -EINVAL },
		{ "\"runs\": 3", "\"runs\": 3.5", -EINVAL },
		{ "\"runs\": 3", "\"runs\": -3", -EINVAL },
		{ "\"date_unix\": 1764201600", "\"date_unix\": 1e400",
		  -EINVAL },
		{ ", \"runs\": 3", "", -EINVAL }, /* missing */
		{ "\"classes\": 16, \"eff\"", "\"eff\"", -EINVAL },
		{ "}}}}", "}}}", -EINVAL }, /* truncated */
	};
	struct lagom_calibration c;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[1024];

		variant(good, bad[i].from, bad[i].to, text, sizeof(text));
		memset(&c, 0x5a, sizeof(c));
		if (parse(text, &c) != bad[i].rc)
			fail_msg("variant %zu (%s) not refused as %d", i, text,
				 bad[i].rc);
	}
	{
		char *big = calloc(1, LAGOM_CALIBRATION_MAX_BYTES + 2);
		struct lagom_error err = { 0 };
		assert_non_null(big);
		memset(big, ' ', LAGOM_CALIBRATION_MAX_BYTES + 1);
		assert_int_equal(
			lagom_calibration_parse(
				big, LAGOM_CALIBRATION_MAX_BYTES + 1, &c, &err),
			-EFBIG);
		assert_int_equal(
			lagom_calibration_parse("{\"a\":1}\0", 8, &c, &err),
			-EINVAL);
		free(big);
	}
}

/* Version 2: a band's dense fit (doc/calibration-format.md). */
static const char good2[] =
	"{\"format\": \"lagom-calibration\", \"version\": 2, "
	"\"date_unix\": 1764201600, \"classes\": 40, \"runs\": 3, "
	"\"transports\": {\"ib\": {\"3-8\": {\"classes\": 40, \"eff\": 0.7, "
	"\"dense\": {\"ring\": {\"busbw_Bps\": 4e10, \"lat_ll_us\": 8, "
	"\"step_simple_us\": 2, \"bytes_ll\": [8, 65536], "
	"\"bytes_simple\": [1048576, 1073741824], \"channels\": [8, 32], "
	"\"ranks_per_node\": 8, \"classes\": 40, \"err\": 0.02}}}}}}";

static void test_dense_v2(void **state)
{
	static const struct {
		const char *from, *to;
		int rc;
	} bad[] = {
		{ "\"version\": 2", "\"version\": 1",
		  -EINVAL }, /* dense in 1 */
		{ "\"ring\"", "\"nvls\"", -EINVAL },
		{ "4e10", "1e14", -EINVAL },
		{ "\"lat_ll_us\": 8", "\"lat_ll_us\": 0", -EINVAL },
		{ "\"lat_ll_us\": 8", "\"lat_xx_us\": 8", -EINVAL },
		{ "[8, 65536]", "[65536, 8]", -EINVAL },
		{ "[8, 65536]", "[8]", -EINVAL },
		{ "[8, 32]", "[0, 32]", -EINVAL },
		{ "[8, 32]", "[8, 65]", -EINVAL },
		{ "\"err\": 0.02", "\"err\": 1.5", -EINVAL },
		{ ", \"err\": 0.02", "", -EINVAL }, /* missing */
		{ "\"ranks_per_node\": 8, ", "", -EINVAL },
		{ "\"busbw_Bps\": 4e10, ", "", -EINVAL },
	};
	struct lagom_calibration c, back;
	struct lagom_error err = { 0 };
	const struct lagom_net_dense *d;
	char *text = NULL;

	(void)state;
	assert_int_equal(parse(good2, &c), 0);
	d = &c.calib.t[LAGOM_NET_IB].dense[1][LAGOM_NET_DENSE_RING];
	assert_true(d->set[LAGOM_DP_INV_BUSBW]);
	assert_true(d->value[LAGOM_DP_INV_BUSBW] == 4e10);
	assert_false(d->set[LAGOM_DP_LAT_SIMPLE]);
	assert_int_equal(d->max_bytes[2], 65536);
	assert_int_equal(d->max_bytes[1], 0); /* LL128 not covered */
	assert_int_equal(d->ranks_per_node, 8);
	assert_true(d->err == 0.02);
	assert_int_equal(lagom_calibration_format(&c, &text, &err), 0);
	assert_non_null(strstr(text, "\"version\": 2"));
	assert_int_equal(parse(text, &back), 0);
	assert_memory_equal(&back.calib, &c.calib, sizeof(c.calib));
	free(text);
	/* without a dense fit the writer keeps version 1 */
	memset(c.calib.t[LAGOM_NET_IB].dense, 0,
	       sizeof(c.calib.t[LAGOM_NET_IB].dense));
	assert_int_equal(lagom_calibration_format(&c, &text, &err), 0);
	assert_non_null(strstr(text, "\"version\": 1"));
	free(text);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char t[2048];

		variant(good2, bad[i].from, bad[i].to, t, sizeof(t));
		if (parse(t, &c) != bad[i].rc)
			fail_msg("dense variant %zu (%s) not refused as %d", i,
				 t, bad[i].rc);
	}
}

/* One task's record: one class, allreduce 1 GiB ring/simple 32 channels
 * on 2 nodes x 8, fastest call min_ns. */
static void add_record(struct lagom_consensus *cs, const char *job, int task,
		       uint64_t min_ns)
{
	static struct lagom_rec r;
	struct lagom_rec_class *k;

	memset(&r, 0, sizeof(r));
	r.abi = 5;
	snprintf(r.job, sizeof(r.job), "%s", job);
	snprintf(r.step, sizeof(r.step), "0");
	r.task = task;
	r.n_comms = 1;
	r.comm[0].ranks = 16;
	r.comm[0].nodes = 2;
	r.comm[0].n_classes = 1;
	k = &r.comm[0].cls[0];
	k->op = LAGOM_NCCL_FUNC_ALLREDUCE;
	k->algo = LAGOM_REC_ALGO_RING;
	k->proto = LAGOM_REC_PROTO_SIMPLE;
	k->channels = 32;
	k->bytes = 1ull << 30;
	k->count = k->gpu_n = 10;
	k->gpu_min_ns = min_ns;
	k->gpu_max_ns = min_ns * 2;
	k->gpu_ns = min_ns * 15;
	assert_int_equal(lagom_consensus_add(cs, 1000, &r, NULL), 0);
}

/* The class's time in `lagom calibrate`'s evidence (planner/consensus.h)
 * when every record is the calibration account's (uid 1000). */
static double evidence_s(const char *const *jobs, const int *tasks,
			 const uint64_t *ns, size_t n)
{
	struct lagom_consensus *cs = lagom_consensus_create(1000);
	struct lagom_consensus_stats st;
	struct lagom_net_meas m[4];
	struct lagom_hw hw;
	size_t got;

	assert_non_null(cs);
	assert_int_equal(lagom_hw_from_spec("H100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    8, 400, &hw, NULL),
			 0);
	for (size_t i = 0; i < n; i++)
		add_record(cs, jobs[i], tasks[i], ns[i]);
	got = lagom_consensus_meas(cs, &hw, LAGOM_CONSENSUS_NO_UID, m, 4, &st);
	assert_int_equal(got, 1);
	assert_int_equal(st.runs, 3);
	assert_int_equal(st.trusted, 1);
	lagom_consensus_destroy(cs);
	return m[0].time_s;
}

/* Per run the fastest task (the rank that came last), the median over
 * runs (the contended run 3 does not count); any order. */
static void test_evidence(void **state)
{
	const char *jobs[] = { "1", "1", "2", "2", "3", "3" };
	const int tasks[] = { 0, 1, 0, 1, 0, 1 };
	const uint64_t ns[] = { 5000000, 6250000, 5100000,
				6300000, 7000000, 8750000 };
	const char *rjobs[] = { "3", "2", "1", "3", "2", "1" };
	const int rtasks[] = { 1, 1, 1, 0, 0, 0 };
	const uint64_t rns[] = { 8750000, 6300000, 6250000,
				 7000000, 5100000, 5000000 };

	(void)state;
	assert_true(fabs(evidence_s(jobs, tasks, ns, 6) - 5.1e-3) < 1e-12);
	assert_true(fabs(evidence_s(rjobs, rtasks, rns, 6) - 5.1e-3) < 1e-12);
}

/* A site at 0.7 of the line rate: eff recovered, the 2-node tree's
 * constant (no tree class) kept. */
static void test_fit(void **state)
{
	struct lagom_net_calib truth = { 0 }, fit;
	struct lagom_net_site_report rep;
	struct lagom_net_meas m[6];
	struct lagom_error err = { 0 };

	(void)state;
	truth.t[LAGOM_NET_IB].set[0][LAGOM_NP_EFF] = true;
	truth.t[LAGOM_NET_IB].value[0][LAGOM_NP_EFF] = 0.7;
	for (int i = 0; i < 6; i++) {
		m[i] = (struct lagom_net_meas){
			.comm = { .ranks = 16,
				  .nodes = 2,
				  .ranks_per_node = 8,
				  .hops = LAGOM_HOPS_SAME_LEAF },
			.coll = LAGOM_COLL_ALLREDUCE,
			.bytes = 1ull << (20 + 2 * i),
			.cfg = { .algo = LAGOM_ALGO_RING,
				 .proto = LAGOM_PROTO_SIMPLE,
				 .nchannels = 32 },
		};
		assert_int_equal(lagom_hw_from_spec("H100-SXM", 8,
						    LAGOM_INTRA_DEFAULT, 8, 400,
						    &m[i].hw, NULL),
				 0);
		m[i].time_s = lagom_net_meas_predict_s(&m[i], &truth);
	}
	assert_int_equal(lagom_net_site_fit(m, 6, &fit, &rep, &err), 0);
	assert_true(fit.t[LAGOM_NET_IB].set[0][LAGOM_NP_EFF]);
	assert_true(fabs(fit.t[LAGOM_NET_IB].value[0][LAGOM_NP_EFF] - 0.7) <
		    0.01);
	assert_false(fit.t[LAGOM_NET_IB].set[0][LAGOM_NP_TREE2]);
	assert_int_equal(rep.verdict[LAGOM_NET_IB][0][LAGOM_NP_TREE2],
			 LAGOM_NV_UNDETERMINED);
	assert_int_equal(rep.rows[LAGOM_NET_IB][0], 6);
	assert_int_equal(rep.rows[LAGOM_NET_IB][1], 0);
	for (int i = 0; i < 6; i++)
		assert_true(fabs(lagom_net_meas_predict_s(&m[i], &fit) /
					 m[i].time_s -
				 1) < 0.01);
	m[0].time_s = NAN;
	assert_int_equal(lagom_net_site_fit(m, 6, &fit, NULL, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_dense_v2),
		cmocka_unit_test(test_evidence),
		cmocka_unit_test(test_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
