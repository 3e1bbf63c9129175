/*
 * spank/local_int.h - lagom.so in srun (local context), sbatch and salloc
 * (allocator context): local.c, with learn.c's and spool.c's srun halves.
 * No state of its own: lagom_g (spank/lagom.h) holds the options.
 */
#ifndef LAGOM_SPANK_LOCAL_INT_H
#define LAGOM_SPANK_LOCAL_INT_H

#include "measurement/arm.h"
#include "spank/lagom.h"

/* local.c: srun (local) and sbatch/salloc (allocator) contexts. */
int lagom_local_init_post_opt(spank_t sp, struct lagom_state *st);
int lagom_local_user_init(spank_t sp, struct lagom_state *st);
/* srun: replace the plan carrier and the variables beside it, inherited
 * from the user's environment, with "" (no plan); lagom.c calls it before
 * anything else, also when plugstack.conf's line is bad. */
void lagom_local_drop_inherited(void);

/* spool.c: the plan's predictions into LAGOM_PREDICTED_VAR (for the
 * nodes), with the arm line of a control or measure mode; nothing when
 * measurement is off. */
void lagom_spank_spool_carry_predicted(const struct lagom_state *st,
				       const struct lagom_planner_result *res,
				       enum lagom_mode mode);
/*
 * The class's measured runs, read by learn.c in the walk it learns from
 * (doc/report.md): every measured step of the step's key in the user's
 * spool (the latest 4096), in run order (the latest last), for revert.c.
 * refused: the first file refused on the way ("" none), of n_refused.
 */
struct lagom_class_runs {
	struct lagom_arm_steps steps;
	unsigned n_refused;
	char refused[LAGOM_SPOOL_NAME_MAX * 12 + LAGOM_ERROR_TEXT_MAX + 16];
};
void lagom_class_runs_free(struct lagom_class_runs *runs);

/*
 * learn.c: planning from measurements, once per step in srun (as the
 * user, where the plan is made), in one walk of the user's spool.
 * lagom_learn_srun() puts the step's key into LAGOM_STEP_KEY_VAR (for the
 * nodes) and returns what the latest earlier step of that key measured
 * (srun_planner.h, struct lagom_learned: the workload of its iteration unless the
 * user named one, and its measured classes for the planner's correction;
 * free with lagom_learned_destroy) or NULL; say() gets one line per
 * refused record of that step.  When the step's mode is auto or explain
 * (the modes revert.c judges), *runs gets the class's runs (free with
 * lagom_class_runs_free), else NULL.  (The node half,
 * lagom_learn_write_key(), is in spank/remote_int.h.)
 */
struct lagom_learned *lagom_learn_srun(const struct lagom_state *st,
				       const struct lagom_step *step,
				       void (*say)(const char *, void *),
				       void *ctx,
				       struct lagom_class_runs **runs);

/*
 * revert.c: whether the step's class measured slower under plan_id than
 * its controls (doc/report.md), judged on runs (learn.c's; NULL: none):
 * true, with why ("0.96x[0.94,0.98]/N", the carrier summary's reverted=
 * word) and one line for srun -v, when the 95 % interval lies below 1
 * (mode auto or explain, measurement on).
 */
bool lagom_revert_srun(const struct lagom_state *st,
		       const struct lagom_step *step, enum lagom_mode mode,
		       const char *plan_id, const struct lagom_class_runs *runs,
		       char *why, size_t len);

#endif /* LAGOM_SPANK_LOCAL_INT_H */
