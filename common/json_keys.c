/*
 * common/json_keys.c - the strict JSON object check (common/json_keys.h).
 */
#include "config.h"

#include <string.h>

#include "common/json_keys.h"

static int allowed_key(const char *key, const char *const *allowed)
{
	for (; *allowed; allowed++)
		if (strcmp(key, *allowed) == 0)
			return 1;
	return 0;
}

const char *lagom_json_unknown_key(const json_t *obj,
				   const char *const *allowed)
{
	const char *key;
	json_t *value;

	json_object_foreach((json_t *)obj, key, value)
	{
		(void)value;
		if (!allowed_key(key, allowed))
			return key;
	}
	return NULL;
}
