/*
 * spank/local.c - srun (local) and sbatch/salloc (allocator) contexts.
 *
 * srun plans once per step (doc/consistency.md).  In local_user_init the
 * step exists: srun reads its placement (srun_step.c; at most one
 * slurmctld round trip, step_query.c, waited for at most
 * LAGOM_SRUN_STEP_WAIT_MS), the profiles of its nodes and the workload (as
 * the user; a relative file name in the step's working directory, srun
 * --chdir), runs
 * the planner once and puts the outcome into its own environment as
 * LAGOM_CARRIER_VAR, which Slurm copies into the launch message of every
 * node.  The nodes only check and apply it (remote.c).  When srun cannot
 * plan, it sends nothing and every node leaves NCCL alone.
 *
 * "Sends nothing" means an empty LAGOM_CARRIER_VAR: Slurm copied srun's
 * environment for the launch before this hook, and merges it again after,
 * adding and replacing, never removing; a variable unset here would still
 * travel with whatever value the user gave it (their shell, --export=ALL,
 * VAR=...).  So srun replaces an inherited value with "" before anything
 * else, in every path (lagom off, a bad plugstack line, no plan, an error),
 * and the nodes read "" as no plan.  The same for the two variables that
 * travel beside it (LAGOM_PREDICTED_VAR, LAGOM_STEP_KEY_VAR).
 *
 * With lagom off for the step nothing here reads a file, asks slurmctld or
 * touches hwloc: the only work is emptying those variables.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/spank.h>

#include "spank/carrier.h"
#include "spank/local_int.h"
#include "spank/srun_step.h"
#include "measurement/stats.h"
#include "model/model.h"

int lagom_local_init_post_opt(spank_t sp, struct lagom_state *st)
{
	if (st->cfg.verbose && st->workload_given &&
	    lagom_effective_mode(st) == LAGOM_MODE_OFF)
		lagom_log_info(
			"--lagom-workload=%s has no effect with lagom off",
			st->workload);
	return 0;
}

static void explain(const struct lagom_planner_result *res,
		    const char *reverted)
{
	const char *p = res->explanation ? res->explanation : "";

	lagom_log_user("explain (nothing set): %s", res->summary);
	if (reverted[0])
		lagom_log_user(
			"  reverted: measured %s runs: --lagom=auto runs "
			"NCCL's defaults for this class (doc/report.md)",
			reverted);
	while (*p) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);

		lagom_log_user("  %.*s", n, p);
		p += n + (nl ? 1 : 0);
	}
	for (size_t i = 0; i < res->env_count; i++)
		lagom_log_user("  would set %s=%s", res->env[i].name,
			       res->env[i].value);
}

/* The planner's result as the text the nodes receive. */
static int make_carrier(const struct lagom_carrier_step *id,
			enum lagom_mode mode,
			const struct lagom_planner_result *res,
			const char *reverted, char **text,
			struct lagom_error *err)
{
	struct lagom_carrier *c = calloc(1, sizeof(*c));
	int rc = 0;

	if (!c)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	c->step = *id;
	c->gpus_per_node = res->gpus_per_node;
	c->mode = mode;
	snprintf(c->plan_id, sizeof(c->plan_id), "%s", res->plan_id);
	snprintf(c->summary, sizeof(c->summary), "%s%s%s%s",
		 reverted[0] ? "reverted=" : "", reverted,
		 reverted[0] ? " " : "", res->summary ? res->summary : "");
	for (size_t i = 0; i < res->env_count && rc == 0; i++)
		rc = lagom_carrier_add(c, res->env[i].name, res->env[i].value,
				       err);
	if (rc == 0)
		rc = lagom_carrier_encode(c, text, err);
	lagom_carrier_release(c);
	free(c);
	return rc;
}

/* learn.c's lines, as srun's own (ctx: the configuration). */
static void say_line(const char *line, void *ctx)
{
	lagom_say(ctx, "%s", line);
}

/*
 * The one plan of the step: from the user's workload, else from an earlier
 * measured step of the same key (learn.c, read here as the user), else for
 * the catalog's worst case.  A plan from measurements that fails is
 * dropped for the ordinary one.
 */
static int plan_of(struct lagom_state *st, const struct lagom_step *step,
		   struct lagom_class_runs **runs,
		   struct lagom_planner_result **res, struct lagom_error *err)
{
	struct lagom_learned *learned = lagom_learn_srun(st, step, say_line,
							 &st->cfg, runs);

	if (learned) {
		int rc = lagom_srun_plan_learned(
			&st->cfg, step,
			st->workload_given ? st->workload : NULL, learned, res,
			err);

		lagom_learned_destroy(learned);
		if (rc == 0)
			return 0;
		lagom_say(&st->cfg,
			  "job %u.%u: plan from measurements failed: %s",
			  step->job_id, step->step_id, err->text);
		lagom_error_clear(err);
	}
	return lagom_srun_plan(&st->cfg, step,
			       st->workload_given ? st->workload : NULL, res,
			       err);
}

/*
 * The control arm (doc/report.md): a measured --lagom=auto step that the
 * admin's control= share picks by its ids runs as a control (NCCL's
 * defaults, measured, the plan recorded), unless the user said nocontrol
 * and the admin allows that.  Pure in the ids: every node and every
 * re-analysis agrees.
 */
static enum lagom_mode arm_of(const struct lagom_state *st,
			      const struct lagom_carrier_step *id,
			      enum lagom_mode mode)
{
	const struct lagom_measure_config *m = &st->cfg.measure;

	if (mode == LAGOM_MODE_MEASURE && (!m->on || !m->dir[0]))
		lagom_log_user("--lagom=measure: this cluster keeps no "
			       "measurements (no measure_dir=): the step runs "
			       "NCCL's defaults, unmeasured");
	if (mode != LAGOM_MODE_AUTO || !m->on || !m->dir[0] ||
	    !lagom_control_pick(id->job_id, id->step_id, m->control_share))
		return mode;
	if (st->nocontrol && m->control_optout) {
		lagom_say(&st->cfg,
			  "job %u.%u: not a control (nocontrol; control=%g)",
			  id->job_id, id->step_id, m->control_share);
		return mode;
	}
	lagom_say(&st->cfg,
		  "job %u.%u: a control step (control=%g%s): NCCL's defaults, "
		  "measured; the plan is recorded, not applied",
		  id->job_id, id->step_id, m->control_share,
		  st->nocontrol ? "; nocontrol ignored: control_optout=no"
				: "");
	return LAGOM_MODE_CONTROL;
}

static void plan_step(spank_t sp, struct lagom_state *st, enum lagom_mode mode)
{
	struct lagom_error err = { 0 };
	struct lagom_carrier_step id;
	struct lagom_planner_result *res = NULL;
	struct lagom_class_runs *runs = NULL; /* learn.c's, for revert.c */
	struct lagom_step step;
	struct timespec t0;
	char *text = NULL;
	char asked[96], reverted[64] = "";
	double ctld_ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (lagom_srun_step_read(sp, LAGOM_SRUN_STEP_WAIT_MS,
				 st->cfg.step_query_always, &step, &id,
				 &ctld_ms, &err) < 0)
		goto fail;
	if (ctld_ms >= 0)
		snprintf(asked, sizeof(asked),
			 "%.1f ms of it asking slurmctld for the step",
			 ctld_ms);
	else
		snprintf(asked, sizeof(asked),
			 "the step's nodes and GPUs from srun's options");
	step.registered_buffers = st->registered_buffers;
	if (step.gpus_per_node == 0) {
		lagom_errprintf(&err, ENODEV,
				"no GPUs in this step (%s; request them with "
				"--gres=gpu:N or --gpus-per-node)",
				asked);
		goto fail;
	}
	if (plan_of(st, &step, &runs, &res, &err) < 0)
		goto fail;
	mode = arm_of(st, &id, mode);
	if (lagom_revert_srun(st, &step, mode, res->plan_id, runs, reverted,
			      sizeof(reverted)) &&
	    mode == LAGOM_MODE_AUTO)
		mode = LAGOM_MODE_REVERT;
	if (make_carrier(&id, mode, res, reverted, &text, &err) < 0)
		goto fail;
	if (res->notice) /* a refused cluster digest (planner.h) */
		lagom_say(&st->cfg, "%s", res->notice);
	lagom_spank_spool_carry_predicted(st, res, mode);
	if (setenv(LAGOM_CARRIER_VAR, text, 1) < 0) {
		lagom_errprintf(&err, ENOMEM, "cannot set %s",
				LAGOM_CARRIER_VAR);
		setenv(LAGOM_CARRIER_VAR, "", 1);
		goto fail;
	}
	lagom_say(&st->cfg,
		  "job %u.%u: %s plan %s for %u nodes x %u GPUs in %.1f ms "
		  "(%s; hardware of %zu of %u nodes from the cluster digest)",
		  id.job_id, id.step_id, lagom_mode_name(mode), res->plan_id,
		  id.nnodes, res->gpus_per_node, lagom_ms_since(&t0), asked,
		  res->digest_nodes, id.nnodes);
	if (mode == LAGOM_MODE_EXPLAIN)
		explain(res, reverted);
	goto out;
fail:
	lagom_say(&st->cfg, "job %u.%u: %s; no node of the step is tuned",
		  step.job_id, step.step_id, err.text[0] ? err.text : "error");
out:
	free(text);
	lagom_class_runs_free(runs);
	lagom_planner_result_destroy(res);
	lagom_step_clear(&step);
}

/* What travels from srun to the nodes beside the launch environment's
 * own variables: only what this srun set, else "" (see the top). */
static const char *const srun_sends[] = {
	LAGOM_CARRIER_VAR,
	LAGOM_PREDICTED_VAR,
	LAGOM_STEP_KEY_VAR,
};

void lagom_local_drop_inherited(void)
{
	for (size_t i = 0; i < sizeof(srun_sends) / sizeof(srun_sends[0]); i++)
		setenv(srun_sends[i], "", 1);
}

/* After planning: whatever was unset on the way is sent empty. */
static void send_nothing_unset(void)
{
	for (size_t i = 0; i < sizeof(srun_sends) / sizeof(srun_sends[0]); i++)
		if (!getenv(srun_sends[i]))
			setenv(srun_sends[i], "", 1);
}

int lagom_local_user_init(spank_t sp, struct lagom_state *st)
{
	enum lagom_mode mode = lagom_effective_mode(st);

	/* the user's (or an enclosing step's) values never travel */
	lagom_local_drop_inherited();
	if (mode == LAGOM_MODE_OFF)
		return 0;
	plan_step(sp, st, mode);
	send_nothing_unset();
	return 0;
}
