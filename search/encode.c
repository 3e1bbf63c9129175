/*
 * search/encode.c - the LAGOM_PLAN text (doc/plan-format.md), its hash and
 * the environment derived from a plan.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "search/internal.h"

/* Where encoded text goes: buf, or (buf NULL) only its hash and length. */
struct out {
	char *buf;
	size_t len, pos;
	int overflow;
	uint64_t hash; /* FNV-1a of the text so far when buf is NULL */
};

/* Own formatting: the pure core links no printf family function. */
static void put_s(struct out *o, const char *s)
{
	size_t n = strlen(s);

	if (o->overflow || n >= o->len - o->pos) {
		o->overflow = 1;
		return;
	}
	if (o->buf) {
		memcpy(o->buf + o->pos, s, n + 1);
	} else {
		o->hash = lagom_fnv1a64_update(o->hash, s, n);
	}
	o->pos += n;
}

static void put_u(struct out *o, uint64_t v)
{
	char tmp[24];
	size_t i = sizeof(tmp) - 1;

	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_s(o, tmp + i);
}

static void put_x16(struct out *o, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[17];

	for (int i = 15; i >= 0; i--, v >>= 4)
		tmp[i] = hex[v & 15];
	tmp[16] = '\0';
	put_s(o, tmp);
}

/* "env tuner=1 ctas=1-8 buffsize=2097152 nthreads=0 algo=any proto=any;" */
static void put_env(struct out *o, const struct lagom_plan_globals *g)
{
	put_s(o, g->tuner ? "env tuner=1 ctas=" : "env tuner=0 ctas=");
	put_u(o, g->min_ctas);
	put_s(o, "-");
	put_u(o, g->max_ctas);
	put_s(o, " buffsize=");
	put_u(o, g->buffsize_bytes);
	put_s(o, " nthreads=");
	put_u(o, g->nthreads);
	put_s(o, " algo=");
	put_s(o, g->algo ? g->algo : "any");
	put_s(o, " proto=");
	put_s(o, g->proto ? g->proto : "any");
	put_s(o, ";");
}

/* The records after the header: "env ...;coll ...;...;end". */
static void put_records(struct out *o, const struct lagom_plan *plan,
			const struct lagom_plan_globals *g)
{
	put_env(o, g);
	for (size_t j = 0; j < plan->ncolls; j++) {
		const struct lagom_plan_coll *c = &plan->colls[j];
		const char *algo = lagom_algo_name(c->config.algo);
		const char *proto = lagom_proto_name(c->config.proto);
		unsigned nc = c->config.nchannels;
		uint64_t chunk = c->config.chunk_bytes;

		if (c->keep || !algo || !proto) {
			algo = proto = "any";
			nc = 0;
			chunk = 0;
		}
		put_s(o, "coll ");
		put_s(o, lagom_coll_name(c->coll));
		put_s(o, " ");
		put_u(o, c->min_bytes);
		put_s(o, " ");
		put_u(o, c->max_bytes);
		put_s(o, " ranks=");
		put_u(o, c->comm.ranks);
		put_s(o, " nodes=");
		put_u(o, c->comm.nodes);
		put_s(o, " algo=");
		put_s(o, algo);
		put_s(o, " proto=");
		put_s(o, proto);
		put_s(o, " nc=");
		put_u(o, nc);
		put_s(o, " chunk=");
		put_u(o, chunk);
		put_s(o, ";");
	}
	put_s(o, "end");
}

static int check_plan(const struct lagom_plan *plan, struct lagom_error *err)
{
	if (!plan)
		return lagom_errprintf(err, EINVAL, "no plan");
	if (plan->ncolls > LAGOM_PLAN_MAX_COLLS)
		return lagom_errprintf(err, EINVAL, "%zu records, at most %d",
				       plan->ncolls, LAGOM_PLAN_MAX_COLLS);
	for (size_t j = 0; j < plan->ncolls; j++)
		if (!lagom_coll_name(plan->colls[j].coll) ||
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

/* What doc/plan-format.md allows in the env record (NCCL's own ranges:
 * reference/nccl.md section 1.1). */
static int check_globals(const struct lagom_plan_globals *g,
			 struct lagom_error *err)
{
	if (g->max_ctas && (g->min_ctas < 1 || g->min_ctas > g->max_ctas ||
			    g->max_ctas > LAGOM_NCHANNELS_MAX))
		return lagom_errprintf(
			err, EINVAL, "channel range %u-%u outside 1-%d",
			g->min_ctas, g->max_ctas, LAGOM_NCHANNELS_MAX);
	if (g->nthreads &&
	    (g->nthreads < 64 || g->nthreads > 512 || g->nthreads % 32))
		return lagom_errprintf(err, EINVAL,
				       "%u threads: not a multiple of 32 in "
				       "64-512",
				       g->nthreads);
	if (g->buffsize_bytes > INT64_MAX)
		return lagom_errprintf(err, EINVAL, "buffer size out of range");
	return 0;
}

/* The one place that decides the process-wide values (see search.h). */
int lagom_plan_globals(const struct lagom_plan *plan,
		       const struct lagom_plan_env_opts *opts,
		       struct lagom_plan_globals *out, struct lagom_error *err)
{
	struct lagom_plan_globals g = { 0 };
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
			g.algo = lagom_algo_name((enum lagom_algo)algo);
		if ((flags & LAGOM_ENV_PIN_IMPL) && proto >= 0)
			g.proto = lagom_proto_name((enum lagom_proto)proto);
	} else {
		if (plan->env.env_max_ctas) {
			g.min_ctas = 1;
			g.max_ctas = plan->env.env_max_ctas;
		}
		g.buffsize_bytes = plan->env.env_buffsize_bytes;
	}
	if ((rc = check_globals(&g, err)) < 0)
		return rc;
	*out = g;
	return 0;
}

static int records_id(const struct lagom_plan *plan,
		      const struct lagom_plan_globals *g, uint64_t *id,
		      struct lagom_error *err)
{
	struct out o = { .len = LAGOM_PLAN_TEXT_MAX,
			 .hash = LAGOM_FNV1A64_INIT };

	put_records(&o, plan, g);
	if (o.overflow)
		return lagom_errprintf(err, ENOSPC, "plan text over %d bytes",
				       LAGOM_PLAN_TEXT_MAX);
	*id = o.hash;
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
	struct lagom_plan_globals g;
	uint64_t h = 0;
	int rc = lagom_plan_globals(plan, opts, &g, err);

	if (rc < 0)
		return rc;
	if (!id)
		return lagom_errprintf(err, EINVAL, "no output");
	if ((rc = records_id(plan, &g, &h, err)) < 0)
		return rc;
	*id = h;
	return 0;
}

int lagom_plan_encode(const struct lagom_plan *plan,
		      const struct lagom_plan_env_opts *opts,
		      unsigned long job_id, char *buf, size_t len,
		      struct lagom_error *err)
{
	struct out o = { .buf = buf, .len = len };
	struct lagom_plan_globals g;
	uint64_t id = 0;
	int rc = lagom_plan_globals(plan, opts, &g, err);

	if (rc < 0)
		return rc;
	if (!buf || len == 0)
		return lagom_errprintf(err, EINVAL, "no buffer");
	if ((rc = records_id(plan, &g, &id, err)) < 0)
		return rc;
	put_s(&o, "lagom-plan 1 " PACKAGE_VERSION " ");
	put_x16(&o, id);
	put_s(&o, " job=");
	put_u(&o, job_id);
	put_s(&o, " ranks=");
	put_u(&o, plan->ranks);
	put_s(&o, " nodes=");
	put_u(&o, plan->nodes);
	put_s(&o, ";");
	put_records(&o, plan, &g);
	if (o.overflow || o.pos >= LAGOM_PLAN_TEXT_MAX) {
		buf[0] = '\0';
		return lagom_errprintf(err, ENOSPC,
				       "plan text does not fit %zu bytes", len);
	}
	return 0;
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
	struct out o = { .len = LAGOM_ENV_VALUE_MAX };

	if (!v)
		return;
	o.buf = v->buf;
	put_u(&o, value);
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
	struct out o = { .len = LAGOM_ENV_VALUE_MAX };
	uint64_t hundredths;

	if (!v)
		return;
	if (!(speedup > 0) || speedup > 1e6)
		speedup = 1;
	hundredths = (uint64_t)(speedup * 100 + 0.5);
	o.buf = v->buf;
	put_u(&o, hundredths / 100);
	put_s(&o, hundredths % 100 < 10 ? ".0" : ".");
	put_u(&o, hundredths % 100);
}

/* NCCL_* of g (lagom_plan_globals()) and, with the tuner, its two. */
static void env_globals(struct envlist *l, const struct lagom_plan_globals *g,
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
	if (g->algo)
		env_s(l, "NCCL_ALGO", g->algo);
	if (g->proto)
		env_s(l, "NCCL_PROTO", g->proto);
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
	struct lagom_plan_globals g;
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
	if ((rc = records_id(plan, &g, &id, err)) < 0)
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
	if (env_add(&l, "LAGOM_PLAN_ID")) {
		struct out o = { .buf = l.vars[l.n - 1].buf,
				 .len = LAGOM_ENV_VALUE_MAX };
		put_x16(&o, id);
	}
	env_speedup(&l, speedup);
	if (l.overflow)
		return lagom_errprintf(err, ENOSPC, "more than %zu variables",
				       max);
	*count = l.n;
	return 0;
}
