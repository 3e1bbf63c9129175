/*
 * trace/emit.c - the imported workload as a `lagom_workload` 2 document
 * (doc/workload-format.md) and the contention table as JSON
 * (doc/workload-import.md), with jansson.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "trace/emit.h"
#include "trace/trace_int.h"

static int set(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}

static json_t *source_json(const struct lagom_trace_import *imp)
{
	json_t *s = json_object();
	int rc = 0;

	rc |= set(s, "kind", json_string("kineto-trace"));
	rc |= set(s, "gpu", json_string(imp->gpu));
	rc |= set(s, "sms", json_integer(imp->sms));
	rc |= set(s, "gpus_visible", json_integer(imp->gpus_visible));
	rc |= set(s, "world_size", json_integer(imp->world_size));
	rc |= set(s, "rank", json_integer(imp->rank));
	rc |= set(s, "ranks_given", json_integer(imp->ranks_given));
	rc |= set(s, "nccl_version", json_string(imp->nccl_version));
	rc |= set(s, "steps", json_integer(imp->steps));
	rc |= set(s, "step", json_integer(imp->rep_step));
	rc |= set(s, "step_s", json_real(imp->rep_step_s));
	rc |= set(s, "mean_step_s", json_real(imp->mean_step_s));
	rc |= set(s, "window_s", json_real(imp->rep_window_s));
	if (rc) {
		json_decref(s);
		return NULL;
	}
	return s;
}

static json_t *kernel_json(const struct lagom_kernel *k,
			   const struct lagom_trace_kernel_info *ki)
{
	json_t *o = json_object();
	int rc = 0;

	if (ki->idle) {
		rc |= set(o, "kind", json_string("idle"));
		rc |= set(o, "time_s", json_real(k->time_s));
	} else {
		rc |= set(o, "time_s", json_real(k->time_s));
		rc |= set(o, "grid_blocks", json_integer(k->grid_blocks));
		rc |= set(o, "blocks_per_sm", json_integer(k->blocks_per_sm));
		rc |= set(o, "mem_bound", json_real(k->mem_bound));
		rc |= set(o, "estimated", json_boolean(ki->estimated));
		rc |= set(o, "merged", json_integer(ki->merged));
	}
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *coll_json(const struct lagom_region_coll *c,
			 const struct lagom_trace_coll_info *ci)
{
	json_t *o = json_object();
	int rc = 0;

	rc |= set(o, "op", json_string(lagom_coll_name(c->coll)));
	rc |= set(o, "bytes", json_integer((json_int_t)c->bytes));
	rc |= set(o, "ranks", json_integer(c->comm.ranks));
	if (c->comm.nodes > 1) {
		rc |= set(o, "nodes", json_integer(c->comm.nodes));
		rc |= set(o, "hops",
			  json_string(lagom_hops_name(c->comm.hops)));
	}
	if (c->after_kernel)
		rc |= set(o, "after_kernel", json_integer(c->after_kernel));
	rc |= set(o, "comm", json_string(ci->comm));
	if (ci->total_bytes)
		rc |= set(o, "total_bytes",
			  json_integer((json_int_t)ci->total_bytes));
	/* What the trace's NCCL kernel showed, only where a workload file
	 * may carry it (1..1024, doc/workload-format.md): a kernel record
	 * with a bigger grid or block is not one CUDA could launch. */
	if (ci->channels >= 1 && ci->channels <= 1024)
		rc |= set(o, "trace_channels", json_integer(ci->channels));
	if (ci->threads >= 1 && ci->threads <= 1024)
		rc |= set(o, "trace_threads", json_integer(ci->threads));
	rc |= set(o, "trace_time_s", json_real(ci->time_s));
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *region_json(const struct lagom_trace_import *imp, size_t r)
{
	const struct lagom_region *reg = &imp->workload->regions[r];
	json_t *o = json_object(), *ks = json_array(), *cs = json_array();
	int rc = 0;

	rc |= set(o, "name", json_string(reg->name));
	for (size_t k = 0; k < reg->nkernels; k++)
		rc |= json_array_append_new(
			ks,
			kernel_json(
				&reg->kernels[k],
				&imp->kinfo[r * LAGOM_REGION_MAX_KERNELS + k]));
	for (size_t j = 0; j < reg->ncolls; j++)
		rc |= json_array_append_new(
			cs,
			coll_json(&reg->colls[j],
				  &imp->cinfo[r * LAGOM_REGION_MAX_COLLS + j]));
	if (reg->nkernels)
		rc |= set(o, "kernels", ks);
	else
		json_decref(ks);
	rc |= set(o, "collectives", cs);
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *lagom_trace_workload_json(const struct lagom_trace_import *imp)
{
	json_t *doc = json_object(), *regions = json_array();
	int rc = 0;

	rc |= set(doc, "lagom_workload", json_integer(2));
	rc |= set(doc, "name", json_string(imp->workload->name));
	rc |= set(doc, "serial_s", json_real(imp->workload->serial_s));
	rc |= set(doc, "source", source_json(imp));
	for (size_t r = 0; r < imp->workload->nregions; r++)
		rc |= json_array_append_new(regions, region_json(imp, r));
	rc |= set(doc, "regions", regions);
	if (rc) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

static json_t *row_json(const struct lagom_trace_contention *r)
{
	char id[17];

	snprintf(id, sizeof(id), "%016llx", (unsigned long long)r->kernel_hash);
	return json_pack(
		"{s:s, s:s, s:i, s:i, s:i, s:f, s:s, s:i, s:i, s:s, s:I, s:I, "
		"s:f, s:i, s:i, s:f, s:f, s:f, s:b}",
		"kernel", r->kernel, "kernel_id", id, "grid_blocks",
		(json_int_t)r->grid_blocks, "block_threads",
		(json_int_t)r->block_threads, "blocks_per_sm",
		(json_int_t)r->blocks_per_sm, "mem_bound", r->mem_bound,
		"nccl_op", lagom_coll_name(r->nccl_op), "nccl_channels",
		(json_int_t)r->nccl_channels, "nccl_threads",
		(json_int_t)r->nccl_threads, "nccl_proto",
		lagom_trace_proto_name(r->nccl_proto), "nccl_size_log2",
		(json_int_t)r->nccl_size_log2, "nccl_bytes",
		(json_int_t)r->nccl_bytes, "nccl_Bps", r->nccl_Bps, "alone_n",
		(json_int_t)r->alone_n, "beside_n", (json_int_t)r->beside_n,
		"alone_us", r->alone_us, "beside_us", r->beside_us, "slowdown",
		r->slowdown, "plausible", r->plausible);
}

json_t *lagom_trace_contention_json(const struct lagom_trace_import *imp)
{
	json_t *rows = json_array();
	json_t *doc;

	for (size_t i = 0; rows && i < imp->nrows; i++)
		if (json_array_append_new(rows, row_json(&imp->rows[i]))) {
			json_decref(rows);
			return NULL;
		}
	doc = json_pack("{s:i, s:s, s:i, s:s, s:i, s:o}", "lagom_contention",
			(json_int_t)LAGOM_CONTENTION_SCHEMA, "gpu", imp->gpu,
			"sms", (json_int_t)imp->sms, "nccl_version",
			imp->nccl_version, "min_samples",
			(json_int_t)LAGOM_TRACE_MIN_SAMPLES, "rows", rows);
	return doc;
}
