/*
 * tuner/plan_read.c - strict, bounded reader of the LAGOM_PLAN text
 * (doc/plan-format.md).  No I/O, no allocation, libc only.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/nccl_names.h"
#include "tuner/plan_read.h"

#define HEADER_FIELDS 7
#define ENV_FIELDS 7
#define COLL_FIELDS 10
#define MAX_FIELDS (COLL_FIELDS + 1) /* one more to notice extra fields */
#define PLAN_ID_DIGITS 16

struct fields {
	const char *s[MAX_FIELDS];
	size_t n[MAX_FIELDS];
	size_t count;
};

struct name_value {
	const char *name;
	int value;
};

/* Plan op names in NCCL's ncclFunc_t numbering. */
static const struct name_value op_names[] = {
	{ "broadcast", 0 },	{ "reduce", 1 },    { "allgather", 2 },
	{ "reducescatter", 3 }, { "allreduce", 4 }, { "sendrecv", 5 },
	{ "alltoall", 8 },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int tok_eq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

int tuner_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 20 || (n > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* "key=<u64>" */
static int parse_kv(const char *s, size_t n, const char *key, uint64_t *out)
{
	size_t k = strlen(key);

	if (n <= k + 1 || memcmp(s, key, k) != 0 || s[k] != '=')
		return -1;
	return tuner_parse_u64(s + k + 1, n - k - 1, out);
}

/* "key=<name>" looked up in table; returns 0 and *out, or -1. */
static int parse_named(const char *s, size_t n, const char *key,
		       const struct name_value *table, size_t count, int *out)
{
	size_t k = strlen(key), i;

	if (key[0] != '\0') {
		if (n <= k + 1 || memcmp(s, key, k) != 0 || s[k] != '=')
			return -1;
		s += k + 1;
		n -= k + 1;
	}
	for (i = 0; i < count; i++) {
		if (tok_eq(s, n, table[i].name)) {
			*out = table[i].value;
			return 0;
		}
	}
	return -1;
}

/* "key=any" (TUNER_PLAN_ANY) or "key=<name>" with name = names[*out]
 * (common/nccl_names.h, NCCL's numbering); returns 0 and *out, or -1. */
static int parse_nccl_name(const char *s, size_t n, const char *key,
			   const char *const *names, size_t count, int *out)
{
	size_t k = strlen(key), i;

	if (n <= k + 1 || memcmp(s, key, k) != 0 || s[k] != '=')
		return -1;
	s += k + 1;
	n -= k + 1;
	if (tok_eq(s, n, "any")) {
		*out = TUNER_PLAN_ANY;
		return 0;
	}
	for (i = 0; i < count; i++) {
		if (tok_eq(s, n, names[i])) {
			*out = (int)i;
			return 0;
		}
	}
	return -1;
}

/* Split one record into fields separated by exactly one space. */
static int split_fields(const char *rec, size_t len, struct fields *f)
{
	size_t start = 0, i;

	f->count = 0;
	for (i = 0; i <= len; i++) {
		if (i < len && rec[i] != ' ')
			continue;
		if (i == start || f->count == MAX_FIELDS)
			return -1;
		f->s[f->count] = rec + start;
		f->n[f->count] = i - start;
		f->count++;
		start = i + 1;
	}
	return 0;
}

static int parse_plan_id(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n != PLAN_ID_DIGITS)
		return -1;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			v = (v << 4) | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = (v << 4) | (uint64_t)(c - 'a' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* The lagom version: 1..31 characters of [0-9A-Za-z.+~_-]. */
static int parse_version(const char *s, size_t n, char *out)
{
	size_t i;

	if (n == 0 || n >= TUNER_PLAN_VERSION_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z') || strchr(".+~_-", c)))
			return -1;
	}
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

static int parse_header(const struct fields *f, struct tuner_plan *plan,
			struct lagom_error *err)
{
	if (f->count != HEADER_FIELDS ||
	    !tok_eq(f->s[0], f->n[0], "lagom-plan"))
		return lagom_errprintf(
			err, EINVAL,
			"record 1: not a 'lagom-plan' header of %d "
			"fields",
			HEADER_FIELDS);
	if (!tok_eq(f->s[1], f->n[1], "1"))
		return lagom_errprintf(err, EINVAL,
				       "record 1: format version is not 1");
	if (parse_version(f->s[2], f->n[2], plan->lagom_version) < 0)
		return lagom_errprintf(err, EINVAL,
				       "record 1: bad lagom version");
	if (parse_plan_id(f->s[3], f->n[3], &plan->plan_id) < 0)
		return lagom_errprintf(
			err, EINVAL,
			"record 1: plan id is not 16 lowercase hex "
			"digits");
	if (parse_kv(f->s[4], f->n[4], "job", &plan->job_id) < 0 ||
	    parse_kv(f->s[5], f->n[5], "ranks", &plan->ranks) < 0 ||
	    parse_kv(f->s[6], f->n[6], "nodes", &plan->nodes) < 0)
		return lagom_errprintf(err, EINVAL,
				       "record 1: bad job=, ranks= or nodes=");
	if (plan->nodes == 0 || plan->nodes > plan->ranks)
		return lagom_errprintf(err, EINVAL,
				       "record 1: need 1 <= nodes <= ranks");
	return 0;
}

/* "ctas=<min>-<max>": both 0, or 1 <= min <= max <= TUNER_PLAN_MAX_NC. */
static int parse_ctas(const char *s, size_t n, struct tuner_plan_env *env)
{
	const char *dash = memchr(s, '-', n);
	uint64_t lo, hi;

	if (n <= 5 || memcmp(s, "ctas=", 5) != 0 || !dash ||
	    tuner_parse_u64(s + 5, (size_t)(dash - s) - 5, &lo) < 0 ||
	    tuner_parse_u64(dash + 1, n - (size_t)(dash + 1 - s), &hi) < 0)
		return -1;
	if (hi > TUNER_PLAN_MAX_NC || lo > hi || (hi != 0 && lo == 0))
		return -1;
	env->min_ctas = (unsigned)lo;
	env->max_ctas = (unsigned)hi;
	return 0;
}

/* "env tuner=<0|1> ctas=<min>-<max> buffsize=<b> nthreads=<n> algo=<A>
 * proto=<P>": the process-wide values (record 2, mandatory). */
static int parse_env(const struct fields *f, struct tuner_plan_env *env,
		     struct lagom_error *err)
{
	uint64_t tuner, nthreads;

	if (f->count != ENV_FIELDS || !tok_eq(f->s[0], f->n[0], "env"))
		return lagom_errprintf(
			err, EINVAL,
			"record 2: not an 'env' record of %d fields",
			ENV_FIELDS);
	if (parse_kv(f->s[1], f->n[1], "tuner", &tuner) < 0 || tuner > 1 ||
	    parse_ctas(f->s[2], f->n[2], env) < 0 ||
	    parse_kv(f->s[3], f->n[3], "buffsize", &env->buffsize_bytes) < 0 ||
	    env->buffsize_bytes > INT64_MAX ||
	    parse_kv(f->s[4], f->n[4], "nthreads", &nthreads) < 0 ||
	    (nthreads != 0 &&
	     (nthreads < TUNER_PLAN_MIN_NTHREADS ||
	      nthreads > TUNER_PLAN_MAX_NTHREADS || nthreads % 32 != 0)))
		return lagom_errprintf(
			err, EINVAL,
			"record 2: bad tuner=, ctas=, buffsize= or "
			"nthreads=");
	if (parse_nccl_name(f->s[5], f->n[5], "algo", lagom_nccl_algo_names,
			    LAGOM_NCCL_NUM_ALGOS, &env->algo) < 0 ||
	    parse_nccl_name(f->s[6], f->n[6], "proto", lagom_nccl_proto_names,
			    LAGOM_NCCL_NUM_PROTOS, &env->proto) < 0)
		return lagom_errprintf(err, EINVAL,
				       "record 2: bad algo= or proto=");
	env->tuner = (unsigned)tuner;
	env->nthreads = (unsigned)nthreads;
	return 0;
}

static int parse_coll_numbers(const struct fields *f,
			      struct tuner_plan_entry *e)
{
	uint64_t nc;

	if (tuner_parse_u64(f->s[2], f->n[2], &e->min_bytes) < 0 ||
	    tuner_parse_u64(f->s[3], f->n[3], &e->max_bytes) < 0 ||
	    parse_kv(f->s[4], f->n[4], "ranks", &e->ranks) < 0 ||
	    parse_kv(f->s[5], f->n[5], "nodes", &e->nodes) < 0 ||
	    parse_kv(f->s[8], f->n[8], "nc", &nc) < 0 ||
	    parse_kv(f->s[9], f->n[9], "chunk", &e->chunk_bytes) < 0 ||
	    nc > TUNER_PLAN_MAX_NC)
		return -1;
	e->nc = (unsigned)nc;
	return 0;
}

static int parse_coll(const struct fields *f, const struct tuner_plan *plan,
		      struct tuner_plan_entry *e, size_t record,
		      struct lagom_error *err)
{
	if (f->count != COLL_FIELDS)
		return lagom_errprintf(
			err, EINVAL, "record %zu: a coll record has %d fields",
			record, COLL_FIELDS);
	if (parse_named(f->s[1], f->n[1], "", op_names, N_OF(op_names),
			&e->func) < 0)
		return lagom_errprintf(err, EINVAL, "record %zu: unknown op",
				       record);
	if (parse_nccl_name(f->s[6], f->n[6], "algo", lagom_nccl_algo_names,
			    LAGOM_NCCL_NUM_ALGOS, &e->algo) < 0 ||
	    parse_nccl_name(f->s[7], f->n[7], "proto", lagom_nccl_proto_names,
			    LAGOM_NCCL_NUM_PROTOS, &e->proto) < 0)
		return lagom_errprintf(
			err, EINVAL, "record %zu: bad algo= or proto=", record);
	if (parse_coll_numbers(f, e) < 0)
		return lagom_errprintf(
			err, EINVAL,
			"record %zu: a number is malformed or out of "
			"range",
			record);
	if (e->min_bytes > e->max_bytes)
		return lagom_errprintf(err, EINVAL,
				       "record %zu: min-bytes > max-bytes",
				       record);
	if (e->nodes == 0 || e->nodes > e->ranks || e->ranks > plan->ranks ||
	    e->nodes > plan->nodes)
		return lagom_errprintf(
			err, EINVAL,
			"record %zu: shape outside 1 <= nodes <= "
			"ranks within the plan's world",
			record);
	return 0;
}

/* Check the bytes: printable ASCII or '\n', at most the size bound. */
static int check_bytes(const char *text, size_t len, struct lagom_error *err)
{
	size_t i;

	if (len > TUNER_PLAN_MAX_BYTES)
		return lagom_errprintf(err, E2BIG, "plan is %zu bytes, over %d",
				       len, TUNER_PLAN_MAX_BYTES);
	if (len == 0)
		return lagom_errprintf(err, EINVAL, "plan is empty");
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if ((c < 0x20 || c > 0x7e) && c != '\n')
			return lagom_errprintf(
				err, EINVAL, "byte %zu is not printable ASCII",
				i);
	}
	return 0;
}

/* One record: header, env, coll or end.  Sets *ended on "end". */
static int parse_record(const char *rec, size_t n, size_t record,
			struct tuner_plan *plan, int *ended,
			struct lagom_error *err)
{
	struct fields f;

	if (split_fields(rec, n, &f) < 0)
		return lagom_errprintf(
			err, EINVAL,
			"record %zu: empty record or field, or too "
			"many fields",
			record);
	if (record == 1)
		return parse_header(&f, plan, err);
	if (record == 2)
		return parse_env(&f, &plan->env, err);
	if (f.count == 1 && tok_eq(f.s[0], f.n[0], "end")) {
		*ended = 1;
		return 0;
	}
	if (!tok_eq(f.s[0], f.n[0], "coll"))
		return lagom_errprintf(err, EINVAL,
				       "record %zu: not coll or end", record);
	if (plan->n_entries == TUNER_PLAN_MAX_ENTRIES)
		return lagom_errprintf(err, E2BIG, "more than %d coll records",
				       TUNER_PLAN_MAX_ENTRIES);
	return parse_coll(&f, plan, &plan->entries[plan->n_entries++], record,
			  err);
}

int tuner_plan_parse(const char *text, size_t len, struct tuner_plan *plan,
		     struct lagom_error *err)
{
	size_t pos = 0, record = 0;
	int ended = 0, rc;

	rc = check_bytes(text, len, err);
	if (rc < 0)
		return rc;
	memset(plan, 0, sizeof(*plan));
	while (pos < len && !ended) {
		size_t end = pos;

		while (end < len && text[end] != ';' && text[end] != '\n')
			end++;
		rc = parse_record(text + pos, end - pos, ++record, plan, &ended,
				  err);
		if (rc < 0)
			return rc;
		pos = end + 1;
		/* After "end": nothing, or the one '\n' of a written file. */
		if (ended && end < len &&
		    !(text[end] == '\n' && end + 1 == len))
			return lagom_errprintf(err, EINVAL,
					       "record %zu: data after end",
					       record);
	}
	if (!ended)
		return lagom_errprintf(
			err, EINVAL, "no 'end' record: the plan is truncated");
	return 0;
}

const struct tuner_plan_entry *tuner_plan_find(
	const struct tuner_plan_entry *entries, size_t n, int func,
	uint64_t n_bytes, uint64_t ranks, uint64_t nodes)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct tuner_plan_entry *e = &entries[i];

		if (e->func == func && e->ranks == ranks && e->nodes == nodes &&
		    e->min_bytes <= n_bytes && n_bytes <= e->max_bytes)
			return e;
	}
	return NULL;
}
