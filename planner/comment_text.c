/*
 * planner/comment_text.c - the job comment's grammar: one table of fields,
 * each written by lagom_comment_text_write() and checked by
 * lagom_comment_text_read() (planner/comment_text.h).  Adding a field is
 * one row here and one name in enum lagom_comment_field.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "common/text.h"
#include "model/model.h"
#include "planner/comment_text.h"
#include "planner/planner.h"

/* "JOB.STEP" */
static bool is_job_step(const char *v)
{
	size_t n = lagom_text_digits(v, 10);

	return n && v[n] == '.' && lagom_text_is_uint(v + n + 1, 10);
}

/* The checks below say whether v is the field's; the value kept is v,
 * unless the check writes lagom's own spelling into out (len bytes). */

/* A catalog workload option (catalog/catalog.h) in lower case, its number
 * without a leading zero. */
static bool catalog_option(const char *o)
{
	size_t n = strcspn(o, "0123456789");

	return lagom_workload_option_check(o) == 0 &&
	       (o[n] == '\0' || lagom_text_is_uint(o + n, 6));
}

/* A catalog name ("MODEL[:OPT,...]") in the catalog's spelling into out,
 * options in lower case; false when w is not one. */
static bool catalog_name(const char *w, char *out, size_t len)
{
	char model[64], opt[16];
	const char *colon = strchr(w, ':'), *p;
	const struct lagom_model_shape *shape;
	size_t n = colon ? (size_t)(colon - w) : strlen(w), used;

	if (n == 0 || n >= sizeof(model))
		return false;
	memcpy(model, w, n);
	model[n] = '\0';
	if (!(shape = lagom_model_lookup(model)))
		return false;
	used = (size_t)snprintf(out, len, "%s", shape->name);
	for (p = colon; p && used < len; p = strchr(p + 1, ',')) {
		size_t m = strcspn(p + 1, ",");

		if (m == 0 || m >= sizeof(opt))
			return false;
		for (size_t i = 0; i < m; i++)
			opt[i] = (char)((p[1 + i] >= 'A' && p[1 + i] <= 'Z')
						? p[1 + i] - 'A' + 'a'
						: p[1 + i]);
		opt[m] = '\0';
		if (!catalog_option(opt))
			return false;
		used += (size_t)snprintf(out + used, len - used, "%c%s",
					 p == colon ? ':' : ',', opt);
	}
	return used < len;
}

static bool workload_ok(const char *w, char *out, size_t len)
{
	if (strcmp(w, "catalog-worst-case") == 0 || strcmp(w, "(file)") == 0 ||
	    (strncmp(w, "measured-", 9) == 0 && is_job_step(w + 9)))
		return true;
	return catalog_name(w, out, len);
}

/* "default", "N", "N-N" or "<=N" */
static bool channels_ok(const char *v, char *out, size_t len)
{
	size_t n;

	(void)out, (void)len;
	if (strcmp(v, "default") == 0)
		return true;
	if (strncmp(v, "<=", 2) == 0)
		return lagom_text_is_uint(v + 2, 4);
	n = lagom_text_digits(v, 4);
	return n && (v[n] == '\0' ||
		     (v[n] == '-' && lagom_text_is_uint(v + n + 1, 4)));
}

static bool chunk_ok(const char *v, char *out, size_t len)
{
	size_t n = lagom_text_digits(v, 12);

	(void)out, (void)len;
	return strcmp(v, "default") == 0 || (n && strcmp(v + n, "KiB") == 0);
}

/* "default" or model/'s algorithm names, comma-separated. */
static bool algo_ok(const char *v, char *out, size_t len)
{
	char name[32];

	(void)out, (void)len;
	if (strcmp(v, "default") == 0)
		return true;
	for (const char *p = v;; p++) {
		size_t n = strcspn(p, ","), a;

		if (n == 0 || n >= sizeof(name))
			return false;
		memcpy(name, p, n);
		name[n] = '\0';
		for (a = 0; a < LAGOM_ALGO_COUNT; a++)
			if (strcmp(name, lagom_algo_name((enum lagom_algo)a)) ==
			    0)
				break;
		if (a == LAGOM_ALGO_COUNT)
			return false;
		p += n;
		if (*p == '\0')
			return true;
	}
}

static bool speedup_ok(const char *v, char *out, size_t len)
{
	(void)out, (void)len;
	return lagom_text_is_hundredths(v, "x");
}

/* "allreduce@1MiB:x1.83" */
static bool correction_item(const char *v)
{
	char coll[32];
	const char *at = strchr(v, '@'), *x;
	size_t n;
	enum lagom_coll cl;

	if (!at || (size_t)(at - v) >= sizeof(coll))
		return false;
	memcpy(coll, v, (size_t)(at - v));
	coll[at - v] = '\0';
	if (lagom_coll_parse(coll, &cl) < 0 ||
	    strcmp(coll, lagom_coll_name(cl)) != 0)
		return false;
	n = lagom_text_digits(at + 1, 20);
	x = at + 1 + n;
	if (!n)
		return false;
	if (strncmp(x, "MiB", 3) == 0 || strncmp(x, "KiB", 3) == 0)
		x += 3;
	else if (*x == 'B')
		x++;
	else
		return false;
	return strncmp(x, ":x", 2) == 0 && lagom_text_is_hundredths(x + 2, "");
}

/* Correction items, comma-separated, the last one perhaps "+N". */
static bool corrected_ok(const char *v, char *out, size_t len)
{
	char item[96];

	(void)out, (void)len;
	for (const char *p = v;; p++) {
		size_t n = strcspn(p, ",");

		if (n == 0 || n >= sizeof(item))
			return false;
		memcpy(item, p, n);
		item[n] = '\0';
		if (p != v && item[0] == '+' && p[n] == '\0')
			return lagom_text_is_uint(item + 1, 4);
		if (!correction_item(item))
			return false;
		p += n;
		if (*p == '\0')
			return true;
	}
}

static bool from_ok(const char *v, char *out, size_t len)
{
	(void)out, (void)len;
	return is_job_step(v);
}

/* spank/revert.c's "0.96x[0.94,0.98]/N" (doc/report.md), exactly as
 * it prints it. */
static bool reverted_ok(const char *v, char *out, size_t len)
{
	double x, lo, hi;
	unsigned n;
	int end = -1;
	char again[64];

	(void)out, (void)len;
	if (sscanf(v, "%lfx[%lf,%lf]/%u%n", &x, &lo, &hi, &n, &end) != 4 ||
	    end < 0 || v[end] != '\0' || !(x > 0 && x < 100) ||
	    !(lo > 0 && lo <= hi && hi < 100))
		return false;
	snprintf(again, sizeof(again), "%.2fx[%.2f,%.2f]/%u", x, lo, hi, n);
	return strcmp(again, v) == 0;
}

/* One of the planner's own reasons (planner/planner.h). */
static bool fallback_ok(const char *v, char *out, size_t len)
{
	static const char *const reasons[] = {
		LAGOM_PLANNER_FALLBACK_ONE_GPU,
		LAGOM_PLANNER_FALLBACK_UNPRICED,
	};

	(void)out, (void)len;
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(v, reasons[i]) == 0)
			return true;
	return false;
}

/* The calibration's line, "calibrated from N classes of M runs,
 * YYYY-MM-DD" (planner/calib.c), rebuilt from its numbers. */
static bool calibrated_ok(const char *v, char *out, size_t len)
{
	unsigned long long classes, runs;
	unsigned y, m, d;
	int end = -1;

	if (strncmp(v, "calibrated from ", 16) != 0 ||
	    !lagom_text_digits(v + 16, 9) ||
	    sscanf(v + 16, "%9llu classes of %9llu runs, %4u-%2u-%2u%n",
		   &classes, &runs, &y, &m, &d, &end) != 5 ||
	    end < 0 || v[16 + end] != '\0' || m < 1 || m > 12 || d < 1 ||
	    d > 31)
		return false;
	snprintf(out, len,
		 "calibrated from %llu classes of %llu runs, %04u-%02u-%02u",
		 classes, runs, y, m, d);
	return true;
}

/*
 * The table.  lead: what the field is written after, and how it is found:
 * a word field (" key=", no space in its value) is one of the
 * space-separated words before the first phrase; a phrase field (its value
 * may hold spaces) starts at the first lead in the text and runs to the
 * next phrase found, or to the end.  max: its longest value.  check NULL:
 * a field of node 0's own, written, never read.  otherwise: the value kept
 * when a word does not check (NULL: none, an earlier one stays).
 */
static const struct comment_row {
	const char *lead;
	bool phrase;
	size_t max;
	bool (*check)(const char *v, char *out, size_t len);
	const char *otherwise;
} rows[LAGOM_COMMENT_NFIELDS] = {
	/* [field] = { lead, phrase, max, check, otherwise } */
	[LAGOM_COMMENT_WORKLOAD] = { " workload=", false, 95, workload_ok,
				     "file" },
	[LAGOM_COMMENT_CHANNELS] = { " channels=", false, 15, channels_ok,
				     NULL },
	[LAGOM_COMMENT_CHUNK] = { " chunk=", false, 23, chunk_ok, NULL },
	[LAGOM_COMMENT_ALGO] = { " algo=", false, 95, algo_ok, NULL },
	[LAGOM_COMMENT_SPEEDUP] = { " speedup=", false, 15, speedup_ok, NULL },
	[LAGOM_COMMENT_CORRECTED] = { " corrected=", false, 319, corrected_ok,
				      NULL },
	[LAGOM_COMMENT_FROM] = { " from=", false, 31, from_ok, NULL },
	[LAGOM_COMMENT_REVERTED] = { " reverted=", false, 47, reverted_ok,
				     NULL },
	[LAGOM_COMMENT_FALLBACK] = { " fallback=", true, 255, fallback_ok,
				     NULL },
	[LAGOM_COMMENT_CALIBRATED] = { "; ", true, 255, calibrated_ok, NULL },
	/* node 0's own; the container's text has its own lead */
	[LAGOM_COMMENT_CONTAINER] = { "", true, 0, NULL, NULL },
	[LAGOM_COMMENT_MODE] = { " mode=", false, 0, NULL, NULL },
	[LAGOM_COMMENT_ARM] = { " arm=", false, 0, NULL, NULL },
	[LAGOM_COMMENT_SKIPPED] = { " skipped=", false, 0, NULL, NULL },
};

/* s appended at used, cut at len; the length the whole text would have. */
static size_t put(char *out, size_t len, size_t used, const char *s)
{
	size_t n = strlen(s);

	if (used < len) {
		size_t room = len - used - 1, k = n < room ? n : room;

		memcpy(out + used, s, k);
		out[used + k] = '\0';
	}
	return used + n;
}

size_t lagom_comment_text_write(const struct lagom_comment_text *c,
				const char *plan_id, char *out, size_t len)
{
	size_t used = 0;

	used = put(out, len, used, "lagom " PACKAGE_VERSION " plan=");
	used = put(out, len, used, plan_id);
	for (size_t f = 0; f < LAGOM_COMMENT_NFIELDS; f++)
		if (c->value[f]) {
			used = put(out, len, used, rows[f].lead);
			used = put(out, len, used, c->value[f]);
		}
	return used;
}

/* v (n bytes, not NUL-terminated) as field f's value, if it checks. */
static void take(struct lagom_comment_text *c, size_t f, const char *v,
		 size_t n)
{
	const struct comment_row *r = &rows[f];
	char in[LAGOM_COMMENT_VALUE_MAX], own[LAGOM_COMMENT_VALUE_MAX] = "";
	const char *keep = NULL;

	if (n <= r->max) {
		memcpy(in, v, n);
		in[n] = '\0';
		if (r->check(in, own, sizeof(own)))
			keep = own[0] ? own : in;
	}
	if (!keep)
		keep = r->otherwise;
	if (keep) {
		snprintf(c->store[f], sizeof(c->store[f]), "%s", keep);
		c->value[f] = c->store[f];
	}
}

/* A "key=value" word (n bytes at w): the value of its word field. */
static void word(struct lagom_comment_text *c, const char *w, size_t n)
{
	const char *eq = memchr(w, '=', n);
	size_t k = eq ? (size_t)(eq - w) : 0;

	if (!eq)
		return;
	for (size_t f = 0; f < LAGOM_COMMENT_NFIELDS; f++) {
		const char *lead = rows[f].lead; /* " key=" */

		if (rows[f].phrase || !rows[f].check)
			continue;
		if (strlen(lead) == k + 2 && strncmp(lead + 1, w, k + 1) == 0) {
			take(c, f, eq + 1, n - k - 1);
			return;
		}
	}
}

void lagom_comment_text_read(const char *text, struct lagom_comment_text *out)
{
	const char *stop = text + strlen(text);

	memset(out, 0, sizeof(*out));
	for (size_t f = LAGOM_COMMENT_NFIELDS; f-- > 0;) {
		const char *p;
		size_t lead;

		if (!rows[f].phrase || !rows[f].check ||
		    !(p = strstr(text, rows[f].lead)) || p >= stop)
			continue;
		lead = strlen(rows[f].lead);
		take(out, f, p + lead, (size_t)(stop - p) - lead);
		if (out->value[f])
			stop = p;
	}
	for (const char *p = text; p < stop;) {
		size_t n = strcspn(p, " ");

		if (n > (size_t)(stop - p))
			n = (size_t)(stop - p);
		word(out, p, n);
		p += n;
		p += p < stop && *p == ' ';
	}
}
