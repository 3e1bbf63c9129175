/*
 * planner/report.c - what the planner hands back besides the plan: the
 * LAGOM_PLAN text, the environment, the job-comment summary and the
 * explanation shown by --lagom=explain and `lagom plan`.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/comment_text.h"
#include "planner/report_int.h"
#include "search/search.h"

static int add_env(struct lagom_planner_result *res, const char *name,
		   const char *value)
{
	struct lagom_env_var *e;

	e = realloc(res->env, (res->env_count + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	res->env = e;
	e = &res->env[res->env_count];
	e->name = strdup(name);
	e->value = strdup(value);
	if (!e->name || !e->value) {
		free(e->name);
		free(e->value);
		return -ENOMEM;
	}
	res->env_count++;
	return 0;
}

/* How the plan is applied: the same opts go to lagom_search_wire() and
 * lagom_search_env(), so the text's env record and id match the
 * environment. */
static struct lagom_apply_opts apply_opts(const struct lagom_planner_input *in,
					  const struct lagom_plan *plan,
					  const char *plan_text)
{
	struct lagom_apply_opts opts = {
		.tuner_path = in->tuner_path,
		.plan_text = plan_text,
		/*
		 * No LAGOM_ENV_PIN_IMPL: the tuner applies algorithm and
		 * protocol per call, and a process-wide NCCL_ALGO would also
		 * bind communicators the plan knows nothing of.
		 */
		.flags = plan->tensor_parallel ? LAGOM_ENV_TP_OVERLAP : 0,
	};

	return opts;
}

/* LAGOM_PLAN text, trimmed to its length, and its id: the plan's wire form
 * is built once (search/), plan/ writes the text and returns the id, which
 * is formatted once (doc/plan-format.md).  *wire (wire NULL: freed) gets
 * the wire form, for the environment. */
static int encode_plan(const struct lagom_planner_input *in,
		       const struct lagom_plan *plan,
		       struct lagom_planner_result *res,
		       struct lagom_plan_wire **wire, struct lagom_error *err)
{
	struct lagom_apply_opts opts = apply_opts(in, plan, NULL);
	char *buf = malloc(LAGOM_PLAN_TEXT_MAX + 1), *small;
	struct lagom_plan_wire *w = NULL;
	uint64_t id;
	int rc;

	if (!buf)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	buf[0] = '\0';
	rc = lagom_search_wire(plan, &opts, (uint64_t)in->job_id, &w, err);
	if (rc == 0)
		rc = lagom_plan_wire_encode(w, buf, LAGOM_PLAN_TEXT_MAX + 1,
					    &id, err);
	if (rc) {
		free(w);
		free(buf);
		return rc;
	}
	lagom_plan_format_id(id, res->plan_id);
	small = realloc(buf, strlen(buf) + 1);
	res->plan_text = small ? small : buf;
	if (wire)
		*wire = w;
	else
		free(w);
	return 0;
}

/* The variables of the plan applied as w says (its env record). */
static int plan_environment(const struct lagom_planner_input *in,
			    const struct lagom_plan_wire *w,
			    struct lagom_planner_result *res,
			    struct lagom_error *err)
{
	struct lagom_apply_opts opts = apply_opts(in, res->plan,
						  res->plan_text);

	return lagom_search_env(res->plan, &w->env, &opts, res->plan_id,
				&res->env, &res->env_count, err);
}

static void plan_times(const struct lagom_planner_input *in,
		       struct lagom_planner_result *res)
{
	const struct lagom_plan *p = res->plan;

	res->predicted_time_s = in->tuner_path ? p->lagom_s
					       : p->lagom_env_only_s;
	res->nccl_default_time_s = p->nccl_s;
	res->comm_only_time_s = p->comm_only_s;
	res->predicted_speedup = res->predicted_time_s > 0
					 ? p->nccl_s / res->predicted_time_s
					 : 1.0;
}

/* "2-8" over the coll records, or the environment's cap. */
static void channel_range(const struct lagom_plan *p, char *buf, size_t len)
{
	unsigned lo = 0, hi = 0;
	size_t i;

	for (i = 0; i < p->ncolls; i++) {
		unsigned nc = p->colls[i].config.nchannels;

		if (!lo || nc < lo)
			lo = nc;
		if (nc > hi)
			hi = nc;
	}
	if (!p->ncolls && p->env.env_max_ctas)
		snprintf(buf, len, "<=%u", p->env.env_max_ctas);
	else if (!p->ncolls)
		snprintf(buf, len, "default");
	else if (lo == hi)
		snprintf(buf, len, "%u", lo);
	else
		snprintf(buf, len, "%u-%u", lo, hi);
}

/* Distinct algorithm names of the coll records, "ring,tree". */
static void algo_list(const struct lagom_plan *p, char *buf, size_t len)
{
	bool seen[LAGOM_ALGO_COUNT] = { 0 };
	size_t i, used = 0;
	int a;

	for (i = 0; i < p->ncolls; i++)
		if ((unsigned)p->colls[i].config.algo < LAGOM_ALGO_COUNT)
			seen[p->colls[i].config.algo] = true;
	buf[0] = '\0';
	for (a = 0; a < LAGOM_ALGO_COUNT && used < len; a++)
		if (seen[a])
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? "," : "", lagom_algo_name(a));
	if (!buf[0])
		snprintf(buf, len, "default");
}

/* The workload name as one word (the job comment is key=value words). */
static void one_word(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++)
		out[i] = (in[i] == ' ' || in[i] == '\t' || in[i] == '\n')
				 ? '_'
				 : in[i];
	out[i] = '\0';
}

/*
 * The speedup as LAGOM_PREDICTED_SPEEDUP says it: the job comment and the
 * task's environment agree, and no printf float (LC_NUMERIC of the host
 * process: slurmstepd or a co-loaded plugin may set "1,13") is involved.
 */
static const char *summary_speedup(const struct lagom_planner_result *res)
{
	size_t i;

	for (i = 0; i < res->env_count; i++)
		if (strcmp(res->env[i].name, "LAGOM_PREDICTED_SPEEDUP") == 0)
			return res->env[i].value;
	return "1.00";
}

/* A size in one word, integers only: 4MiB, 512KiB, 1000B. */
static void size_word(uint64_t b, char *buf, size_t len)
{
	if (b >= (1u << 20) && b % (1u << 20) == 0)
		snprintf(buf, len, "%lluMiB", (unsigned long long)(b >> 20));
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(buf, len, "%lluKiB", (unsigned long long)(b >> 10));
	else
		snprintf(buf, len, "%lluB", (unsigned long long)b);
}

#define SUMMARY_CORRECTIONS 4 /* listed in the summary; the rest counted */

/*
 * "allreduce@1MiB:x1.83,allgather@48MiB:x0.60" (factors in hundredths, no
 * printf float), with ",+N" for the corrections not listed.
 */
static void corrected_list(const struct lagom_planner_result *res, char *buf,
			   size_t len)
{
	size_t used = 0, i;

	buf[0] = '\0';
	for (i = 0;
	     i < res->ncorrections && i < SUMMARY_CORRECTIONS && used < len;
	     i++) {
		const struct lagom_planner_correction *c = &res->corrections[i];
		unsigned h = (unsigned)(c->factor * 100 + 0.5);
		char size[32];

		size_word(c->bytes, size, sizeof(size));
		used += (size_t)snprintf(buf + used, len - used,
					 "%s%s@%s:x%u.%02u", i ? "," : "",
					 lagom_coll_name(c->coll), size,
					 h / 100, h % 100);
	}
	if (used < len && res->ncorrections > SUMMARY_CORRECTIONS)
		snprintf(buf + used, len - used, ",+%zu",
			 res->ncorrections - SUMMARY_CORRECTIONS);
}

/* The job comment's text (planner/comment_text.h), from the plan's fields. */
static int make_summary(struct lagom_planner_result *res)
{
	const struct lagom_plan *p = res->plan;
	char nc[32], algos[96], chunk[32] = "default", wl[LAGOM_NAME_MAX];
	char speedup[32], corrected[LAGOM_COMMENT_VALUE_MAX];
	struct lagom_comment_text c = {
		.value = {
			[LAGOM_COMMENT_WORKLOAD] = wl,
			[LAGOM_COMMENT_CHANNELS] = nc,
			[LAGOM_COMMENT_CHUNK] = chunk,
			[LAGOM_COMMENT_ALGO] = algos,
			[LAGOM_COMMENT_SPEEDUP] = speedup,
		},
	};
	size_t n;

	channel_range(p, nc, sizeof(nc));
	algo_list(p, algos, sizeof(algos));
	one_word(res->workload_name, wl, sizeof(wl));
	if (p->env.buffsize_bytes)
		snprintf(chunk, sizeof(chunk), "%lluKiB",
			 (unsigned long long)(p->env.buffsize_bytes / 2048));
	snprintf(speedup, sizeof(speedup), "%sx", summary_speedup(res));
	if (res->ncorrections) {
		corrected_list(res, corrected, sizeof(corrected));
		c.value[LAGOM_COMMENT_CORRECTED] = corrected;
		c.value[LAGOM_COMMENT_FROM] = res->corrected_from;
	}
	if (res->fell_back)
		c.value[LAGOM_COMMENT_FALLBACK] = res->fallback_reason;
	if (res->calibrated[0])
		c.value[LAGOM_COMMENT_CALIBRATED] = res->calibrated;
	n = lagom_comment_text_write(&c, res->plan_id, NULL, 0);
	if (!(res->summary = malloc(n + 1)))
		return -ENOMEM;
	lagom_comment_text_write(&c, res->plan_id, res->summary, n + 1);
	return 0;
}

int planner_finish(const struct lagom_planner_input *in,
		   const struct lagom_hw *hw, struct lagom_planner_result *res,
		   struct lagom_error *err)
{
	struct lagom_plan_wire *w = NULL;
	int rc;

	res->workload_name = strdup(res->plan->no_workload
					    ? "catalog-worst-case"
					    : res->plan->workload);
	if (!res->workload_name)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	if ((rc = encode_plan(in, res->plan, res, &w, err)) == 0)
		rc = plan_environment(in, w, res, err);
	free(w);
	if (rc)
		return rc;
	plan_times(in, res);
	if (make_summary(res) ||
	    planner_explain(in, hw, res, &res->explanation))
		return lagom_errprintf(err, ENOMEM, "out of memory");
	return 0;
}

int planner_fallback(const struct lagom_planner_input *in,
		     struct lagom_planner_result *res, const char *reason,
		     struct lagom_error *err)
{
	char speedup[] = "1.00";
	int rc;

	res->plan = calloc(1, sizeof(*res->plan));
	res->fell_back = true;
	res->fallback_reason = strdup(reason);
	res->workload_name = strdup(in->workload_name ? in->workload_name
				    : in->workload    ? "(file)"
						      : "catalog-worst-case");
	if (!res->plan || !res->fallback_reason || !res->workload_name)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	res->plan->ranks = res->nodes * res->gpus_per_node;
	res->plan->nodes = res->nodes;
	res->plan->no_workload = true;
	res->predicted_speedup = 1.0;
	if ((rc = encode_plan(in, res->plan, res, NULL, err)))
		return rc;
	if (add_env(res, "LAGOM_PLAN_ID", res->plan_id) ||
	    add_env(res, "LAGOM_PREDICTED_SPEEDUP", speedup) ||
	    make_summary(res))
		return lagom_errprintf(err, ENOMEM, "out of memory");
	if (asprintf(&res->explanation,
		     "lagom %s: safe default (%s): NCCL is left alone.\n",
		     PACKAGE_VERSION, reason) < 0) {
		res->explanation = NULL;
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	return 0;
}
