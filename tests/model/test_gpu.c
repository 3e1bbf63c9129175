/*
 * Tests of the built-in GPU table's memory variants (model/gpu.c): a 40 GB
 * A100 is not the 80 GB one.  Figures: NVIDIA A100 datasheet (40 GB HBM2 at
 * 1555 GB/s; 80 GB HBM2e at 2039 GB/s SXM, 1935 GB/s PCIe).
 */
#include <string.h>

#include "model/model.h"
#include "tests/lib/lagom_test.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static void expect(const char *vendor, const char *canonical, double mem_gib,
		   double hbm_Bps, enum lagom_intra intra)
{
	const struct lagom_gpu_spec *g = lagom_gpu_lookup(vendor);

	if (!g)
		fail_msg("'%s' not found", vendor);
	if (strcmp(g->name, canonical) != 0)
		fail_msg("'%s' gave %s, expected %s", vendor, g->name,
			 canonical);
	assert_double_rel((double)g->mem_bytes, mem_gib * GIB, 1e-12);
	assert_double_rel(g->hbm_Bps, hbm_Bps, 1e-12);
	assert_int_equal(g->intra_default, intra);
	assert_int_equal(g->sm_count, 108);
}

static void test_a100_memory_variants(void **state)
{
	const enum lagom_intra nvs = LAGOM_INTRA_NVSWITCH;
	const enum lagom_intra pcie = LAGOM_INTRA_PCIE;
	(void)state;

	expect("A100-SXM4-40GB", "A100-SXM-40GB", 40, 1555e9, nvs);
	expect("NVIDIA A100-SXM4-40GB", "A100-SXM-40GB", 40, 1555e9, nvs);
	expect("NVIDIA A100-PCIE-40GB", "A100-PCIe-40GB", 40, 1555e9, pcie);
	expect("NVIDIA A100 40GB PCIe", "A100-PCIe-40GB", 40, 1555e9, pcie);
	expect("A100-SXM4-80GB", "A100-SXM", 80, 2039e9, nvs);
	expect("NVIDIA A100-SXM4-80GB", "A100-SXM", 80, 2039e9, nvs);
	expect("NVIDIA A100 80GB PCIe", "A100-PCIe", 80, 1935e9, pcie);
	/* no size: the 80 GB parts, as before */
	expect("NVIDIA A100", "A100-SXM", 80, 2039e9, nvs);
	expect("A100-PCIe", "A100-PCIe", 80, 1935e9, pcie);
}

/* The same compute either way; only memory differs. */
static void test_a100_40gb_same_compute(void **state)
{
	const struct lagom_gpu_spec *a = lagom_gpu_lookup("A100-SXM4-40GB");
	const struct lagom_gpu_spec *b = lagom_gpu_lookup("A100-SXM4-80GB");
	struct lagom_hw hw;
	(void)state;

	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_memory_equal(a->tflops, b->tflops, sizeof(a->tflops));
	assert_int_equal(a->l2_bytes, b->l2_bytes);
	assert_int_equal(a->nvlink_links, b->nvlink_links);
	assert_int_equal(lagom_hw_from_spec("A100-SXM4-40GB", 8,
					    LAGOM_INTRA_DEFAULT, 0, 0, &hw,
					    NULL),
			 0);
	assert_int_equal(hw.intra, LAGOM_INTRA_NVSWITCH);
	assert_double_rel((double)hw.gpu.mem_bytes, 40 * GIB, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a100_memory_variants),
		cmocka_unit_test(test_a100_40gb_same_compute),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
