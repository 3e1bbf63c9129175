/*
 * plan/rules.c - the names and value rules of the LAGOM_PLAN format
 * (doc/plan-format.md): op names, the env key table, the coll record's
 * ranges.  The encoder and the decoder both follow them.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "plan/wire_int.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *const lagom_cta_policy_names[LAGOM_CTA_POLICY_COUNT] = {
	"default",
	"efficiency",
	"zero",
};

/* The plan's ops, in NCCL's ncclFunc_t numbering; their names are
 * common/nccl_names.h's. */
static const lagom_nccl_func_t ops[] = {
	LAGOM_NCCL_FUNC_BROADCAST, LAGOM_NCCL_FUNC_REDUCE,
	LAGOM_NCCL_FUNC_ALLGATHER, LAGOM_NCCL_FUNC_REDUCESCATTER,
	LAGOM_NCCL_FUNC_ALLREDUCE, LAGOM_NCCL_FUNC_SENDRECV,
	LAGOM_NCCL_FUNC_ALLTOALL,
};

bool plan_tok_eq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

int plan_name_index(const char *s, size_t n, const char *const *names,
		    size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (plan_tok_eq(s, n, names[i]))
			return (int)i;
	return -1;
}

int lagom_plan_op_parse(const char *s, size_t n)
{
	for (size_t i = 0; i < N_OF(ops); i++)
		if (plan_tok_eq(s, n, lagom_nccl_func_names[ops[i]]))
			return (int)ops[i];
	return -1;
}

const char *lagom_plan_op_name(int op)
{
	for (size_t i = 0; i < N_OF(ops); i++)
		if ((int)ops[i] == op)
			return lagom_nccl_func_names[op];
	return NULL;
}

bool plan_version_valid(const char *s, size_t n)
{
	if (n == 0 || n >= LAGOM_PLAN_VERSION_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] && strchr(".+~_-", s[i]))))
			return false;
	return true;
}

int lagom_plan_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 20 || (n > 1 && s[0] == '0'))
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)((unsigned char)s[i] - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* ---- The env record's keys. ---- */

static int parse_unsigned(const char *v, size_t n, unsigned max, unsigned *out)
{
	uint64_t x;

	if (lagom_plan_parse_u64(v, n, &x) < 0 || x > max)
		return -1;
	*out = (unsigned)x;
	return 0;
}

/* "any" (LAGOM_PLAN_ANY) or a name of names[]. */
static int parse_any_name(const char *v, size_t n, const char *const *names,
			  size_t count, int *out)
{
	int i;

	if (plan_tok_eq(v, n, "any")) {
		*out = LAGOM_PLAN_ANY;
		return 0;
	}
	if ((i = plan_name_index(v, n, names, count)) < 0)
		return -1;
	*out = i;
	return 0;
}

static void put_any_name(struct plan_out *o, int i, const char *const *names)
{
	plan_put_s(o, i == LAGOM_PLAN_ANY ? "any" : names[i]);
}

static int tuner_parse(const char *v, size_t n, struct lagom_plan_wire_env *e)
{
	return parse_unsigned(v, n, 1, &e->tuner);
}

static bool tuner_valid(const struct lagom_plan_wire_env *e)
{
	return e->tuner <= 1;
}

static void tuner_put(struct plan_out *o, const struct lagom_plan_wire_env *e)
{
	plan_put_u(o, e->tuner);
}

/* "<min>-<max>" */
static int ctas_parse(const char *v, size_t n, struct lagom_plan_wire_env *e)
{
	const char *dash = memchr(v, '-', n);

	if (!dash ||
	    parse_unsigned(v, (size_t)(dash - v), ~0u, &e->min_ctas) < 0 ||
	    parse_unsigned(dash + 1, n - (size_t)(dash + 1 - v), ~0u,
			   &e->max_ctas) < 0)
		return -1;
	return 0;
}

/* both 0, or 1 <= min <= max <= 64 */
static bool ctas_valid(const struct lagom_plan_wire_env *e)
{
	if (e->max_ctas == 0)
		return e->min_ctas == 0;
	return e->min_ctas >= 1 && e->min_ctas <= e->max_ctas &&
	       e->max_ctas <= LAGOM_PLAN_MAX_NCHANNELS;
}

static void ctas_put(struct plan_out *o, const struct lagom_plan_wire_env *e)
{
	plan_put_u(o, e->min_ctas);
	plan_put_s(o, "-");
	plan_put_u(o, e->max_ctas);
}

static int buffsize_parse(const char *v, size_t n,
			  struct lagom_plan_wire_env *e)
{
	return lagom_plan_parse_u64(v, n, &e->buffsize_bytes);
}

static bool buffsize_valid(const struct lagom_plan_wire_env *e)
{
	return e->buffsize_bytes <= INT64_MAX;
}

static void buffsize_put(struct plan_out *o,
			 const struct lagom_plan_wire_env *e)
{
	plan_put_u(o, e->buffsize_bytes);
}

static int nthreads_parse(const char *v, size_t n,
			  struct lagom_plan_wire_env *e)
{
	return parse_unsigned(v, n, ~0u, &e->nthreads);
}

/* 0, or a multiple of 32 in 64..512 */
static bool nthreads_valid(const struct lagom_plan_wire_env *e)
{
	return e->nthreads == 0 || (e->nthreads >= LAGOM_PLAN_MIN_NTHREADS &&
				    e->nthreads <= LAGOM_PLAN_MAX_NTHREADS &&
				    e->nthreads % 32 == 0);
}

static void nthreads_put(struct plan_out *o,
			 const struct lagom_plan_wire_env *e)
{
	plan_put_u(o, e->nthreads);
}

static int algo_parse(const char *v, size_t n, struct lagom_plan_wire_env *e)
{
	return parse_any_name(v, n, lagom_nccl_algo_names, LAGOM_NCCL_NUM_ALGOS,
			      &e->algo);
}

static bool algo_valid(const struct lagom_plan_wire_env *e)
{
	return e->algo == LAGOM_PLAN_ANY ||
	       (e->algo >= 0 && e->algo < LAGOM_NCCL_NUM_ALGOS);
}

static void algo_put(struct plan_out *o, const struct lagom_plan_wire_env *e)
{
	put_any_name(o, e->algo, lagom_nccl_algo_names);
}

static int proto_parse(const char *v, size_t n, struct lagom_plan_wire_env *e)
{
	return parse_any_name(v, n, lagom_nccl_proto_names,
			      LAGOM_NCCL_NUM_PROTOS, &e->proto);
}

static bool proto_valid(const struct lagom_plan_wire_env *e)
{
	return e->proto == LAGOM_PLAN_ANY ||
	       (e->proto >= 0 && e->proto < LAGOM_NCCL_NUM_PROTOS);
}

static void proto_put(struct plan_out *o, const struct lagom_plan_wire_env *e)
{
	put_any_name(o, e->proto, lagom_nccl_proto_names);
}

static int cta_policy_parse(const char *v, size_t n,
			    struct lagom_plan_wire_env *e)
{
	int i = plan_name_index(v, n, lagom_cta_policy_names,
				LAGOM_CTA_POLICY_COUNT);

	if (i < 0)
		return -1;
	e->cta_policy = (unsigned)i;
	return 0;
}

static bool cta_policy_valid(const struct lagom_plan_wire_env *e)
{
	return e->cta_policy < LAGOM_CTA_POLICY_COUNT;
}

static void cta_policy_put(struct plan_out *o,
			   const struct lagom_plan_wire_env *e)
{
	plan_put_s(o, lagom_cta_policy_names[e->cta_policy]);
}

static bool cta_policy_set(const struct lagom_plan_wire_env *e)
{
	return e->cta_policy != LAGOM_CTA_POLICY_DEFAULT;
}

/* In the order lagom writes them; a new knob is a new row here. */
const struct plan_env_key plan_env_keys[] = {
	{ "tuner", 0, tuner_parse, tuner_valid, tuner_put, NULL },
	{ "ctas", 0, ctas_parse, ctas_valid, ctas_put, NULL },
	{ "buffsize", 0, buffsize_parse, buffsize_valid, buffsize_put, NULL },
	{ "nthreads", 0, nthreads_parse, nthreads_valid, nthreads_put, NULL },
	{ "algo", 0, algo_parse, algo_valid, algo_put, NULL },
	{ "proto", 0, proto_parse, proto_valid, proto_put, NULL },
	{ "ctapolicy", 1, cta_policy_parse, cta_policy_valid, cta_policy_put,
	  cta_policy_set },
};
const size_t plan_env_nkeys = N_OF(plan_env_keys);

/* ---- The coll record's ranges. ---- */

int plan_check_coll(const struct lagom_plan_wire *w,
		    const struct lagom_plan_wire_coll *c, size_t record,
		    struct lagom_error *err)
{
	if (!lagom_plan_op_name(c->op))
		return lagom_errprintf(err, EINVAL, "record %zu: unknown op",
				       record);
	if (c->algo < LAGOM_PLAN_ANY || c->algo >= LAGOM_NCCL_NUM_ALGOS ||
	    c->proto < LAGOM_PLAN_ANY || c->proto >= LAGOM_NCCL_NUM_PROTOS)
		return lagom_errprintf(
			err, EINVAL, "record %zu: bad algo= or proto=", record);
	if (c->nchannels > LAGOM_PLAN_MAX_NCHANNELS)
		return lagom_errprintf(err, EINVAL,
				       "record %zu: nc=%u is over %d", record,
				       c->nchannels, LAGOM_PLAN_MAX_NCHANNELS);
	if (c->min_bytes > c->max_bytes)
		return lagom_errprintf(err, EINVAL,
				       "record %zu: min-bytes > max-bytes",
				       record);
	if (c->nodes == 0 || c->nodes > c->ranks || c->ranks > w->ranks ||
	    c->nodes > w->nodes)
		return lagom_errprintf(err, EINVAL,
				       "record %zu: shape outside 1 <= nodes "
				       "<= ranks within the plan's world",
				       record);
	return 0;
}

const struct lagom_plan_wire_coll *lagom_plan_wire_find(
	const struct lagom_plan_wire_coll *colls, size_t n, int op,
	uint64_t n_bytes, uint64_t ranks, uint64_t nodes)
{
	for (size_t i = 0; i < n; i++) {
		const struct lagom_plan_wire_coll *c = &colls[i];

		if (c->op == op && c->ranks == ranks && c->nodes == nodes &&
		    c->min_bytes <= n_bytes && n_bytes <= c->max_bytes)
			return c;
	}
	return NULL;
}
