/* Tests of common/hash.c: FNV-1a against its published test values. */
#include "config.h"

#include <string.h>

#include "common/hash.h"
#include "tests/lib/lagom_test.h"

static void fnv1a64_known_values(void **state)
{
	assert_true(lagom_fnv1a64("", 0) == 0xcbf29ce484222325ull);
	assert_true(lagom_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
	assert_true(lagom_fnv1a64("foobar", 6) == 0x85944171f73967e8ull);
}

static void fnv1a64_in_pieces_is_the_whole(void **state)
{
	uint64_t h = lagom_fnv1a64_update(LAGOM_FNV1A64_INIT, "foo", 3);

	assert_true(lagom_fnv1a64_update(h, "bar", 3) ==
		    lagom_fnv1a64("foobar", 6));
}

/* The comment segment's "#xxxxxxxx" (spank/comment.c) is this value. */
static void fnv1a32_known_values(void **state)
{
	assert_int_equal(lagom_fnv1a32("", 0), 0x811c9dc5u);
	assert_int_equal(lagom_fnv1a32("a", 1), 0xe40c292cu);
	assert_int_equal(lagom_fnv1a32("foobar", 6), 0xbf9cf968u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fnv1a64_known_values),
		cmocka_unit_test(fnv1a64_in_pieces_is_the_whole),
		cmocka_unit_test(fnv1a32_known_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
