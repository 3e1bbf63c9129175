/*
 * measurement/arm.h - the control arm's evidence (doc/report.md): the
 * measured steps of a user's spool as tuned or control runs, and one
 * class's runs as the two samples measurement/stats.h compares.  Read by
 * `lagom report` (every class) and by srun (the step's own class, to
 * revert a plan that measures slower).
 *
 * arm_spool.c is the one adapter to the spool's layout (doc/profiler.md):
 * it reads with the caller's privileges through the strict record, key and
 * predictions readers.  arm.c is pure.
 */
#ifndef LAGOM_MEASUREMENT_ARM_H
#define LAGOM_MEASUREMENT_ARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measurement/learn.h"
#include "measurement/record.h"
#include "measurement/spool.h"
#include "measurement/stats.h"

#define LAGOM_ARM_USER_MAX 64

enum lagom_arm {
	LAGOM_ARM_TUNED,   /* ran lagom's plan */
	LAGOM_ARM_CONTROL, /* the control arm: NCCL's defaults, measured */
	LAGOM_ARM_MEASURE, /* --lagom=measure: the same, on the user's request */
	LAGOM_ARM_UNTUNED, /* no plan, no control: not compared (a reverted
			      step, an older untuned one) */
};

/* One measured step. */
struct lagom_arm_step {
	long uid;
	char user[LAGOM_ARM_USER_MAX];
	char dir[256]; /* JOB.STEP */
	char key[LAGOM_LEARN_KEY_MAX];
	enum lagom_arm arm;
	char plan[24];		  /* the plan run, or the one a control
				     stood in for; "" when unknown */
	double predicted_speedup; /* 0: unknown */
	double iteration_s;	  /* mean measured iteration; 0: none */
	double comm_s;		  /* GPU time in collectives per task */
	double gpu_s;		  /* wall time x tasks */
	unsigned tasks;
	uint64_t end_unix; /* when its last record was written */
};

/* A growing list of steps, for a walk's fn (lagom_arm_steps_fn). */
struct lagom_arm_steps {
	struct lagom_arm_step *v;
	size_t n, cap;
	size_t max;	/* the most kept (0: no limit) */
	bool full;	/* a step was not kept: max reached, or no memory */
	bool no_memory; /* ... for want of memory */
};
/* fn for the walks below: s appended to the list ctx. */
void lagom_arm_steps_fn(const struct lagom_arm_step *s, void *ctx);
void lagom_arm_steps_free(struct lagom_arm_steps *l);

/*
 * Every step under user_dir (SPOOL/USER, owned by uid) whose key is key
 * (the whole STEP/key text; NULL: every key), in name order, each to
 * fn(step, ctx).  A refused file (a link, not regular, someone else's, too
 * large, corrupt) goes to refused(why, ctx) (may be NULL) and the rest is
 * read; a step with no key or no record is skipped.  0, or -ENOMEM.
 */
int lagom_arm_spool_user(const char *user_dir, long uid, const char *user,
			 const char *key,
			 void (*fn)(const struct lagom_arm_step *s, void *ctx),
			 void (*refused)(const char *why, void *ctx),
			 void *ctx);

/*
 * The same walk of one user's directory (user_fd, owned by uid; the
 * caller's), with more for a caller that reads the records themselves
 * (srun, spank/learn.c: what it learns from and the class's runs, in one
 * walk): each record of a step read goes to on_record as well, parsed
 * (rec), or refused (rec NULL, err saying why; refused() had it first).
 */
struct lagom_arm_walk {
	const char *key;   /* the whole STEP/key text; NULL: every key */
	bool latest_first; /* the steps from the latest (spool.h) */
	/* Each step of key, its key read, before anything else of it:
	 * LAGOM_SPOOL_NEXT (read it), LAGOM_SPOOL_SKIP (its records not
	 * read, it is not yielded), LAGOM_SPOOL_STOP (end the walk). */
	int (*on_step)(void *ctx, const struct lagom_spool_at *at);
	void (*on_record)(void *ctx, const struct lagom_spool_at *at,
			  const struct lagom_rec *rec,
			  const struct lagom_error *err);
	/* Each step read (NULL: none; its predictions are then not read). */
	void (*fn)(const struct lagom_arm_step *s, void *ctx);
	void (*refused)(const char *why, void *ctx); /* may be NULL */
	void *ctx;
};
int lagom_arm_spool_walk(int user_fd, long uid, const char *user,
			 const struct lagom_arm_walk *w);

/* The same for every user of the spool root (measurement/spool.h's walk,
 * its order and its limits per user); a user directory whose owner is
 * not the user it names is refused.  0, or -ENOMEM. */
int lagom_arm_spool_root(const char *root,
			 void (*fn)(const struct lagom_arm_step *s, void *ctx),
			 void (*refused)(const char *why, void *ctx),
			 void *ctx);

/* One class's two samples: the latest LAGOM_STATS_MAX_RUNS runs of each
 * arm (control and measure together), by iteration when every compared
 * step has one, else by GPU time in collectives. */
struct lagom_arm_class {
	bool by_iteration;
	size_t n_tuned, n_control, n_measure;
	double tuned_s[LAGOM_STATS_MAX_RUNS], control_s[LAGOM_STATS_MAX_RUNS];
	double tuned_gpu_s;	  /* wall time x tasks of the tuned runs */
	double predicted_speedup; /* median of the steps'; 0: unknown */
	char plan[24];		  /* the latest compared step's plan */
};

/*
 * Fill c from steps s[0..n) of one class, in run order (latest last).
 * plan: only tuned runs of that plan count (NULL: every plan's).
 */
void lagom_arm_class_fill(struct lagom_arm_class *c,
			  const struct lagom_arm_step *s, size_t n,
			  const char *plan);

#endif /* LAGOM_MEASUREMENT_ARM_H */
