/*
 * spank/carrier_trust.c - what a node takes from a step plan text it cannot
 * trust (spank/carrier.h "Trust", doc/consistency.md "Trust"): the
 * variables lagom sets, with values of their kind, and a job comment
 * composed from the summary's validated fields.  Pure.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "common/nccl_names.h"
#include "model/model.h"
#include "planner/planner.h"
#include "spank/carrier.h"

/* n decimal digits (1..max) at p, no sign, no leading zero but "0". */
static size_t digits(const char *p, size_t max)
{
	size_t n = strspn(p, "0123456789");

	if (n == 0 || n > max || (n > 1 && p[0] == '0'))
		return 0;
	return n;
}

static bool is_uint(const char *v, size_t max)
{
	size_t n = digits(v, max);

	return n && v[n] == '\0';
}

/* "N.DD" followed by tail ("" or "x"). */
static bool is_hundredths(const char *v, const char *tail)
{
	size_t n = digits(v, 7);

	return n && v[n] == '.' && strspn(v + n + 1, "0123456789") == 2 &&
	       strcmp(v + n + 3, tail) == 0;
}

/* "JOB.STEP" */
static bool is_job_step(const char *v)
{
	size_t n = digits(v, 10);

	return n && v[n] == '.' && is_uint(v + n + 1, 10);
}

static bool in_names(const char *v, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return true;
	return false;
}

enum var_kind {
	VAR_UINT,
	VAR_ALGO,
	VAR_PROTO,
	VAR_ONE,
	VAR_TUNER,
	VAR_PLAN,
	VAR_PLAN_ID,
	VAR_SPEEDUP,
};

/* Every variable the planner sets (search/search.h lagom_search_env()). */
static const struct {
	const char *name;
	enum var_kind kind;
} known_vars[] = {
	{ "NCCL_MIN_CTAS", VAR_UINT },
	{ "NCCL_MAX_CTAS", VAR_UINT },
	{ "NCCL_BUFFSIZE", VAR_UINT },
	{ "NCCL_NTHREADS", VAR_UINT },
	{ "NCCL_CTA_POLICY", VAR_UINT },
	{ "NCCL_ALGO", VAR_ALGO },
	{ "NCCL_PROTO", VAR_PROTO },
	{ "NCCL_TUNER_PLUGIN", VAR_TUNER },
	{ "LAGOM_PLAN", VAR_PLAN },
	{ "TORCH_NCCL_HIGH_PRIORITY", VAR_ONE },
	{ "CUDA_DEVICE_MAX_CONNECTIONS", VAR_ONE },
	{ "LAGOM_PLAN_ID", VAR_PLAN_ID },
	{ "LAGOM_PREDICTED_SPEEDUP", VAR_SPEEDUP },
};
#define N_KNOWN_VARS (sizeof(known_vars) / sizeof(known_vars[0]))

static bool value_ok(enum var_kind kind, const char *v,
		     const struct lagom_carrier *c, const char *tuner)
{
	switch (kind) {
	case VAR_UINT:
		return is_uint(v, 19);
	case VAR_ALGO:
		return in_names(v, lagom_nccl_algo_names, LAGOM_NCCL_NUM_ALGOS);
	case VAR_PROTO:
		return in_names(v, lagom_nccl_proto_names,
				LAGOM_NCCL_NUM_PROTOS);
	case VAR_ONE:
		return strcmp(v, "1") == 0;
	case VAR_TUNER:
		return tuner && tuner[0] && strcmp(v, tuner) == 0;
	case VAR_PLAN:
		return strncmp(v, "lagom-plan ", 11) == 0;
	case VAR_PLAN_ID:
		return strcmp(v, c->plan_id) == 0;
	case VAR_SPEEDUP:
		return is_hundredths(v, "");
	}
	return false;
}

int lagom_carrier_vet(const struct lagom_carrier *c, const char *tuner,
		      struct lagom_error *err)
{
	bool seen[N_KNOWN_VARS] = { false };

	for (size_t i = 0; i < c->nvars; i++) {
		size_t k;

		for (k = 0; k < N_KNOWN_VARS; k++)
			if (strcmp(c->vars[i].name, known_vars[k].name) == 0)
				break;
		if (k == N_KNOWN_VARS)
			return lagom_errprintf(err, EPERM,
					       "variable %zu is not one lagom "
					       "sets",
					       i + 1);
		if (seen[k])
			return lagom_errprintf(err, EPERM, "%s given twice",
					       known_vars[k].name);
		seen[k] = true;
		if (!value_ok(known_vars[k].kind, c->vars[i].value, c, tuner))
			return lagom_errprintf(
				err, EPERM, "%s: %s", known_vars[k].name,
				known_vars[k].kind == VAR_TUNER
					? "not the tuner= of this node's "
					  "plugstack.conf"
					: "not a value lagom sets");
	}
	for (size_t k = 0; k < N_KNOWN_VARS; k++)
		if (known_vars[k].kind == VAR_TUNER &&
		    seen[k] != seen[k + 1]) /* LAGOM_PLAN follows it */
			return lagom_errprintf(err, EPERM,
					       "NCCL_TUNER_PLUGIN and "
					       "LAGOM_PLAN come together");
	return 0;
}

/* ---- The comment, from validated fields ---- */

/* A catalog workload option: dp, fsdp, a precision, or KEY + digits. */
static bool catalog_option(const char *o)
{
	static const char *const words[] = { "dp",   "fsdp", "fp32", "tf32",
					     "fp16", "bf16", "fp8" };
	static const char *const keyed[] = { "fsdp", "dp", "tp", "pp",
					     "ep",   "mb", "seq" };

	if (in_names(o, words, sizeof(words) / sizeof(words[0])))
		return true;
	for (size_t i = 0; i < sizeof(keyed) / sizeof(keyed[0]); i++) {
		size_t n = strlen(keyed[i]);

		if (strncmp(o, keyed[i], n) == 0 && is_uint(o + n, 6))
			return true;
	}
	return false;
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

static void workload_word(const char *w, char *out, size_t len)
{
	if (strcmp(w, "catalog-worst-case") == 0 || strcmp(w, "(file)") == 0 ||
	    (strncmp(w, "measured-", 9) == 0 && is_job_step(w + 9)))
		snprintf(out, len, "%s", w);
	else if (!catalog_name(w, out, len))
		snprintf(out, len, "file"); /* the user's own name */
}

/* "default", "N", "N-N" or "<=N" */
static bool channels_word(const char *v)
{
	size_t n;

	if (strcmp(v, "default") == 0)
		return true;
	if (strncmp(v, "<=", 2) == 0)
		return is_uint(v + 2, 4);
	n = digits(v, 4);
	return n && (v[n] == '\0' || (v[n] == '-' && is_uint(v + n + 1, 4)));
}

static bool chunk_word(const char *v)
{
	size_t n = digits(v, 12);

	return strcmp(v, "default") == 0 || (n && strcmp(v + n, "KiB") == 0);
}

static bool algo_word(const char *v)
{
	char name[32];

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
	n = digits(at + 1, 20);
	x = at + 1 + n;
	if (!n)
		return false;
	if (strncmp(x, "MiB", 3) == 0)
		x += 3;
	else if (strncmp(x, "KiB", 3) == 0)
		x += 3;
	else if (*x == 'B')
		x++;
	else
		return false;
	return strncmp(x, ":x", 2) == 0 && is_hundredths(x + 2, "");
}

static bool corrected_word(const char *v)
{
	char item[96];

	for (const char *p = v;; p++) {
		size_t n = strcspn(p, ",");

		if (n == 0 || n >= sizeof(item))
			return false;
		memcpy(item, p, n);
		item[n] = '\0';
		if (p != v && item[0] == '+' && p[n] == '\0')
			return is_uint(item + 1, 4);
		if (!correction_item(item))
			return false;
		p += n;
		if (*p == '\0')
			return true;
	}
}

/* The summary's fields that validate, each as "key=value" (a fixed-size
 * copy of a value that passed its grammar). */
struct summary_fields {
	char workload[96], channels[16], chunk[24], algo[96], speedup[16];
	char corrected[320], from[32], reverted[48];
	const char *fallback; /* the planner's own string */
	char calibrated[96];  /* "calibrated from N classes of M runs, DATE" */
};

static void take(char *dst, size_t len, const char *v, bool ok)
{
	if (ok && strlen(v) < len)
		strcpy(dst, v);
}

/* revert.c's "0.96x[0.94,0.98]/N" (doc/report.md), exactly. */
static bool reverted_word(const char *v)
{
	double s, lo, hi;
	unsigned n;
	int end = -1;
	char again[64];

	if (sscanf(v, "%lfx[%lf,%lf]/%u%n", &s, &lo, &hi, &n, &end) != 4 ||
	    end < 0 || v[end] != '\0' || !(s > 0 && s < 100) ||
	    !(lo > 0 && lo <= hi && hi < 100))
		return false;
	snprintf(again, sizeof(again), "%.2fx[%.2f,%.2f]/%u", s, lo, hi, n);
	return strcmp(again, v) == 0;
}

static void summary_word(struct summary_fields *f, const char *w)
{
	const char *eq = strchr(w, '=');
	const char *v = eq ? eq + 1 : "";
	size_t k = eq ? (size_t)(eq - w) : 0;

#define KEY(s) (k == strlen(s) && strncmp(w, s, k) == 0)
	if (KEY("workload"))
		workload_word(v, f->workload, sizeof(f->workload));
	else if (KEY("channels"))
		take(f->channels, sizeof(f->channels), v, channels_word(v));
	else if (KEY("chunk"))
		take(f->chunk, sizeof(f->chunk), v, chunk_word(v));
	else if (KEY("algo"))
		take(f->algo, sizeof(f->algo), v, algo_word(v));
	else if (KEY("speedup"))
		take(f->speedup, sizeof(f->speedup), v, is_hundredths(v, "x"));
	else if (KEY("corrected"))
		take(f->corrected, sizeof(f->corrected), v, corrected_word(v));
	else if (KEY("from"))
		take(f->from, sizeof(f->from), v, is_job_step(v));
	else if (KEY("reverted"))
		take(f->reverted, sizeof(f->reverted), v, reverted_word(v));
#undef KEY
}

/* The planner's calibration tail, "; calibrated from N classes of M runs,
 * YYYY-MM-DD" (planner/calib.c), rebuilt from its numbers into f; false when
 * t is not exactly that. */
static bool calibrated_tail(const char *t, struct summary_fields *f)
{
	unsigned long long classes, runs;
	unsigned y, m, d;
	int end = -1;

	if (strncmp(t, "; calibrated from ", 18) != 0 || !digits(t + 18, 9) ||
	    sscanf(t + 18, "%9llu classes of %9llu runs, %4u-%2u-%2u%n",
		   &classes, &runs, &y, &m, &d, &end) != 5 ||
	    end < 0 || t[18 + end] != '\0' || m < 1 || m > 12 || d < 1 ||
	    d > 31)
		return false;
	snprintf(f->calibrated, sizeof(f->calibrated),
		 "calibrated from %llu classes of %llu runs, %04u-%02u-%02u",
		 classes, runs, y, m, d);
	return true;
}

static void parse_summary(const char *s, struct summary_fields *f)
{
	static const char *const reasons[] = {
		LAGOM_PLANNER_FALLBACK_ONE_GPU,
		LAGOM_PLANNER_FALLBACK_UNPRICED,
	};
	const char *fb = strstr(s, " fallback=");
	const char *cal = strstr(s, "; calibrated from ");
	const char *stop;
	char word[LAGOM_CARRIER_SUMMARY_MAX];

	memset(f, 0, sizeof(*f));
	if (cal && !calibrated_tail(cal, f))
		cal = NULL;
	if (fb && cal && fb > cal)
		fb = NULL;
	if (fb)
		for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]);
		     i++) {
			size_t n = strlen(reasons[i]);

			if (strncmp(fb + 10, reasons[i], n) == 0 &&
			    (cal ? fb + 10 + n == cal : fb[10 + n] == '\0'))
				f->fallback = reasons[i];
		}
	stop = fb ? fb : cal;
	for (const char *p = s; *p && (!stop || p < stop);) {
		size_t n = strcspn(p, " ");

		if (stop && n > (size_t)(stop - p))
			n = (size_t)(stop - p);
		memcpy(word, p, n);
		word[n] = '\0';
		summary_word(f, word);
		p += n;
		p += *p == ' ';
	}
}

size_t lagom_carrier_comment(const struct lagom_carrier *c, char *out,
			     size_t len)
{
	struct summary_fields f;
	size_t used;

#define ADD(key, v)                                                      \
	do {                                                             \
		if ((v)[0] && used < len)                                \
			used += (size_t)snprintf(out + used, len - used, \
						 " " key "=%s", (v));    \
	} while (0)
	parse_summary(c->summary, &f);
	used = (size_t)snprintf(out, len, "lagom %s plan=%s", PACKAGE_VERSION,
				c->plan_id);
	ADD("workload", f.workload);
	ADD("channels", f.channels);
	ADD("chunk", f.chunk);
	ADD("algo", f.algo);
	ADD("speedup", f.speedup);
	ADD("corrected", f.corrected);
	ADD("from", f.from);
	ADD("reverted", f.reverted);
	ADD("fallback", f.fallback ? f.fallback : "");
	if (f.calibrated[0] && used < len)
		used += (size_t)snprintf(out + used, len - used, "; %s",
					 f.calibrated);
#undef ADD
	return used < len ? used : len - 1;
}
