/*
 * placement/placement.c - node lists through Slurm's hostlist functions.
 * The only file of libplacement that calls Slurm.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compat/slurm_compat.h"

#include "placement/placement.h"
#include "placement/placement_int.h"

/* Slurm's hostlist refuses one range of more hosts (MAX_RANGE, 64 Ki). */
#define SLURM_MAX_RANGE 65536

struct lagom_nodelist {
	size_t count;
	char **names;  /* Slurm's order; each from slurm_hostlist_shift */
	char **sorted; /* the same pointers, sorted by name */
};

static bool hostlist_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
	       c == ',' || c == ' ' || c == '\t' || c == '\n';
}

static int hostlist_error(struct lagom_error *err, const char *what, size_t at)
{
	return lagom_errprintf(err, EINVAL, "node list: %s at offset %zu", what,
			       at);
}

/* A number of 1..9 digits inside brackets; advances *i. */
static bool range_number(const char *s, size_t *i, unsigned long *v)
{
	size_t start = *i;

	*v = 0;
	while (s[*i] >= '0' && s[*i] <= '9' && *i - start < 9)
		*v = *v * 10 + (unsigned long)(s[(*i)++] - '0');
	return *i > start && !(s[*i] >= '0' && s[*i] <= '9');
}

/*
 * "[N-M,K]" starting at s[*i] == '[': numeric ranges, low <= high, each
 * within Slurm's range limit.  Advances *i past the ']'.
 */
static int check_brackets(const char *s, size_t *i, unsigned long *hosts,
			  struct lagom_error *err)
{
	unsigned long lo, hi;

	*hosts = 0;
	do {
		++*i;
		if (!range_number(s, i, &lo))
			return hostlist_error(err, "bad range", *i);
		hi = lo;
		if (s[*i] == '-' && (++*i, !range_number(s, i, &hi)))
			return hostlist_error(err, "bad range", *i);
		if (hi < lo)
			return hostlist_error(err, "range runs backwards", *i);
		if (hi - lo >= SLURM_MAX_RANGE)
			return hostlist_error(
				err, "range of more than 65536 hosts", *i);
		*hosts += hi - lo + 1; /* at most 9-digit ranges: no overflow */
	} while (s[*i] == ',');
	if (s[*i] != ']')
		return hostlist_error(err, "expected ']'", *i);
	++*i;
	return 0;
}

/*
 * What we let through to slurm_hostlist_create(): its parser is lenient
 * ("x[1-" gives "x]") and leaks memory on some errors, so lagom accepts
 * only host names of [A-Za-z0-9._-] with numeric bracket ranges.
 */
int lagom_hostlist_check(const char *expr, struct lagom_error *err)
{
	size_t len = strnlen(expr, LAGOM_PLACEMENT_MAX_INPUT + 1), i = 0;
	/* Hosts the expression names, counted before Slurm expands it: a
	 * name with several brackets is their product ("n[1-512][1-512]"),
	 * which slurm_hostlist_create() would build in full. */
	unsigned long total = 0, term = 0, hosts;
	int rc;

	if (len > LAGOM_PLACEMENT_MAX_INPUT)
		return lagom_errprintf(err, E2BIG,
				       "node list longer than %u bytes",
				       LAGOM_PLACEMENT_MAX_INPUT);
	while (i < len) {
		if (expr[i] == '[') {
			rc = check_brackets(expr, &i, &hosts, err);
			if (rc)
				return rc;
			term = (term ? term : 1) * hosts;
		} else if (hostlist_char_ok(expr[i])) {
			if (strchr(", \t\n", expr[i])) {
				total += term;
				term = 0;
			} else if (!term) {
				term = 1;
			}
			i++;
		} else {
			return lagom_errprintf(
				err, EINVAL,
				"node list: unexpected character "
				"0x%02x at offset %zu",
				(unsigned char)expr[i], i);
		}
		/* term <= 65536 * 65536 after one product; stop before the
		 * next one could overflow. */
		if (term > LAGOM_PLACEMENT_MAX_NODES ||
		    total + term > LAGOM_PLACEMENT_MAX_NODES)
			return lagom_errprintf(err, E2BIG,
					       "node list names more than %d "
					       "hosts",
					       LAGOM_PLACEMENT_MAX_NODES);
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void lagom_nodelist_destroy(struct lagom_nodelist *nl)
{
	if (!nl)
		return;
	for (size_t i = 0; i < nl->count; i++)
		free(nl->names[i]);
	free(nl->names);
	free(nl->sorted);
	free(nl);
}

/* Move every host out of hl into nl->names (nl->count of them). */
static int take_names(struct lagom_nodelist *nl, lagom_hostlist_t hl,
		      size_t want, struct lagom_error *err)
{
	char *name;

	while (nl->count < want && (name = slurm_hostlist_shift(hl))) {
		nl->names[nl->count++] = name;
		if (strlen(name) > LAGOM_HOSTNAME_MAX)
			return lagom_errprintf(err, EINVAL,
					       "node list: host name longer "
					       "than %d characters",
					       LAGOM_HOSTNAME_MAX);
	}
	if (nl->count != want)
		return lagom_errprintf(err, ENOMEM,
				       "node list: expansion stopped early");
	return 0;
}

static int index_names(struct lagom_nodelist *nl, struct lagom_error *err)
{
	nl->sorted = malloc(nl->count * sizeof(*nl->sorted));
	if (!nl->sorted)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	memcpy(nl->sorted, nl->names, nl->count * sizeof(*nl->sorted));
	qsort(nl->sorted, nl->count, sizeof(*nl->sorted), cmp_name);
	for (size_t i = 1; i < nl->count; i++)
		if (strcmp(nl->sorted[i - 1], nl->sorted[i]) == 0)
			return lagom_errprintf(err, EINVAL,
					       "node list names %s twice",
					       nl->sorted[i]);
	return 0;
}

static int expand(struct lagom_nodelist *nl, const char *expr,
		  struct lagom_error *err)
{
	lagom_hostlist_t hl = slurm_hostlist_create(expr);
	int n, rc;

	if (!hl)
		return lagom_errprintf(err, EINVAL,
				       "node list '%.64s' is not a valid "
				       "Slurm hostlist",
				       expr);
	n = slurm_hostlist_count(hl);
	if (n <= 0)
		rc = lagom_errprintf(err, EINVAL,
				     "node list '%.64s' names no host", expr);
	else if (n > LAGOM_PLACEMENT_MAX_NODES)
		rc = lagom_errprintf(err, E2BIG,
				     "node list has %d hosts, more than %d", n,
				     LAGOM_PLACEMENT_MAX_NODES);
	else if (!(nl->names = calloc((size_t)n, sizeof(*nl->names))))
		rc = lagom_errprintf(err, ENOMEM, "out of memory");
	else
		rc = take_names(nl, hl, (size_t)n, err);
	slurm_hostlist_destroy(hl);
	return rc;
}

struct lagom_nodelist *lagom_nodelist_create(const char *expr,
					     struct lagom_error *err)
{
	struct lagom_nodelist *nl;
	int rc;

	if (!expr) {
		lagom_errprintf(err, EINVAL, "no node list");
		return NULL;
	}
	if (lagom_hostlist_check(expr, err) != 0)
		return NULL;
	nl = calloc(1, sizeof(*nl));
	if (!nl) {
		lagom_errprintf(err, ENOMEM, "out of memory");
		return NULL;
	}
	rc = expand(nl, expr, err);
	if (rc == 0)
		rc = index_names(nl, err);
	if (rc) {
		lagom_nodelist_destroy(nl);
		return NULL;
	}
	return nl;
}

size_t lagom_nodelist_count(const struct lagom_nodelist *nl)
{
	return nl ? nl->count : 0;
}

const char *lagom_nodelist_name(const struct lagom_nodelist *nl, size_t i)
{
	return nl && i < nl->count ? nl->names[i] : NULL;
}

long lagom_nodelist_find(const struct lagom_nodelist *nl, const char *name)
{
	char *const *hit;

	if (!nl || !name)
		return -1;
	hit = bsearch(&name, nl->sorted, nl->count, sizeof(*nl->sorted),
		      cmp_name);
	if (!hit)
		return -1;
	for (size_t i = 0; i < nl->count; i++)
		if (nl->names[i] == *hit)
			return (long)i;
	return -1;
}
