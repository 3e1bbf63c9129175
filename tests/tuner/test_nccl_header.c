/*
 * tests/tuner/test_nccl_header.c - lagom's own declaration of NCCL's tuner
 * ABI (tuner/nccl_tuner_abi.h) against what can be checked GPU-free: the
 * result codes of the installed nccl.h, and the layouts NCCL 2.28.9 / 2.30
 * use on x86-64 (sizes from NCCL's tuner_v5.h / tuner_v6.h).
 */
#include "config.h"

#include <nccl.h>

#include "tests/lib/lagom_test.h"
#include "tuner/nccl_tuner_abi.h"

static void t_result_codes(void **state)
{
	assert_int_equal(ncclSuccess, LAGOM_NCCL_SUCCESS);
	assert_int_equal(ncclUnhandledCudaError,
			 LAGOM_NCCL_UNHANDLED_CUDA_ERROR);
	assert_int_equal(ncclSystemError, LAGOM_NCCL_SYSTEM_ERROR);
	assert_int_equal(ncclInternalError, LAGOM_NCCL_INTERNAL_ERROR);
	assert_int_equal(ncclInvalidArgument, LAGOM_NCCL_INVALID_ARGUMENT);
	assert_int_equal(ncclInvalidUsage, LAGOM_NCCL_INVALID_USAGE);
	assert_int_equal(ncclRemoteError, LAGOM_NCCL_REMOTE_ERROR);
	assert_int_equal(ncclInProgress, LAGOM_NCCL_IN_PROGRESS);
	assert_int_equal(sizeof(ncclResult_t), sizeof(lagom_nccl_result_t));
}

static void t_layouts(void **state)
{
	struct lagom_nccl_tuner_v6 v6;

	assert_int_equal(sizeof(struct lagom_nccl_nvl_domain_info_v5), 12);
	assert_int_equal(sizeof(struct lagom_nccl_tuner_constants_v5), 1152);
	assert_int_equal(
		offsetof(struct lagom_nccl_tuner_constants_v5, hwLatencies),
		7 * 3 * 8);
	assert_int_equal(offsetof(struct lagom_nccl_tuner_constants_v5,
				  perChMaxNVLSTreeBws),
			 1152 - 4 * 3 * 8);
	assert_int_equal(sizeof(struct lagom_nccl_tuner_v2),
			 4 * sizeof(void *));
	assert_int_equal(sizeof(struct lagom_nccl_tuner_v3),
			 4 * sizeof(void *));
	assert_int_equal(sizeof(struct lagom_nccl_tuner_v4),
			 4 * sizeof(void *));
	assert_int_equal(sizeof(struct lagom_nccl_tuner_v5),
			 4 * sizeof(void *));
	assert_int_equal(sizeof(v6), 5 * sizeof(void *));
	assert_int_equal(offsetof(struct lagom_nccl_tuner_v6, getChunkSize),
			 4 * sizeof(void *));
	/* ncclFunc_t is an int-sized enum: lagom passes it as int. */
	assert_int_equal(sizeof(lagom_nccl_func_t), sizeof(int));
}

/* The header lagom builds against has the tuner ABIs (NCCL 2.21+). */
static void t_version(void **state)
{
	assert_true(NCCL_VERSION_CODE >= NCCL_VERSION(2, 21, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_result_codes),
		cmocka_unit_test(t_layouts),
		cmocka_unit_test(t_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
