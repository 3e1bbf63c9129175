/*
 * cli/cmd_report.c - `lagom report`: per class of recurring step (a user's
 * step key), lagom's tuned steps against the control arm's (doc/report.md):
 * runs and median time of each, the measured speedup with its 95 %
 * interval (measurement/stats.h), the predicted speedup beside it, a
 * verdict, and the site's GPU-hours saved or lost.  Root sees every user;
 * anyone else their own steps.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/report_int.h"
#include "measurement/spool.h"

#define DEFAULT_SPOOL "/var/spool/lagom"
#define MAX_CLASSES 4096

static const char report_usage[] =
	"Usage: lagom report [--spool DIR] [--user NAME] "
	"[--format text|json|html]\n"
	"\n"
	"Compare lagom's tuned steps with the control arm's (NCCL's defaults, "
	"measured),\n"
	"per class of recurring step: runs, median times, the measured "
	"speedup with a\n"
	"95 % interval, the predicted one, a verdict, and the GPU-hours "
	"saved or lost.\n"
	"Root sees every user under DIR; anyone else their own steps.\n"
	"\n"
	"Options:\n"
	"  --spool DIR              the admin's measurement spool (default "
	"" DEFAULT_SPOOL ")\n"
	"  --user NAME              only NAME's steps (root; others: "
	"themselves)\n"
	"  --format text|json|html  output format (default text); html is "
	"one\n"
	"                           self-contained page with SVG charts\n"
	"  -h, --help               this help\n";

static int same_class(const struct lagom_arm_step *a,
		      const struct lagom_arm_step *b)
{
	return a->uid == b->uid && strcmp(a->key, b->key) == 0;
}

/* Steps of one class together, in spool order (job.step) within it. */
static int cmp_steps(const void *pa, const void *pb)
{
	const struct lagom_arm_step *a = pa, *b = pb;
	int c = strcmp(a->user, b->user);

	if (c)
		return c;
	if (a->uid != b->uid)
		return a->uid < b->uid ? -1 : 1;
	if ((c = strcmp(a->key, b->key)) != 0)
		return c;
	return lagom_spool_cmp(a->dir, b->dir);
}

static bool compared(enum lagom_arm arm)
{
	return arm != LAGOM_ARM_UNTUNED;
}

/* The class of steps s[0..n) (measurement/arm.h) and its estimate. */
static int fill_class(struct report_class *c, const struct lagom_arm_step *s,
		      size_t n)
{
	c->uid = s[0].uid;
	snprintf(c->user, sizeof(c->user), "%s", s[0].user);
	snprintf(c->key, sizeof(c->key), "%s", s[0].key + 12);
	c->key[strcspn(c->key, "\n")] = '\0';
	c->runs = malloc(sizeof(*c->runs));
	if (!c->runs)
		return -ENOMEM;
	lagom_arm_class_fill(c->runs, s, n, NULL);
	return lagom_speedup_estimate(c->runs->tuned_s, c->runs->n_tuned,
				      c->runs->control_s, c->runs->n_control,
				      &c->est);
}

/* GPU-hours saved by the tuned runs: each would have taken speedup times
 * as long at NCCL's defaults; the interval from the speedup's. */
static void fill_savings(struct report_class *c)
{
	double h = c->runs->tuned_gpu_s / 3600;

	if (c->est.verdict == LAGOM_VERDICT_TOO_FEW)
		return;
	c->saved_gpu_h = h * (c->est.speedup - 1);
	c->saved_lo_h = h * (c->est.lo - 1);
	c->saved_hi_h = h * (c->est.hi - 1);
}

static void fill_site(struct report_site *site, const struct report_class *c,
		      size_t n)
{
	size_t i, j;

	memset(site, 0, sizeof(*site));
	site->classes = n;
	for (i = 0; i < n; i++) {
		bool seen = false;

		if (c[i].est.verdict == LAGOM_VERDICT_TOO_FEW)
			continue;
		site->compared++;
		site->saved_gpu_h += c[i].saved_gpu_h;
		site->saved_lo_h += c[i].saved_lo_h;
		site->saved_hi_h += c[i].saved_hi_h;
		for (j = 0; j < i && !seen; j++)
			seen = c[j].uid == c[i].uid &&
			       c[j].est.verdict != LAGOM_VERDICT_TOO_FEW;
		site->users += !seen;
	}
}

static void free_classes(struct report_class *c, size_t n)
{
	size_t i;

	for (i = 0; c && i < n; i++) {
		free(c[i].runs);
	}
	free(c);
}

/* Group the sorted steps into classes with at least one compared run. */
static int build_classes(struct lagom_arm_steps *st, struct report_class **out,
			 size_t *n_out)
{
	struct report_class *c = calloc(MAX_CLASSES, sizeof(*c));
	size_t i = 0, j, n = 0;
	int rc = 0;

	if (!c)
		return -ENOMEM;
	qsort(st->v, st->n, sizeof(*st->v), cmp_steps);
	while (i < st->n && n < MAX_CLASSES && rc == 0) {
		bool any = false;

		for (j = i; j < st->n && same_class(&st->v[i], &st->v[j]); j++)
			any = any || compared(st->v[j].arm);
		if (any) {
			rc = fill_class(&c[n], &st->v[i], j - i);
			fill_savings(&c[n]);
			n++;
		}
		i = j;
	}
	if (rc) {
		free_classes(c, n);
		return rc;
	}
	*out = c;
	*n_out = n;
	return 0;
}

static void fmt_ms(char *buf, size_t len, double s, size_t n)
{
	if (n)
		snprintf(buf, len, "%.3f", s * 1e3);
	else
		snprintf(buf, len, "-");
}

static void print_text(const struct report_class *c, size_t n,
		       const struct report_site *site, const char *spool)
{
	static const char *const hdr[] = {
		"USER",	     "CLASS",	   "TUNED",   "CONTROL",
		"TUNED_MS",  "CONTROL_MS", "SPEEDUP", "95%_INTERVAL",
		"PREDICTED", "VERDICT",
	};
	static const bool right[] = { 0, 0, 1, 1, 1, 1, 1, 1, 1, 0 };
	struct cli_table *t = cli_table_create(10, hdr, right);
	size_t i;

	printf("lagom report: %zu class(es) under %s (tuned against control: "
	       "NCCL's defaults, measured)\n",
	       n, spool);
	for (i = 0; t && i < n; i++) {
		const struct lagom_speedup *e = &c[i].est;
		char tm[32], cm[32], sp[32] = "-", iv[48] = "-", pr[32] = "-";

		fmt_ms(tm, sizeof(tm), e->median_tuned_s, e->n_tuned);
		fmt_ms(cm, sizeof(cm), e->median_control_s, e->n_control);
		if (e->speedup > 0)
			snprintf(sp, sizeof(sp), "%.3fx", e->speedup);
		if (e->verdict != LAGOM_VERDICT_TOO_FEW)
			snprintf(iv, sizeof(iv), "[%.3f, %.3f]", e->lo, e->hi);
		if (c[i].runs->predicted_speedup > 0)
			snprintf(pr, sizeof(pr), "%.3fx",
				 c[i].runs->predicted_speedup);
		cli_table_addf(t, "%s\t%s\t%zu\t%zu\t%s\t%s\t%s\t%s\t%s\t%s",
			       c[i].user, c[i].key, e->n_tuned, e->n_control,
			       tm, cm, sp, iv, pr,
			       lagom_verdict_name(e->verdict));
	}
	if (t && n)
		cli_table_print(t, stdout, "  ");
	cli_table_destroy(t);
	printf("site: %.2f GPU-hours saved [%.2f, %.2f] by tuned steps, over "
	       "%zu of %zu class(es) with an interval, resting on %zu "
	       "user(s)\n",
	       report_hours(site->saved_gpu_h), report_hours(site->saved_lo_h),
	       report_hours(site->saved_hi_h), site->compared, site->classes,
	       site->users);
}

static json_t *num_or_null(double v, bool known)
{
	return known ? json_real(v) : json_null();
}

static json_t *class_json(const struct report_class *c)
{
	const struct lagom_speedup *e = &c->est;
	bool iv = e->verdict != LAGOM_VERDICT_TOO_FEW;

	return json_pack(
		"{s:s, s:I, s:s, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:o, "
		"s:o, s:o, s:o, s:b, s:o, s:s, s:f, s:o, s:o, s:o}",
		"user", c->user, "uid", (json_int_t)c->uid, "class", c->key,
		"metric", c->runs->by_iteration ? "iteration" : "collectives",
		"plan", c->runs->plan, "tuned_runs", (json_int_t)e->n_tuned,
		"control_runs", (json_int_t)e->n_control, "measure_runs",
		(json_int_t)c->runs->n_measure, "median_tuned_ms",
		num_or_null(e->median_tuned_s * 1e3, e->n_tuned),
		"median_control_ms",
		num_or_null(e->median_control_s * 1e3, e->n_control), "speedup",
		num_or_null(e->speedup, e->speedup > 0), "lo",
		num_or_null(e->lo, iv), "hi", num_or_null(e->hi, iv), "level",
		num_or_null(e->level, iv), "exact", e->exact,
		"predicted_speedup",
		num_or_null(c->runs->predicted_speedup,
			    c->runs->predicted_speedup > 0),
		"verdict", lagom_verdict_name(e->verdict), "tuned_gpu_hours",
		c->runs->tuned_gpu_s / 3600, "saved_gpu_hours",
		num_or_null(c->saved_gpu_h, iv), "saved_lo_gpu_hours",
		num_or_null(c->saved_lo_h, iv), "saved_hi_gpu_hours",
		num_or_null(c->saved_hi_h, iv));
}

static int print_json(const struct report_class *c, size_t n,
		      const struct report_site *site, const char *spool)
{
	json_t *doc = cli_json_doc("report"), *classes = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(classes, class_json(&c[i]));
	json_object_set_new(doc, "spool", json_string(spool));
	json_object_set_new(doc, "method",
			    json_string("hodges-lehmann-log-ratio, "
					"mann-whitney-95"));
	json_object_set_new(doc, "classes", classes);
	json_object_set_new(doc, "site",
			    json_pack("{s:I, s:I, s:I, s:f, s:f, s:f}",
				      "classes", (json_int_t)site->classes,
				      "compared", (json_int_t)site->compared,
				      "users", (json_int_t)site->users,
				      "saved_gpu_hours", site->saved_gpu_h,
				      "saved_lo_gpu_hours", site->saved_lo_h,
				      "saved_hi_gpu_hours", site->saved_hi_h));
	return cli_json_print(doc);
}

struct report_args {
	const char *spool, *user;
	enum cli_format format;
	bool html;
};

static int report_opt(void *ctx, int value, const char *arg)
{
	struct report_args *a = ctx;

	if (value == 's')
		a->spool = arg;
	else if (value == 'u')
		a->user = arg;
	else if (strcmp(arg, "html") == 0)
		a->html = true;
	else
		return cli_parse_format(arg, &a->format);
	return 0;
}

static int parse_args(int argc, char **argv, struct report_args *a)
{
	static const struct option longopts[] = {
		{ "spool", required_argument, NULL, 's' },
		{ "user", required_argument, NULL, 'u' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt(argc, argv, "report", "+h", longopts, report_usage,
			    report_opt, a);

	if (rc)
		return rc;
	return cli_no_operand("report", argc, argv);
}

/* Whose steps: root, everyone's or --user's; anyone else, their own. */
static int whose(const struct report_args *a, char *user, size_t len)
{
	struct passwd *me = getpwuid(getuid());

	if (getuid() == 0) {
		if (a->user && !getpwnam(a->user))
			return cli_fail(CLI_USAGE, "report: unknown user '%s'",
					a->user);
		snprintf(user, len, "%s", a->user ? a->user : "");
		return CLI_OK;
	}
	if (!me)
		return cli_fail(CLI_FAIL, "report: who are you? (uid %u)",
				(unsigned)getuid());
	if (a->user && strcmp(a->user, me->pw_name) != 0)
		return cli_fail(CLI_USAGE,
				"report: --user %s: only root sees another "
				"user's steps",
				a->user);
	snprintf(user, len, "%s", me->pw_name);
	return CLI_OK;
}

static int output(const struct report_args *a, const struct report_class *c,
		  size_t n, const struct report_site *site)
{
	if (a->html) {
		report_html(stdout, c, n, site, a->spool);
		return CLI_OK;
	}
	if (a->format == CLI_JSON)
		return print_json(c, n, site, a->spool);
	print_text(c, n, site, a->spool);
	return CLI_OK;
}

int cli_cmd_report(int argc, char **argv)
{
	struct report_args a = { .spool = DEFAULT_SPOOL, .format = CLI_TEXT };
	struct lagom_arm_steps st = { 0 };
	struct report_class *c = NULL;
	struct report_site site;
	char user[LAGOM_ARM_USER_MAX];
	unsigned refused = 0;
	size_t n = 0;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	rc = whose(&a, user, sizeof(user));
	if (rc)
		return rc;
	rc = report_spool_walk(a.spool, user[0] ? user : NULL,
			       lagom_arm_steps_fn, &st, &refused);
	if (rc == CLI_OK && (st.full || build_classes(&st, &c, &n) != 0))
		rc = cli_fail(CLI_FAIL, "report: out of memory");
	lagom_arm_steps_free(&st);
	if (rc)
		return rc;
	fill_site(&site, c, n);
	rc = output(&a, c, n, &site);
	free_classes(c, n);
	return rc == CLI_OK && refused ? CLI_FAIL : rc;
}
