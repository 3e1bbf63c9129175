/*
 * planner/calib.c - the site calibration file: its strict reader, its
 * writer's text, and the trusted read beside the profiles
 * (doc/calibration-format.md).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "common/json_keys.h"
#include "common/io.h"
#include "planner/calib.h"
#include "profile/profile.h"

static const char *const top_keys[] = { "format",  "version", "date_unix",
					"classes", "runs",    "transports",
					NULL };

static int get_count(const json_t *obj, const char *key, const char *where,
		     uint64_t *out, struct lagom_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > LAGOM_CALIBRATION_MAX_COUNT)
		return lagom_errprintf(err, EINVAL,
				       "%s%s: expected an integer 0..%llu",
				       where, key, LAGOM_CALIBRATION_MAX_COUNT);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* One band: {"classes": N, "<constant>": value, ...}. */
static int parse_band(const json_t *o, int t, int b,
		      struct lagom_calibration *c, struct lagom_error *err)
{
	char where[48];
	const char *key;
	json_t *v;
	int rc;

	snprintf(where, sizeof(where), "transports.%s.%s.",
		 lagom_transport_name(t), lagom_net_band_name(b));
	if (!json_is_object(o))
		return lagom_errprintf(err, EINVAL, "%.*s: expected an object",
				       (int)strlen(where) - 1, where);
	rc = get_count(o, "classes", where, &c->classes[t][b], err);
	if (rc)
		return rc;
	json_object_foreach((json_t *)o, key, v)
	{
		enum lagom_net_param p;
		double lo, hi, x;

		if (strcmp(key, "classes") == 0)
			continue;
		if (lagom_net_param_parse(key, &p))
			return lagom_errprintf(err, EINVAL, "%s%s: unknown key",
					       where, key);
		lagom_net_param_range(p, &lo, &hi);
		x = json_is_number(v) ? json_number_value(v) : NAN;
		if (!(x >= lo && x <= hi))
			return lagom_errprintf(err, EINVAL,
					       "%s%s: expected a number in "
					       "[%g, %g]",
					       where, key, lo, hi);
		c->calib.t[t].set[b][p] = true;
		c->calib.t[t].value[b][p] = x;
	}
	return 0;
}

static int parse_transports(const json_t *o, struct lagom_calibration *c,
			    struct lagom_error *err)
{
	const char *key, *bkey;
	json_t *v, *bv;

	if (!json_is_object(o))
		return lagom_errprintf(err, EINVAL,
				       "transports: expected an object");
	json_object_foreach((json_t *)o, key, v)
	{
		enum lagom_transport t;

		if (lagom_transport_parse(key, &t) || t == LAGOM_NET_DEFAULT ||
		    strcmp(key, lagom_transport_name(t)) != 0)
			return lagom_errprintf(err, EINVAL,
					       "transports.%s: unknown "
					       "transport",
					       key);
		if (!json_is_object(v))
			return lagom_errprintf(err, EINVAL,
					       "transports.%s: expected an "
					       "object",
					       key);
		json_object_foreach(v, bkey, bv)
		{
			int b, rc = -1;
			for (b = 0; b < LAGOM_NET_BANDS; b++)
				if (strcmp(bkey, lagom_net_band_name(b)) == 0)
					break;
			if (b == LAGOM_NET_BANDS)
				return lagom_errprintf(err, EINVAL,
						       "transports.%s.%s: "
						       "unknown band",
						       key, bkey);
			rc = parse_band(bv, t, b, c, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int parse_root(const json_t *root, struct lagom_calibration *c,
		      struct lagom_error *err)
{
	const char *key;
	json_t *v, *date;
	int rc;

	if (!json_is_object(root))
		return lagom_errprintf(err, EINVAL, "expected an object");
	v = json_object_get(root, "format");
	if (!json_is_string(v) ||
	    strcmp(json_string_value(v), LAGOM_CALIBRATION_FORMAT) != 0)
		return lagom_errprintf(err, EPROTONOSUPPORT,
				       "format: not a lagom calibration");
	v = json_object_get(root, "version");
	if (!json_is_integer(v) ||
	    json_integer_value(v) != LAGOM_CALIBRATION_VERSION)
		return lagom_errprintf(err, EPROTONOSUPPORT,
				       "version: this lagom reads version %d",
				       LAGOM_CALIBRATION_VERSION);
	if ((key = lagom_json_unknown_key(root, top_keys)))
		return lagom_errprintf(err, EINVAL, "%s: unknown key", key);
	date = json_object_get(root, "date_unix");
	if (!json_is_integer(date) || json_integer_value(date) < 0 ||
	    json_integer_value(date) > 253402300799LL)
		return lagom_errprintf(err, EINVAL,
				       "date_unix: expected seconds since "
				       "1970 (before year 10000)");
	c->date_unix = json_integer_value(date);
	rc = get_count(root, "classes", "", &c->n_classes, err);
	if (rc == 0)
		rc = get_count(root, "runs", "", &c->n_runs, err);
	if (rc == 0)
		rc = parse_transports(json_object_get(root, "transports"), c,
				      err);
	return rc;
}

int lagom_calibration_parse(const char *buf, size_t len,
			    struct lagom_calibration *out,
			    struct lagom_error *err)
{
	struct lagom_calibration c;
	json_error_t jerr;
	json_t *root;
	int rc;

	if (len > LAGOM_CALIBRATION_MAX_BYTES)
		return lagom_errprintf(err, EFBIG, "larger than %d bytes",
				       LAGOM_CALIBRATION_MAX_BYTES);
	if (memchr(buf, '\0', len))
		return lagom_errprintf(err, EINVAL, "a NUL byte");
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return lagom_errprintf(err, EINVAL, "line %d: %s", jerr.line,
				       jerr.text);
	memset(&c, 0, sizeof(c));
	rc = parse_root(root, &c, err);
	json_decref(root);
	if (rc)
		return rc;
	*out = c;
	return 0;
}

static json_t *band_json(const struct lagom_calibration *c, int t, int b)
{
	json_t *o = json_object();

	if (!o ||
	    json_object_set_new(o, "classes",
				json_integer((json_int_t)c->classes[t][b])))
		goto fail;
	for (int p = 0; p < LAGOM_NP_COUNT; p++)
		if (c->calib.t[t].set[b][p] &&
		    json_object_set_new(o, lagom_net_param_name(p),
					json_real(c->calib.t[t].value[b][p])))
			goto fail;
	return o;
fail:
	json_decref(o);
	return NULL;
}

static json_t *transports_json(const struct lagom_calibration *c)
{
	json_t *all = json_object();

	for (int t = LAGOM_NET_IB; all && t < LAGOM_NET_COUNT; t++) {
		json_t *tj = NULL;
		for (int b = 0; b < LAGOM_NET_BANDS; b++) {
			if (c->classes[t][b] == 0)
				continue;
			if (!tj && (!(tj = json_object()) ||
				    json_object_set_new(
					    all, lagom_transport_name(t), tj)))
				goto fail;
			if (json_object_set_new(tj, lagom_net_band_name(b),
						band_json(c, t, b)))
				goto fail;
		}
	}
	return all;
fail:
	json_decref(all);
	return NULL;
}

int lagom_calibration_format(const struct lagom_calibration *c, char **out,
			     struct lagom_error *err)
{
	struct lagom_calibration back;
	json_t *root = json_pack(
		"{s:s, s:i, s:I, s:I, s:I, s:o*}", "format",
		LAGOM_CALIBRATION_FORMAT, "version", LAGOM_CALIBRATION_VERSION,
		"date_unix", (json_int_t)c->date_unix, "classes",
		(json_int_t)c->n_classes, "runs", (json_int_t)c->n_runs,
		"transports", transports_json(c));
	char *text, *grown;
	size_t len;
	int rc;

	if (!root || !json_object_get(root, "transports")) {
		json_decref(root);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	text = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(2) |
					JSON_REAL_PRECISION(9));
	json_decref(root);
	if (!text)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	len = strlen(text);
	rc = lagom_calibration_parse(text, len, &back, err);
	if (rc) {
		free(text);
		return lagom_error_prefix(err,
					  "calibration would not read back");
	}
	grown = realloc(text, len + 2); /* gcc 14: no use of text after it */
	if (!grown) {
		free(text);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	memcpy(grown + len, "\n", 2);
	*out = grown;
	return 0;
}

int lagom_calibration_read_at(int dfd, const char *dir,
			      const struct lagom_trust *trust,
			      struct lagom_calibration *out,
			      struct lagom_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = lagom_profile_read_at(dfd, LAGOM_CALIBRATION_FILE, trust,
				       LAGOM_CALIBRATION_MAX_BYTES, &buf, &len,
				       NULL, err);

	if (rc == 0) {
		rc = lagom_calibration_parse(buf, len, out, err);
		free(buf);
	}
	if (rc < 0 && rc != -ENOENT)
		return lagom_error_prefix(err, "calibration %s/%s", dir,
					  LAGOM_CALIBRATION_FILE);
	return rc;
}

int lagom_calibration_read_file(const char *path, struct lagom_calibration *out,
				struct lagom_error *err)
{
	struct lagom_read_rule rule = {
		.max_bytes = LAGOM_CALIBRATION_MAX_BYTES, .follow = true
	};
	char *buf = NULL;
	size_t len = 0;
	int rc;

	/* a path the invoker names, read with the invoker's rights */
	rc = lagom_read_file_alloc_at(AT_FDCWD, path, &rule, &buf, &len, NULL,
				      err);
	if (rc == 0)
		rc = lagom_calibration_parse(buf, len, out, err);
	free(buf);
	return rc ? lagom_error_prefix(err, "calibration %s", path) : 0;
}

void lagom_calibration_line(const struct lagom_calibration *c, char *buf,
			    size_t len)
{
	time_t t = (time_t)c->date_unix;
	struct tm tm;
	char date[32] = "?";

	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	snprintf(buf, len, "calibrated from %llu classes of %llu runs, %s",
		 (unsigned long long)c->n_classes,
		 (unsigned long long)c->n_runs, date);
}
