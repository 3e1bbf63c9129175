/*
 * tests/planner/test_consensus.c - the users' consensus (planner/
 * consensus.h, issue 33): records outside physical bounds are refused
 * whole; one user's volume (50 fabricated runs against another's 5)
 * moves nothing, an honest majority still calibrates; records naming
 * another user's job ids stay their writer's runs; the trusted account's
 * runs count alone; every limit is one user's and drops nobody else's
 * evidence; the result does not depend on the order records came in;
 * --check's "without this user"; the bound on a calibration's move.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "planner/consensus.h"
#include "measurement/record.h"

#define HONEST_NS 5000000ULL /* 5 ms: allreduce 1 GiB on 2 x 8 */

static struct lagom_rec rec;

/* One task's record: one class, allreduce 1 GiB ring/simple 32 channels
 * on 2 nodes x 8, fastest call min_ns. */
static struct lagom_rec *one(const char *job, int task, uint64_t min_ns)
{
	struct lagom_rec_class *k;

	memset(&rec, 0, sizeof(rec));
	rec.abi = 5;
	snprintf(rec.job, sizeof(rec.job), "%s", job);
	snprintf(rec.step, sizeof(rec.step), "0");
	rec.task = task;
	rec.n_comms = 1;
	rec.comm[0].ranks = 16;
	rec.comm[0].nodes = 2;
	rec.comm[0].n_classes = 1;
	k = &rec.comm[0].cls[0];
	k->op = LAGOM_NCCL_FUNC_ALLREDUCE;
	k->algo = LAGOM_REC_ALGO_RING;
	k->proto = LAGOM_REC_PROTO_SIMPLE;
	k->channels = 32;
	k->bytes = 1ull << 30;
	k->count = k->gpu_n = 10;
	k->gpu_min_ns = min_ns;
	k->gpu_max_ns = min_ns * 2;
	k->gpu_ns = min_ns * 15;
	return &rec;
}

static void add(struct lagom_consensus *cs, uint32_t uid, const char *job,
		uint64_t min_ns)
{
	struct lagom_error err = { 0 };

	/* two tasks: the run keeps the faster */
	assert_int_equal(
		lagom_consensus_add(cs, uid, one(job, 0, min_ns), &err), 0);
	assert_int_equal(
		lagom_consensus_add(cs, uid, one(job, 1, min_ns * 5 / 4), &err),
		0);
}

/* uid's n runs, jobs named PREFIX0.., times ns * (1 + i / 100). */
static void runs(struct lagom_consensus *cs, uint32_t uid, const char *prefix,
		 int n, uint64_t ns)
{
	for (int i = 0; i < n; i++) {
		char job[24];
		snprintf(job, sizeof(job), "%s%d", prefix, i);
		add(cs, uid, job, ns + ns * (uint64_t)i / 100);
	}
}

static struct lagom_hw hw;

static int setup(void **state)
{
	(void)state;
	return lagom_hw_from_spec("H100-SXM", 8, LAGOM_INTRA_DEFAULT, 8, 400,
				  &hw, NULL);
}

static size_t meas(const struct lagom_consensus *cs, long exclude,
		   struct lagom_net_meas *m, struct lagom_consensus_stats *st)
{
	return lagom_consensus_meas(cs, &hw, exclude, m, 8, st);
}

/* The absurd but well-formed numbers, each refused whole. */
static void test_bounds(void **state)
{
	struct lagom_consensus *cs = lagom_consensus_create(-1);
	struct lagom_error err = { 0 };
	struct lagom_rec *r;

	(void)state;
	assert_non_null(cs);
	assert_int_equal(
		lagom_consensus_rec_check(one("1", 0, HONEST_NS), &err), 0);
	r = one("1", 0, 1);
	assert_int_equal(lagom_consensus_rec_check(r, &err), -ERANGE);
	assert_non_null(strstr(err.text, "1 ns"));
	r = one("1", 0, HONEST_NS);
	r->comm[0].cls[0].gpu_max_ns = UINT64_MAX;
	assert_int_equal(lagom_consensus_rec_check(r, &err), -ERANGE);
	r = one("1", 0, UINT64_MAX);
	assert_int_equal(lagom_consensus_rec_check(r, &err), -ERANGE);
	r = one("1", 0, HONEST_NS);
	r->comm[0].cls[0].bytes = UINT64_MAX;
	assert_int_equal(lagom_consensus_rec_check(r, &err), -ERANGE);
	r = one("1", 0, HONEST_NS);
	r->comm[0].nodes = UINT32_MAX;
	r->comm[0].ranks = UINT32_MAX;
	assert_int_equal(lagom_consensus_rec_check(r, &err), -ERANGE);
	assert_non_null(strstr(err.text, "nodes"));
	r = one("1", 0, HONEST_NS);
	r->comm[0].cls[0].bytes = 1;
	r->comm[0].cls[0].channels = 64;
	assert_int_equal(lagom_consensus_rec_check(r, &err), -ERANGE);
	assert_non_null(strstr(err.text, "64 channels for 1 bytes"));
	/* 1 GiB in 1 us: 1e15 B/s */
	r = one("1", 0, 1000);
	assert_int_equal(lagom_consensus_rec_check(r, &err), -ERANGE);
	/* refused records are counted against their user, not taken */
	r = one("1", 0, 1);
	assert_int_equal(lagom_consensus_add(cs, 1001, r, &err), -ERANGE);
	assert_int_equal(lagom_consensus_users(cs), 1);
	assert_int_equal(lagom_consensus_user(cs, 0)->refused, 1);
	assert_int_equal(lagom_consensus_user(cs, 0)->records, 0);
	lagom_consensus_destroy(cs);
}

/* 5 honest runs against 50 fabricated ones 8x slower: nothing moves; a
 * second honest user makes a majority and the class is the honest one. */
static void test_volume(void **state)
{
	struct lagom_consensus *cs = lagom_consensus_create(-1);
	struct lagom_consensus_stats st;
	struct lagom_net_meas m[8];
	size_t dissent[3];
	double ratio[3];

	(void)state;
	assert_non_null(cs);
	runs(cs, 1000, "", 5, HONEST_NS);
	runs(cs, 1001, "9", 50, 8 * HONEST_NS);
	assert_int_equal(meas(cs, -1, m, &st), 0);
	assert_int_equal(st.disputed, 1);
	assert_int_equal(st.used, 0);
	/* two users who disagree: both dissent, nobody can tell who lies */
	assert_int_equal(lagom_consensus_dissent(cs, dissent, ratio), 0);
	assert_int_equal(dissent[0], 1);
	assert_int_equal(dissent[1], 1);
	/* one user alone moves nothing either */
	assert_int_equal(meas(cs, 1001, m, &st), 0);
	assert_int_equal(st.one_user, 1);
	runs(cs, 1002, "5", 3, HONEST_NS * 21 / 20);
	/* three: the one who disagrees is named, 8x and a bit */
	assert_int_equal(lagom_consensus_dissent(cs, dissent, ratio), 0);
	assert_int_equal(dissent[0], 0);
	assert_int_equal(dissent[1], 1);
	assert_int_equal(dissent[2], 0);
	assert_true(ratio[1] > 8 && ratio[1] < 9.5);
	assert_true(fabs(ratio[0] - 5.1 / 5.3025) < 1e-9);
	assert_int_equal(meas(cs, -1, m, &st), 1);
	assert_int_equal(st.users, 3);
	assert_int_equal(st.runs, 58);
	/* median of the users' medians: 1002's 5.25 ms plus its spread */
	assert_true(fabs(m[0].time_s - 5.3025e-3) < 1e-9);
	assert_int_equal(m[0].comm.nodes, 2);
	assert_int_equal(m[0].cfg.nchannels, 32);
	/* without the fabricating user: the two honest users' median */
	assert_int_equal(meas(cs, 1001, m, &st), 1);
	assert_true(fabs(m[0].time_s - (5.1e-3 + 5.3025e-3) / 2) < 1e-9);
	/* without an honest user: disputed again */
	assert_int_equal(meas(cs, 1000, m, &st), 0);
	assert_int_equal(st.disputed, 1);
	lagom_consensus_destroy(cs);
}

/* Records naming another user's job ids stay their writer's runs. */
static void test_foreign_job_ids(void **state)
{
	struct lagom_consensus *cs = lagom_consensus_create(-1);
	struct lagom_consensus_stats st;
	struct lagom_net_meas m[8];

	(void)state;
	assert_non_null(cs);
	add(cs, 1000, "77", HONEST_NS);
	add(cs, 1001, "77", HONEST_NS / 4); /* "my run 77 was faster" */
	assert_int_equal(lagom_consensus_user(cs, 0)->runs, 1);
	assert_int_equal(lagom_consensus_user(cs, 1)->runs, 1);
	/* merged, 77's minimum would be 1001's; kept apart, they disagree */
	assert_int_equal(meas(cs, -1, m, &st), 0);
	assert_int_equal(st.disputed, 1);
	add(cs, 1002, "77", HONEST_NS);
	assert_int_equal(meas(cs, -1, m, &st), 1);
	assert_true(fabs(m[0].time_s - 5e-3) < 1e-12);
	lagom_consensus_destroy(cs);
}

/* The trusted calibration account's runs count alone. */
static void test_trusted(void **state)
{
	struct lagom_consensus *cs = lagom_consensus_create(500);
	struct lagom_consensus_stats st;
	struct lagom_net_meas m[8];

	(void)state;
	assert_non_null(cs);
	runs(cs, 1001, "9", 50, 8 * HONEST_NS);
	add(cs, 500, "1", HONEST_NS);
	assert_int_equal(meas(cs, -1, m, &st), 1);
	assert_int_equal(st.trusted, 1);
	assert_true(fabs(m[0].time_s - 5e-3) < 1e-12);
	/* without it, one user: nothing */
	assert_int_equal(meas(cs, 500, m, &st), 0);
	assert_int_equal(st.one_user, 1);
	lagom_consensus_destroy(cs);
}

/* One user's 5000 one-run records and 3 x 2048 one-node classes reach
 * that user's limits only; two honest users' class is still fitted. */
static void test_limits(void **state)
{
	struct lagom_consensus *cs = lagom_consensus_create(-1);
	const struct lagom_consensus_user *u;
	struct lagom_consensus_stats st;
	struct lagom_net_meas m[8];
	struct lagom_error err = { 0 };

	(void)state;
	assert_non_null(cs);
	runs(cs, 1000, "", 5, HONEST_NS);
	for (int i = 0; i < 5000; i++) {
		char job[24];
		snprintf(job, sizeof(job), "%d", 100000 + i);
		assert_int_equal(lagom_consensus_add(cs, 1001,
						     one(job, 0, HONEST_NS * 8),
						     &err),
				 0);
	}
	for (int j = 0; j < 3; j++) {
		struct lagom_rec *r = one("5", 0, HONEST_NS);
		r->n_comms = LAGOM_REC_MAX_COMMS;
		for (int c = 0; c < LAGOM_REC_MAX_COMMS; c++) {
			r->comm[c] = r->comm[0];
			r->comm[c].nodes = 1;
			r->comm[c].ranks = 8;
			r->comm[c].n_classes = LAGOM_REC_MAX_CLASSES;
			for (int k = 0; k < LAGOM_REC_MAX_CLASSES; k++) {
				r->comm[c].cls[k] = r->comm[0].cls[0];
				r->comm[c].cls[k].bytes = 4096 +
							  (uint64_t)(j * 4096 +
								     c * 128 +
								     k);
			}
		}
		assert_int_equal(lagom_consensus_add(cs, 1003, r, &err), 0);
	}
	runs(cs, 1002, "x", 3, HONEST_NS);
	u = lagom_consensus_user(cs, 1);
	assert_int_equal(u->uid, 1001);
	assert_int_equal(u->runs, LAGOM_CONSENSUS_USER_RUNS);
	assert_int_equal(u->over_runs, 5000 - LAGOM_CONSENSUS_USER_RUNS);
	u = lagom_consensus_user(cs, 2);
	assert_int_equal(u->uid, 1003);
	assert_int_equal(u->classes, LAGOM_CONSENSUS_USER_CLASSES);
	assert_int_equal(u->over_classes,
			 3 * 2048 - LAGOM_CONSENSUS_USER_CLASSES);
	assert_int_equal(lagom_consensus_user(cs, 0)->runs, 5);
	assert_int_equal(lagom_consensus_user(cs, 3)->runs, 3);
	assert_int_equal(meas(cs, -1, m, &st), 1);
	assert_true(fabs(m[0].time_s - 5.1e-3) < 1e-9);
	assert_int_equal(st.one_node, LAGOM_CONSENSUS_USER_CLASSES);
	lagom_consensus_destroy(cs);
}

/* The same records in another order: the same measurements. */
static void test_order(void **state)
{
	struct lagom_consensus *a = lagom_consensus_create(-1),
			       *b = lagom_consensus_create(-1);
	struct lagom_net_meas ma[8], mb[8];
	const uint32_t uids[] = { 1000, 1001, 1002 };

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (int u = 0; u < 3; u++)
		runs(a, uids[u], "", 4 + u, HONEST_NS + 1000 * u);
	for (int u = 2; u >= 0; u--)
		for (int i = 3 + u; i >= 0; i--) {
			char job[24];
			snprintf(job, sizeof(job), "%d", i);
			add(b, uids[u], job,
			    HONEST_NS + 1000 * u +
				    (HONEST_NS + 1000 * u) * (uint64_t)i / 100);
		}
	assert_int_equal(meas(a, -1, ma, NULL), 1);
	assert_int_equal(meas(b, -1, mb, NULL), 1);
	assert_true(ma[0].time_s == mb[0].time_s);
	lagom_consensus_destroy(a);
	lagom_consensus_destroy(b);
}

/* The bound on a calibration's move from the last one. */
static void test_moves(void **state)
{
	struct lagom_net_calib last = { 0 }, now = { 0 };
	char why[256];

	(void)state;
	assert_int_equal(lagom_consensus_moves(&last, &now, why, sizeof(why)),
			 0);
	last.t[LAGOM_NET_IB].set[0][LAGOM_NP_CH_NET] = true;
	last.t[LAGOM_NET_IB].value[0][LAGOM_NP_CH_NET] = 1.15e10;
	now = last;
	now.t[LAGOM_NET_IB].value[0][LAGOM_NP_CH_NET] = 1.4e10;
	assert_int_equal(lagom_consensus_moves(&last, &now, why, sizeof(why)),
			 0);
	now.t[LAGOM_NET_IB].value[0][LAGOM_NP_CH_NET] = 4e9;
	assert_int_equal(lagom_consensus_moves(&last, &now, why, sizeof(why)),
			 1);
	assert_non_null(strstr(why, "ch_net_Bps 1.15e+10 -> 4e+09"));
	/* the first calibration is held to the built-in values */
	assert_int_equal(lagom_consensus_moves(NULL, &now, why, sizeof(why)),
			 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_volume),
		cmocka_unit_test(test_foreign_job_ids),
		cmocka_unit_test(test_trusted),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_moves),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
