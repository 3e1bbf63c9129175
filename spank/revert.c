/*
 * spank/revert.c - revert what loses (doc/report.md): in srun, as it plans,
 * the step's own class (the user's step key) is judged on the user's own
 * records: the tuned runs of the plan srun just made against the class's
 * control runs.  When the speedup's 95 % interval lies entirely below 1,
 * the step runs NCCL's defaults (carrier mode revert) and says why.  A new
 * plan (the model, the profiles or the workload changed) has no tuned runs
 * yet and is tried again; more controls can lift the interval over 1.
 *
 * The class's runs are learn.c's: read in srun's one walk of the user's
 * own spool (measure_dir/USER), with srun's identity (the job's owner),
 * through measurement/arm.h's adapter (the strict readers); no node reads
 * measurements.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measurement/arm.h"
#include "spank/local_int.h"

/* The class's evidence about plan_id into est; 0, or -1 when none. */
static int judge(const struct lagom_state *st,
		 const struct lagom_class_runs *runs, const char *plan_id,
		 struct lagom_speedup *est)
{
	struct lagom_arm_class *cls;
	int rc = -1;

	if (!runs)
		return -1;
	if (runs->n_refused)
		lagom_say(&st->cfg, "revert: refused %s", runs->refused);
	if (runs->steps.n > 0 && (cls = malloc(sizeof(*cls))) != NULL) {
		lagom_arm_class_fill(cls, runs->steps.v, runs->steps.n,
				     plan_id);
		rc = lagom_speedup_estimate(cls->tuned_s, cls->n_tuned,
					    cls->control_s, cls->n_control,
					    est);
		free(cls);
	}
	return rc;
}

bool lagom_revert_srun(const struct lagom_state *st,
		       const struct lagom_step *step, enum lagom_mode mode,
		       const char *plan_id, const struct lagom_class_runs *runs,
		       char *why, size_t len)
{
	const struct lagom_measure_config *m = &st->cfg.measure;
	struct lagom_speedup est;

	if ((mode != LAGOM_MODE_AUTO && mode != LAGOM_MODE_EXPLAIN) || !m->on ||
	    !m->dir[0] || judge(st, runs, plan_id, &est) != 0 ||
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
