/* profile/json_check.c - see json_check_int.h. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/json_keys.h"
#include "profile/json_check_int.h"

const char *pj_type_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

void pj_join(char *out, const char *path, const char *key)
{
	if (path[0] == '\0')
		snprintf(out, PATH_MAX_LEN, "%s", key);
	else
		snprintf(out, PATH_MAX_LEN, "%s.%s", path, key);
}

int pj_check_keys(struct pctx *c, const json_t *obj, const char *path,
		  const char *const *allowed)
{
	const char *key;

	if (c->lenient || !(key = lagom_json_unknown_key(obj, allowed)))
		return 0;
	return lagom_errprintf(c->err, EINVAL, "%s%sunknown key \"%s\"", path,
			       path[0] ? ": " : "", key);
}

/* *out = obj[key] when it has the wanted type (type < 0: any number). */
int pj_member(struct pctx *c, const json_t *obj, const char *path,
	      const char *key, int type, int required, json_t **out)
{
	char where[PATH_MAX_LEN];
	json_t *v = json_object_get(obj, key);
	const char *want;

	*out = NULL;
	pj_join(where, path, key);
	if (v == NULL) {
		if (required)
			return lagom_errprintf(c->err, EINVAL,
					       "%s: missing required field",
					       where);
		return 0;
	}
	if (type < 0 ? json_is_number(v) : (int)json_typeof(v) == type) {
		*out = v;
		return 0;
	}
	want = type < 0		     ? "a number"
	       : type == JSON_OBJECT ? "an object"
	       : type == JSON_ARRAY  ? "an array"
	       : type == JSON_STRING ? "a string"
				     : "an integer";
	return lagom_errprintf(c->err, EINVAL, "%s: expected %s, got %s", where,
			       want, pj_type_name(v));
}

int pj_get_string(struct pctx *c, const json_t *obj, const char *path,
		  const char *key, int required, char *buf, size_t size)
{
	char where[PATH_MAX_LEN];
	json_t *v;
	int rc = pj_member(c, obj, path, key, JSON_STRING, required, &v);

	if (rc < 0 || v == NULL)
		return rc;
	pj_join(where, path, key);
	if (json_string_length(v) >= size)
		return lagom_errprintf(
			c->err, EINVAL,
			"%s: string too long (%zu bytes, max %zu)", where,
			json_string_length(v), size - 1);
	memcpy(buf, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

int pj_get_int(struct pctx *c, const json_t *obj, const char *path,
	       const char *key, json_int_t min, json_int_t max, json_int_t *out)
{
	char where[PATH_MAX_LEN];
	json_t *v;
	int rc = pj_member(c, obj, path, key, JSON_INTEGER, 1, &v);

	if (rc < 0)
		return rc;
	pj_join(where, path, key);
	if (json_integer_value(v) < min || json_integer_value(v) > max)
		return lagom_errprintf(c->err, EINVAL,
				       "%s: %lld is out of range [%lld, %lld]",
				       where, (long long)json_integer_value(v),
				       (long long)min, (long long)max);
	*out = json_integer_value(v);
	return 0;
}

int pj_get_number(struct pctx *c, const json_t *obj, const char *path,
		  const char *key, int positive, double *out)
{
	char where[PATH_MAX_LEN];
	json_t *v;
	int rc = pj_member(c, obj, path, key, -1, 1, &v);
	double x;

	if (rc < 0)
		return rc;
	pj_join(where, path, key);
	x = json_number_value(v);
	if (!isfinite(x) || x < 0 || (positive && x == 0))
		return lagom_errprintf(c->err, EINVAL, "%s: %g is not %s",
				       where, x,
				       positive ? "a finite number > 0"
						: "a finite number >= 0");
	*out = x;
	return 0;
}

int pj_get_enum(struct pctx *c, const json_t *obj, const char *path,
		const char *key, const char *(*name)(int), int first, int count,
		int *out)
{
	char where[PATH_MAX_LEN];
	char text[32];
	int rc = pj_get_string(c, obj, path, key, 1, text, sizeof(text));

	if (rc < 0)
		return rc;
	for (int i = first; i < count; i++) {
		if (strcmp(text, name(i)) == 0) {
			*out = i;
			return 0;
		}
	}
	pj_join(where, path, key);
	for (char *t = text; *t; t++) /* never echo control bytes */
		if ((unsigned char)*t < 0x20 || (unsigned char)*t >= 0x7f)
			*t = '?';
	return lagom_errprintf(c->err, EINVAL, "%s: unknown value \"%s\"",
			       where, text);
}

static const char *pj_source_name_i(int i)
{
	return lagom_source_name(i);
}

int pj_check_unit(struct pctx *c, const json_t *obj, const char *path,
		  const char *unit)
{
	char where[PATH_MAX_LEN];
	char text[32];
	int rc = pj_get_string(c, obj, path, "unit", 1, text, sizeof(text));

	pj_join(where, path, "unit");
	if (rc < 0 || strcmp(text, unit) != 0)
		return lagom_errprintf(c->err, EINVAL,
				       "%s: expected \"%s\"%s%s%s", where, unit,
				       rc < 0 ? "" : ", got \"",
				       rc < 0 ? "" : text, rc < 0 ? "" : "\"");
	return 0;
}

int pj_get_source(struct pctx *c, const json_t *obj, const char *path,
		  enum lagom_source *out)
{
	int v = 0;
	int rc = pj_get_enum(c, obj, path, "source", pj_source_name_i,
			     LAGOM_SOURCE_TABLE, LAGOM_SOURCE_MEASURED + 1, &v);

	if (rc == 0)
		*out = v;
	return rc;
}

int pj_get_bool(struct pctx *c, const json_t *obj, const char *path,
		const char *key, int *out)
{
	char where[PATH_MAX_LEN];
	json_t *v = json_object_get(obj, key);

	pj_join(where, path, key);
	if (v == NULL)
		return lagom_errprintf(c->err, EINVAL,
				       "%s: missing required field", where);
	if (!json_is_boolean(v))
		return lagom_errprintf(c->err, EINVAL,
				       "%s: expected a boolean, got %s", where,
				       pj_type_name(v));
	*out = json_is_true(v);
	return 0;
}

/* Small counts of the hardware section: integers in [0, max]. */
int pj_get_count(struct pctx *c, const json_t *obj, const char *path,
		 const char *key, json_int_t max, int *out)
{
	json_int_t v;
	int rc = pj_get_int(c, obj, path, key, 0, max, &v);

	if (rc == 0)
		*out = (int)v;
	return rc;
}
