/*
 * cli/report_int.h - `lagom report` internals (doc/report.md): the steps
 * read from the spool, the classes they form, and the printers.
 *
 * cli/report_spool.c walks the users (the steps through measurement/arm.h's
 * adapter); cli/cmd_report.c groups steps into classes and estimates
 * (measurement/stats.h); cli/report_html.c writes the page.
 */
#ifndef LAGOM_CLI_REPORT_INT_H
#define LAGOM_CLI_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "measurement/arm.h"
#include "measurement/stats.h"

/*
 * Every step under spool (spool/USER/JOB.STEP) of user (NULL: every user,
 * root only), each to fn(step, ctx), through measurement/arm.h's adapter;
 * a refused file costs one "lagom: " line and counts in *refused.  0, or
 * CLI_FAIL.
 */
int report_spool_walk(const char *spool, const char *user,
		      void (*fn)(const struct lagom_arm_step *s, void *ctx),
		      void *ctx, unsigned *refused);

/* One class: the steps of one user and one key. */
struct report_class {
	long uid;
	char user[LAGOM_ARM_USER_MAX];
	char key[LAGOM_LEARN_KEY_MAX]; /* the key's one line, no newline */
	struct lagom_arm_class *runs;  /* owned */
	struct lagom_speedup est;
	double saved_gpu_h, saved_lo_h, saved_hi_h; /* 0 without interval */
};

struct report_site {
	size_t classes, compared; /* compared: with an interval */
	size_t users;		  /* users of the compared classes */
	double saved_gpu_h, saved_lo_h, saved_hi_h;
};

/* GPU-hours as printed to 2 decimals: 0 for what rounds to 0, never
 * "-0.00". */
static inline double report_hours(double h)
{
	return h > -0.005 && h < 0.005 ? 0 : h;
}

/* The page: a self-contained HTML document with inline SVG. */
void report_html(FILE *out, const struct report_class *c, size_t n,
		 const struct report_site *site, const char *spool);

#endif /* LAGOM_CLI_REPORT_INT_H */
