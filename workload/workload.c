/*
 * workload/workload.c - the JSON workload reader (doc/workload-format.md).
 * Strict: unknown keys, wrong types and out-of-range values are errors, so
 * a typo never silently becomes a default.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "common/json_keys.h"
#include "workload/workload.h"

/* Reject any key of obj not in the NULL-terminated list. */
static int check_keys(json_t *obj, const char *const *keys, const char *where,
		      struct lagom_error *err)
{
	const char *key = lagom_json_unknown_key(obj, keys);

	if (key)
		return lagom_errprintf(err, EINVAL, "%s: unknown key '%s'",
				       where, key);
	return 0;
}

/* obj must be an object whose keys are all in the NULL-terminated list. */
static int check_object(json_t *obj, const char *const *keys, const char *where,
			struct lagom_error *err)
{
	if (!json_is_object(obj))
		return lagom_errprintf(err, EINVAL, "%s: must be an object",
				       where);
	return check_keys(obj, keys, where, err);
}

static int require_key(json_t *obj, const char *key, const char *where,
		       struct lagom_error *err)
{
	if (!json_object_get(obj, key))
		return lagom_errprintf(err, EINVAL, "%s: %s is required", where,
				       key);
	return 0;
}

/* Optional number >= 0 (default kept when absent). */
static int get_seconds(json_t *obj, const char *key, double *out,
		       const char *where, struct lagom_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return 0;
	if (!json_is_number(v) || !(json_number_value(v) >= 0) ||
	    !isfinite(json_number_value(v)))
		return lagom_errprintf(err, EINVAL,
				       "%s.%s: must be a number >= 0", where,
				       key);
	*out = json_number_value(v);
	return 0;
}

/* Optional integer in [min, max]. */
static int get_uint(json_t *obj, const char *key, uint64_t min, uint64_t max,
		    uint64_t *out, const char *where, struct lagom_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) < min ||
	    (uint64_t)json_integer_value(v) > max)
		return lagom_errprintf(err, EINVAL,
				       "%s.%s: must be an integer in [%llu, "
				       "%llu]",
				       where, key, (unsigned long long)min,
				       (unsigned long long)max);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_name(json_t *obj, const char *key, char *out, size_t len,
		    const char *where, struct lagom_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return 0;
	if (!json_is_string(v) || json_string_length(v) >= len)
		return lagom_errprintf(err, EINVAL,
				       "%s.%s: must be a string of at most %zu "
				       "characters",
				       where, key, len - 1);
	/* names reach logs and terminals: printable ASCII only (no NUL,
	 * newline, escape sequence or byte above 0x7e) */
	for (size_t i = 0; i < json_string_length(v); i++) {
		unsigned char c = (unsigned char)json_string_value(v)[i];

		if (c < 0x20 || c > 0x7e)
			return lagom_errprintf(
				err, EINVAL,
				"%s.%s: byte %zu is not printable "
				"ASCII (0x%02x)",
				where, key, i, c);
	}
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/* Version 2 (doc/workload-format.md): "kind": "idle" is time the compute
 * stream spends on host gaps and copies; it is never slowed by contention,
 * which the model gives a kernel of one block and mem_bound 0 exactly. */
static int read_idle(json_t *obj, struct lagom_kernel *k, const char *where,
		     struct lagom_error *err)
{
	static const char *const keys[] = { "kind", "time_s", NULL };
	json_t *kind = json_object_get(obj, "kind");
	double time = 0;
	int rc;

	if (!json_is_string(kind) ||
	    strcmp(json_string_value(kind), "idle") != 0)
		return lagom_errprintf(err, EINVAL, "%s.kind: must be \"idle\"",
				       where);
	rc = check_keys(obj, keys, where, err);
	if (!rc)
		rc = require_key(obj, "time_s", where, err);
	if (!rc)
		rc = get_seconds(obj, "time_s", &time, where, err);
	if (!rc && !(time > 0))
		rc = lagom_errprintf(err, EINVAL, "%s: time_s must be > 0",
				     where);
	if (!rc)
		*k = (struct lagom_kernel){ .time_s = time,
					    .grid_blocks = 1,
					    .blocks_per_sm = 1 };
	return rc;
}

static int get_bool(json_t *obj, const char *key, const char *where,
		    struct lagom_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (v && !json_is_boolean(v))
		return lagom_errprintf(err, EINVAL, "%s.%s: must be a boolean",
				       where, key);
	return 0;
}

static int read_kernel(json_t *obj, struct lagom_kernel *k, int version,
		       const char *where, struct lagom_error *err)
{
	static const char *const keys1[] = { "time_s",	      "grid_blocks",
					     "blocks_per_sm", "mem_bound",
					     "after_coll",    NULL };
	static const char *const keys2[] = { "time_s",	      "grid_blocks",
					     "blocks_per_sm", "mem_bound",
					     "after_coll",    "estimated",
					     "merged",	      NULL };
	uint64_t grid = 0, per_sm = 0, after = 0, merged = 0;
	double mem = 0, time = 0;
	int rc;

	if (version >= 2 && json_is_object(obj) && json_object_get(obj, "kind"))
		return read_idle(obj, k, where, err);
	rc = check_object(obj, version >= 2 ? keys2 : keys1, where, err);
	if (!rc)
		rc = require_key(obj, "time_s", where, err);
	if (!rc)
		rc = get_seconds(obj, "time_s", &time, where, err);
	if (!rc)
		rc = get_uint(obj, "grid_blocks", 0, UINT32_MAX, &grid, where,
			      err);
	if (!rc)
		rc = get_uint(obj, "blocks_per_sm", 0, 64, &per_sm, where, err);
	if (!rc)
		rc = get_seconds(obj, "mem_bound", &mem, where, err);
	if (!rc)
		rc = get_uint(obj, "after_coll", 0, LAGOM_REGION_MAX_COLLS,
			      &after, where, err);
	if (!rc)
		rc = get_bool(obj, "estimated", where, err);
	if (!rc)
		rc = get_uint(obj, "merged", 0, UINT32_MAX, &merged, where,
			      err);
	if (rc)
		return rc;
	if (!(time > 0) || mem > 1)
		return lagom_errprintf(err, EINVAL,
				       "%s: time_s must be > 0 and mem_bound "
				       "in [0, 1]",
				       where);
	*k = (struct lagom_kernel){ .time_s = time,
				    .grid_blocks = (unsigned)grid,
				    .blocks_per_sm = (unsigned)per_sm,
				    .mem_bound = mem,
				    .after_coll = (unsigned)after };
	return 0;
}

static int read_enum_field(json_t *obj, const char *key, const char *where,
			   int (*parse)(const char *, void *), void *out,
			   bool required, struct lagom_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (!v && !required)
		return 0;
	if (!v || !json_is_string(v) || parse(json_string_value(v), out))
		return lagom_errprintf(err, EINVAL, "%s.%s: %s", where, key,
				       v && json_is_string(v)
					       ? "unknown name"
					       : "required string missing");
	return 0;
}

static int parse_coll(const char *s, void *out)
{
	return lagom_coll_parse(s, out);
}

static int parse_hops(const char *s, void *out)
{
	return lagom_hops_parse(s, out);
}

static int coll_comm(json_t *obj, struct lagom_region_coll *c,
		     const char *where, struct lagom_error *err)
{
	uint64_t ranks = 0, nodes = 1, ppn = 0;
	int rc;

	rc = require_key(obj, "ranks", where, err);
	if (!rc)
		rc = get_uint(obj, "ranks", 1, 1u << 20, &ranks, where, err);
	if (!rc)
		rc = get_uint(obj, "nodes", 1, 1u << 20, &nodes, where, err);
	if (!rc)
		rc = get_uint(obj, "ranks_per_node", 1, 64, &ppn, where, err);
	if (rc)
		return rc;
	if (!ppn)
		ppn = ranks / nodes;
	if (ppn * nodes != ranks)
		return lagom_errprintf(err, EINVAL,
				       "%s: ranks %llu != nodes %llu x "
				       "ranks_per_node %llu",
				       where, (unsigned long long)ranks,
				       (unsigned long long)nodes,
				       (unsigned long long)ppn);
	c->comm = (struct lagom_comm){ .ranks = (unsigned)ranks,
				       .nodes = (unsigned)nodes,
				       .ranks_per_node = (unsigned)ppn,
				       .hops = nodes > 1
						       ? LAGOM_HOPS_SAME_LEAF
						       : LAGOM_HOPS_SAME_NODE };
	return read_enum_field(obj, "hops", where, parse_hops, &c->comm.hops,
			       false, err);
}

/* Version 2 keys of a collective that the model does not use: what the
 * trace measured (doc/workload-import.md). */
static int coll_v2(json_t *obj, const struct lagom_region_coll *c,
		   const char *where, struct lagom_error *err)
{
	json_t *comm = json_object_get(obj, "comm");
	uint64_t total = 0, u = 0;
	double t = 0;
	int rc = 0;

	if (comm && (!json_is_string(comm) ||
		     json_string_length(comm) >= LAGOM_NAME_MAX))
		return lagom_errprintf(err, EINVAL,
				       "%s.comm: must be a string of at most "
				       "%d characters",
				       where, LAGOM_NAME_MAX - 1);
	rc = get_uint(obj, "total_bytes", 1, UINT64_MAX >> 1, &total, where,
		      err);
	if (!rc && total && c->coll != LAGOM_COLL_ALLTOALL)
		rc = lagom_errprintf(err, EINVAL,
				     "%s.total_bytes: only for alltoall",
				     where);
	if (!rc && total && total < c->bytes)
		rc = lagom_errprintf(err, EINVAL,
				     "%s.total_bytes: less than bytes", where);
	if (!rc)
		rc = get_uint(obj, "trace_channels", 1, 1024, &u, where, err);
	if (!rc)
		rc = get_uint(obj, "trace_threads", 1, 1024, &u, where, err);
	if (!rc)
		rc = get_seconds(obj, "trace_time_s", &t, where, err);
	return rc;
}

static int read_coll(json_t *obj, struct lagom_region_coll *c, int version,
		     const char *where, struct lagom_error *err)
{
	static const char *const keys1[] = {
		"op",	"bytes",   "ranks",	   "nodes", "ranks_per_node",
		"hops", "ready_s", "after_kernel", NULL
	};
	static const char *const keys2[] = { "op",
					     "bytes",
					     "ranks",
					     "nodes",
					     "ranks_per_node",
					     "hops",
					     "ready_s",
					     "after_kernel",
					     "comm",
					     "total_bytes",
					     "trace_channels",
					     "trace_threads",
					     "trace_time_s",
					     NULL };
	uint64_t bytes = 0, after = 0;
	double ready = 0;
	int rc;

	*c = (struct lagom_region_coll){ 0 };
	rc = check_object(obj, version >= 2 ? keys2 : keys1, where, err);
	if (!rc)
		rc = read_enum_field(obj, "op", where, parse_coll, &c->coll,
				     true, err);
	if (!rc)
		rc = require_key(obj, "bytes", where, err);
	if (!rc)
		rc = get_uint(obj, "bytes", 1, UINT64_MAX >> 1, &bytes, where,
			      err);
	if (!rc)
		rc = coll_comm(obj, c, where, err);
	if (!rc)
		rc = get_seconds(obj, "ready_s", &ready, where, err);
	if (!rc)
		rc = get_uint(obj, "after_kernel", 0, LAGOM_REGION_MAX_KERNELS,
			      &after, where, err);
	c->bytes = bytes;
	if (!rc && version >= 2)
		rc = coll_v2(obj, c, where, err);
	if (rc)
		return rc;
	c->ready_s = ready;
	c->after_kernel = (unsigned)after;
	return 0;
}

static int read_array(json_t *arr, size_t max, const char *what,
		      const char *where, struct lagom_error *err)
{
	if (!arr)
		return 0;
	if (!json_is_array(arr) || json_array_size(arr) > max)
		return lagom_errprintf(err, EINVAL,
				       "%s.%s: must be an array of at most %zu",
				       where, what, max);
	return 0;
}

static int region_items(json_t *obj, struct lagom_region *r, int version,
			const char *where, struct lagom_error *err)
{
	json_t *kernels = json_object_get(obj, "kernels");
	json_t *colls = json_object_get(obj, "collectives");
	char path[160];
	size_t i;
	json_t *v;
	int rc = read_array(kernels, LAGOM_REGION_MAX_KERNELS, "kernels", where,
			    err);

	if (!rc)
		rc = read_array(colls, LAGOM_REGION_MAX_COLLS, "collectives",
				where, err);
	if (rc)
		return rc;
	json_array_foreach(kernels, i, v)
	{
		snprintf(path, sizeof(path), "%s.kernels[%zu]", where, i);
		if ((rc = read_kernel(v, &r->kernels[i], version, path, err)))
			return rc;
		r->nkernels = i + 1;
	}
	json_array_foreach(colls, i, v)
	{
		snprintf(path, sizeof(path), "%s.collectives[%zu]", where, i);
		if ((rc = read_coll(v, &r->colls[i], version, path, err)))
			return rc;
		r->ncolls = i + 1;
	}
	return 0;
}

static int check_dependencies(const struct lagom_region *r, const char *where,
			      struct lagom_error *err)
{
	if (r->nkernels == 0 && r->ncolls == 0)
		return lagom_errprintf(
			err, EINVAL, "%s: needs kernels or collectives", where);
	for (size_t i = 0; i < r->nkernels; i++)
		if (r->kernels[i].after_coll > r->ncolls)
			return lagom_errprintf(err, EINVAL,
					       "%s.kernels[%zu].after_coll: no "
					       "collective %u",
					       where, i,
					       r->kernels[i].after_coll);
	for (size_t j = 0; j < r->ncolls; j++)
		if (r->colls[j].after_kernel > r->nkernels)
			return lagom_errprintf(
				err, EINVAL,
				"%s.collectives[%zu].after_kernel: "
				"no kernel %u",
				where, j, r->colls[j].after_kernel);
	return 0;
}

static int read_region(json_t *obj, struct lagom_region *r, int version,
		       const char *where, struct lagom_error *err)
{
	static const char *const keys[] = { "name",	   "repeat",
					    "serial_s",	   "kernels",
					    "collectives", NULL };
	uint64_t repeat = 1;
	int rc;

	rc = check_object(obj, keys, where, err);
	if (!rc)
		rc = get_name(obj, "name", r->name, sizeof(r->name), where,
			      err);
	if (!rc)
		rc = get_uint(obj, "repeat", 1, 1000000, &repeat, where, err);
	if (!rc)
		rc = get_seconds(obj, "serial_s", &r->serial_s, where, err);
	if (!rc)
		rc = region_items(obj, r, version, where, err);
	if (!rc)
		rc = check_dependencies(r, where, err);
	r->repeat = (unsigned)repeat;
	return rc;
}

static int check_version(json_t *root, int *version, struct lagom_error *err)
{
	json_t *v = json_object_get(root, "lagom_workload");

	if (!v)
		return lagom_errprintf(err, EINVAL,
				       "not a lagom workload: no "
				       "\"lagom_workload\" version");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > LAGOM_WORKLOAD_FORMAT_VERSION)
		return lagom_errprintf(err, EINVAL,
				       "lagom_workload: version %s not "
				       "supported (this reader reads 1 to %d)",
				       json_is_integer(v) ? "other" : "invalid",
				       LAGOM_WORKLOAD_FORMAT_VERSION);
	*version = (int)json_integer_value(v);
	return 0;
}

/* Version 2: "source" says where an imported workload came from; its
 * values are strings or numbers and the model does not use them. */
static int check_source(json_t *root, struct lagom_error *err)
{
	static const char *const keys[] = {
		"kind",	      "gpu",  "sms",	     "gpus_visible",
		"world_size", "rank", "ranks_given", "nccl_version",
		"steps",      "step", "step_s",	     "mean_step_s",
		"window_s",   NULL
	};
	json_t *src = json_object_get(root, "source"), *v;
	const char *key;
	int rc;

	if (!src)
		return 0;
	if ((rc = check_object(src, keys, "source", err)))
		return rc;
	json_object_foreach(src, key, v)
	{
		if (!json_is_number(v) &&
		    !(json_is_string(v) && json_string_length(v) < 256))
			return lagom_errprintf(err, EINVAL,
					       "source.%s: must be a number or "
					       "a string",
					       key);
	}
	return 0;
}

static int read_root(json_t *root, struct lagom_workload **out,
		     struct lagom_error *err)
{
	static const char *const keys1[] = { "lagom_workload", "name",
					     "serial_s", "regions", NULL };
	static const char *const keys2[] = { "lagom_workload", "name",
					     "serial_s",       "regions",
					     "source",	       NULL };
	json_t *regions, *v;
	struct lagom_workload *w;
	char where[64];
	int version = 1;
	size_t i;
	int rc;

	if (!json_is_object(root))
		return lagom_errprintf(err, EINVAL,
				       "top level must be an object");
	rc = check_version(root, &version, err);
	if (!rc)
		rc = check_keys(root, version >= 2 ? keys2 : keys1, "(top)",
				err);
	if (!rc && version >= 2)
		rc = check_source(root, err);
	if (rc)
		return rc;
	regions = json_object_get(root, "regions");
	if (!json_is_array(regions) || json_array_size(regions) == 0 ||
	    json_array_size(regions) > 4096)
		return lagom_errprintf(err, EINVAL,
				       "regions: must be an array of 1..4096 "
				       "regions");
	w = lagom_workload_create("", json_array_size(regions));
	if (!w)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	rc = get_name(root, "name", w->name, sizeof(w->name), "(top)", err);
	if (!rc)
		rc = get_seconds(root, "serial_s", &w->serial_s, "(top)", err);
	json_array_foreach(regions, i, v)
	{
		if (rc)
			break;
		snprintf(where, sizeof(where), "regions[%zu]", i);
		rc = read_region(v, &w->regions[i], version, where, err);
	}
	if (rc) {
		lagom_workload_destroy(w);
		return rc;
	}
	*out = w;
	return 0;
}

int lagom_workload_read_string(const char *text, struct lagom_workload **out,
			       struct lagom_error *err)
{
	json_error_t jerr;
	json_t *root;
	int rc;

	if (!text || !out)
		return lagom_errprintf(err, EINVAL, "missing argument");
	root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return lagom_errprintf(err, EINVAL, "line %d: %s", jerr.line,
				       jerr.text);
	rc = read_root(root, out, err);
	json_decref(root);
	return rc;
}
