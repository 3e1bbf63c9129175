/* Tests of common/text.c: the appender grows from nothing and from a
 * buffer the caller made, keeps a NUL at the end and its first failure;
 * the byte formatter's units, whole and one-decimal numbers. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "tests/lib/lagom_test.h"

static void addf_grows_from_nothing(void **state)
{
	struct lagom_text t = { 0 };
	char big[3000];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(lagom_text_addf(&t, "a=%d", 1), 0);
	assert_string_equal(t.p, "a=1");
	assert_int_equal(lagom_text_addf(&t, "%s", ""), 0);
	assert_int_equal(lagom_text_addf(&t, " %s", big), 0);
	assert_int_equal(t.len, 3 + 1 + strlen(big));
	assert_int_equal(strlen(t.p), t.len);
	assert_true(t.cap > t.len);
	assert_int_equal(strncmp(t.p, "a=1 xxx", 7), 0);
	free(t.p);
}

static void addf_keeps_a_callers_buffer(void **state)
{
	struct lagom_text t = { .cap = 4 };

	(void)state;
	t.p = malloc(t.cap);
	assert_non_null(t.p);
	t.p[0] = '\0';
	assert_int_equal(lagom_text_addf(&t, "ab"), 0);
	assert_int_equal(t.cap, 4);
	assert_int_equal(lagom_text_addf(&t, "cdef"), 0);
	assert_string_equal(t.p, "abcdef");
	assert_int_equal(t.len, 6);
	free(t.p);
}

static void addf_failure_is_sticky(void **state)
{
	struct lagom_text t = { .failed = -ENOMEM };

	(void)state;
	assert_int_equal(lagom_text_addf(&t, "x"), -ENOMEM);
	assert_null(t.p);
	assert_int_equal(t.len, 0);
}

static void fmt_bytes_in_words(void **state)
{
	static const struct {
		uint64_t bytes;
		const char *text;
	} cases[] = {
		{ 0, "0 B" },
		{ 1000, "1000 B" },
		{ 1024, "1 KiB" },
		{ 1536, "1.5 KiB" },
		{ 64ULL << 20, "64 MiB" },
		{ 3ULL << 29, "1.5 GiB" },
		{ 2ULL << 40, "2 TiB" },
		{ 4096ULL << 40, "4096 TiB" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(
			lagom_fmt_bytes(buf, sizeof(buf), cases[i].bytes),
			cases[i].text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(addf_grows_from_nothing),
		cmocka_unit_test(addf_keeps_a_callers_buffer),
		cmocka_unit_test(addf_failure_is_sticky),
		cmocka_unit_test(fmt_bytes_in_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
