/*
 * spank/srun_planner.h - srun's one call into the planner
 * (planner/planner.h) for a job step (spank/step.h).  srun_planner.c is
 * the only file that calls the planner or reads a user's workload file, so
 * the unit tests of the callbacks replace it with a stub
 * (tests/spank/stub.c).
 */
#ifndef LAGOM_SPANK_SRUN_PLANNER_H
#define LAGOM_SPANK_SRUN_PLANNER_H

#include "common/error.h"
#include "plugstack/plugstack.h"
#include "planner/planner.h"
#include "spank/step.h"

/*
 * Compute the plan of a step.  workload is the --lagom-workload value or
 * NULL: a value containing '/' or ending in ".json" is a file, read here
 * with the caller's privileges (relative paths against step->cwd); anything
 * else is a catalog name.  On success *out is a planner result to free with
 * lagom_planner_result_destroy().  Returns 0 or a negative errno with err
 * filled (the caller fails open).
 */
int lagom_srun_plan(const struct lagom_config *cfg,
		    const struct lagom_step *step, const char *workload,
		    struct lagom_planner_result **out, struct lagom_error *err);

/*
 * What srun learned from an earlier measured step of the same key
 * (spank/learn.c): the workload of its measured iteration (NULL when the
 * user named a workload) and its measured collective classes, from which
 * the planner corrects the model (planner.h, struct
 * lagom_planner_measured).  Free with lagom_learned_destroy().
 */
struct lagom_workload;
struct lagom_learned {
	struct lagom_workload *workload;	/* owned, or NULL */
	struct lagom_planner_measured measured; /* cls owned */
};
void lagom_learned_destroy(struct lagom_learned *learned);

/* The same with what was learned (borrowed): its workload, when it has
 * one, instead of workload, and its measured classes. */
int lagom_srun_plan_learned(const struct lagom_config *cfg,
			    const struct lagom_step *step, const char *workload,
			    const struct lagom_learned *learned,
			    struct lagom_planner_result **out,
			    struct lagom_error *err);

#endif /* LAGOM_SPANK_SRUN_PLANNER_H */
