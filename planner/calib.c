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
#include "model/netdense.h"
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

/* A number in [lo, hi] at key of where into *x. */
static int get_number(const json_t *v, const char *where, const char *key,
		      double lo, double hi, double *x, struct lagom_error *err)
{
	*x = json_is_number(v) ? json_number_value(v) : NAN;
	if (!(*x >= lo && *x <= hi))
		return lagom_errprintf(err, EINVAL,
				       "%s%s: expected a number in [%g, %g]",
				       where, key, lo, hi);
	return 0;
}

/* The dense constants' ranges in the file (model/netdense.h's units). */
static void dense_range(int p, double *lo, double *hi)
{
	*lo = p == LAGOM_DP_INV_BUSBW ? 1e6 : 1e-6;
	*hi = p == LAGOM_DP_INV_BUSBW ? 1e13 : 1e6;
}

static const char *const dense_proto_keys[LAGOM_NET_DENSE_PROTOS] = {
	"bytes_simple", "bytes_ll128", "bytes_ll"
};

/* [lo, hi] of integers within [min, max] into out[2]. */
static int get_pair(const json_t *v, const char *where, const char *key,
		    uint64_t min, uint64_t max, uint64_t *out,
		    struct lagom_error *err)
{
	for (size_t i = 0; i < 2; i++) {
		json_t *x = json_array_get(v, i);
		if (!json_is_array(v) || json_array_size(v) != 2 ||
		    !json_is_integer(x) || json_integer_value(x) < 0 ||
		    (uint64_t)json_integer_value(x) < min ||
		    (uint64_t)json_integer_value(x) > max)
			return lagom_errprintf(err, EINVAL,
					       "%s%s: expected [low, high], "
					       "integers %llu..%llu",
					       where, key,
					       (unsigned long long)min,
					       (unsigned long long)max);
		out[i] = (uint64_t)json_integer_value(x);
	}
	if (out[0] > out[1])
		return lagom_errprintf(err, EINVAL, "%s%s: low above high",
				       where, key);
	return 0;
}

/* One dense algorithm: {"classes", "err", "channels", "bytes_<proto>",
 * "<dense constant>"...}. */
static int parse_dense_algo(const json_t *o, const char *where,
			    struct lagom_net_dense *d, struct lagom_error *err)
{
	const char *key;
	json_t *v;
	uint64_t pair[2], classes = 0;

	if (!json_is_object(o))
		return lagom_errprintf(err, EINVAL, "%.*s: expected an object",
				       (int)strlen(where) - 1, where);
	json_object_foreach((json_t *)o, key, v)
	{
		int p, pi;
		double lo, hi, x;

		if (strcmp(key, "classes") == 0) {
			if (get_count(o, key, where, &classes, err))
				return -EINVAL;
			d->classes = (unsigned)classes;
			continue;
		}
		if (strcmp(key, "err") == 0) {
			if (get_number(v, where, key, 0, 1, &x, err))
				return -EINVAL;
			d->err = x;
			continue;
		}
		if (strcmp(key, "ranks_per_node") == 0) {
			if (get_count(o, key, where, &classes, err) ||
			    classes < 1 || classes > 1024)
				return lagom_errprintf(err, EINVAL,
						       "%sranks_per_node: "
						       "expected 1..1024",
						       where);
			d->ranks_per_node = (unsigned)classes;
			continue;
		}
		if (strcmp(key, "channels") == 0) {
			if (get_pair(v, where, key, 1, 64, pair, err))
				return -EINVAL;
			d->min_channels = (unsigned)pair[0];
			d->max_channels = (unsigned)pair[1];
			continue;
		}
		for (pi = 0; pi < LAGOM_NET_DENSE_PROTOS; pi++)
			if (strcmp(key, dense_proto_keys[pi]) == 0)
				break;
		if (pi < LAGOM_NET_DENSE_PROTOS) {
			if (get_pair(v, where, key, 1, 1ULL << 40, pair, err))
				return -EINVAL;
			d->min_bytes[pi] = pair[0];
			d->max_bytes[pi] = pair[1];
			continue;
		}
		for (p = 0; p < LAGOM_DP_COUNT; p++)
			if (strcmp(key, lagom_dense_param_name(p)) == 0)
				break;
		if (p == LAGOM_DP_COUNT)
			return lagom_errprintf(err, EINVAL, "%s%s: unknown key",
					       where, key);
		dense_range(p, &lo, &hi);
		if (get_number(v, where, key, lo, hi, &x, err))
			return -EINVAL;
		d->set[p] = true;
		d->value[p] = x;
	}
	if (!d->set[LAGOM_DP_INV_BUSBW] || d->min_channels == 0 ||
	    d->ranks_per_node == 0 || !json_object_get(o, "err") ||
	    !json_object_get(o, "classes"))
		return lagom_errprintf(err, EINVAL,
				       "%.*s: busbw_Bps, channels, "
				       "ranks_per_node, classes and err are "
				       "required",
				       (int)strlen(where) - 1, where);
	return 0;
}

/* A band's "dense": {"ring": {...}, "tree": {...}} (version 2). */
static int parse_dense(const json_t *o, const char *where,
		       struct lagom_net_dense *dense, struct lagom_error *err)
{
	const char *key;
	json_t *v;

	if (!json_is_object(o))
		return lagom_errprintf(err, EINVAL,
				       "%sdense: expected an "
				       "object",
				       where);
	json_object_foreach((json_t *)o, key, v)
	{
		char w[96];
		int a;

		for (a = 0; a < LAGOM_NET_DENSE_ALGOS; a++)
			if (strcmp(key, lagom_dense_algo_name(a)) == 0)
				break;
		if (a == LAGOM_NET_DENSE_ALGOS)
			return lagom_errprintf(err, EINVAL,
					       "%sdense.%s: unknown algorithm",
					       where, key);
		snprintf(w, sizeof(w), "%sdense.%s.", where, key);
		if (parse_dense_algo(v, w, &dense[a], err))
			return -EINVAL;
	}
	return 0;
}

/* One band: {"classes": N, "<constant>": value, ..., "dense": {...}}. */
static int parse_band(const json_t *o, int t, int b, int version,
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
		if (version >= 2 && strcmp(key, "dense") == 0) {
			if (parse_dense(v, where, c->calib.t[t].dense[b], err))
				return -EINVAL;
			continue;
		}
		if (lagom_net_param_parse(key, &p))
			return lagom_errprintf(err, EINVAL, "%s%s: unknown key",
					       where, key);
		lagom_net_param_range(p, &lo, &hi);
		if (get_number(v, where, key, lo, hi, &x, err))
			return -EINVAL;
		c->calib.t[t].set[b][p] = true;
		c->calib.t[t].value[b][p] = x;
	}
	return 0;
}

static int parse_transports(const json_t *o, int version,
			    struct lagom_calibration *c,
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
			rc = parse_band(bv, t, b, version, c, err);
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
	int rc, version;

	if (!json_is_object(root))
		return lagom_errprintf(err, EINVAL, "expected an object");
	v = json_object_get(root, "format");
	if (!json_is_string(v) ||
	    strcmp(json_string_value(v), LAGOM_CALIBRATION_FORMAT) != 0)
		return lagom_errprintf(err, EPROTONOSUPPORT,
				       "format: not a lagom calibration");
	v = json_object_get(root, "version");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > LAGOM_CALIBRATION_VERSION)
		return lagom_errprintf(err, EPROTONOSUPPORT,
				       "version: this lagom reads versions 1 "
				       "to %d",
				       LAGOM_CALIBRATION_VERSION);
	version = (int)json_integer_value(v);
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
		rc = parse_transports(json_object_get(root, "transports"),
				      version, c, err);
	for (int t = 0; rc == 0 && t < LAGOM_NET_COUNT; t++)
		rc = lagom_net_site_check(&c->calib.t[t], err);
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

static json_t *dense_json(const struct lagom_net_dense *d)
{
	json_t *o = json_pack("{s:I, s:I, s:f, s:[I,I]}", "classes",
			      (json_int_t)d->classes, "ranks_per_node",
			      (json_int_t)d->ranks_per_node, "err", d->err,
			      "channels", (json_int_t)d->min_channels,
			      (json_int_t)d->max_channels);

	for (int p = 0; o && p < LAGOM_DP_COUNT; p++)
		if (d->set[p] &&
		    json_object_set_new(o, lagom_dense_param_name(p),
					json_real(d->value[p])))
			goto fail;
	for (int pi = 0; o && pi < LAGOM_NET_DENSE_PROTOS; pi++)
		if (d->max_bytes[pi] &&
		    json_object_set_new(
			    o, dense_proto_keys[pi],
			    json_pack("[I,I]", (json_int_t)d->min_bytes[pi],
				      (json_int_t)d->max_bytes[pi])))
			goto fail;
	return o;
fail:
	json_decref(o);
	return NULL;
}

static bool has_dense(const struct lagom_net_site *s, int b)
{
	for (int a = 0; a < LAGOM_NET_DENSE_ALGOS; a++)
		if (s->dense[b][a].set[LAGOM_DP_INV_BUSBW])
			return true;
	return false;
}

static json_t *band_json(const struct lagom_calibration *c, int t, int b)
{
	const struct lagom_net_site *site = &c->calib.t[t];
	json_t *o = json_object(), *dense = NULL;

	if (!o ||
	    json_object_set_new(o, "classes",
				json_integer((json_int_t)c->classes[t][b])))
		goto fail;
	for (int p = 0; p < LAGOM_NP_COUNT; p++)
		if (site->set[b][p] &&
		    json_object_set_new(o, lagom_net_param_name(p),
					json_real(site->value[b][p])))
			goto fail;
	if (has_dense(site, b) && (!(dense = json_object()) ||
				   json_object_set_new(o, "dense", dense)))
		goto fail;
	for (int a = 0; dense && a < LAGOM_NET_DENSE_ALGOS; a++)
		if (site->dense[b][a].set[LAGOM_DP_INV_BUSBW] &&
		    json_object_set_new(dense, lagom_dense_algo_name(a),
					dense_json(&site->dense[b][a])))
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
	int version = 1;
	json_t *root;

	/* version 2 only where a dense fit is carried: a file without one
	 * stays readable by a lagom that reads version 1 only */
	for (int t = 0; t < LAGOM_NET_COUNT; t++)
		for (int b = 0; b < LAGOM_NET_BANDS; b++)
			if (c->classes[t][b] && has_dense(&c->calib.t[t], b))
				version = LAGOM_CALIBRATION_VERSION;
	root = json_pack("{s:s, s:i, s:I, s:I, s:I, s:o*}", "format",
			 LAGOM_CALIBRATION_FORMAT, "version", version,
			 "date_unix", (json_int_t)c->date_unix, "classes",
			 (json_int_t)c->n_classes, "runs",
			 (json_int_t)c->n_runs, "transports",
			 transports_json(c));
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
