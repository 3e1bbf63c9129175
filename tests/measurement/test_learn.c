/*
 * tests/measurement/test_learn.c - the pure half of planning from
 * measurements (measurement/learn.h): the step key's text, which every
 * earlier step's STEP/key in the spool holds (a changed spelling would
 * stop a later step from finding it), and what a measured class and
 * iteration mean to the cost model.
 */
#include "config.h"

#include <string.h>

#include "measurement/learn.h"
#include "tests/lib/lagom_test.h"

static void test_key(void **state)
{
	char key[LAGOM_LEARN_KEY_MAX];

	lagom_learn_key(key, sizeof(key), NULL, "train job", 2, 8, 8, NULL);
	assert_string_equal(key, "lagom-key 1\njob:train_job shape:2x8x8 "
				 "workload:-\n");
	assert_true(lagom_learn_key_ok(key));
	lagom_learn_key(key, sizeof(key), "", "", 1, 4, 4, "phi-2:fsdp");
	assert_string_equal(key, "lagom-key 1\njob:- shape:1x4x4 "
				 "workload:phi-2:fsdp\n");
	assert_true(lagom_learn_key_ok(key));
	/* the user's key wins over the job's name and shape */
	lagom_learn_key(key, sizeof(key), "my/key", "x", 9, 9, 9, "w");
	assert_string_equal(key, "lagom-key 1\nuser:my_key\n");
	assert_true(lagom_learn_key_ok(key));

	assert_false(lagom_learn_key_ok(""));
	assert_false(lagom_learn_key_ok("lagom-key 1\n"));
	assert_false(lagom_learn_key_ok("lagom-key 2\nuser:a\n"));
	assert_false(lagom_learn_key_ok("lagom-key 1\nuser:a"));
	assert_false(lagom_learn_key_ok("lagom-key 1\nuser:a/b\n"));
}

static void test_coll_config(void **state)
{
	struct lagom_rec_class k = { .algo = LAGOM_REC_ALGO_PAT,
				     .proto = LAGOM_REC_PROTO_LL128,
				     .channels = 6 };
	struct lagom_coll_config cfg;
	enum lagom_coll c;

	assert_int_equal(lagom_learn_coll(LAGOM_NCCL_FUNC_ALLREDUCE, &c), 0);
	assert_int_equal(c, LAGOM_COLL_ALLREDUCE);
	assert_int_equal(lagom_learn_coll(LAGOM_NCCL_FUNC_ALLTOALL, &c), 0);
	assert_int_equal(c, LAGOM_COLL_ALLTOALL);
	assert_int_equal(lagom_learn_coll(LAGOM_NCCL_FUNC_SEND, &c), 0);
	assert_int_equal(c, LAGOM_COLL_SENDRECV);
	assert_int_equal(lagom_learn_coll(LAGOM_NCCL_FUNC_RECV, &c), 0);
	assert_int_equal(c, LAGOM_COLL_SENDRECV);
	assert_int_equal(lagom_learn_coll(LAGOM_NCCL_FUNC_GATHER, &c), -1);
	assert_int_equal(lagom_learn_coll(LAGOM_REC_OP_OTHER, &c), -1);
	/* the model's collective names NCCL's operation, both ways */
	for (int i = 0; i < LAGOM_COLL_COUNT; i++) {
		assert_int_equal(
			lagom_coll_from_nccl_func(
				lagom_coll_nccl_func((enum lagom_coll)i), &c),
			0);
		assert_int_equal(c, i);
	}

	assert_int_equal(lagom_learn_config(&k, &cfg), 0);
	assert_int_equal(cfg.algo, LAGOM_ALGO_PAT);
	assert_int_equal(cfg.proto, LAGOM_PROTO_LL128);
	assert_int_equal(cfg.nchannels, 6);
	k.algo = LAGOM_REC_ALGO_P2P;
	k.proto = LAGOM_REC_PROTO_NONE;
	assert_int_equal(lagom_learn_config(&k, &cfg), 0);
	assert_int_equal(cfg.algo, LAGOM_ALGO_RING);
	assert_int_equal(cfg.proto, LAGOM_PROTO_SIMPLE);
	k.algo = LAGOM_REC_ALGO_CE;
	assert_int_equal(lagom_learn_config(&k, &cfg), -1);
}

/*
 * The one record-to-model mapping (measurement/learn.h): the plan's bytes,
 * the configuration NCCL ran, and channels == 0 refused, for the planner
 * and the calibration alike: the model prices 1..64 CTAs, and a class
 * that names no channel count cannot be compared with it.
 */
static void test_class_mapping(void **state)
{
	struct lagom_rec_comm m = { .ranks = 16, .nodes = 2 };
	struct lagom_rec_class k = { .op = LAGOM_NCCL_FUNC_ALLGATHER,
				     .algo = LAGOM_REC_ALGO_RING,
				     .proto = LAGOM_REC_PROTO_SIMPLE,
				     .channels = 8,
				     .bytes = 1 << 20 };
	struct lagom_learn_class c;
	struct lagom_coll_config cfg;

	(void)state;
	assert_int_equal(lagom_learn_class(&m, &k, &c), 0);
	assert_int_equal(c.coll, LAGOM_COLL_ALLGATHER);
	assert_int_equal(c.bytes, 16u << 20); /* the whole buffer */
	assert_int_equal(c.config.algo, LAGOM_ALGO_RING);
	assert_int_equal(c.config.proto, LAGOM_PROTO_SIMPLE);
	assert_int_equal(c.config.nchannels, 8);
	/* channels == 0: no configuration the model prices, refused */
	k.channels = 0;
	assert_int_equal(lagom_learn_class(&m, &k, &c), -1);
	assert_int_equal(lagom_learn_config(&k, &cfg), -1);
	k.algo = LAGOM_REC_ALGO_P2P; /* point-to-point too */
	k.proto = LAGOM_REC_PROTO_NONE;
	k.op = LAGOM_NCCL_FUNC_SEND;
	assert_int_equal(lagom_learn_class(&m, &k, &c), -1);
	k.channels = LAGOM_REC_MAX_CHANNELS;
	assert_int_equal(lagom_learn_class(&m, &k, &c), 0);
	assert_int_equal(c.coll, LAGOM_COLL_SENDRECV);
	assert_int_equal(c.config.nchannels, LAGOM_REC_MAX_CHANNELS);
	k.bytes = 0; /* nothing moved: nothing to compare */
	assert_int_equal(lagom_learn_class(&m, &k, &c), -1);
}

/* An iteration of allgather, gather (no model class: left out), recv. */
static void test_workload(void **state)
{
	static struct lagom_rec_comm m = {
		.ranks = 16,
		.nodes = 2,
		.n_classes = 3,
		.cls = {
			{ .op = LAGOM_NCCL_FUNC_ALLGATHER, .bytes = 1024,
			  .gap_n = 4, .gap_ns = 8000 },
			{ .op = LAGOM_NCCL_FUNC_GATHER, .bytes = 64 },
			{ .op = LAGOM_NCCL_FUNC_RECV, .bytes = 256 },
		},
		.period_len = 3,
		.seq = { 0, 1, 2 },
	};
	struct lagom_workload *w = lagom_learn_workload(&m, "measured-7.0");

	assert_non_null(w);
	assert_string_equal(w->name, "measured-7.0");
	assert_int_equal(w->nregions, 2);
	assert_string_equal(w->regions[0].name, "measured-0");
	assert_int_equal(w->regions[0].colls[0].coll, LAGOM_COLL_ALLGATHER);
	/* the plan's bytes: the whole buffer of an allgather */
	assert_int_equal(w->regions[0].colls[0].bytes, 1024 * 16);
	assert_int_equal(w->regions[0].colls[0].comm.ranks_per_node, 8);
	assert_int_equal(w->regions[0].nkernels, 1);
	assert_double_near(w->regions[0].kernels[0].time_s, 2e-6, 1e-12);
	assert_string_equal(w->regions[1].name, "measured-2");
	assert_int_equal(w->regions[1].colls[0].coll, LAGOM_COLL_SENDRECV);
	assert_int_equal(w->regions[1].nkernels, 0);
	lagom_workload_destroy(w);

	m.period_len = 0;
	assert_null(lagom_learn_workload(&m, "none"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_coll_config),
		cmocka_unit_test(test_class_mapping),
		cmocka_unit_test(test_workload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
