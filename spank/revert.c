/*
 * spank/revert.c - revert what loses (doc/report.md): in srun, as it plans,
 * the step's own class (the user's step key) is judged on the user's own
 * records: the tuned runs of the plan srun just made against the class's
 * control runs.  When the speedup's 95 % interval lies entirely below 1,
 * the step runs NCCL's defaults (carrier mode revert) and says why.  A new
 * plan (the model, the profiles or the workload changed) has no tuned runs
 * yet and is tried again; more controls can lift the interval over 1.
 *
 * Read once per step in srun, with srun's identity (the job's owner), only
 * under measure_dir/USER, through measurement/arm.h's adapter (the strict
 * readers); no node reads measurements.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measurement/arm.h"
#include "spank/local_int.h"

#define MAX_STEPS 4096

struct evidence {
	struct lagom_arm_step *v;
	size_t n, cap;
	const struct lagom_state *st;
	unsigned refused;
};

static void collect(const struct lagom_arm_step *s, void *ctx)
{
	struct evidence *e = ctx;

	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 32;
		struct lagom_arm_step *v;

		if (cap > MAX_STEPS || !(v = realloc(e->v, cap * sizeof(*v))))
			return;
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = *s;
}

static void refused(const char *why, void *ctx)
{
	struct evidence *e = ctx;

	if (e->refused++ == 0)
		lagom_say(&e->st->cfg, "revert: refused %s", why);
}

/* The class's evidence about plan_id into est; 0, or -1 when none. */
static int judge(const struct lagom_state *st, const struct lagom_step *step,
		 const char *plan_id, struct lagom_speedup *est)
{
	const struct lagom_measure_config *m = &st->cfg.measure;
	const char *key = getenv(LAGOM_STEP_KEY_VAR);
	struct evidence e = { .st = st };
	struct lagom_arm_class *cls = NULL;
	char user[64], dir[2048];
	uid_t uid = getuid();
	int rc = -1;

	if (!key || !key[0] || uid != step->uid ||
	    lagom_measure_user_name(uid, user, sizeof(user)) != 0 ||
	    (size_t)snprintf(dir, sizeof(dir), "%s/%s", m->dir, user) >=
		    sizeof(dir))
		return -1;
	if (lagom_arm_spool_user(dir, (long)uid, user, key, collect, refused,
				 &e) == 0 &&
	    e.n > 0 && (cls = malloc(sizeof(*cls))) != NULL) {
		lagom_arm_class_fill(cls, e.v, e.n, plan_id);
		rc = lagom_speedup_estimate(cls->tuned_s, cls->n_tuned,
					    cls->control_s, cls->n_control,
					    est);
	}
	free(cls);
	free(e.v);
	return rc;
}

bool lagom_revert_srun(const struct lagom_state *st,
		       const struct lagom_step *step, enum lagom_mode mode,
		       const char *plan_id, char *why, size_t len)
{
	const struct lagom_measure_config *m = &st->cfg.measure;
	struct lagom_speedup est;

	if ((mode != LAGOM_MODE_AUTO && mode != LAGOM_MODE_EXPLAIN) || !m->on ||
	    !m->dir[0] || judge(st, step, plan_id, &est) != 0 ||
	    est.verdict != LAGOM_VERDICT_LOSS)
		return false;
	snprintf(why, len, "%.2fx[%.2f,%.2f]/%zu", est.speedup, est.lo, est.hi,
		 est.n_tuned + est.n_control);
	lagom_say(&st->cfg,
		  "job %u.%u: reverted: measured %.2fx [%.2f, %.2f] over %zu "
		  "runs (%zu tuned with plan %s, %zu control): NCCL's defaults",
		  step->job_id, step->step_id, est.speedup, est.lo, est.hi,
		  est.n_tuned + est.n_control, est.n_tuned, plan_id,
		  est.n_control);
	return true;
}
