/*
 * measurement/record_parse.c - the strict reader of the measurement record
 * (record.h, doc/profiler.md).  Pure: no I/O, no allocation.  It reads what
 * any user could have written, so it accepts exactly the writer's spelling:
 * single spaces, '\n' line ends, decimal numbers without sign or leading
 * zero, every count within its bound and every index within its table.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "measurement/record.h"

#define MAX_TOKENS (LAGOM_REC_MAX_PERIOD + 2)

struct cursor {
	const char *text;
	size_t len, at;
	unsigned line_no;
	/* the current line, split */
	char line[LAGOM_REC_MAX_LINE + 1];
	char *tok[MAX_TOKENS];
	unsigned n_tok;
	struct lagom_error *err;
};

static int bad(struct cursor *c, const char *why)
{
	return lagom_errprintf(c->err, EINVAL, "record line %u: %s", c->line_no,
			       why);
}

/* Next line into c->line, split on single spaces. */
static int next_line(struct cursor *c)
{
	size_t start = c->at, n;
	const char *nl;
	char *p;

	c->line_no++;
	if (c->at >= c->len)
		return bad(c, "unexpected end of record");
	nl = memchr(c->text + start, '\n', c->len - start);
	if (!nl)
		return bad(c, "line without its newline");
	n = (size_t)(nl - (c->text + start));
	if (n > LAGOM_REC_MAX_LINE)
		return bad(c, "line too long");
	memcpy(c->line, c->text + start, n);
	c->line[n] = '\0';
	c->at = start + n + 1;
	if (n == 0 || strlen(c->line) != n)
		return bad(c, "empty line or NUL byte");
	c->n_tok = 0;
	p = c->line;
	for (;;) {
		char *sp = strchr(p, ' ');

		if (c->n_tok == MAX_TOKENS)
			return bad(c, "too many fields");
		if (*p == '\0' || p == sp)
			return bad(c, "empty field (double or trailing space)");
		c->tok[c->n_tok++] = p;
		if (!sp)
			break;
		*sp = '\0';
		p = sp + 1;
	}
	for (n = 0; n < c->n_tok; n++)
		for (p = c->tok[n]; *p; p++)
			if (!lagom_rec_token_char((unsigned char)*p))
				return bad(c,
					   "character outside [A-Za-z0-9._:-]");
	return 0;
}

static int expect_shape(struct cursor *c, const char *key, unsigned n_tok)
{
	if (strcmp(c->tok[0], key) != 0 || c->n_tok != n_tok) {
		char why[96];

		snprintf(why, sizeof(why), "expected '%s' with %u fields", key,
			 n_tok - 1);
		return bad(c, why);
	}
	return 0;
}

static int keyword(struct cursor *c, unsigned i, const char *word)
{
	if (strcmp(c->tok[i], word) != 0) {
		char why[64];

		snprintf(why, sizeof(why), "expected '%s'", word);
		return bad(c, why);
	}
	return 0;
}

/* Decimal, no sign, no leading zero, <= max. */
static int number(struct cursor *c, unsigned i, uint64_t max, uint64_t *out)
{
	const char *s = c->tok[i];
	uint64_t v = 0;

	if (s[0] == '0' && s[1] != '\0')
		return bad(c, "number with a leading zero");
	for (; *s; s++) {
		unsigned d;

		if (*s < '0' || *s > '9')
			return bad(c, "not a decimal number");
		d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return bad(c, "number out of range");
		v = v * 10 + d;
	}
	if (v > max)
		return bad(c, "number out of range");
	*out = v;
	return 0;
}

static int u32(struct cursor *c, unsigned i, uint64_t max, uint32_t *out)
{
	uint64_t v;
	int rc = number(c, i, max, &v);

	if (rc == 0)
		*out = (uint32_t)v;
	return rc;
}

/* A token or "-" for empty; max characters. */
static int text_field(struct cursor *c, unsigned i, size_t max, char *out)
{
	const char *s = c->tok[i];
	size_t n = strlen(s);

	if (n > max)
		return bad(c, "field too long");
	if (strcmp(s, "-") == 0)
		s = "";
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

static int name_index(struct cursor *c, unsigned i,
		      const char *(*name)(unsigned), uint8_t *out)
{
	unsigned k;
	const char *n;

	for (k = 0; (n = name(k)) != NULL; k++)
		if (strcmp(n, c->tok[i]) == 0) {
			*out = (uint8_t)k;
			return 0;
		}
	return bad(c, "unknown operation, algorithm or protocol");
}

#define TRY(x)                      \
	do {                        \
		int rc_ = (x);      \
		if (rc_ != 0)       \
			return rc_; \
	} while (0)

static int parse_class(struct cursor *c, struct lagom_rec_class *k)
{
	uint64_t v;

	TRY(next_line(c));
	TRY(expect_shape(c, "class", 16));
	TRY(name_index(c, 1, lagom_rec_op_name, &k->op));
	TRY(number(c, 2, UINT64_MAX, &k->bytes));
	TRY(name_index(c, 3, lagom_rec_algo_name, &k->algo));
	TRY(name_index(c, 4, lagom_rec_proto_name, &k->proto));
	TRY(number(c, 5, LAGOM_REC_MAX_CHANNELS, &v));
	k->channels = (uint8_t)v;
	TRY(keyword(c, 6, "count"));
	TRY(number(c, 7, UINT64_MAX, &k->count));
	TRY(keyword(c, 8, "gpu"));
	TRY(number(c, 9, k->count, &k->gpu_n));
	TRY(number(c, 10, UINT64_MAX, &k->gpu_ns));
	TRY(number(c, 11, UINT64_MAX, &k->gpu_min_ns));
	TRY(number(c, 12, UINT64_MAX, &k->gpu_max_ns));
	TRY(keyword(c, 13, "gap"));
	TRY(number(c, 14, k->count, &k->gap_n));
	TRY(number(c, 15, UINT64_MAX, &k->gap_ns));
	if (k->gpu_n == 0 && (k->gpu_ns || k->gpu_min_ns || k->gpu_max_ns))
		return bad(c, "GPU times without GPU samples");
	if (k->gpu_min_ns > k->gpu_max_ns)
		return bad(c, "GPU minimum above maximum");
	return 0;
}

static int hex64(struct cursor *c, unsigned i, uint64_t *out)
{
	const char *s = c->tok[i];
	uint64_t v = 0;
	unsigned n;

	if (strlen(s) != 16)
		return bad(c, "communicator id is not 16 hex digits");
	for (n = 0; n < 16; n++) {
		char h = s[n];
		unsigned d;

		if (h >= '0' && h <= '9')
			d = (unsigned)(h - '0');
		else if (h >= 'a' && h <= 'f')
			d = (unsigned)(h - 'a' + 10);
		else
			return bad(c, "communicator id is not lowercase hex");
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

static int parse_period(struct cursor *c, struct lagom_rec_comm *m)
{
	uint64_t v;
	unsigned i;

	TRY(next_line(c));
	TRY(expect_shape(c, "period", 6));
	TRY(u32(c, 1, LAGOM_REC_MAX_PERIOD, &m->period_len));
	TRY(keyword(c, 2, "n"));
	TRY(u32(c, 3, UINT32_MAX, &m->period_n));
	TRY(keyword(c, 4, "ns"));
	TRY(number(c, 5, UINT64_MAX, &m->period_ns));
	if (m->period_len == 0 && (m->period_n || m->period_ns))
		return bad(c, "period figures without a period");
	TRY(next_line(c));
	TRY(expect_shape(c, "seq", m->period_len + 1));
	for (i = 0; i < m->period_len; i++) {
		if (m->n_classes == 0)
			return bad(c, "sequence without classes");
		TRY(number(c, i + 1, m->n_classes - 1, &v));
		m->seq[i] = (uint16_t)v;
	}
	return 0;
}

static int parse_comm(struct cursor *c, struct lagom_rec_comm *m)
{
	uint32_t i;

	TRY(next_line(c));
	TRY(expect_shape(c, "comm", 16));
	TRY(hex64(c, 1, &m->id));
	TRY(keyword(c, 2, "ranks"));
	TRY(u32(c, 3, 1u << 24, &m->ranks));
	TRY(keyword(c, 4, "nodes"));
	TRY(u32(c, 5, m->ranks, &m->nodes));
	TRY(keyword(c, 6, "rank"));
	if (m->ranks == 0)
		return bad(c, "communicator without ranks");
	TRY(u32(c, 7, m->ranks - 1, &m->rank));
	TRY(keyword(c, 8, "name"));
	TRY(text_field(c, 9, LAGOM_REC_NAME_MAX, m->name));
	TRY(keyword(c, 10, "overflow"));
	TRY(number(c, 11, UINT64_MAX, &m->overflow));
	TRY(keyword(c, 12, "incomplete"));
	TRY(number(c, 13, UINT64_MAX, &m->incomplete));
	TRY(keyword(c, 14, "classes"));
	TRY(u32(c, 15, LAGOM_REC_MAX_CLASSES, &m->n_classes));
	for (i = 0; i < m->n_classes; i++)
		TRY(parse_class(c, &m->cls[i]));
	return parse_period(c, m);
}

static int parse_head(struct cursor *c, struct lagom_rec *r)
{
	uint64_t v;

	TRY(next_line(c));
	TRY(expect_shape(c, LAGOM_REC_MAGIC, 2));
	if (strcmp(c->tok[1], "1") != 0)
		return bad(c, "unsupported record version");
	TRY(next_line(c));
	TRY(expect_shape(c, "abi", 2));
	TRY(number(c, 1, 6, &v));
	if (v < 4)
		return bad(c, "profiler ABI below 4");
	r->abi = (unsigned)v;
	TRY(next_line(c));
	TRY(expect_shape(c, "job", 8));
	TRY(text_field(c, 1, LAGOM_REC_TOKEN_MAX, r->job));
	TRY(keyword(c, 2, "step"));
	TRY(text_field(c, 3, LAGOM_REC_TOKEN_MAX, r->step));
	TRY(keyword(c, 4, "task"));
	if (strcmp(c->tok[5], "-") == 0) {
		r->task = -1;
	} else {
		TRY(number(c, 5, INT32_MAX, &v));
		r->task = (int64_t)v;
	}
	TRY(keyword(c, 6, "pid"));
	TRY(number(c, 7, UINT32_MAX, &r->pid));
	TRY(next_line(c));
	TRY(expect_shape(c, "plan", 2));
	TRY(text_field(c, 1, LAGOM_REC_TOKEN_MAX, r->plan));
	TRY(next_line(c));
	TRY(expect_shape(c, "time", 3));
	TRY(number(c, 1, UINT64_MAX, &r->start_unix));
	TRY(number(c, 2, UINT64_MAX, &r->written_unix));
	if (r->written_unix < r->start_unix)
		return bad(c, "written before started");
	TRY(next_line(c));
	TRY(expect_shape(c, "comms", 4));
	TRY(u32(c, 1, LAGOM_REC_MAX_COMMS, &r->n_comms));
	TRY(keyword(c, 2, "dropped"));
	return number(c, 3, UINT64_MAX, &r->dropped_comms);
}

int lagom_rec_parse(const char *text, size_t len, struct lagom_rec *out,
		    struct lagom_rec *scratch, struct lagom_error *err)
{
	struct cursor c;
	uint32_t i;

	memset(&c, 0, sizeof(c));
	c.text = text;
	c.len = len;
	c.err = err;
	if (len > LAGOM_REC_MAX_BYTES)
		return lagom_errprintf(err, EINVAL,
				       "record larger than %d bytes",
				       LAGOM_REC_MAX_BYTES);
	memset(scratch, 0, sizeof(*scratch));
	TRY(parse_head(&c, scratch));
	for (i = 0; i < scratch->n_comms; i++)
		TRY(parse_comm(&c, &scratch->comm[i]));
	TRY(next_line(&c));
	TRY(expect_shape(&c, "end", 1));
	if (c.at != c.len)
		return bad(&c, "text after 'end'");
	memcpy(out, scratch, sizeof(*out));
	return 0;
}
