/*
 * tests/measurement/test_predicted.c - the predictions file's optional
 * lines of the control arm (measurement/predicted.h, doc/report.md):
 * default_ns and arm round-trip, files without them still read as a
 * tuned step's, and anything else is refused.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "measurement/predicted.h"
#include "tests/lib/lagom_test.h"

#define HEAD "lagom-predicted 1\nplan 00000000000000aa\niteration_ns 1000\n"
#define CLASS "class allreduce 1 1048576 8 1 400\n"

static int parse(const char *text, struct lagom_predicted *p)
{
	struct lagom_error err = { 0 };

	return lagom_predicted_parse(text, strlen(text), p, &err);
}

static void test_round_trip(void **state)
{
	static struct lagom_predicted p, q;
	char buf[1024];
	int n;

	(void)state;
	assert_int_equal(
		parse(HEAD "default_ns 1070\narm control\n" CLASS "end\n", &p),
		0);
	assert_int_equal(p.default_ns, 1070);
	assert_string_equal(p.arm, "control");
	assert_int_equal(p.n, 1);
	n = lagom_predicted_format(&p, buf, sizeof(buf));
	assert_true(n > 0);
	assert_string_equal(buf, HEAD "default_ns 1070\narm control\n" CLASS
				      "end\n");
	assert_int_equal(parse(buf, &q), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	/* each line alone, and none: a tuned step's file of before */
	assert_int_equal(parse(HEAD "arm measure\nend\n", &p), 0);
	assert_string_equal(p.arm, "measure");
	assert_int_equal(p.default_ns, 0);
	assert_int_equal(parse(HEAD "default_ns 9\nend\n", &p), 0);
	assert_string_equal(p.arm, "");
	assert_int_equal(parse(HEAD CLASS "end\n", &p), 0);
	assert_string_equal(p.arm, "");
	assert_int_equal(p.default_ns, 0);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		HEAD "arm tuned\nend\n",
		HEAD "arm \nend\n",
		HEAD "arm control \nend\n",
		HEAD "arm controlx\nend\n",
		HEAD "default_ns 0\nend\n",
		HEAD "default_ns -1\nend\n",
		HEAD "default_ns 01\nend\n",
		HEAD "arm control\ndefault_ns 5\nend\n", /* order */
		HEAD "arm control\narm control\nend\n",
		HEAD CLASS "arm control\nend\n",
		HEAD "arm control\n", /* no end */
	};
	static struct lagom_predicted p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&p, 0x11, sizeof(p));
		assert_int_equal(parse(bad[i], &p), -EINVAL);
		assert_int_equal(p.default_ns, 0x1111111111111111ULL);
	}
	memset(&p, 0, sizeof(p));
	strcpy(p.plan, "aa");
	strcpy(p.arm, "other");
	assert_int_equal(lagom_predicted_format(&p, (char[256]){ 0 }, 256),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
