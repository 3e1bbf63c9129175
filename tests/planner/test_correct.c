/*
 * tests/planner/test_correct.c - the measured correction (planner/correct.c,
 * doc/profiler.md): a class measured slower than the model makes the
 * prediction slower, faster makes it faster, by measured / model at the
 * configuration NCCL ran, clamped; a class with too few samples, another
 * shape, a size more than 2x away or a configuration the model does not
 * know gets none; the order of the measured classes does not matter.  Also
 * the model's hook (struct lagom_comm's time_scale).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"
#include "tests/lib/write_profile.h"
#include "planner/planner.h"
#include "profile/profile.h"
#include "search/search.h"

#define AR_BYTES (64ull << 20)
#define CALLS 40

struct fx {
	char dir[64];
	struct lagom_hw hw;
};

static const char *const names[] = { "gpu001", "gpu002" };

static void write_profile(const char *dir, const char *node)
{
	lagom_test_write_profile(dir, &(struct lagom_test_profile){
					      .node = node,
					      .gpu = "H100-SXM",
					      .gpus = 8,
					      .sms = 132,
					      .nvlinks = 18,
					      .nics = 4,
					      .nic_Bps = 50e9,
					      .version = "0.1.0",
				      });
}

static struct lagom_planner_input input(const struct fx *f,
					const struct lagom_workload *w)
{
	struct lagom_planner_input in = {
		.profile_dir = f->dir,
		.node_names = names,
		.node_count = 2,
		.ranks_per_node = 8,
		.gpus_per_node = 8,
		.workload = w,
		.tuner_path = "/usr/lib/libnccl-tuner-lagom.so",
		.job_id = 78,
	};
	return in;
}

static int setup(void **state)
{
	static struct fx f;
	struct lagom_planner_inputs g;
	struct lagom_error err = { 0 };
	struct lagom_planner_input in;

	snprintf(f.dir, sizeof(f.dir), "/tmp/lagom-learned-XXXXXX");
	if (!mkdtemp(f.dir))
		return -1;
	write_profile(f.dir, "gpu001");
	write_profile(f.dir, "gpu002");
	in = input(&f, NULL);
	if (lagom_planner_gather(&in, &g, &err) != 0)
		fail_msg("gather: %s", err.text);
	f.hw = *g.hw;
	lagom_planner_inputs_release(&g);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char path[128];

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s.json", f->dir, names[i]);
		unlink(path);
	}
	rmdir(f->dir);
	return 0;
}

static const struct lagom_comm comm16 = { .ranks = 16,
					  .nodes = 2,
					  .ranks_per_node = 8,
					  .hops = LAGOM_HOPS_SAME_LEAF };

/* One layer: a short kernel beside a 64 MiB all-reduce, so that the
 * iteration is communication-bound. */
static struct lagom_workload *workload(void)
{
	struct lagom_workload *w = lagom_workload_create("measured-77.0", 1);
	struct lagom_region *r;

	assert_non_null(w);
	r = &w->regions[0];
	snprintf(r->name, sizeof(r->name), "layer");
	r->kernels[0].time_s = 50e-6;
	r->nkernels = 1;
	r->colls[0] = (struct lagom_region_coll){ .coll = LAGOM_COLL_ALLREDUCE,
						  .bytes = AR_BYTES,
						  .comm = comm16 };
	r->ncolls = 1;
	r->repeat = 4;
	return w;
}

static const struct lagom_coll_config ring8 = { .algo = LAGOM_ALGO_RING,
						.proto = LAGOM_PROTO_SIMPLE,
						.nchannels = 8 };

/* The model's time of the all-reduce as NCCL ran it. */
static double model_s(const struct fx *f, uint64_t bytes,
		      const struct lagom_coll_config *cfg)
{
	struct lagom_coll_time t;
	struct lagom_error err = { 0 };

	if (lagom_coll_predict(&f->hw, &comm16, LAGOM_COLL_ALLREDUCE, bytes,
			       cfg, &t, &err) != 0)
		fail_msg("predict: %s", err.text);
	return t.time_s;
}

/* A measured all-reduce class: CALLS calls of ring/simple on nchannels,
 * each factor x the model. */
static struct lagom_planner_measured_class measured_nc(const struct fx *f,
						       uint64_t bytes,
						       double factor,
						       unsigned nchannels)
{
	struct lagom_coll_config cfg = ring8;

	cfg.nchannels = nchannels;
	return (struct lagom_planner_measured_class){
		.coll = LAGOM_COLL_ALLREDUCE,
		.bytes = bytes,
		.ranks = 16,
		.nodes = 2,
		.config = cfg,
		.samples = CALLS,
		.gpu_ns = (uint64_t)llround(CALLS * factor *
					    model_s(f, bytes, &cfg) * 1e9),
	};
}

static struct lagom_planner_measured_class measured_ar(const struct fx *f,
						       uint64_t bytes,
						       double factor)
{
	return measured_nc(f, bytes, factor, 8);
}

static struct lagom_planner_result *plan(
	const struct fx *f, const struct lagom_planner_measured_class *cls,
	size_t n)
{
	struct lagom_workload *w = workload();
	struct lagom_planner_measured m = { .cls = cls, .n = n };
	struct lagom_planner_input in = input(f, w);
	struct lagom_planner_result *r = NULL;
	struct lagom_error err = { 0 };

	snprintf(m.from, sizeof(m.from), "77.0");
	if (cls)
		in.measured = &m;
	if (lagom_planner_run(&in, &r, &err) != 0)
		fail_msg("planner: %s", err.text);
	lagom_workload_destroy(w);
	return r;
}

static void time_scale_multiplies_the_model(void **state)
{
	const struct fx *f = *state;
	struct lagom_comm c = comm16;
	struct lagom_coll_time t1, t2;
	struct lagom_error err = { 0 };

	assert_int_equal(lagom_coll_predict(&f->hw, &c, LAGOM_COLL_ALLREDUCE,
					    AR_BYTES, &ring8, &t1, &err),
			 0);
	c.time_scale = 2.5;
	assert_int_equal(lagom_coll_predict(&f->hw, &c, LAGOM_COLL_ALLREDUCE,
					    AR_BYTES, &ring8, &t2, &err),
			 0);
	assert_true(fabs(t2.time_s - 2.5 * t1.time_s) < 1e-12 * t1.time_s);
	c.time_scale = 5; /* outside the bounds: refused */
	assert_int_equal(lagom_coll_predict(&f->hw, &c, LAGOM_COLL_ALLREDUCE,
					    AR_BYTES, &ring8, &t2, &err),
			 -EINVAL);
	c.time_scale = NAN;
	assert_int_equal(lagom_coll_predict(&f->hw, &c, LAGOM_COLL_ALLREDUCE,
					    AR_BYTES, &ring8, &t2, &err),
			 -EINVAL);
}

static void slower_measurement_slower_prediction(void **state)
{
	const struct fx *f = *state;
	struct lagom_planner_measured_class slow = measured_ar(f, AR_BYTES, 2);
	struct lagom_planner_result *base = plan(f, NULL, 0);
	struct lagom_planner_result *r = plan(f, &slow, 1);

	assert_int_equal(base->ncorrections, 0);
	assert_int_equal(r->ncorrections, 1);
	assert_true(fabs(r->corrections[0].factor - 2) < 1e-6);
	assert_false(r->corrections[0].clamped);
	assert_int_equal(r->corrections[0].samples, CALLS);
	assert_string_equal(r->corrected_from, "77.0");
	/* communication-bound: the iteration and the class take longer */
	assert_true(r->predicted_time_s > 1.5 * base->predicted_time_s);
	assert_true(r->plan->colls[0].time_s >
		    1.5 * base->plan->colls[0].time_s);
	assert_non_null(strstr(r->summary,
			       " corrected=allreduce@64MiB:x2.00 from=77.0"));
	assert_null(strstr(base->summary, "corrected="));
	assert_non_null(
		strstr(r->explanation, "corrected from measured step 77.0"));
	lagom_planner_result_destroy(base);
	lagom_planner_result_destroy(r);
}

static void faster_measurement_faster_prediction(void **state)
{
	const struct fx *f = *state;
	struct lagom_planner_measured_class fast = measured_ar(f, AR_BYTES,
							       0.5);
	struct lagom_planner_result *base = plan(f, NULL, 0);
	struct lagom_planner_result *r = plan(f, &fast, 1);

	assert_int_equal(r->ncorrections, 1);
	assert_true(fabs(r->corrections[0].factor - 0.5) < 1e-6);
	assert_true(r->predicted_time_s < 0.8 * base->predicted_time_s);
	assert_non_null(strstr(r->summary, "allreduce@64MiB:x0.50"));
	lagom_planner_result_destroy(base);
	lagom_planner_result_destroy(r);
}

static void factor_is_clamped(void **state)
{
	const struct fx *f = *state;
	struct lagom_planner_measured_class c = measured_ar(f, AR_BYTES, 10);
	struct lagom_planner_result *r = plan(f, &c, 1);

	assert_int_equal(r->ncorrections, 1);
	assert_true(r->corrections[0].factor == LAGOM_TIME_SCALE_MAX);
	assert_true(r->corrections[0].clamped);
	assert_non_null(strstr(r->explanation, "(clamped)"));
	lagom_planner_result_destroy(r);
	c = measured_ar(f, AR_BYTES, 0.01);
	r = plan(f, &c, 1);
	assert_true(r->corrections[0].factor == LAGOM_TIME_SCALE_MIN);
	lagom_planner_result_destroy(r);
}

/* Every one of these is no correction: the plan is the unmeasured one. */
static void odd_classes_get_no_correction(void **state)
{
	const struct fx *f = *state;
	struct lagom_planner_measured_class odd[6];
	struct lagom_planner_result *base = plan(f, NULL, 0), *r;

	odd[0] = measured_ar(f, AR_BYTES, 2);
	odd[0].samples = LAGOM_CORRECTION_MIN_SAMPLES - 1; /* too few */
	odd[1] = measured_ar(f, AR_BYTES, 2);
	odd[1].coll = LAGOM_COLL_ALLGATHER;	  /* not in the workload */
	odd[2] = measured_ar(f, AR_BYTES * 3, 2); /* more than 2x away */
	odd[3] = measured_ar(f, AR_BYTES, 2);
	odd[3].ranks = 8; /* another communicator */
	odd[3].nodes = 1;
	odd[4] = measured_ar(f, AR_BYTES, 2);
	odd[4].config.nchannels = 0; /* a configuration the model refuses */
	odd[5] = measured_ar(f, AR_BYTES, 2);
	odd[5].gpu_ns = 0; /* no time */
	for (size_t i = 0; i < 6; i++) {
		r = plan(f, &odd[i], 1);
		assert_int_equal(r->ncorrections, 0);
		assert_string_equal(r->plan_text, base->plan_text);
		assert_string_equal(r->summary, base->summary);
		assert_non_null(strstr(r->explanation, "no correction"));
		lagom_planner_result_destroy(r);
	}
	lagom_planner_result_destroy(base);
}

/* Within 2x the closest size counts; several configurations add up. */
static void nearby_size_and_configs_add_up(void **state)
{
	const struct fx *f = *state;
	struct lagom_planner_measured_class cls[3];
	struct lagom_planner_measured_class rev[3];
	struct lagom_planner_result *a, *b;

	cls[0] = measured_ar(f, AR_BYTES / 2, 3); /* same closeness: chosen */
	cls[1] = measured_ar(f, AR_BYTES * 2, 1);
	cls[2] = measured_nc(f, AR_BYTES / 2, 3, 16); /* NCCL varied */
	rev[0] = cls[2];
	rev[1] = cls[1];
	rev[2] = cls[0];
	a = plan(f, cls, 3);
	b = plan(f, rev, 3);
	assert_int_equal(a->ncorrections, 1);
	assert_int_equal(a->corrections[0].measured_bytes, AR_BYTES / 2);
	assert_int_equal(a->corrections[0].samples, 2 * CALLS);
	/* 3x the model at each configuration NCCL ran */
	assert_true(fabs(a->corrections[0].factor - 3) < 1e-6);
	assert_string_equal(a->plan_text, b->plan_text);
	assert_string_equal(a->summary, b->summary);
	assert_string_equal(a->explanation, b->explanation);
	lagom_planner_result_destroy(a);
	lagom_planner_result_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(time_scale_multiplies_the_model),
		cmocka_unit_test(slower_measurement_slower_prediction),
		cmocka_unit_test(faster_measurement_faster_prediction),
		cmocka_unit_test(factor_is_clamped),
		cmocka_unit_test(odd_classes_get_no_correction),
		cmocka_unit_test(nearby_size_and_configs_add_up),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
