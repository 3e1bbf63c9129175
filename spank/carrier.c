/*
 * spank/carrier.c - the step's plan as text in the launch environment
 * (format in carrier.h, reasons in doc/consistency.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "spank/carrier.h"

uint64_t lagom_nodes_hash(const char *const *names, size_t n)
{
	uint64_t h = LAGOM_FNV1A64_INIT;

	for (size_t i = 0; i < n; i++) {
		h = lagom_fnv1a64_update(h, names[i], strlen(names[i]));
		h = lagom_fnv1a64_update(h, "\n", 1);
	}
	return h;
}

/* Printable ASCII, no newline: what a line of the text may hold. */
static bool printable(const char *s, size_t max)
{
	size_t n = 0;

	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] > 0x7e ||
		    n >= max)
			return false;
	return true;
}

int lagom_carrier_add(struct lagom_carrier *c, const char *name,
		      const char *value, struct lagom_error *err)
{
	char *n, *v;

	if (c->nvars >= LAGOM_CARRIER_MAX_VARS)
		return lagom_errprintf(err, E2BIG, "more than %d variables",
				       LAGOM_CARRIER_MAX_VARS);
	if (!name || !lagom_config_valid_var_name(name) || !value ||
	    !printable(value, LAGOM_CARRIER_MAX))
		return lagom_errprintf(err, EINVAL, "bad variable %.64s",
				       name ? name : "(null)");
	n = strdup(name);
	v = strdup(value);
	if (!n || !v) {
		free(n);
		free(v);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	c->vars[c->nvars].name = n;
	c->vars[c->nvars].value = v;
	c->nvars++;
	return 0;
}

void lagom_carrier_release(struct lagom_carrier *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nvars; i++) {
		free(c->vars[i].name);
		free(c->vars[i].value);
	}
	memset(c, 0, sizeof(*c));
}

static const char *mode_word(enum lagom_mode m)
{
	return lagom_mode_name(m);
}

/* The modes a carrier holds: a plan srun made for the nodes. */
static bool carried_mode(enum lagom_mode m)
{
	return m == LAGOM_MODE_AUTO || m == LAGOM_MODE_EXPLAIN ||
	       m == LAGOM_MODE_MEASURE || m == LAGOM_MODE_CONTROL ||
	       m == LAGOM_MODE_REVERT;
}

/* The step line of c, without its newline, into buf. */
static const char *header_line(const struct lagom_carrier *c, char *buf,
			       size_t len)
{
	snprintf(buf, len,
		 "job=%" PRIu32 " step=%" PRIu32 " nodes=%" PRIu32
		 " tasks=%" PRIu32 " tpn=%s gpus=%u nodes_hash=%016" PRIx64
		 " mode=%s plan=%s",
		 c->step.job_id, c->step.step_id, c->step.nnodes,
		 c->step.ntasks, c->step.tpn, c->gpus_per_node,
		 c->step.nodes_hash, mode_word(c->mode), c->plan_id);
	return buf;
}

int lagom_carrier_encode(const struct lagom_carrier *c, char **out,
			 struct lagom_error *err)
{
	size_t cap = 512 + sizeof(c->step.tpn) + sizeof(c->summary), len;
	char *buf;
	int n;

	if (!carried_mode(c->mode) ||
	    !printable(c->step.tpn, sizeof(c->step.tpn)) || !c->step.tpn[0] ||
	    !printable(c->summary, sizeof(c->summary)) ||
	    strlen(c->plan_id) != 16 || strchr(c->step.tpn, ' '))
		return lagom_errprintf(err, EINVAL, "bad step plan");
	for (size_t i = 0; i < c->nvars; i++)
		cap += strlen(c->vars[i].name) + strlen(c->vars[i].value) + 6;
	if (cap > LAGOM_CARRIER_MAX)
		return lagom_errprintf(err, E2BIG, "step plan over %u bytes",
				       LAGOM_CARRIER_MAX);
	if (!(buf = malloc(cap)))
		return lagom_errprintf(err, ENOMEM, "out of memory");
	n = snprintf(buf, cap, "lagom-step 1\n");
	header_line(c, buf + n, cap - (size_t)n);
	n += (int)strlen(buf + n);
	n += snprintf(buf + n, cap - (size_t)n, "\nsummary %s\n", c->summary);
	len = (size_t)n;
	for (size_t i = 0; i < c->nvars; i++)
		len += (size_t)snprintf(buf + len, cap - len, "var %s=%s\n",
					c->vars[i].name, c->vars[i].value);
	snprintf(buf + len, cap - len, "end %016" PRIx64 "\n",
		 lagom_fnv1a64(buf, len));
	*out = buf;
	return 0;
}

/* The line at *p (without '\n') into line; advances *p.  -EINVAL when
 * no '\n' ends it or it is longer than len - 1. */
static int next_line(const char **p, char *line, size_t len)
{
	const char *nl = strchr(*p, '\n');
	size_t n;

	if (!nl || (n = (size_t)(nl - *p)) >= len)
		return -EINVAL;
	memcpy(line, *p, n);
	line[n] = '\0';
	*p = nl + 1;
	return 0;
}

static int parse_header(const char *line, struct lagom_carrier *c)
{
	char tpn[LAGOM_CARRIER_TPN_MAX], mode[16], id[32];
	char canon[LAGOM_CARRIER_TPN_MAX + 256];
	uint64_t hash;
	int used = 0;

	if (sscanf(line,
		   "job=%" SCNu32 " step=%" SCNu32 " nodes=%" SCNu32
		   " tasks=%" SCNu32 " tpn=%1023s gpus=%u nodes_hash=%16" SCNx64
		   " mode=%15s plan=%31s%n",
		   &c->step.job_id, &c->step.step_id, &c->step.nnodes,
		   &c->step.ntasks, tpn, &c->gpus_per_node, &hash, mode, id,
		   &used) != 9 ||
	    line[used] != '\0' || strlen(id) != 16 ||
	    strspn(id, "0123456789abcdef") != 16)
		return -EINVAL;
	if (!printable(tpn, sizeof(tpn)))
		return -EINVAL;
	if (strcmp(mode, "control") == 0)
		c->mode = LAGOM_MODE_CONTROL;
	else if (strcmp(mode, "revert") == 0)
		c->mode = LAGOM_MODE_REVERT;
	else if (lagom_mode_parse(mode, &c->mode) < 0 || !carried_mode(c->mode))
		return -EINVAL;
	strcpy(c->step.tpn, tpn);
	c->step.nodes_hash = hash;
	strcpy(c->plan_id, id);
	/* only the canonical spelling ("+1", " 1", "0x..." are refused) */
	return strcmp(line, header_line(c, canon, sizeof(canon))) ? -EINVAL : 0;
}

/* "NAME=VALUE" after "var ". */
static int parse_var(const char *kv, struct lagom_carrier *c,
		     struct lagom_error *err)
{
	const char *eq = strchr(kv, '=');
	char name[LAGOM_CONFIG_NAME_MAX];

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(name))
		return lagom_errprintf(err, EINVAL, "bad variable line");
	memcpy(name, kv, (size_t)(eq - kv));
	name[eq - kv] = '\0';
	/* err would quote the name: root logs it */
	if (c->nvars >= LAGOM_CARRIER_MAX_VARS)
		return lagom_errprintf(err, E2BIG, "more than %d variables",
				       LAGOM_CARRIER_MAX_VARS);
	if (lagom_carrier_add(c, name, eq + 1, NULL) < 0)
		return lagom_errprintf(err, EINVAL, "bad variable line %zu",
				       c->nvars + 1);
	return 0;
}

/* The check line: "end " + 16 hex digits + '\n' and nothing after. */
static int check_end(const char *text, const char *p)
{
	char want[32];

	snprintf(want, sizeof(want), "end %016" PRIx64 "\n",
		 lagom_fnv1a64(text, (size_t)(p - text)));
	return strcmp(p, want) == 0 ? 0 : -EINVAL;
}

static int decode_body(const char *text, struct lagom_carrier *c, char *line,
		       size_t len, struct lagom_error *err)
{
	const char *p = text;
	int rc;

	if (next_line(&p, line, len) || strcmp(line, "lagom-step 1") != 0)
		return lagom_errprintf(err, EINVAL, "not a lagom-step 1 text");
	if (next_line(&p, line, len) || parse_header(line, c) < 0)
		return lagom_errprintf(err, EINVAL, "bad step line");
	if (next_line(&p, line, len) || strncmp(line, "summary ", 8) != 0 ||
	    strlen(line + 8) >= sizeof(c->summary) ||
	    !printable(line + 8, sizeof(c->summary)))
		return lagom_errprintf(err, EINVAL, "bad summary line");
	strcpy(c->summary, line + 8);
	while (strncmp(p, "var ", 4) == 0) {
		if (next_line(&p, line, len) < 0)
			return lagom_errprintf(err, EINVAL,
					       "truncated variable");
		if ((rc = parse_var(line + 4, c, err)) < 0)
			return rc;
	}
	if (strncmp(p, "end ", 4) != 0 || check_end(text, p) < 0)
		return lagom_errprintf(err, EINVAL,
				       "truncated or altered (bad check)");
	return 0;
}

int lagom_carrier_decode(const char *text, struct lagom_carrier *out,
			 struct lagom_error *err)
{
	struct lagom_carrier *c;
	size_t len;
	char *line;
	int rc;

	if (!text ||
	    (len = strnlen(text, LAGOM_CARRIER_MAX + 1)) > LAGOM_CARRIER_MAX)
		return lagom_errprintf(err, E2BIG, "step plan over %u bytes",
				       LAGOM_CARRIER_MAX);
	c = calloc(1, sizeof(*c));
	line = malloc(len + 1);
	if (!c || !line) {
		free(c);
		free(line);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	rc = decode_body(text, c, line, len + 1, err);
	free(line);
	if (rc == 0)
		*out = *c;
	else
		lagom_carrier_release(c);
	free(c);
	return rc;
}

int lagom_carrier_matches(const struct lagom_carrier *c,
			  const struct lagom_carrier_step *here,
			  struct lagom_error *err)
{
	const struct lagom_carrier_step *s = &c->step;
	const char *what = s->job_id != here->job_id	 ? "job id"
			   : s->step_id != here->step_id ? "step id"
			   : s->nnodes != here->nnodes	 ? "node count"
			   : s->ntasks != here->ntasks	 ? "task count"
			   : strcmp(s->tpn, here->tpn)	 ? "tasks per node"
			   : s->nodes_hash != here->nodes_hash ? "node list"
							       : NULL;

	if (what)
		return lagom_errprintf(
			err, ESRCH, "the plan is for another step (%s)", what);
	return 0;
}
