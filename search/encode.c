/*
 * search/encode.c - a search plan as the LAGOM_PLAN text and the
 * environment derived from it: the process-wide values are decided here
 * (lagom_plan_globals()); the text, its rules and its id are plan/'s
 * (plan/plan.h, doc/plan-format.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "search/search_int.h"

/* The wire op (ncclFunc_t) of a collective, by its name; -1 if none. */
static int wire_op(enum lagom_coll coll)
{
	const char *name = lagom_coll_name(coll);

	return name ? lagom_plan_op_parse(name, strlen(name)) : -1;
}

static int check_plan(const struct lagom_plan *plan, struct lagom_error *err)
{
	if (!plan)
		return lagom_errprintf(err, EINVAL, "no plan");
	if (plan->ncolls > LAGOM_PLAN_MAX_COLLS)
		return lagom_errprintf(err, EINVAL, "%zu records, at most %d",
				       plan->ncolls, LAGOM_PLAN_MAX_COLLS);
	for (size_t j = 0; j < plan->ncolls; j++)
		if (wire_op(plan->colls[j].coll) < 0 ||
		    plan->colls[j].config.nchannels > LAGOM_NCHANNELS_MAX)
			return lagom_errprintf(err, EINVAL,
					       "record %zu is invalid", j);
	return 0;
}

static bool plan_tuned(const struct lagom_plan *plan)
{
	for (size_t j = 0; j < plan->ncolls; j++)
		if (!plan->colls[j].keep)
			return true;
	return false;
}

/* One algorithm and one protocol over every tuned class, or -1. */
static void common_impl(const struct lagom_plan *plan, int *algo, int *proto)
{
	*algo = *proto = -1;
	for (size_t j = 0; j < plan->ncolls; j++) {
		const struct lagom_coll_config *c = &plan->colls[j].config;

		if (plan->colls[j].keep) {
			*algo = *proto = -2;
			return;
		}
		*algo = *algo == -1 || *algo == (int)c->algo ? (int)c->algo
							     : -2;
		*proto = *proto == -1 || *proto == (int)c->proto ? (int)c->proto
								 : -2;
	}
}

/* The one place that decides the process-wide values (see search.h);
 * plan/ checks them against the format when they are encoded. */
int lagom_plan_globals(const struct lagom_plan *plan,
		       const struct lagom_plan_env_opts *opts,
		       struct lagom_plan_wire_env *out, struct lagom_error *err)
{
	struct lagom_plan_wire_env g = { .algo = LAGOM_PLAN_ANY,
					 .proto = LAGOM_PLAN_ANY };
	unsigned flags = opts ? opts->flags : 0;
	int rc = check_plan(plan, err), algo, proto;

	if (rc < 0)
		return rc;
	if (!out)
		return lagom_errprintf(err, EINVAL, "no output");
	g.tuner = opts && opts->tuner_path && plan_tuned(plan);
	if (g.tuner) {
		if (plan->env.max_ctas) {
			g.min_ctas = plan->env.min_ctas;
			g.max_ctas = plan->env.max_ctas;
		}
		g.buffsize_bytes = plan->env.buffsize_bytes;
		g.nthreads = plan->env.nthreads;
		common_impl(plan, &algo, &proto);
		if ((flags & LAGOM_ENV_PIN_IMPL) && algo >= 0)
			g.algo = algo;
		if ((flags & LAGOM_ENV_PIN_IMPL) && proto >= 0)
			g.proto = proto;
	} else {
		if (plan->env.env_max_ctas) {
			g.min_ctas = 1;
			g.max_ctas = plan->env.env_max_ctas;
		}
		g.buffsize_bytes = plan->env.env_buffsize_bytes;
		g.cta_policy = plan->env.env_cta_policy;
	}
	*out = g;
	return 0;
}

/* The plan as its text holds it (*w is new; free() it). */
static int to_wire(const struct lagom_plan *plan,
		   const struct lagom_plan_env_opts *opts, unsigned long job_id,
		   struct lagom_plan_wire **out, struct lagom_error *err)
{
	struct lagom_plan_wire *w;
	struct lagom_plan_wire_env g;
	int rc = lagom_plan_globals(plan, opts, &g, err);

	if (rc < 0)
		return rc;
	if (!(w = calloc(1, sizeof(*w))))
		return lagom_errprintf(err, ENOMEM, "out of memory");
	memcpy(w->lagom_version, PACKAGE_VERSION, sizeof(PACKAGE_VERSION));
	w->job_id = job_id;
	w->ranks = plan->ranks;
	w->nodes = plan->nodes;
	w->env = g;
	w->ncolls = plan->ncolls;
	for (size_t j = 0; j < plan->ncolls; j++) {
		const struct lagom_plan_coll *c = &plan->colls[j];
		const char *algo = lagom_algo_name(c->config.algo);
		const char *proto = lagom_proto_name(c->config.proto);
		bool any = c->keep || !algo || !proto;

		w->colls[j] = (struct lagom_plan_wire_coll){
			.op = wire_op(c->coll),
			.min_bytes = c->min_bytes,
			.max_bytes = c->max_bytes,
			.ranks = c->comm.ranks,
			.nodes = c->comm.nodes,
			.algo = any ? LAGOM_PLAN_ANY : (int)c->config.algo,
			.proto = any ? LAGOM_PLAN_ANY : (int)c->config.proto,
			.nchannels = any ? 0 : c->config.nchannels,
			.chunk_bytes = any ? 0 : c->config.chunk_bytes,
		};
	}
	*out = w;
	return 0;
}

int search_check_encodable(const struct lagom_plan *plan,
			   struct lagom_error *err)
{
	const struct lagom_plan_env_opts tuner = { .tuner_path = "",
						   .plan_text = "" };
	uint64_t id = 0;
	int rc = lagom_plan_id(plan, NULL, &id, err);

	return rc < 0 ? rc : lagom_plan_id(plan, &tuner, &id, err);
}

int lagom_plan_id(const struct lagom_plan *plan,
		  const struct lagom_plan_env_opts *opts, uint64_t *id,
		  struct lagom_error *err)
{
	struct lagom_plan_wire *w = NULL;
	int rc = to_wire(plan, opts, 0, &w, err);

	if (rc == 0)
		rc = lagom_plan_wire_id(w, id, err);
	free(w);
	return rc;
}

int lagom_plan_encode(const struct lagom_plan *plan,
		      const struct lagom_plan_env_opts *opts,
		      unsigned long job_id, char *buf, size_t len,
		      struct lagom_error *err)
{
	struct lagom_plan_wire *w = NULL;
	int rc;

	if (!buf || len == 0)
		return lagom_errprintf(err, EINVAL, "no buffer");
	buf[0] = '\0';
	if ((rc = to_wire(plan, opts, job_id, &w, err)) == 0)
		rc = lagom_plan_wire_encode(w, buf, len, NULL, err);
	free(w);
	return rc;
}

const char *lagom_env_var_value(const struct lagom_env_var *v)
{
	return v->borrowed ? v->borrowed : v->buf;
}

struct envlist {
	struct lagom_env_var *vars;
	size_t max, n;
	int overflow;
};

static struct lagom_env_var *env_add(struct envlist *l, const char *name)
{
	struct lagom_env_var *v;

	if (l->n >= l->max) {
		l->overflow = 1;
		return NULL;
	}
	v = &l->vars[l->n++];
	memset(v, 0, sizeof(*v));
	memcpy(v->name, name, strlen(name) + 1);
	return v;
}

static void env_u(struct envlist *l, const char *name, uint64_t value)
{
	struct lagom_env_var *v = env_add(l, name);

	if (v)
		lagom_plan_format_u64(value, v->buf);
}

static void env_s(struct envlist *l, const char *name, const char *value)
{
	struct lagom_env_var *v = env_add(l, name);

	if (v)
		v->borrowed = value;
}

/* "1.21": the speedup to two decimals, without the printf family. */
static void env_speedup(struct envlist *l, double speedup)
{
	struct lagom_env_var *v = env_add(l, "LAGOM_PREDICTED_SPEEDUP");
	char frac[LAGOM_PLAN_U64_MAX_CHARS];
	uint64_t hundredths;

	if (!v)
		return;
	if (!(speedup > 0) || speedup > 1e6)
		speedup = 1;
	hundredths = (uint64_t)(speedup * 100 + 0.5);
	lagom_plan_format_u64(hundredths / 100, v->buf);
	strcat(v->buf, hundredths % 100 < 10 ? ".0" : ".");
	strcat(v->buf, lagom_plan_format_u64(hundredths % 100, frac));
}

/* NCCL_* of g (lagom_plan_globals()) and, with the tuner, its two. */
static void env_globals(struct envlist *l, const struct lagom_plan_wire_env *g,
			const struct lagom_plan_env_opts *opts)
{
	if (g->max_ctas) {
		env_u(l, "NCCL_MIN_CTAS", g->min_ctas);
		env_u(l, "NCCL_MAX_CTAS", g->max_ctas);
	}
	if (g->buffsize_bytes)
		env_u(l, "NCCL_BUFFSIZE", g->buffsize_bytes);
	if (g->nthreads)
		env_u(l, "NCCL_NTHREADS", g->nthreads);
	if (g->algo != LAGOM_PLAN_ANY)
		env_s(l, "NCCL_ALGO", lagom_nccl_algo_names[g->algo]);
	if (g->proto != LAGOM_PLAN_ANY)
		env_s(l, "NCCL_PROTO", lagom_nccl_proto_names[g->proto]);
	if (g->cta_policy) /* 2.28 reads integers only */
		env_u(l, "NCCL_CTA_POLICY", g->cta_policy);
	if (g->tuner) {
		env_s(l, "NCCL_TUNER_PLUGIN", opts->tuner_path);
		env_s(l, "LAGOM_PLAN", opts->plan_text);
	}
}

int lagom_plan_env(const struct lagom_plan *plan,
		   const struct lagom_plan_env_opts *opts,
		   struct lagom_env_var *vars, size_t max, size_t *count,
		   struct lagom_error *err)
{
	static const struct lagom_plan_env_opts none = { 0 };
	struct envlist l = { .vars = vars, .max = max };
	struct lagom_plan_wire_env g;
	uint64_t id = 0;
	double speedup;
	int rc;

	if (!opts)
		opts = &none;
	if ((rc = lagom_plan_globals(plan, opts, &g, err)) < 0)
		return rc;
	if (!vars || !count)
		return lagom_errprintf(err, EINVAL, "no output array");
	if (opts->tuner_path && !opts->plan_text)
		return lagom_errprintf(err, EINVAL, "tuner without plan text");
	if ((rc = lagom_plan_id(plan, opts, &id, err)) < 0)
		return rc;
	env_globals(&l, &g, opts);
	if (g.tuner)
		speedup = plan->speedup_nccl;
	else
		speedup = plan->lagom_env_only_s > 0
				  ? plan->nccl_s / plan->lagom_env_only_s
				  : 1;
	env_s(&l, "TORCH_NCCL_HIGH_PRIORITY", "1");
	if (plan->tensor_parallel || (opts->flags & LAGOM_ENV_TP_OVERLAP))
		env_s(&l, "CUDA_DEVICE_MAX_CONNECTIONS", "1");
	if (env_add(&l, "LAGOM_PLAN_ID"))
		lagom_plan_format_id(id, l.vars[l.n - 1].buf);
	env_speedup(&l, speedup);
	if (l.overflow)
		return lagom_errprintf(err, ENOSPC, "more than %zu variables",
				       max);
	*count = l.n;
	return 0;
}
