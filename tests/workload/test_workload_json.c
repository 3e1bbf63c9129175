/*
 * tests/workload/test_workload_json.c - the JSON workload reader against the
 * valid and invalid documents of tests/workload/data/ (data-driven, after
 * jansson's own test suite).
 */
#include <errno.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "workload/workload.h"

static const char *data_path(char *buf, size_t len, const char *rel)
{
	const char *src = getenv("top_srcdir");

	snprintf(buf, len, "%s/tests/workload/data/%s", src ? src : ".", rel);
	return buf;
}

static struct lagom_workload *read_ok(const char *rel)
{
	char path[1024];
	struct lagom_workload *w = NULL;
	struct lagom_error err = { 0 };

	if (lagom_workload_read_file(data_path(path, sizeof(path), rel), &w,
				     &err))
		fail_msg("%s: %s", rel, err.text);
	return w;
}

static void test_minimal(void **state)
{
	struct lagom_workload *w = read_ok("valid/minimal.json");
	(void)state;

	assert_int_equal(w->nregions, 1);
	assert_int_equal(w->regions[0].nkernels, 1);
	assert_int_equal(w->regions[0].ncolls, 0);
	assert_int_equal(w->regions[0].repeat, 1);
	assert_double_near(w->regions[0].kernels[0].time_s, 0.001, 0);
	assert_double_near(w->serial_s, 0, 0);
	lagom_workload_destroy(w);
}

static void test_full(void **state)
{
	struct lagom_workload *w = read_ok("valid/fsdp-layer.json");
	const struct lagom_region *f, *b;
	struct lagom_hw hw;
	double t;
	(void)state;

	assert_string_equal(w->name, "phi-2-like FSDP");
	assert_double_near(w->serial_s, 0.045, 0);
	assert_int_equal(w->nregions, 2);
	f = &w->regions[0];
	b = &w->regions[1];
	assert_string_equal(f->name, "layer-forward");
	assert_int_equal(f->repeat, 32);
	assert_int_equal(f->kernels[0].grid_blocks, 2560);
	assert_int_equal(f->kernels[0].blocks_per_sm, 1);
	assert_double_near(f->kernels[1].mem_bound, 0.2, 0);
	assert_int_equal(f->colls[0].coll, LAGOM_COLL_ALLGATHER);
	assert_int_equal(f->colls[0].bytes, 314572800);
	assert_int_equal(f->colls[0].comm.ranks_per_node, 8);
	assert_int_equal(f->colls[0].comm.hops, LAGOM_HOPS_SAME_LEAF);
	assert_int_equal(b->colls[1].coll, LAGOM_COLL_REDUCESCATTER);
	assert_int_equal(b->colls[1].after_kernel, 1);
	assert_double_near(b->colls[1].ready_s, 0.002, 0);
	assert_int_equal(b->colls[0].comm.ranks_per_node, 8);
	assert_int_equal(b->kernels[1].after_coll, 1);
	assert_double_near(b->serial_s, 0.0001, 0);
	assert_int_equal(lagom_workload_coll_count(w), 3);
	/* The model accepts what the reader produced. */
	assert_int_equal(lagom_hw_from_spec("A40", 8, LAGOM_INTRA_NVLINK, 2,
					    400, &hw, NULL),
			 0);
	assert_int_equal(lagom_iteration_time(&hw, w, NULL, &t, NULL), 0);
	assert_true(isfinite(t) && t > 32 * (0.004 + 0.008));
	lagom_workload_destroy(w);
}

/* Version 2 (what `lagom workload import` writes): idle kernels are never
 * slowed (one block, mem_bound 0), the trace's facts are accepted. */
static void test_v2(void **state)
{
	struct lagom_workload *w = read_ok("valid/imported-v2.json");
	const struct lagom_region *r = &w->regions[0];
	(void)state;

	assert_int_equal(r->nkernels, 2);
	assert_int_equal(r->kernels[1].grid_blocks, 1);
	assert_int_equal(r->kernels[1].blocks_per_sm, 1);
	assert_double_near(r->kernels[1].mem_bound, 0, 0);
	assert_double_near(r->kernels[1].time_s, 0.002, 0);
	assert_int_equal(r->kernels[0].blocks_per_sm, 3);
	assert_int_equal(r->colls[0].coll, LAGOM_COLL_ALLTOALL);
	assert_int_equal(r->colls[1].after_kernel, 2);
	lagom_workload_destroy(w);
}

/* Each invalid document and a word its error message must contain. */
static const struct {
	const char *file, *needle;
} invalid[] = {
	{ "bad-version", "version" },
	{ "no-version", "not a lagom workload" },
	{ "unknown-key", "unknown key 'time'" },
	{ "unknown-key-top", "unknown key 'region'" },
	{ "bad-op", "op: unknown name" },
	{ "zero-time", "time_s must be > 0" },
	{ "mem-bound", "mem_bound" },
	{ "bad-dependency", "after_coll" },
	{ "ranks-mismatch", "ranks 16 != nodes 3" },
	{ "empty-regions", "regions" },
	{ "empty-region", "needs kernels or collectives" },
	{ "syntax", "line" },
	{ "duplicate-key", "duplicate" },
	{ "too-many-kernels", "at most 8" },
	{ "negative-bytes", "bytes" },
	{ "missing-bytes", "bytes is required" },
	{ "bad-hops", "hops" },
	{ "string-time", "time_s" },
	{ "not-object", "object" },
	{ "v2-key-in-v1", "unknown key 'comm'" },
	{ "idle-grid", "unknown key 'grid_blocks'" },
	{ "total-bytes-allreduce", "only for alltoall" },
};

static void test_invalid(void **state)
{
	(void)state;

	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		char rel[128], path[1024];
		struct lagom_workload *w = (struct lagom_workload *)rel;
		struct lagom_error err = { 0 };

		snprintf(rel, sizeof(rel), "invalid/%s.json", invalid[i].file);
		assert_int_equal(
			lagom_workload_read_file(
				data_path(path, sizeof(path), rel), &w, &err),
			-EINVAL);
		if (!strstr(err.text, invalid[i].needle))
			fail_msg("%s: message '%s' lacks '%s'", rel, err.text,
				 invalid[i].needle);
		assert_ptr_equal(w, (struct lagom_workload *)rel);
	}
}

static void test_missing_file(void **state)
{
	struct lagom_workload *w = NULL;
	struct lagom_error err = { 0 };
	(void)state;

	assert_int_equal(
		lagom_workload_read_file("/nonexistent/w.json", &w, &err),
		-ENOENT);
	assert_null(w);
	assert_int_equal(lagom_workload_read_string(NULL, &w, &err), -EINVAL);
}

static void test_string(void **state)
{
	struct lagom_workload *w = NULL;
	(void)state;

	assert_int_equal(lagom_workload_read_string(
				 "{\"lagom_workload\":1,\"regions\":[{"
				 "\"collectives\":[{\"op\":\"alltoall\","
				 "\"bytes\":1024,\"ranks\":8}]}]}",
				 &w, NULL),
			 0);
	assert_int_equal(w->regions[0].colls[0].comm.nodes, 1);
	assert_int_equal(w->regions[0].colls[0].comm.hops,
			 LAGOM_HOPS_SAME_NODE);
	lagom_workload_destroy(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
