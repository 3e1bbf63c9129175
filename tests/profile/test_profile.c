/* Tests of profile/: round trip, writer, validation limits, fingerprint. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "profile/profile.h"
#include "tests/lib/lagom_test.h"

static struct lagom_profile *sample(const char *node)
{
	struct lagom_profile *p = lagom_profile_create(node);

	assert_non_null(p);
	snprintf(p->hw.gpu_model, sizeof(p->hw.gpu_model), "H100-SXM5-80GB");
	p->hw.gpu_count = 8;
	p->hw.gpu_sm_count = 132;
	p->hw.intra = LAGOM_INTRA_NVSWITCH;
	p->hw.nic_link_bw_Bps = 5e10;
	p->meas.gemm_flops[LAGOM_PREC_BF16] = (struct lagom_quantity){
		7.1e14, LAGOM_SOURCE_MEASURED
	};
	p->meas.hbm_bw_Bps = (struct lagom_quantity){ 3.0e12,
						      LAGOM_SOURCE_TABLE };
	p->meas.busbw_source = LAGOM_SOURCE_MEASURED;
	p->meas.busbw_nranks = 8;
	p->meas.n_busbw = 2;
	p->meas.busbw[0] = (struct lagom_busbw_point){ LAGOM_COLL_ALLGATHER, 4,
						       131072, 1 << 26,
						       1.234567890123e11 };
	p->meas.busbw[1] = (struct lagom_busbw_point){ LAGOM_COLL_ALLREDUCE, 16,
						       524288, 1 << 28,
						       3.3e11 };
	p->meas.contention_source = LAGOM_SOURCE_MEASURED;
	p->meas.contention_precision = LAGOM_PREC_FP16;
	p->meas.n_contention = 1;
	p->meas.contention[0] = (struct lagom_contention_point){ 8, 65536,
								 1.0625 };
	p->prov.created_unix_s = 1763700000;
	return p;
}

static void round_trip_keeps_every_field(void **state)
{
	struct lagom_profile *p = sample("gpu001"), *q = NULL;
	struct lagom_error err = { 0 };
	char *a = NULL, *b = NULL;

	assert_int_equal(lagom_profile_to_string(p, &a, &err), 0);
	assert_int_equal(lagom_profile_from_buffer(a, strlen(a), &q, &err), 0);
	assert_string_equal(q->node, "gpu001");
	assert_int_equal(q->version_major, LAGOM_PROFILE_VERSION_MAJOR);
	assert_int_equal(q->hw.gpu_sm_count, 132);
	assert_int_equal(q->hw.intra, LAGOM_INTRA_NVSWITCH);
	assert_int_equal(q->meas.gemm_flops[LAGOM_PREC_BF16].source,
			 LAGOM_SOURCE_MEASURED);
	assert_int_equal(q->meas.gemm_flops[LAGOM_PREC_FP8].source,
			 LAGOM_SOURCE_ABSENT);
	assert_int_equal(q->meas.hbm_bw_Bps.source, LAGOM_SOURCE_TABLE);
	assert_int_equal(q->meas.n_busbw, 2);
	assert_int_equal(q->meas.busbw[0].collective, LAGOM_COLL_ALLGATHER);
	assert_true(q->meas.busbw[0].busbw_Bps == p->meas.busbw[0].busbw_Bps);
	assert_int_equal(q->meas.busbw[1].chunk_bytes, 524288);
	assert_int_equal(q->meas.contention[0].ctas, 8);
	assert_int_equal(q->meas.contention_precision, LAGOM_PREC_FP16);
	assert_string_equal(q->prov.lagom_version, PACKAGE_VERSION);
	assert_int_equal(lagom_profile_to_string(q, &b, &err), 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
	lagom_profile_destroy(p);
	lagom_profile_destroy(q);
}

static void writer_refuses_non_finite_numbers(void **state)
{
	struct lagom_profile *p = sample("gpu001");
	struct lagom_error err = { 0 };
	char *text = (char *)"untouched";

	p->meas.busbw[1].busbw_Bps = NAN;
	assert_int_equal(lagom_profile_to_string(p, &text, &err), -EINVAL);
	assert_string_equal(err.text,
			    "measurements.nccl_busbw.points[1] is not finite");
	assert_string_equal(text, "untouched");
	p->meas.busbw[1].busbw_Bps = 1;
	p->meas.hbm_bw_Bps.value = -3;
	assert_int_equal(lagom_profile_to_string(p, &text, &err), -EINVAL);
	assert_non_null(strstr(err.text, "measurements.hbm_bw.value: -3"));
	lagom_profile_destroy(p);
}

static void node_names_cannot_leave_the_directory(void **state)
{
	assert_true(lagom_profile_node_name_ok("gpu-001.rack_2"));
	assert_false(lagom_profile_node_name_ok(""));
	assert_false(lagom_profile_node_name_ok(".hidden"));
	assert_false(lagom_profile_node_name_ok(".."));
	assert_false(lagom_profile_node_name_ok("a/b"));
	assert_false(lagom_profile_node_name_ok("a b"));
	assert_false(lagom_profile_node_name_ok(NULL));
	assert_null(lagom_profile_create("../x"));
}

/* A new profile has no GPU: its fabric is "none" (zero is PCIe in the one
 * fabric enum, so lagom_profile_create sets it). */
static void new_profile_has_no_fabric(void **state)
{
	struct lagom_profile *p = lagom_profile_create("gpu001");
	struct lagom_error err = { 0 };
	char *text = NULL;

	assert_non_null(p);
	assert_int_equal(p->hw.intra, LAGOM_INTRA_NONE);
	assert_int_equal(lagom_profile_to_string(p, &text, &err), 0);
	assert_non_null(strstr(text, "\"intra\": \"none\""));
	free(text);
	lagom_profile_destroy(p);
}

static void fingerprint_follows_the_hardware(void **state)
{
	struct lagom_profile *p = sample("gpu001");
	char a[40], b[40], c[40];

	lagom_profile_fingerprint(&p->hw, a, sizeof(a));
	lagom_profile_fingerprint(&p->hw, b, sizeof(b));
	assert_string_equal(a, b);
	assert_int_equal(strlen(a), strlen("fnv1a64:") + 16);
	p->hw.gpu_count = 4;
	lagom_profile_fingerprint(&p->hw, c, sizeof(c));
	assert_string_not_equal(a, c);
	p->hw.gpu_count = 8;
	p->meas.hbm_bw_Bps.value = 1;
	lagom_profile_fingerprint(&p->hw, c, sizeof(c));
	assert_string_equal(a, c);
	lagom_profile_destroy(p);
}

static void write_then_load(void **state)
{
	char dir[] = "/tmp/lagom-test-profile-XXXXXX";
	char path[PATH_MAX];
	struct lagom_profile *p = sample("gpu007"), *q = NULL;
	struct lagom_error err = { 0 };
	struct stat st;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(lagom_profile_write_atomic(dir, p, &err), 0);
	p->hw.gpu_count = 4;
	assert_int_equal(lagom_profile_write_atomic(dir, p, &err), 0);
	snprintf(path, sizeof(path), "%s/gpu007.json", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(lagom_profile_load_node(dir, "gpu007", NULL, &q, &err),
			 0);
	assert_int_equal(q->hw.gpu_count, 4);
	lagom_profile_destroy(q);
	assert_int_equal(lagom_profile_load_node(dir, "gpu008", NULL, &q, &err),
			 -ENOENT);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0); /* no temporary file left */
	lagom_profile_destroy(p);
}

static void touch(const char *dir, const char *name, time_t mtime)
{
	char path[PATH_MAX];
	struct timespec times[2] = { { mtime, 0 }, { mtime, 0 } };
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

static int exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void remove_in(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(unlink(path), 0);
}

/* A killed writer's temporary file goes once it is old; a young one (a
 * writer at work) and other nodes' files stay. */
static void stale_temporary_files_are_removed(void **state)
{
	char dir[] = "/tmp/lagom-test-stale-XXXXXX";
	struct lagom_profile *p = sample("gpu007");
	struct lagom_error err = { 0 };
	time_t now = time(NULL);

	assert_non_null(mkdtemp(dir));
	touch(dir, ".gpu007.json.123.1", now - 3600);
	touch(dir, ".gpu007.json.124.1", now);
	touch(dir, ".gpu008.json.125.1", now - 3600);
	assert_int_equal(lagom_profile_write_atomic(dir, p, &err), 0);
	assert_false(exists(dir, ".gpu007.json.123.1"));
	assert_true(exists(dir, ".gpu007.json.124.1"));
	assert_true(exists(dir, ".gpu008.json.125.1"));
	assert_true(exists(dir, "gpu007.json"));
	lagom_profile_destroy(p);
	remove_in(dir, ".gpu007.json.124.1");
	remove_in(dir, ".gpu008.json.125.1");
	remove_in(dir, "gpu007.json");
	assert_int_equal(rmdir(dir), 0);
}

static void write_into_missing_dir_fails_cleanly(void **state)
{
	struct lagom_profile *p = sample("gpu001");
	struct lagom_error err = { 0 };

	assert_int_equal(
		lagom_profile_write_atomic("/nonexistent/lagom", p, &err),
		-ENOENT);
	assert_string_equal(
		err.text,
		"writing /nonexistent/lagom/gpu001.json: No such file or directory");
	lagom_profile_destroy(p);
}

/* A grid one point over LAGOM_PROFILE_MAX_POINTS is refused. */
static void too_many_points_are_rejected(void **state)
{
	struct lagom_profile *p = sample("gpu001"), *q = NULL;
	struct lagom_error err = { 0 };
	json_t *j, *points, *first;

	j = lagom_profile_to_json(p, &err);
	assert_non_null(j);
	points = json_object_get(
		json_object_get(json_object_get(j, "measurements"),
				"nccl_busbw"),
		"points");
	first = json_array_get(points, 0);
	while (json_array_size(points) <= LAGOM_PROFILE_MAX_POINTS)
		assert_int_equal(json_array_append(points, first), 0);
	assert_int_equal(lagom_profile_from_json(j, &q, &err), -EINVAL);
	assert_string_equal(
		err.text,
		"measurements.nccl_busbw.points: 513 points, expected 1 to 512");
	assert_null(q);
	json_decref(j);
	lagom_profile_destroy(p);
}

static void oversized_buffer_is_efbig(void **state)
{
	struct lagom_profile *q = NULL;
	struct lagom_error err = { 0 };
	size_t len = LAGOM_PROFILE_MAX_BYTES + 1;
	char *big = malloc(len);

	assert_non_null(big);
	memset(big, ' ', len);
	assert_int_equal(lagom_profile_from_buffer(big, len, &q, &err), -EFBIG);
	free(big);
}

static void unknown_major_is_eprotonosupport(void **state)
{
	struct lagom_profile *q = NULL;
	const char *text =
		"{\"format\": \"lagom-profile\", \"version\": \"3.1\"}";

	assert_int_equal(
		lagom_profile_from_buffer(text, strlen(text), &q, NULL),
		-EPROTONOSUPPORT);
	assert_null(q);
}

static void to_hw_prefers_measured_values(void **state)
{
	struct lagom_profile *p = sample("gpu001");
	struct lagom_error err = { 0 };
	struct lagom_hw hw, table;

	assert_int_equal(lagom_hw_from_spec("H100-SXM5-80GB", 8,
					    LAGOM_INTRA_NVSWITCH, 0, 0, &table,
					    &err),
			 0);
	p->hw.gpu_sm_count = 114; /* differs from the table on purpose */
	p->hw.nic_count = 4;
	p->hw.nic_rdma = 1;
	p->meas.intra_bw_Bps = (struct lagom_quantity){ 3.6e11,
							LAGOM_SOURCE_MEASURED };
	assert_int_equal(lagom_profile_to_hw(p, &hw, &err), 0);
	assert_int_equal(hw.gpus_per_node, 8);
	assert_int_equal(hw.intra, LAGOM_INTRA_NVSWITCH);
	assert_int_equal(hw.gpu.sm_count, 114);
	assert_double_rel(hw.gpu.tflops[LAGOM_PREC_BF16], 710.0, 1e-12);
	assert_double_rel(hw.gpu.tflops[LAGOM_PREC_FP16],
			  table.gpu.tflops[LAGOM_PREC_FP16], 1e-12);
	assert_double_rel(hw.gpu.hbm_Bps, 3.0e12, 1e-12);
	assert_double_rel(hw.intra_link_Bps * hw.intra_links, 3.6e11, 1e-12);
	assert_int_equal(hw.nic_count, 4);
	assert_double_rel(hw.nic_Bps, 5e10, 1e-12);
	assert_true(hw.nic_gdr);
	/* NIC bandwidth still from the table: the model keeps efficiencies */
	assert_false(hw.bw_measured);
	p->meas.nic_bw_Bps = (struct lagom_quantity){ 4.5e10,
						      LAGOM_SOURCE_MEASURED };
	assert_int_equal(lagom_profile_to_hw(p, &hw, &err), 0);
	assert_true(hw.bw_measured);
	assert_double_rel(hw.nic_Bps, 4.5e10, 1e-12);
	lagom_profile_destroy(p);
}

/* A measured busbw-over-channels grid is what the plan uses (doc/model.md
 * 2.8): one channel's rate, the smallest over the collectives' curves. */
static void to_hw_takes_the_measured_channel_curve(void **state)
{
	static const int nc[] = { 2, 4, 8, 16, 32 };
	struct lagom_profile *p = sample("gpu001");
	struct lagom_comm comm = { .ranks = 8,
				   .nodes = 1,
				   .ranks_per_node = 8 };
	struct lagom_coll_config c = { .algo = LAGOM_ALGO_RING,
				       .proto = LAGOM_PROTO_SIMPLE };
	struct lagom_coll_time t8;
	struct lagom_error err = { 0 };
	struct lagom_hw hw;

	(void)state;
	p->meas.busbw_source = LAGOM_SOURCE_MEASURED;
	p->meas.n_busbw = 0;
	for (size_t i = 0; i < 5; i++) {
		/* a ring all-gather at 20 GB/s per CTA up to 360 GB/s, an NVLS
		 * all-reduce whose busbw is not a ring channel's */
		p->meas.busbw[p->meas.n_busbw++] = (struct lagom_busbw_point){
			LAGOM_COLL_ALLGATHER, nc[i], 1 << 20, 1 << 30,
			fmin(360e9, nc[i] * 20e9)
		};
		p->meas.busbw[p->meas.n_busbw++] = (struct lagom_busbw_point){
			LAGOM_COLL_ALLREDUCE, nc[i], 1 << 20, 1 << 30,
			fmin(480e9, nc[i] * 40e9)
		};
	}
	assert_int_equal(lagom_profile_to_hw(p, &hw, &err), 0);
	assert_double_rel(hw.ch_Bps, 20e9, 1e-12);
	assert_double_rel(lagom_channel_Bps(&hw, &comm), 20e9, 1e-12);
	/* the plan's model moves 8 x 20 GB/s on 8 channels (the table's
	 * H100 rule would give 8 x 11.25) */
	c.nchannels = 8;
	assert_int_equal(lagom_coll_predict(&hw, &comm, LAGOM_COLL_ALLGATHER,
					    1u << 30, &c, &t8, NULL),
			 0);
	assert_double_rel(t8.busbw_Bps, 160e9, 0.05);
	/* a table grid, or one that does not fit, leaves the model's rule */
	p->meas.busbw_source = LAGOM_SOURCE_TABLE;
	assert_int_equal(lagom_profile_to_hw(p, &hw, &err), 0);
	assert_true(hw.ch_Bps == 0);
	p->meas.busbw_source = LAGOM_SOURCE_MEASURED;
	p->meas.n_busbw = 1;
	assert_int_equal(lagom_profile_to_hw(p, &hw, &err), 0);
	assert_true(hw.ch_Bps == 0);
	lagom_profile_destroy(p);
}

static void to_hw_needs_a_known_gpu(void **state)
{
	struct lagom_profile *p = sample("gpu001");
	struct lagom_error err = { 0 };
	struct lagom_hw hw;

	snprintf(p->hw.gpu_model, sizeof(p->hw.gpu_model), "Voodoo 5");
	assert_int_equal(lagom_profile_to_hw(p, &hw, &err), -EINVAL);
	assert_non_null(strstr(err.text, "profile gpu001: "));
	p->hw.gpu_count = 0;
	assert_int_equal(lagom_profile_to_hw(p, &hw, &err), -ENODEV);
	lagom_profile_destroy(p);
}

/* The curve lagom-prolog would measure (its 6 CTA counts x 3 chunks) if
 * the model were exact, for an H100 whose contention is sm and l2. */
static void model_curve(struct lagom_profile *p, double sm, double l2)
{
	static const int ctas[] = { 1, 2, 4, 8, 16, 32 };
	static const uint64_t chunks[] = { 128 << 10, 512 << 10, 2 << 20 };
	/* doc/model.md 4.1: the probe GEMM as the fit sees it */
	const struct lagom_kernel gemm = { .time_s = 1.0,
					   .grid_blocks = 4096,
					   .blocks_per_sm = 1,
					   .mem_bound = 0.2 };
	struct lagom_hw truth;

	assert_int_equal(lagom_hw_from_spec(p->hw.gpu_model, 8,
					    LAGOM_INTRA_NVSWITCH, 0, 0, &truth,
					    NULL),
			 0);
	truth.contention_sm = sm;
	truth.contention_l2 = l2;
	truth.contention_l2_knee = 0; /* a measured curve: gamma, no knee */
	truth.contention_l2_x1 = 0;   /* nor a traffic gate (model.md 4) */
	p->meas.contention_source = LAGOM_SOURCE_MEASURED;
	p->meas.n_contention = 0;
	for (size_t c = 0; c < 3; c++)
		for (size_t k = 0; k < 6; k++) {
			struct lagom_contention_point *pt =
				&p->meas.contention[p->meas.n_contention++];
			double t;

			assert_int_equal(lagom_compute_time(&truth, &gemm,
							    (unsigned)ctas[k],
							    chunks[c], &t,
							    NULL),
					 0);
			*pt = (struct lagom_contention_point){ ctas[k],
							       chunks[c], t };
		}
}

static void to_hw_fits_a_measured_contention_curve(void **state)
{
	struct lagom_profile *p = sample("gpu001"), *q = NULL;
	struct lagom_error err = { 0 };
	struct lagom_fit_report rep;
	struct lagom_hw hw, table;
	char *text = NULL;
	(void)state;

	assert_int_equal(lagom_hw_from_spec("H100-SXM5-80GB", 8,
					    LAGOM_INTRA_NVSWITCH, 0, 0, &table,
					    NULL),
			 0);
	model_curve(p, 0.2, 1.5);
	/* through the file format, as the plugin reads it */
	assert_int_equal(lagom_profile_to_string(p, &text, &err), 0);
	assert_int_equal(
		lagom_profile_from_buffer(text, strlen(text), &q, &err), 0);
	assert_int_equal(lagom_profile_to_hw(q, &hw, &err), 0);
	assert_double_rel(hw.contention_sm, 0.2, 1e-6);
	assert_double_rel(hw.contention_l2, 1.5, 1e-6);
	assert_double_rel(hw.contention_l2_cap, table.contention_l2_cap,
			  1e-12); /* no point reaches it: kept */
	assert_true(fabs(hw.contention_l2 - table.contention_l2) > 0.5);
	hw = table;
	assert_int_equal(lagom_profile_fit_contention(q, &hw, &rep, &err), 0);
	assert_int_equal(rep.npoints, 18);
	assert_double_rel(rep.contention_l2, 1.5, 1e-6);
	free(text);
	lagom_profile_destroy(q);
	lagom_profile_destroy(p);
}

static void to_hw_keeps_defaults_for_a_garbage_curve(void **state)
{
	struct lagom_profile *p = sample("gpu001");
	struct lagom_error err = { 0 };
	struct lagom_hw hw, table, before;
	(void)state;

	assert_int_equal(lagom_hw_from_spec("H100-SXM5-80GB", 8,
					    LAGOM_INTRA_NVSWITCH, 0, 0, &table,
					    NULL),
			 0);
	model_curve(p, 0.2, 1.5);
	for (size_t i = 0; i < p->meas.n_contention; i++) /* speed-ups */
		p->meas.contention[i].slowdown = i % 2 ? 0.5 : 4.0;
	assert_int_equal(lagom_profile_to_hw(p, &hw, &err), 0);
	assert_double_near(hw.contention_sm, table.contention_sm, 0);
	assert_double_near(hw.contention_l2, table.contention_l2, 0);
	assert_double_near(hw.contention_l2_cap, table.contention_l2_cap, 0);
	before = hw;
	assert_int_equal(lagom_profile_fit_contention(p, &hw, NULL, &err),
			 -EINVAL);
	assert_non_null(strstr(err.text, "profile gpu001: contention fit: "));
	assert_memory_equal(&hw, &before, sizeof(hw));
	/* one chunk size only (channels and chunk bytes inseparable), then
	 * no measured curve at all: defaults, no error */
	for (size_t i = 0; i < p->meas.n_contention; i++) {
		struct lagom_contention_point *pt = &p->meas.contention[i];
		pt->chunk_bytes = 512 << 10;
		pt->slowdown = 1 + 0.01 * pt->ctas;
	}
	assert_int_equal(lagom_profile_to_hw(p, &hw, &err), 0);
	assert_double_near(hw.contention_l2, table.contention_l2, 0);
	p->meas.contention_source = LAGOM_SOURCE_TABLE;
	assert_int_equal(lagom_profile_fit_contention(p, &hw, NULL, &err),
			 -ENODATA);
	p->meas.contention_source = LAGOM_SOURCE_ABSENT;
	assert_int_equal(lagom_profile_to_hw(p, &hw, &err), 0);
	assert_double_near(hw.contention_l2, table.contention_l2, 0);
	lagom_profile_destroy(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip_keeps_every_field),
		cmocka_unit_test(writer_refuses_non_finite_numbers),
		cmocka_unit_test(node_names_cannot_leave_the_directory),
		cmocka_unit_test(new_profile_has_no_fabric),
		cmocka_unit_test(fingerprint_follows_the_hardware),
		cmocka_unit_test(write_then_load),
		cmocka_unit_test(write_into_missing_dir_fails_cleanly),
		cmocka_unit_test(stale_temporary_files_are_removed),
		cmocka_unit_test(too_many_points_are_rejected),
		cmocka_unit_test(oversized_buffer_is_efbig),
		cmocka_unit_test(unknown_major_is_eprotonosupport),
		cmocka_unit_test(to_hw_prefers_measured_values),
		cmocka_unit_test(to_hw_needs_a_known_gpu),
		cmocka_unit_test(to_hw_takes_the_measured_channel_curve),
		cmocka_unit_test(to_hw_fits_a_measured_contention_curve),
		cmocka_unit_test(to_hw_keeps_defaults_for_a_garbage_curve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
