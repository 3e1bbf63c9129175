/*
 * common/json_keys.h - the strict JSON object check of every lagom reader
 * (profile, workload, calibration): an object holds only the keys its
 * format names.  Each reader words its own error.  Needs jansson.
 */
#ifndef LAGOM_COMMON_JSON_KEYS_H
#define LAGOM_COMMON_JSON_KEYS_H

#include <jansson.h>

/* The first key of obj that is not in allowed (NULL-terminated), borrowed
 * from obj; NULL when every key is allowed or obj is not an object. */
const char *lagom_json_unknown_key(const json_t *obj,
				   const char *const *allowed);

#endif /* LAGOM_COMMON_JSON_KEYS_H */
