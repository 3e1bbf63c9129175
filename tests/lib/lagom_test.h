/*
 * tests/lib/lagom_test.h - helpers shared by lagom's CMocka tests.
 *
 * Include after <cmocka.h>'s prerequisites.  cmocka 1.1.5 compares floats as
 * float; these compare doubles.
 */
#ifndef LAGOM_TEST_H
#define LAGOM_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

/* |a - b| <= abs_tol */
#define assert_double_near(a, b, abs_tol)                               \
	lagom_assert_double_near((a), (b), (abs_tol), #a, #b, __FILE__, \
				 __LINE__)

/* |a - b| <= rel_tol * |b| */
#define assert_double_rel(a, b, rel_tol)                                \
	lagom_assert_double_near((a), (b), fabs(b) * (rel_tol), #a, #b, \
				 __FILE__, __LINE__)

static inline void lagom_assert_double_near(double a, double b, double tol,
					    const char *sa, const char *sb,
					    const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error(
			"%s (%.9g) differs from %s (%.9g) by more than %.3g\n",
			sa, a, sb, b, tol);
		_fail(file, line);
	}
}

/* Path of a fixture under tests/fixtures (LAGOM_FIXTURES from the harness). */
static inline const char *lagom_fixture(char *buf, size_t len, const char *rel)
{
	const char *dir = getenv("LAGOM_FIXTURES");

	snprintf(buf, len, "%s/%s", dir ? dir : "tests/fixtures", rel);
	return buf;
}

#endif /* LAGOM_TEST_H */
