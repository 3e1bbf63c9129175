/* Tests of common/error.c: the error type every module returns. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/error.h"
#include "tests/lib/lagom_test.h"

static void errprintf_returns_negative_errno(void **state)
{
	struct lagom_error err = { 0 };

	assert_int_equal(lagom_errprintf(&err, ENOENT, "no %s", "file"),
			 -ENOENT);
	assert_int_equal(err.errnum, ENOENT);
	assert_string_equal(err.text, "no file");
}

static void errprintf_accepts_null(void **state)
{
	assert_int_equal(lagom_errprintf(NULL, ERANGE, "x"), -ERANGE);
}

static void nonpositive_errnum_becomes_einval(void **state)
{
	struct lagom_error err = { 0 };

	assert_int_equal(lagom_errprintf(&err, 0, "zero"), -EINVAL);
	assert_int_equal(lagom_errprintf(&err, -5, "negative"), -EINVAL);
	assert_int_equal(err.errnum, EINVAL);
}

static void long_text_is_truncated_visibly(void **state)
{
	struct lagom_error err = { 0 };
	char big[1000];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	lagom_errprintf(&err, EINVAL, "%s", big);
	assert_int_equal(strlen(err.text), LAGOM_ERROR_TEXT_MAX - 1);
	assert_string_equal(err.text + LAGOM_ERROR_TEXT_MAX - 4, "...");
}

static void prefix_keeps_errnum_and_inner_text(void **state)
{
	struct lagom_error err = { 0 };

	lagom_errprintf(&err, EACCES, "group-writable");
	assert_int_equal(lagom_error_prefix(&err, "profile %s", "gpu001.json"),
			 -EACCES);
	assert_string_equal(err.text, "profile gpu001.json: group-writable");
	assert_int_equal(err.errnum, EACCES);
}

static void prefix_on_clear_error_is_einval(void **state)
{
	struct lagom_error err;

	lagom_error_clear(&err);
	assert_int_equal(err.errnum, 0);
	assert_string_equal(err.text, "");
	assert_int_equal(lagom_error_prefix(&err, "ctx"), -EINVAL);
	assert_int_equal(lagom_error_prefix(NULL, "ctx"), -EINVAL);
	lagom_error_clear(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(errprintf_returns_negative_errno),
		cmocka_unit_test(errprintf_accepts_null),
		cmocka_unit_test(nonpositive_errnum_becomes_einval),
		cmocka_unit_test(long_text_is_truncated_visibly),
		cmocka_unit_test(prefix_keeps_errnum_and_inner_text),
		cmocka_unit_test(prefix_on_clear_error_is_einval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
