/*
 * planner/explain.c - the human explanation of a plan (--lagom=explain,
 * `lagom plan`): the step, the hardware planned for, predicted iteration
 * times against NCCL's defaults and the communication-only tuner, the
 * choice per collective class, the environment and the search trajectory.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "planner/report_int.h"
#include "search/search.h"

static const char *const step_names[] = { "min", "max", "greedy", "refine" };

static void explain_step(FILE *f, const struct lagom_planner_input *in,
			 const struct lagom_hw *hw,
			 const struct lagom_planner_result *res)
{
	const struct lagom_plan *p = res->plan;

	fprintf(f, "lagom %s plan %s (job %llu)\n", PACKAGE_VERSION,
		res->plan_id, (unsigned long long)in->job_id);
	fprintf(f,
		"step: %u node%s x %u GPUs = %u ranks; planned for %s "
		"(%u SMs), %s",
		res->nodes, res->nodes == 1 ? "" : "s", res->gpus_per_node,
		p->ranks, hw->gpu.name, hw->gpu.sm_count,
		lagom_intra_name(hw->intra));
	if (hw->nic_count)
		fprintf(f, ", %u NIC%s x %.0f Gb/s", hw->nic_count,
			hw->nic_count == 1 ? "" : "s", hw->nic_Bps * 8 / 1e9);
	if (hw->nvl_domain_nodes > 1)
		fprintf(f, ", NVLink domains of %u nodes",
			hw->nvl_domain_nodes);
	fprintf(f, "%s\n",
		res->nodes > 1 ? " (weakest of the step's nodes)" : "");
	fprintf(f, "workload: %s%s\n", res->workload_name,
		p->no_workload ? " (no workload given: the setting whose worst "
				 "case over the catalog is best)"
			       : "");
	fprintf(f,
		"predicted iteration: %.3f ms; NCCL defaults %.3f ms "
		"(speedup %.2fx); communication-only tuner %.3f ms "
		"(speedup %.2fx)\n",
		res->predicted_time_s * 1e3, res->nccl_default_time_s * 1e3,
		res->predicted_speedup, res->comm_only_time_s * 1e3,
		res->predicted_time_s > 0
			? res->comm_only_time_s / res->predicted_time_s
			: 1.0);
}

static void explain_colls(FILE *f, const struct lagom_plan *p)
{
	char b1[24], b2[24];
	size_t i;

	if (!p->ncolls)
		return;
	fprintf(f, "per collective class:\n");
	fprintf(f, "  %-14s %10s %6s %-13s %-7s %3s %9s %11s %11s\n", "op",
		"bytes", "calls", "algo", "proto", "nc", "chunk", "time",
		"nccl");
	for (i = 0; i < p->ncolls; i++) {
		const struct lagom_plan_coll *c = &p->colls[i];

		fprintf(f,
			"  %-14s %10s %6u %-13s %-7s %3u %9s %8.1f us "
			"%8.1f us\n",
			lagom_coll_name(c->coll),
			lagom_fmt_bytes(b1, sizeof(b1), c->bytes), c->calls,
			lagom_algo_name(c->config.algo),
			lagom_proto_name(c->config.proto), c->config.nchannels,
			c->config.chunk_bytes
				? lagom_fmt_bytes(b2, sizeof(b2),
						  c->config.chunk_bytes)
				: "(buffsize)",
			c->time_s * 1e6, c->nccl_time_s * 1e6);
	}
}

/* The deviation gates (doc/search.md "Deviate only when it pays"). */
static void explain_deviation(FILE *f, const struct lagom_plan *p)
{
	char b[24];
	size_t i;

	for (i = 0; i < p->ncolls; i++) {
		const struct lagom_plan_coll *c = &p->colls[i];
		const char *op = lagom_coll_name(c->coll);

		lagom_fmt_bytes(b, sizeof(b), c->bytes);
		if (c->floored)
			fprintf(f,
				"  %s %s: channels raised to NCCL's own count "
				"(on the critical path under NCCL's defaults; "
				"a table profile measured no channel curve)\n",
				op, b);
		if (c->held_back)
			fprintf(f,
				"  %s %s: held back to NCCL's choice: "
				"predicted gain %.2f %%, %.2f %% with its time "
				"off by the model's known error\n",
				op, b, c->gain * 100,
				(c->gain - c->gain_needed) * 100);
		else if (!c->keep && c->gain_needed > 0)
			fprintf(f,
				"  %s %s: tuned: predicted gain %.2f %%, still "
				"%.2f %% with its time off by the model's "
				"known error\n",
				op, b, c->gain * 100,
				(c->gain - c->gain_needed) * 100);
	}
}

/* What the measured step corrected (planner/correct.c). */
static void explain_measured(FILE *f, const struct lagom_planner_input *in,
			     const struct lagom_planner_result *res)
{
	char b1[24], b2[24];
	size_t i;

	if (!in->measured)
		return;
	if (!res->ncorrections) {
		fprintf(f,
			"measured step %s: no class of the workload with %d "
			"timed calls in a configuration the model knows; "
			"no correction\n",
			in->measured->from, LAGOM_CORRECTION_MIN_SAMPLES);
		return;
	}
	fprintf(f, "corrected from measured step %s (measured / model):\n",
		res->corrected_from);
	for (i = 0; i < res->ncorrections; i++) {
		const struct lagom_planner_correction *c = &res->corrections[i];

		fprintf(f,
			"  %-14s %10s %u ranks/%u nodes: measured %.1f us "
			"(at %s, %llu calls), model %.1f us: x%.2f%s\n",
			lagom_coll_name(c->coll),
			lagom_fmt_bytes(b1, sizeof(b1), c->bytes), c->ranks,
			c->nodes, c->measured_s * 1e6,
			lagom_fmt_bytes(b2, sizeof(b2), c->measured_bytes),
			(unsigned long long)c->samples, c->model_s * 1e6,
			c->factor, c->clamped ? " (clamped)" : "");
	}
}

static void explain_env(FILE *f, const struct lagom_planner_result *res)
{
	size_t i;

	fprintf(f, "environment:%s\n", res->env_count ? "" : " (none)");
	for (i = 0; i < res->env_count; i++) {
		const struct lagom_env_var *e = &res->env[i];

		if (strcmp(e->name, "LAGOM_PLAN") == 0)
			fprintf(f, "  LAGOM_PLAN=(the plan text, %zu bytes)\n",
				strlen(e->value));
		else
			fprintf(f, "  %s=%s\n", e->name, e->value);
	}
}

/* The gates of the NCCL_CTA_POLICY candidate (doc/search.md). */
static void explain_gates(FILE *f, const struct lagom_planner_result *res)
{
	unsigned v = res->nccl_version;

	if (v)
		fprintf(f, "NCCL: %u.%u.%u", v >= 20900 ? v / 10000 : v / 1000,
			v >= 20900 ? v / 100 % 100 : v / 100 % 10, v % 100);
	else
		fprintf(f, "NCCL: unknown (a profile does not record it)");
	fprintf(f, ", buffers %s: NCCL_CTA_POLICY %s\n",
		res->registered_buffers ? "registered" : "not said registered",
		v >= LAGOM_NCCL_CTA_POLICY_SINCE && res->registered_buffers
			? "is a candidate"
			: "is not a candidate");
}

static void explain_search(FILE *f, const struct lagom_plan *p)
{
	size_t i;

	fprintf(f,
		"search: %lu model evaluations over %lu candidates, %u "
		"steps%s\n",
		p->evals, p->cand_total, p->moves_total,
		p->nmoves < p->moves_total ? " (first ones shown)" : "");
	for (i = 0; i < p->nmoves; i++) {
		const struct lagom_search_move *s = &p->moves[i];
		const char *kind = (unsigned)s->kind < 4 ? step_names[s->kind]
							 : "?";

		fprintf(f, "  %-6s ", kind);
		if (s->kind == LAGOM_MOVE_GREEDY ||
		    s->kind == LAGOM_MOVE_REFINE)
			fprintf(f, "%s nc %u->%u ",
				s->coll < p->ncolls
					? lagom_coll_name(
						  p->colls[s->coll].coll)
					: "class",
				s->from_nchannels, s->to_nchannels);
		if (s->kind == LAGOM_MOVE_GREEDY)
			fprintf(f, "H=%.3g ", s->h);
		fprintf(f, "X=%.3fms Y=%.3fms Z=%.3fms\n", s->x_s * 1e3,
			s->y_s * 1e3, s->z_s * 1e3);
	}
}

int planner_explain(const struct lagom_planner_input *in,
		    const struct lagom_hw *hw,
		    const struct lagom_planner_result *res, char **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -ENOMEM;
	explain_step(f, in, hw, res);
	if (res->calibrated[0])
		fprintf(f, "network constants: %s\n", res->calibrated);
	explain_measured(f, in, res);
	explain_colls(f, res->plan);
	explain_deviation(f, res->plan);
	explain_env(f, res);
	explain_gates(f, res);
	explain_search(f, res->plan);
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}
