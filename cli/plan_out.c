/*
 * cli/plan_out.c - `lagom plan` output: JSON (doc/cli-json.md) or text.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/plan_int.h"
#include "search/search.h"

static const char *const step_kinds[] = { "min", "max", "greedy", "refine" };

static json_t *coll_json(const struct lagom_plan_coll *c)
{
	/* No upper bound (UINT64_MAX in the plan text) is null. */
	json_t *max = c->max_bytes > INT64_MAX
			      ? json_null()
			      : json_integer((json_int_t)c->max_bytes);

	return json_pack("{s:s, s:I, s:o, s:I, s:i, s:i, s:i, s:s, s:s, s:i, "
			 "s:i, s:I, s:f, s:f}",
			 "op", lagom_coll_name(c->coll), "min_bytes",
			 (json_int_t)c->min_bytes, "max_bytes", max, "bytes",
			 (json_int_t)c->bytes, "calls", (int)c->calls, "ranks",
			 (int)c->comm.ranks, "nodes", (int)c->comm.nodes,
			 "algo", lagom_algo_name(c->config.algo), "proto",
			 lagom_proto_name(c->config.proto), "channels",
			 (int)c->config.nchannels, "threads",
			 (int)c->config.nthreads, "chunk_bytes",
			 (json_int_t)c->config.chunk_bytes, "time_us",
			 c->time_s * 1e6, "nccl_time_us", c->nccl_time_s * 1e6);
}

static json_t *search_json(const struct lagom_plan *p)
{
	json_t *steps = json_array();
	size_t i;

	for (i = 0; i < p->nmoves; i++) {
		const struct lagom_search_move *s = &p->moves[i];
		const char *op = s->coll < p->ncolls
					 ? lagom_coll_name(
						   p->colls[s->coll].coll)
					 : NULL;

		json_array_append_new(
			steps,
			json_pack("{s:s, s:i, s:s?, s:i, s:i, s:f, s:f, s:f, "
				  "s:f}",
				  "kind",
				  (unsigned)s->kind < 4 ? step_kinds[s->kind]
							: "?",
				  "class", (int)s->coll, "op", op, "from_nc",
				  (int)s->from_nchannels, "to_nc",
				  (int)s->to_nchannels, "h", s->h, "x_us",
				  s->x_s * 1e6, "y_us", s->y_s * 1e6, "z_us",
				  s->z_s * 1e6));
	}
	return json_pack("{s:I, s:I, s:i, s:o}", "evals", (json_int_t)p->evals,
			 "candidates", (json_int_t)p->cand_total, "steps_total",
			 (int)p->moves_total, "steps", steps);
}

static json_t *predicted_json(const struct lagom_planner_result *r)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f}", "iteration_ms",
			 r->predicted_time_s * 1e3, "nccl_default_ms",
			 r->nccl_default_time_s * 1e3, "comm_only_ms",
			 r->comm_only_time_s * 1e3, "speedup_vs_nccl",
			 r->predicted_speedup, "speedup_vs_comm_only",
			 r->predicted_time_s > 0
				 ? r->comm_only_time_s / r->predicted_time_s
				 : 1.0);
}

static json_t *hw_json(const struct lagom_hw *hw)
{
	/* nvl_domain_nodes: the nodes of one NVLink domain as priced (the
	 * profile's, or fewer when topology/block shows the step's nodes
	 * spread over its blocks); 0 or 1: none. */
	return json_pack("{s:s, s:i, s:i, s:s, s:i, s:f, s:f, s:f, s:i}", "gpu",
			 hw->gpu.name, "sm_count", (int)hw->gpu.sm_count,
			 "gpus_per_node", (int)hw->gpus_per_node, "intra",
			 lagom_intra_name(hw->intra), "nic_count",
			 (int)hw->nic_count, "nic_Gbps", hw->nic_Bps * 8 / 1e9,
			 "bf16_tflops", hw->gpu.tflops[LAGOM_PREC_BF16],
			 "hbm_GBps", hw->gpu.hbm_Bps / 1e9, "nvl_domain_nodes",
			 (int)hw->nvl_domain_nodes);
}

static json_t *env_json(const struct lagom_planner_result *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->env_count; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "name",
						   r->env[i].name, "value",
						   r->env[i].value));
	return a;
}

bool cli_plan_times_finite(const struct lagom_planner_result *r)
{
	const struct lagom_plan *p = r->plan;
	bool ok = isfinite(r->predicted_time_s) &&
		  isfinite(r->nccl_default_time_s) &&
		  isfinite(r->comm_only_time_s) &&
		  isfinite(r->predicted_speedup) && r->predicted_time_s >= 0;

	for (size_t i = 0; ok && i < p->ncolls; i++)
		ok = isfinite(p->colls[i].time_s) &&
		     isfinite(p->colls[i].nccl_time_s);
	for (size_t i = 0; ok && i < p->nmoves; i++)
		ok = isfinite(p->moves[i].h) && isfinite(p->moves[i].x_s) &&
		     isfinite(p->moves[i].y_s) && isfinite(p->moves[i].z_s);
	return ok;
}

int cli_plan_json(const struct lagom_planner_result *r,
		  const struct lagom_planner_input *in)
{
	const struct lagom_plan *p = r->plan;
	json_t *doc = cli_json_doc("plan"), *colls = json_array();
	size_t i;

	for (i = 0; i < p->ncolls; i++)
		json_array_append_new(colls, coll_json(&p->colls[i]));
	json_object_set_new(doc, "plan_id", json_string(r->plan_id));
	json_object_set_new(doc, "plan_text", json_string(r->plan_text));
	json_object_set_new(doc, "workload", json_string(r->workload_name));
	json_object_set_new(doc, "fell_back", json_boolean(r->fell_back));
	json_object_set_new(doc, "fallback_reason",
			    r->fallback_reason ? json_string(r->fallback_reason)
					       : json_null());
	json_object_set_new(
		doc, "step",
		json_pack("{s:i, s:i, s:i, s:I}", "nodes", (int)r->nodes,
			  "gpus_per_node", (int)r->gpus_per_node, "ranks",
			  (int)p->ranks, "job_id", (json_int_t)in->job_id));
	json_object_set_new(doc, "hardware", hw_json(r->hw));
	json_object_set_new(doc, "env", env_json(r));
	json_object_set_new(doc, "predicted", predicted_json(r));
	json_object_set_new(doc, "global",
			    json_pack("{s:i, s:i, s:i, s:I, s:i}", "min_ctas",
				      (int)p->env.min_ctas, "max_ctas",
				      (int)p->env.max_ctas, "env_max_ctas",
				      (int)p->env.env_max_ctas,
				      "buffsize_bytes",
				      (json_int_t)p->env.buffsize_bytes,
				      "nthreads", (int)p->env.nthreads));
	json_object_set_new(doc, "collectives", colls);
	json_object_set_new(doc, "search", search_json(p));
	json_object_set_new(doc, "summary", json_string(r->summary));
	json_object_set_new(doc, "explanation", json_string(r->explanation));
	return cli_json_print(doc);
}

int cli_plan_text(const struct lagom_planner_result *r)
{
	printf("%s", r->explanation);
	printf("summary: %s\n", r->summary);
	printf("LAGOM_PLAN: %s\n", r->plan_text);
	if (fflush(stdout) != 0)
		return cli_fail(CLI_FAIL, "cannot write to standard output");
	return CLI_OK;
}
