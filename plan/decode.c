/*
 * plan/decode.c - strict, bounded reader of the LAGOM_PLAN text
 * (doc/plan-format.md "Rules for readers").  No I/O, no allocation.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "plan/wire_int.h"

#define HEADER_FIELDS 7
#define COLL_FIELDS 10
#define MAX_FIELDS 32 /* more fields than any record of a newer minor */
#define PLAN_ID_DIGITS 16
#define KEY_MAX 32

struct fields {
	const char *s[MAX_FIELDS];
	size_t n[MAX_FIELDS];
	size_t count;
};

/* "key=<u64>" */
static int parse_kv(const char *s, size_t n, const char *key, uint64_t *out)
{
	size_t k = strlen(key);

	if (n <= k + 1 || memcmp(s, key, k) != 0 || s[k] != '=')
		return -1;
	return lagom_plan_parse_u64(s + k + 1, n - k - 1, out);
}

/* "key=any" (LAGOM_PLAN_ANY) or "key=<name of names[]>". */
static int parse_kname(const char *s, size_t n, const char *key,
		       const char *const *names, size_t count, int *out)
{
	size_t k = strlen(key);

	if (n <= k + 1 || memcmp(s, key, k) != 0 || s[k] != '=')
		return -1;
	s += k + 1;
	n -= k + 1;
	if (plan_tok_eq(s, n, "any")) {
		*out = LAGOM_PLAN_ANY;
		return 0;
	}
	*out = plan_name_index(s, n, names, count);
	return *out < 0 ? -1 : 0;
}

/*
 * A key=value field of a newer minor: key of [a-z0-9_], 1..KEY_MAX bytes,
 * then '=' and a value (the record's bytes are already printable ASCII
 * without ' ' or ';').  Returns the key's length, or 0.
 */
static size_t key_len(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && k <= KEY_MAX &&
	       ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= '0' && s[k] <= '9') ||
		s[k] == '_'))
		k++;
	return k >= 1 && k <= KEY_MAX && k + 1 < n && s[k] == '=' ? k : 0;
}

/* Split one record into fields separated by exactly one space. */
static int split_fields(const char *rec, size_t len, struct fields *f)
{
	size_t start = 0;

	f->count = 0;
	for (size_t i = 0; i <= len; i++) {
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

	if (n != PLAN_ID_DIGITS)
		return -1;
	for (size_t i = 0; i < n; i++) {
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

/* "<major>" or "<major>.<minor>": 0 for major 1 (*minor set), -2 for
 * another major, -1 for anything else. */
static int parse_format(const char *s, size_t n, unsigned *minor)
{
	const char *dot = memchr(s, '.', n);
	size_t mn = dot ? (size_t)(dot - s) : n;
	uint64_t major, m = 0;

	if (lagom_plan_parse_u64(s, mn, &major) < 0 ||
	    (dot && lagom_plan_parse_u64(dot + 1, n - mn - 1, &m) < 0))
		return -1;
	if (major != LAGOM_PLAN_FORMAT_MAJOR)
		return -2;
	if (m > 65535)
		return -1;
	*minor = (unsigned)m;
	return 0;
}

/* The lagom version (plan_version_valid()) into out, NUL-terminated. */
static int parse_version(const char *s, size_t n, char *out)
{
	if (!plan_version_valid(s, n))
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

static int parse_header(const struct fields *f, struct lagom_plan_wire *w,
			struct lagom_error *err)
{
	int rc;

	if (f->count != HEADER_FIELDS ||
	    !plan_tok_eq(f->s[0], f->n[0], "lagom-plan"))
		return lagom_errprintf(err, EINVAL,
				       "record 1: not a 'lagom-plan' header "
				       "of %d fields",
				       HEADER_FIELDS);
	if ((rc = parse_format(f->s[1], f->n[1], &w->minor)) < 0)
		return lagom_errprintf(err, EINVAL,
				       rc == -2 ? "record 1: format major "
						  "version is not 1"
						: "record 1: format version is "
						  "not 1 or 1.<minor>");
	if (parse_version(f->s[2], f->n[2], w->lagom_version) < 0)
		return lagom_errprintf(err, EINVAL,
				       "record 1: bad lagom version");
	if (parse_plan_id(f->s[3], f->n[3], &w->plan_id) < 0)
		return lagom_errprintf(err, EINVAL,
				       "record 1: plan id is not 16 lowercase "
				       "hex digits");
	if (parse_kv(f->s[4], f->n[4], "job", &w->job_id) < 0 ||
	    parse_kv(f->s[5], f->n[5], "ranks", &w->ranks) < 0 ||
	    parse_kv(f->s[6], f->n[6], "nodes", &w->nodes) < 0)
		return lagom_errprintf(err, EINVAL,
				       "record 1: bad job=, ranks= or nodes=");
	if (w->nodes == 0 || w->nodes > w->ranks)
		return lagom_errprintf(err, EINVAL,
				       "record 1: need 1 <= nodes <= ranks");
	return 0;
}

/* Index of the env key of field s (n bytes, "key=value"), or -1. */
static int env_key(const char *s, size_t n)
{
	for (size_t i = 0; i < plan_env_nkeys; i++) {
		size_t k = strlen(plan_env_keys[i].key);

		if (n > k && memcmp(s, plan_env_keys[i].key, k) == 0 &&
		    s[k] == '=')
			return (int)i;
	}
	return -1;
}

/* One field of the env record into w->env; *seen marks the keys read. */
static int parse_env_field(const char *s, size_t n, struct lagom_plan_wire *w,
			   unsigned *seen, struct lagom_error *err)
{
	int i = env_key(s, n);
	const struct plan_env_key *k;
	size_t kn;

	if (i < 0) {
		if (!(kn = key_len(s, n)))
			return lagom_errprintf(err, EINVAL,
					       "record 2: a field is not "
					       "key=value");
		if (w->minor > LAGOM_PLAN_FORMAT_MINOR)
			return 0; /* a newer minor's key: ignored */
		return lagom_errprintf(err, EINVAL,
				       "record 2: unknown key '%.*s' in "
				       "format 1.%u",
				       (int)kn, s, w->minor);
	}
	k = &plan_env_keys[i];
	if (*seen & (1u << i))
		return lagom_errprintf(
			err, EINVAL, "record 2: key '%s' given twice", k->key);
	*seen |= 1u << i;
	if (k->minor > w->minor)
		return lagom_errprintf(err, EINVAL,
				       "record 2: key '%s' needs format 1.%u, "
				       "the plan is 1.%u",
				       k->key, k->minor, w->minor);
	kn = strlen(k->key) + 1;
	if (k->parse(s + kn, n - kn, &w->env) < 0 || !k->valid(&w->env))
		return lagom_errprintf(err, EINVAL,
				       "record 2: bad %s=", k->key);
	return 0;
}

/* "env key=value ...": the process-wide values (record 2, mandatory). */
static int parse_env(const struct fields *f, struct lagom_plan_wire *w,
		     struct lagom_error *err)
{
	unsigned seen = 0;
	int rc;

	if (f->count == 0 || !plan_tok_eq(f->s[0], f->n[0], "env"))
		return lagom_errprintf(err, EINVAL,
				       "record 2: not an 'env' record");
	w->env.algo = w->env.proto = LAGOM_PLAN_ANY;
	for (size_t i = 1; i < f->count; i++)
		if ((rc = parse_env_field(f->s[i], f->n[i], w, &seen, err)) < 0)
			return rc;
	for (size_t i = 0; i < plan_env_nkeys; i++)
		if (plan_env_keys[i].minor == 0 && !(seen & (1u << i)))
			return lagom_errprintf(err, EINVAL,
					       "record 2: no %s= key",
					       plan_env_keys[i].key);
	return 0;
}

static int parse_coll_numbers(const struct fields *f,
			      struct lagom_plan_wire_coll *c)
{
	uint64_t nc;

	if (lagom_plan_parse_u64(f->s[2], f->n[2], &c->min_bytes) < 0 ||
	    lagom_plan_parse_u64(f->s[3], f->n[3], &c->max_bytes) < 0 ||
	    parse_kv(f->s[4], f->n[4], "ranks", &c->ranks) < 0 ||
	    parse_kv(f->s[5], f->n[5], "nodes", &c->nodes) < 0 ||
	    parse_kv(f->s[8], f->n[8], "nc", &nc) < 0 ||
	    parse_kv(f->s[9], f->n[9], "chunk", &c->chunk_bytes) < 0 ||
	    nc > LAGOM_PLAN_MAX_NCHANNELS)
		return -1;
	c->nchannels = (unsigned)nc;
	return 0;
}

/* The field count; fields after chunk=: key=value of a newer minor
 * (ignored), else wrong. */
static int check_coll_fields(const struct fields *f,
			     const struct lagom_plan_wire *w, size_t record,
			     struct lagom_error *err)
{
	if (f->count == COLL_FIELDS)
		return 0;
	if (f->count < COLL_FIELDS || w->minor <= LAGOM_PLAN_FORMAT_MINOR)
		return lagom_errprintf(
			err, EINVAL, "record %zu: a coll record has %d fields",
			record, COLL_FIELDS);
	for (size_t i = COLL_FIELDS; i < f->count; i++)
		if (!key_len(f->s[i], f->n[i]))
			return lagom_errprintf(err, EINVAL,
					       "record %zu: a field after "
					       "chunk= is not key=value",
					       record);
	return 0;
}

static int parse_coll(const struct fields *f, const struct lagom_plan_wire *w,
		      struct lagom_plan_wire_coll *c, size_t record,
		      struct lagom_error *err)
{
	int rc = check_coll_fields(f, w, record, err);

	if (rc < 0)
		return rc;
	if ((c->op = lagom_plan_op_parse(f->s[1], f->n[1])) < 0)
		return lagom_errprintf(err, EINVAL, "record %zu: unknown op",
				       record);
	if (parse_kname(f->s[6], f->n[6], "algo", lagom_nccl_algo_names,
			LAGOM_NCCL_NUM_ALGOS, &c->algo) < 0 ||
	    parse_kname(f->s[7], f->n[7], "proto", lagom_nccl_proto_names,
			LAGOM_NCCL_NUM_PROTOS, &c->proto) < 0)
		return lagom_errprintf(
			err, EINVAL, "record %zu: bad algo= or proto=", record);
	if (parse_coll_numbers(f, c) < 0)
		return lagom_errprintf(err, EINVAL,
				       "record %zu: a number is malformed or "
				       "out of range",
				       record);
	return plan_check_coll(w, c, record, err);
}

/* Check the bytes: printable ASCII or '\n', at most the size bound. */
static int check_bytes(const char *text, size_t len, struct lagom_error *err)
{
	if (len > LAGOM_PLAN_MAX_BYTES)
		return lagom_errprintf(err, E2BIG, "plan is %zu bytes, over %d",
				       len, LAGOM_PLAN_MAX_BYTES);
	if (len == 0)
		return lagom_errprintf(err, EINVAL, "plan is empty");
	for (size_t i = 0; i < len; i++) {
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
			struct lagom_plan_wire *w, int *ended,
			struct lagom_error *err)
{
	struct fields f;

	if (split_fields(rec, n, &f) < 0)
		return lagom_errprintf(err, EINVAL,
				       "record %zu: empty record or field, or "
				       "too many fields",
				       record);
	if (record == 1)
		return parse_header(&f, w, err);
	if (record == 2)
		return parse_env(&f, w, err);
	if (f.count == 1 && plan_tok_eq(f.s[0], f.n[0], "end")) {
		*ended = 1;
		return 0;
	}
	if (!plan_tok_eq(f.s[0], f.n[0], "coll"))
		return lagom_errprintf(err, EINVAL,
				       "record %zu: not coll or end", record);
	if (w->ncolls == LAGOM_PLAN_MAX_COLLS)
		return lagom_errprintf(err, E2BIG, "more than %d coll records",
				       LAGOM_PLAN_MAX_COLLS);
	return parse_coll(&f, w, &w->colls[w->ncolls++], record, err);
}

int lagom_plan_wire_decode(const char *text, size_t len,
			   struct lagom_plan_wire *out, struct lagom_error *err)
{
	size_t pos = 0, record = 0;
	int ended = 0, rc;

	if ((rc = check_bytes(text, len, err)) < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	while (pos < len && !ended) {
		size_t end = pos;

		while (end < len && text[end] != ';' && text[end] != '\n')
			end++;
		rc = parse_record(text + pos, end - pos, ++record, out, &ended,
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
