/*
 * search/encode.c - a search plan in its wire form and the environment
 * derived from it: the process-wide values are decided here
 * (lagom_search_globals()); the text, its rules and its id are plan/'s
 * (plan/plan.h, doc/plan-format.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "search/search_int.h"

#define VAR(name) lagom_search_var_names[LAGOM_VAR_##name]

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
int lagom_search_globals(const struct lagom_plan *plan,
			 const struct lagom_apply_opts *opts,
			 struct lagom_plan_wire_env *out,
			 struct lagom_error *err)
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

int lagom_search_wire(const struct lagom_plan *plan,
		      const struct lagom_apply_opts *opts, uint64_t job_id,
		      struct lagom_plan_wire **out, struct lagom_error *err)
{
	struct lagom_plan_wire *w;
	struct lagom_plan_wire_env g;
	int rc = lagom_search_globals(plan, opts, &g, err);

	if (rc < 0)
		return rc;
	if (!out)
		return lagom_errprintf(err, EINVAL, "no output");
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

/* One wire form, checked by plan/ with each env record: without the tuner
 * plugin and with it (only whether a tuner is set matters). */
int search_check_encodable(const struct lagom_plan *plan,
			   struct lagom_error *err)
{
	const struct lagom_apply_opts tuner = { .tuner_path = "" };
	struct lagom_plan_wire *w = NULL;
	uint64_t id = 0;
	int rc = lagom_search_wire(plan, NULL, 0, &w, err);

	if (rc == 0)
		rc = lagom_plan_wire_id(w, &id, err);
	if (rc == 0)
		rc = lagom_search_globals(plan, &tuner, &w->env, err);
	if (rc == 0)
		rc = lagom_plan_wire_id(w, &id, err);
	free(w);
	return rc;
}

/* Room for every variable lagom_search_env() can set (13). */
#define ENV_MAX 16

struct envlist {
	struct lagom_env_var *vars;
	size_t n;
	int failed;
};

static void env_add(struct envlist *l, const char *name, const char *value)
{
	struct lagom_env_var *v = &l->vars[l->n];

	if (l->failed)
		return;
	v->name = strdup(name);
	v->value = strdup(value);
	if (!v->name || !v->value) {
		free(v->name);
		free(v->value);
		l->failed = 1;
		return;
	}
	l->n++;
}

static void env_u(struct envlist *l, const char *name, uint64_t value)
{
	char buf[LAGOM_PLAN_U64_MAX_CHARS];

	env_add(l, name, lagom_plan_format_u64(value, buf));
}

/* "1.21": the speedup to two decimals, without the printf family. */
static void env_speedup(struct envlist *l, double speedup)
{
	char buf[2 * LAGOM_PLAN_U64_MAX_CHARS], frac[LAGOM_PLAN_U64_MAX_CHARS];
	uint64_t hundredths;

	if (!(speedup > 0) || speedup > 1e6)
		speedup = 1;
	hundredths = (uint64_t)(speedup * 100 + 0.5);
	lagom_plan_format_u64(hundredths / 100, buf);
	strcat(buf, hundredths % 100 < 10 ? ".0" : ".");
	strcat(buf, lagom_plan_format_u64(hundredths % 100, frac));
	env_add(l, VAR(LAGOM_PREDICTED_SPEEDUP), buf);
}

/* NCCL_* of g (lagom_search_globals()) and, with the tuner, its two. */
static void env_globals(struct envlist *l, const struct lagom_plan_wire_env *g,
			const struct lagom_apply_opts *opts)
{
	if (g->max_ctas) {
		env_u(l, VAR(NCCL_MIN_CTAS), g->min_ctas);
		env_u(l, VAR(NCCL_MAX_CTAS), g->max_ctas);
	}
	if (g->buffsize_bytes)
		env_u(l, VAR(NCCL_BUFFSIZE), g->buffsize_bytes);
	if (g->nthreads)
		env_u(l, VAR(NCCL_NTHREADS), g->nthreads);
	if (g->algo != LAGOM_PLAN_ANY)
		env_add(l, VAR(NCCL_ALGO), lagom_nccl_algo_names[g->algo]);
	if (g->proto != LAGOM_PLAN_ANY)
		env_add(l, VAR(NCCL_PROTO), lagom_nccl_proto_names[g->proto]);
	if (g->cta_policy) /* 2.28 reads integers only */
		env_u(l, VAR(NCCL_CTA_POLICY), g->cta_policy);
	if (g->tuner) {
		env_add(l, VAR(NCCL_TUNER_PLUGIN), opts->tuner_path);
		env_add(l, VAR(LAGOM_PLAN), opts->plan_text);
	}
}

/* g indexes the name tables: only values plan/ would write. */
static bool globals_ok(const struct lagom_plan_wire_env *g)
{
	return (g->algo == LAGOM_PLAN_ANY ||
		(g->algo >= 0 && g->algo < LAGOM_NCCL_NUM_ALGOS)) &&
	       (g->proto == LAGOM_PLAN_ANY ||
		(g->proto >= 0 && g->proto < LAGOM_NCCL_NUM_PROTOS));
}

int lagom_search_env(const struct lagom_plan *plan,
		     const struct lagom_plan_wire_env *g,
		     const struct lagom_apply_opts *opts, const char *plan_id,
		     struct lagom_env_var **vars, size_t *count,
		     struct lagom_error *err)
{
	static const struct lagom_apply_opts none = { 0 };
	struct envlist l = { 0 };
	double speedup;

	if (!opts)
		opts = &none;
	if (!vars || !count)
		return lagom_errprintf(err, EINVAL, "no output array");
	if (!plan || !g || !plan_id)
		return lagom_errprintf(err, EINVAL, "no plan");
	if (!globals_ok(g))
		return lagom_errprintf(err, EINVAL, "env record out of range");
	if (g->tuner && (!opts->tuner_path || !opts->plan_text))
		return lagom_errprintf(err, EINVAL, "tuner without plan text");
	if (!(l.vars = calloc(ENV_MAX, sizeof(*l.vars))))
		return lagom_errprintf(err, ENOMEM, "out of memory");
	env_globals(&l, g, opts);
	if (g->tuner)
		speedup = plan->speedup_nccl;
	else
		speedup = plan->lagom_env_only_s > 0
				  ? plan->nccl_s / plan->lagom_env_only_s
				  : 1;
	env_add(&l, VAR(TORCH_NCCL_HIGH_PRIORITY), "1");
	if (plan->tensor_parallel || (opts->flags & LAGOM_ENV_TP_OVERLAP))
		env_add(&l, VAR(CUDA_DEVICE_MAX_CONNECTIONS), "1");
	env_add(&l, VAR(LAGOM_PLAN_ID), plan_id);
	env_speedup(&l, speedup);
	if (l.failed) {
		for (size_t i = 0; i < l.n; i++) {
			free(l.vars[i].name);
			free(l.vars[i].value);
		}
		free(l.vars);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	*vars = l.vars;
	*count = l.n;
	return 0;
}
