/*
 * profile/json_check_int.h - private to profile/: typed access to jansson values
 * with errors that name the JSON path ("hardware.gpu_count: expected an
 * integer, got a string").  Each returns 0 or a negative errno after
 * filling c->err.
 */
#ifndef LAGOM_PROFILE_JSON_CHECK_H
#define LAGOM_PROFILE_JSON_CHECK_H

#include <jansson.h>

#include "profile/profile.h"

#define PATH_MAX_LEN 96

struct pctx {
	struct lagom_error *err;
	int lenient; /* newer minor version: unknown keys are ignored */
};

/* "an object", "a string", ... for messages. */
const char *pj_type_name(const json_t *j);
/* out (PATH_MAX_LEN bytes) = path + "." + key, or key at the top. */
void pj_join(char *out, const char *path, const char *key);
/* Every key of obj is in allowed (NULL-terminated), unless c->lenient. */
int pj_check_keys(struct pctx *c, const json_t *obj, const char *path,
		  const char *const *allowed);
/* *out = obj[key] of the JSON type `type` (type < 0: any number); absent
 * and not required: 0 with *out NULL. */
int pj_member(struct pctx *c, const json_t *obj, const char *path,
	      const char *key, int type, int required, json_t **out);
/* Copy a string member into buf (size bytes with the NUL). */
int pj_get_string(struct pctx *c, const json_t *obj, const char *path,
		  const char *key, int required, char *buf, size_t size);
/* A required integer member in [min, max]. */
int pj_get_int(struct pctx *c, const json_t *obj, const char *path,
	       const char *key, json_int_t min, json_int_t max,
	       json_int_t *out);
/* A required finite number >= 0 (> 0 when positive). */
int pj_get_number(struct pctx *c, const json_t *obj, const char *path,
		  const char *key, int positive, double *out);
/* A required string member equal to name(i) for some i in [first, count). */
int pj_get_enum(struct pctx *c, const json_t *obj, const char *path,
		const char *key, const char *(*name)(int), int first, int count,
		int *out);
/* obj.unit is exactly unit. */
int pj_check_unit(struct pctx *c, const json_t *obj, const char *path,
		  const char *unit);
/* obj.source is "measured" or "table". */
int pj_get_source(struct pctx *c, const json_t *obj, const char *path,
		  enum lagom_source *out);
/* A required boolean member (0/1). */
int pj_get_bool(struct pctx *c, const json_t *obj, const char *path,
		const char *key, int *out);
/* A required integer member in [0, max]. */
int pj_get_count(struct pctx *c, const json_t *obj, const char *path,
		 const char *key, json_int_t max, int *out);

#endif /* LAGOM_PROFILE_JSON_CHECK_H */
