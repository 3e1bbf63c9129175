/*
 * tests/model/test_workloads.c - the model-shape catalog, workload names and
 * the regions built from them.
 */
#include <errno.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "model/model.h"
#include "catalog/catalog.h"

static struct lagom_hw hw_of(const char *gpu, enum lagom_intra intra)
{
	struct lagom_hw hw;

	if (lagom_hw_from_spec(gpu, 8, intra, 2, 400, &hw, NULL))
		fail_msg("hw %s", gpu);
	return hw;
}

static void test_catalog(void **state)
{
	static const char *const required[] = {
		"phi-2",       "llama-3.1-8b",	   "mpt-7b",
		"llama-3-70b", "gpt2-xl",	   "bert-large",
		"t5-3b",       "deepseek-moe-16b", "olmoe-1b-7b",
	};
	size_t n;
	const struct lagom_model_shape *cat = lagom_model_catalog(&n);
	(void)state;

	assert_true(n >= 9);
	for (size_t i = 0; i < 9; i++)
		assert_non_null(lagom_model_lookup(required[i]));
	assert_ptr_equal(lagom_model_lookup("LLAMA-3.1-8B"),
			 lagom_model_lookup("llama-3.1-8b"));
	assert_null(lagom_model_lookup("gpt-5"));
	for (size_t i = 0; i < n; i++)
		assert_true(cat[i].layers && cat[i].hidden && cat[i].ffn);
	assert_int_equal(lagom_model_lookup("olmoe-1b-7b")->experts, 64);
}

/* Contention never speeds computation up; Z covers X and Y. */
static void check_regions(const struct lagom_hw *hw,
			  const struct lagom_workload *w)
{
	for (size_t r = 0; r < w->nregions; r++) {
		struct lagom_region_time t;
		assert_int_equal(
			lagom_region_time(hw, &w->regions[r], NULL, &t, NULL),
			0);
		assert_true(t.y_s >= t.y_alone_s * (1 - 1e-12));
		assert_true(t.z_s >= t.x_s && t.z_s >= t.y_s);
		assert_true(isfinite(t.z_s) && t.z_s > 0);
		assert_true(t.comm_busy_s <= t.x_s * (1 + 1e-12));
	}
}

/* Every example name builds, on two systems, into valid regions. */
static void test_examples_build(void **state)
{
	struct lagom_hw sys[2] = { hw_of("A40", LAGOM_INTRA_NVLINK),
				   hw_of("H100", LAGOM_INTRA_DEFAULT) };
	size_t n;
	const char *const *names = lagom_workload_examples(&n);
	(void)state;

	assert_true(n >= 9);
	for (size_t s = 0; s < 2; s++) {
		for (size_t i = 0; i < n; i++) {
			struct lagom_workload *w = NULL;
			struct lagom_error err = { 0 };
			double t;
			if (lagom_workload_from_name(names[i], &sys[s], 2, 0,
						     &w, &err))
				fail_msg("%s: %s", names[i], err.text);
			assert_string_equal(w->name, names[i]);
			assert_true(w->nregions >= 2);
			assert_true(lagom_workload_coll_count(w) >= 1);
			assert_int_equal(lagom_iteration_time(&sys[s], w, NULL,
							      &t, &err),
					 0);
			assert_true(isfinite(t) && t > 0);
			check_regions(&sys[s], w);
			lagom_workload_destroy(w);
		}
	}
}

static const struct lagom_region *find_region(const struct lagom_workload *w,
					      const char *name)
{
	for (size_t r = 0; r < w->nregions; r++)
		if (strcmp(w->regions[r].name, name) == 0)
			return &w->regions[r];
	fail_msg("no region %s", name);
	return NULL;
}

static void test_parallelism_shapes(void **state)
{
	struct lagom_hw hw = hw_of("A40", LAGOM_INTRA_NVLINK);
	struct lagom_workload *w = NULL;
	const struct lagom_region *r;
	(void)state;

	assert_int_equal(
		lagom_workload_from_name("phi-2:fsdp", &hw, 2, 0, &w, NULL), 0);
	r = find_region(w, "layer-backward");
	assert_int_equal(r->ncolls, 2);
	assert_int_equal(r->colls[0].coll, LAGOM_COLL_ALLGATHER);
	assert_int_equal(r->colls[1].coll, LAGOM_COLL_REDUCESCATTER);
	assert_int_equal(r->colls[0].comm.ranks, 16);
	assert_int_equal(r->colls[0].comm.nodes, 2);
	/* Phi-2 layer: 4h^2 + 2 h ffn parameters in bf16. */
	assert_int_equal(r->colls[0].bytes,
			 2ull * (4ull * 2560 * 2560 + 2ull * 2560 * 10240));
	assert_int_equal(r->repeat, 32);
	lagom_workload_destroy(w);

	assert_int_equal(lagom_workload_from_name("llama-3.1-8b:tp8,mb4", &hw,
						  2, 0, &w, NULL),
			 0);
	r = find_region(w, "layer-forward");
	assert_int_equal(r->colls[0].coll, LAGOM_COLL_ALLREDUCE);
	assert_int_equal(r->colls[0].comm.ranks, 8);
	assert_int_equal(r->colls[0].comm.nodes, 1);
	assert_int_equal(r->colls[0].bytes, 2ull * 4 * 2048 * 4096);
	lagom_workload_destroy(w);

	assert_int_equal(lagom_workload_from_name("olmoe-1b-7b:ep8,mb2", &hw, 2,
						  0, &w, NULL),
			 0);
	r = find_region(w, "moe-layer-forward");
	assert_int_equal(r->colls[0].coll, LAGOM_COLL_ALLTOALL);
	assert_int_equal(r->colls[0].comm.ranks, 8);
	lagom_workload_destroy(w);
}

static void test_bad_names(void **state)
{
	struct lagom_hw hw = hw_of("A40", LAGOM_INTRA_NVLINK);
	struct lagom_workload *w = (struct lagom_workload *)&hw;
	struct lagom_error err = { 0 };
	static const char *const bad[] = {
		"gpt-5:fsdp", "phi-2:tp3", "phi-2:zz", "phi-2:tp",
		"phi-2:tp16", "phi-2:ep8", ":fsdp",    "phi-2:fsdp,,mb2",
		"phi-2:mb0",  "phi-2:pp5",
	};
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.text[0] = '\0';
		assert_int_equal(
			lagom_workload_from_name(bad[i], &hw, 2, 0, &w, &err),
			-EINVAL);
		assert_true(err.text[0] != '\0');
		assert_ptr_equal(w, (struct lagom_workload *)&hw);
	}
	assert_int_equal(lagom_workload_from_name("phi-2", &hw, 0, 0, &w, &err),
			 -EINVAL);
}

static void test_build_invalid(void **state)
{
	struct lagom_hw hw = hw_of("A40", LAGOM_INTRA_NVLINK);
	const struct lagom_model_shape *m = lagom_model_lookup("mpt-7b");
	struct lagom_parallel p = { .dp = 3 };
	struct lagom_workload *w = NULL;
	struct lagom_error err = { 0 };
	(void)state;

	assert_int_equal(lagom_workload_build(m, &p, &hw, 2, &w, &err),
			 -EINVAL);
	assert_non_null(strstr(err.text, "GPUs"));
	assert_null(w);
	p = (struct lagom_parallel){ .fsdp = 16 };
	assert_int_equal(lagom_workload_build(m, &p, &hw, 2, &w, &err), 0);
	assert_non_null(w);
	lagom_workload_destroy(w);
	assert_null(lagom_workload_create("big", 1000000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog),
		cmocka_unit_test(test_examples_build),
		cmocka_unit_test(test_parallelism_shapes),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_build_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
