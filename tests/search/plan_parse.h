/*
 * tests/search/plan_parse.h - an independent reader of doc/plan-format.md,
 * strict as the format's "Rules for readers", to check what search/ writes.
 */
#ifndef LAGOM_TESTS_SEARCH_PLAN_PARSE_H
#define LAGOM_TESTS_SEARCH_PLAN_PARSE_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define PP_MAX 256

struct pp_coll {
	char op[16], algo[16], proto[16];
	uint64_t min_bytes, max_bytes, ranks, nodes, nc, chunk;
};

/* The env record: process-wide values (0 / "any": not set by lagom). */
struct pp_env {
	uint64_t tuner, min_ctas, max_ctas, buffsize, nthreads;
	char algo[16], proto[16];
};

struct pp_plan {
	char version[32], id[17];
	uint64_t job, ranks, nodes;
	struct pp_env env;
	unsigned n;
	struct pp_coll c[PP_MAX];
};

/* Unsigned decimal: digits only, no sign, fits 64 bits. */
static inline int pp_u64(const char **p, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*out = v;
	return 0;
}

static inline int pp_lit(const char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n))
		return -1;
	*p += n;
	return 0;
}

/* A word of [a-z0-9.] up to the next space or separator. */
static inline int pp_word(const char **p, char *out, size_t len)
{
	size_t n = 0;

	while (((**p >= 'a' && **p <= 'z') || (**p >= '0' && **p <= '9') ||
		**p == '.') &&
	       n + 1 < len)
		out[n++] = *(*p)++;
	out[n] = '\0';
	return n ? 0 : -1;
}

static inline int pp_one_of(const char *w, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(w, *set))
			return 0;
	return -1;
}

static const char *const pp_algos[] = { "ring",		"tree", "collnetdirect",
					"collnetchain", "nvls", "nvlstree",
					"pat",		"any",	NULL };
static const char *const pp_protos[] = { "ll", "ll128", "simple", "any", NULL };

/* "env tuner=T ctas=MIN-MAX buffsize=B nthreads=N algo=A proto=P" */
static inline int pp_env(const char **p, struct pp_env *e)
{
	if (pp_lit(p, "env tuner=") || pp_u64(p, &e->tuner) ||
	    pp_lit(p, " ctas=") || pp_u64(p, &e->min_ctas) || pp_lit(p, "-") ||
	    pp_u64(p, &e->max_ctas) || pp_lit(p, " buffsize=") ||
	    pp_u64(p, &e->buffsize) || pp_lit(p, " nthreads=") ||
	    pp_u64(p, &e->nthreads) || pp_lit(p, " algo=") ||
	    pp_word(p, e->algo, sizeof(e->algo)) ||
	    pp_one_of(e->algo, pp_algos) || pp_lit(p, " proto=") ||
	    pp_word(p, e->proto, sizeof(e->proto)) ||
	    pp_one_of(e->proto, pp_protos))
		return -1;
	if (e->tuner > 1 || e->max_ctas > 64 || e->min_ctas > e->max_ctas ||
	    (e->max_ctas && !e->min_ctas) || e->buffsize > INT64_MAX ||
	    (e->nthreads &&
	     (e->nthreads < 64 || e->nthreads > 512 || e->nthreads % 32)))
		return -1;
	return 0;
}

static inline int pp_coll(const char **p, struct pp_coll *c)
{
	static const char *const ops[] = { "allreduce",	    "allgather",
					   "reducescatter", "broadcast",
					   "reduce",	    "alltoall",
					   "sendrecv",	    NULL };

	if (pp_lit(p, "coll ") || pp_word(p, c->op, sizeof(c->op)) ||
	    pp_one_of(c->op, ops) || pp_lit(p, " ") ||
	    pp_u64(p, &c->min_bytes) || pp_lit(p, " ") ||
	    pp_u64(p, &c->max_bytes) || pp_lit(p, " ranks=") ||
	    pp_u64(p, &c->ranks) || pp_lit(p, " nodes=") ||
	    pp_u64(p, &c->nodes) || pp_lit(p, " algo=") ||
	    pp_word(p, c->algo, sizeof(c->algo)) ||
	    pp_one_of(c->algo, pp_algos) || pp_lit(p, " proto=") ||
	    pp_word(p, c->proto, sizeof(c->proto)) ||
	    pp_one_of(c->proto, pp_protos) || pp_lit(p, " nc=") ||
	    pp_u64(p, &c->nc) || pp_lit(p, " chunk=") || pp_u64(p, &c->chunk))
		return -1;
	if (c->nc > 64 || c->min_bytes > c->max_bytes)
		return -1;
	return 0;
}

/* 0, or -EINVAL for anything that does not parse exactly. */
static inline int pp_parse(const char *text, struct pp_plan *out)
{
	const char *p = text;
	int i;

	memset(out, 0, sizeof(*out));
	if (strlen(text) > 65536 || pp_lit(&p, "lagom-plan 1 ") ||
	    pp_word(&p, out->version, sizeof(out->version)) || pp_lit(&p, " "))
		return -EINVAL;
	for (i = 0; i < 16; i++, p++) {
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return -EINVAL;
		out->id[i] = *p;
	}
	if (pp_lit(&p, " job=") || pp_u64(&p, &out->job) ||
	    pp_lit(&p, " ranks=") || pp_u64(&p, &out->ranks) ||
	    pp_lit(&p, " nodes=") || pp_u64(&p, &out->nodes))
		return -EINVAL;
	/* the env record is mandatory, right after the header */
	if (*p != ';' && *p != '\n')
		return -EINVAL;
	p++;
	if (pp_env(&p, &out->env))
		return -EINVAL;
	for (;;) {
		if (*p != ';' && *p != '\n')
			return -EINVAL;
		p++;
		if (!strcmp(p, "end"))
			return 0;
		if (out->n >= PP_MAX || pp_coll(&p, &out->c[out->n++]))
			return -EINVAL;
	}
}

#endif /* LAGOM_TESTS_SEARCH_PLAN_PARSE_H */
