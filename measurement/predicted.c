/*
 * measurement/predicted.c - see predicted.h.  The parser accepts a line only
 * when printing what it read gives the same line back.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "measurement/predicted.h"
#include "measurement/record.h"

/* One of the plan's op names: those of the measured operations. */
static int op_ok(const char *op)
{
	const char *name;

	for (unsigned k = 0; k < LAGOM_REC_OP_COUNT; k++)
		if ((name = lagom_rec_plan_op(k)) != NULL &&
		    strcmp(op, name) == 0)
			return 1;
	return 0;
}

static int plan_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 16)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static int arm_ok(const char *arm)
{
	return !arm[0] || !strcmp(arm, "control") || !strcmp(arm, "measure") ||
	       !strcmp(arm, "revert");
}

/* The optional lines: default_ns, arm. */
static int optional_lines(char *buf, size_t len,
			  const struct lagom_predicted *p)
{
	int n = 0, m = 0;

	if (p->default_ns)
		n = snprintf(buf, len, "default_ns %" PRIu64 "\n",
			     p->default_ns);
	if (n < 0 || (size_t)n >= len)
		return -1;
	if (p->arm[0])
		m = snprintf(buf + n, len - (size_t)n, "arm %s\n", p->arm);
	if (m < 0 || (size_t)m >= len - (size_t)n)
		return -1;
	return n + m;
}

static int class_line(char *buf, size_t len,
		      const struct lagom_predicted_class *c)
{
	return snprintf(buf, len,
			"class %s %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu32
			" %" PRIu64 "\n",
			c->op, c->min_bytes, c->max_bytes, c->ranks, c->nodes,
			c->time_ns);
}

int lagom_predicted_format(const struct lagom_predicted *p, char *buf,
			   size_t len)
{
	size_t at = 0, i;
	int n;

	if (!plan_ok(p->plan) || p->n > LAGOM_PREDICTED_MAX_CLASSES ||
	    !memchr(p->arm, '\0', sizeof(p->arm)) || !arm_ok(p->arm))
		return -EINVAL;
	n = snprintf(buf, len,
		     "lagom-predicted 1\nplan %s\niteration_ns %" PRIu64 "\n",
		     p->plan, p->iteration_ns);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	at = (size_t)n;
	n = optional_lines(buf + at, len - at, p);
	if (n < 0)
		return -ENOSPC;
	at += (size_t)n;
	for (i = 0; i < p->n; i++) {
		const struct lagom_predicted_class *c = &p->cls[i];

		if (!op_ok(c->op) || c->min_bytes > c->max_bytes ||
		    c->ranks == 0 || c->nodes == 0 || c->nodes > c->ranks)
			return -EINVAL;
		n = class_line(buf + at, len - at, c);
		if (n < 0 || (size_t)n >= len - at)
			return -ENOSPC;
		at += (size_t)n;
	}
	n = snprintf(buf + at, len - at, "end\n");
	if (n < 0 || (size_t)n >= len - at)
		return -ENOSPC;
	return (int)(at + (size_t)n);
}

/* The next line (with its '\n') as a C string in line; 0 or -1. */
static int next(const char *text, size_t len, size_t *at, char *line,
		size_t cap)
{
	const char *nl;
	size_t n;

	if (*at >= len)
		return -1;
	nl = memchr(text + *at, '\n', len - *at);
	if (!nl)
		return -1;
	n = (size_t)(nl - (text + *at)) + 1;
	if (n >= cap)
		return -1;
	memcpy(line, text + *at, n);
	line[n] = '\0';
	if (strlen(line) != n)
		return -1; /* NUL byte */
	*at += n;
	return 0;
}

int lagom_predicted_parse(const char *text, size_t len,
			  struct lagom_predicted *out, struct lagom_error *err)
{
	struct lagom_predicted scratch; /* ~12 KiB: *out stays untouched */
	char line[160], again[160];
	size_t at = 0;
	unsigned ln = 1;

	memset(&scratch, 0, sizeof(scratch));
	if (len >= LAGOM_PREDICTED_MAX ||
	    next(text, len, &at, line, sizeof(line)) ||
	    strcmp(line, "lagom-predicted 1\n") != 0)
		goto bad;
	ln++;
	if (next(text, len, &at, line, sizeof(line)) ||
	    sscanf(line, "plan %16s", scratch.plan) != 1 ||
	    !plan_ok(scratch.plan))
		goto bad;
	snprintf(again, sizeof(again), "plan %s\n", scratch.plan);
	if (strcmp(line, again) != 0)
		goto bad;
	ln++;
	if (next(text, len, &at, line, sizeof(line)) ||
	    sscanf(line, "iteration_ns %" SCNu64, &scratch.iteration_ns) != 1)
		goto bad;
	snprintf(again, sizeof(again), "iteration_ns %" PRIu64 "\n",
		 scratch.iteration_ns);
	if (strcmp(line, again) != 0)
		goto bad;
	ln++;
	if (next(text, len, &at, line, sizeof(line)))
		goto bad;
	if (strncmp(line, "default_ns ", 11) == 0) {
		if (sscanf(line, "default_ns %" SCNu64, &scratch.default_ns) !=
			    1 ||
		    scratch.default_ns == 0)
			goto bad;
		snprintf(again, sizeof(again), "default_ns %" PRIu64 "\n",
			 scratch.default_ns);
		if (strcmp(line, again) != 0)
			goto bad;
		ln++;
		if (next(text, len, &at, line, sizeof(line)))
			goto bad;
	}
	if (strncmp(line, "arm ", 4) == 0) {
		if (sscanf(line, "arm %7s", scratch.arm) != 1 ||
		    !scratch.arm[0] || !arm_ok(scratch.arm))
			goto bad;
		snprintf(again, sizeof(again), "arm %s\n", scratch.arm);
		if (strcmp(line, again) != 0)
			goto bad;
		ln++;
		if (next(text, len, &at, line, sizeof(line)))
			goto bad;
	}
	for (;;) {
		struct lagom_predicted_class *c;

		if (strcmp(line, "end\n") == 0)
			break;
		if (scratch.n == LAGOM_PREDICTED_MAX_CLASSES)
			goto bad;
		c = &scratch.cls[scratch.n++];
		if (sscanf(line,
			   "class %15s %" SCNu64 " %" SCNu64 " %" SCNu32
			   " %" SCNu32 " %" SCNu64,
			   c->op, &c->min_bytes, &c->max_bytes, &c->ranks,
			   &c->nodes, &c->time_ns) != 6 ||
		    !op_ok(c->op) || c->min_bytes > c->max_bytes ||
		    c->ranks == 0 || c->nodes == 0 || c->nodes > c->ranks)
			goto bad;
		class_line(again, sizeof(again), c);
		if (strcmp(line, again) != 0)
			goto bad;
		ln++;
		if (next(text, len, &at, line, sizeof(line)))
			goto bad;
	}
	if (at != len)
		goto bad;
	memcpy(out, &scratch, sizeof(*out));
	return 0;
bad:
	return lagom_errprintf(err, EINVAL,
			       "predictions line %u: not in "
			       "lagom's format",
			       ln);
}

const struct lagom_predicted_class *lagom_predicted_find(
	const struct lagom_predicted *p, const char *op, uint64_t plan_bytes,
	uint32_t ranks, uint32_t nodes)
{
	for (size_t j = 0; op && j < p->n && j < LAGOM_PREDICTED_MAX_CLASSES;
	     j++) {
		const struct lagom_predicted_class *c = &p->cls[j];

		if (strcmp(c->op, op) == 0 && plan_bytes >= c->min_bytes &&
		    plan_bytes <= c->max_bytes && c->ranks == ranks &&
		    c->nodes == nodes)
			return c;
	}
	return NULL;
}
