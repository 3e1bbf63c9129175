/*
 * cli/report_int.h - `lagom report` internals (doc/report.md): the steps
 * read from the spool, the classes they form, and the printers.
 *
 * cli/report_spool.c holds the one adapter that reads the spool
 * (report_spool_walk); cli/cmd_report.c groups steps into classes and
 * estimates (measurement/stats.h); cli/report_html.c writes the page.
 */
#ifndef LAGOM_CLI_REPORT_INT_H
#define LAGOM_CLI_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "measurement/learn.h"
#include "measurement/stats.h"

#define REPORT_USER_MAX 64

enum report_arm {
	REPORT_TUNED,	/* ran lagom's plan */
	REPORT_CONTROL, /* the control arm: NCCL's defaults, measured */
	REPORT_MEASURE, /* --lagom=measure: the same, on the user's request */
	REPORT_UNTUNED, /* no plan and no arm line: not compared */
};

/* One measured step, as the adapter hands it over. */
struct report_step {
	long uid;
	char user[REPORT_USER_MAX];
	char dir[256]; /* JOB.STEP */
	char key[LAGOM_LEARN_KEY_MAX];
	enum report_arm arm;
	char plan[24];		  /* the plan run, or the one a control
				     would have run; "" when unknown */
	double predicted_speedup; /* 0: unknown */
	double iteration_s;	  /* mean measured iteration; 0: none */
	double comm_s;		  /* GPU time in collectives per task */
	double gpu_s;		  /* wall time x tasks */
	unsigned tasks;
};

/*
 * The adapter: every step under spool (spool/USER/JOB.STEP) of user
 * (NULL: every user, root only), each to fn(step, ctx).  Records, the key
 * and the predictions are read with the invoker's privileges through the
 * strict readers, owned by the user the directory names; a refused file
 * costs one "lagom: " line and *refused is counted.  A step with no key
 * or no record is skipped.  0, or CLI_FAIL when the spool cannot be read.
 */
int report_spool_walk(const char *spool, const char *user,
		      void (*fn)(const struct report_step *s, void *ctx),
		      void *ctx, unsigned *refused);

/* One class: the steps of one user and one key. */
struct report_class {
	long uid;
	char user[REPORT_USER_MAX];
	char key[LAGOM_LEARN_KEY_MAX]; /* the key's one line, no newline */
	bool by_iteration;	       /* else by collective time */
	size_t n_tuned, n_control, n_measure;
	double *tuned_s, *control_s; /* the latest LAGOM_STATS_MAX_RUNS */
	double predicted_speedup;    /* median of the steps'; 0: unknown */
	char plan[24];		     /* the latest step's plan */
	double tuned_gpu_s;
	struct lagom_speedup est;
	double saved_gpu_h, saved_lo_h, saved_hi_h; /* 0 without interval */
};

struct report_site {
	size_t classes, compared; /* compared: with an interval */
	size_t users;		  /* users of the compared classes */
	double saved_gpu_h, saved_lo_h, saved_hi_h;
};

/* The page: a self-contained HTML document with inline SVG. */
void report_html(FILE *out, const struct report_class *c, size_t n,
		 const struct report_site *site, const char *spool);

#endif /* LAGOM_CLI_REPORT_INT_H */
