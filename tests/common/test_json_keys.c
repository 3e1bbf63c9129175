/* Tests of common/json_keys.c: the first key not allowed is named, in the
 * object's order; an object of allowed keys, an empty one and a value that
 * is not an object have none. */
#include "config.h"

#include <jansson.h>
#include <stdio.h>

#include "common/json_keys.h"
#include "tests/lib/lagom_test.h"

static const char *const allowed[] = { "a", "bb", NULL };

static const char *unknown_in(const char *text)
{
	static char key[32];
	json_t *j = json_loads(text, JSON_PRESERVE_ORDER, NULL);
	const char *k;

	assert_non_null(j);
	k = lagom_json_unknown_key(j, allowed);
	key[0] = '\0';
	if (k)
		snprintf(key, sizeof(key), "%s", k);
	json_decref(j);
	return k ? key : NULL;
}

static void names_the_first_unknown_key(void **state)
{
	(void)state;
	assert_string_equal(unknown_in("{\"a\":1,\"b\":2,\"c\":3}"), "b");
	assert_string_equal(unknown_in("{\"bb\":1,\"A\":2}"), "A");
	assert_string_equal(unknown_in("{\"\":0}"), "");
}

static void none_when_every_key_is_allowed(void **state)
{
	(void)state;
	assert_null(unknown_in("{\"a\":1,\"bb\":{\"x\":1}}"));
	assert_null(unknown_in("{}"));
	assert_null(unknown_in("[\"x\"]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_the_first_unknown_key),
		cmocka_unit_test(none_when_every_key_is_allowed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
