/*
 * spank/remote.c - slurmstepd: check and apply the plan srun sent, the
 * environment per task, the job comment from node 0.  No node plans: srun
 * planned once for the whole step (local.c, doc/consistency.md).
 *
 *   init_post_opt  the options are known
 *   user_init      (euid = the user) read the plan from the step's
 *                  environment (and remove it there, so no task and no
 *                  nested srun sees it), check that it belongs to this
 *                  step, decide per variable against the user's
 *                  environment
 *   task_init_privileged (each task, as root, before any plugin's
 *                  task_init) set the decided variables
 *   task_init      (each task, as the user, maybe in a container's mount
 *                  namespace) take them all back where the container
 *                  lacks the plan's files (spank/container.c)
 *   task_post_fork (root from now on, node 0, all tasks forked) start the
 *                  thread that reads, merges and writes the job comment
 *                  while the tasks exec (comment.c)
 *   task_exit      (root, node 0) join that thread: the job surely exists
 *                  until then; after the last local task, the measured
 *                  figure into the comment (spool.c)
 *   exit           free everything
 *
 * Every decision here depends only on what Slurm gives every node of the
 * step alike (the launch environment, the step's ids and counts), so every
 * node applies the plan or none does.  The one node-local failure left
 * (no memory to apply a plan the others apply) fails this node's tasks, so
 * Slurm ends the step instead of letting it hang.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/spank.h>

#include "spank/container.h"
#include "spank/remote_int.h"
#include "spank/step.h"
#include "model/model.h"
#include "planner/comment_text.h"

/* How long task_exit waits for slurmctld to take the comment (a healthy
 * controller answers in milliseconds; Slurm's own MessageTimeout is 10 s):
 * LAGOM_COMMENT_WAIT_MS, shorter only in the unit tests. */
static unsigned comment_wait_ms = LAGOM_COMMENT_WAIT_MS;

void lagom_remote_set_comment_wait(unsigned ms)
{
	comment_wait_ms = ms;
}

/* slurmstepd's state: one step per process (spank/remote_int.h). */
static struct lagom_stepd stepd;

static struct lagom_stepd *stepd_of(const struct lagom_state *st)
{
	stepd.st = st;
	return &stepd;
}

/*
 * Whether a line goes to the job's stderr too: from node 0 when the user
 * ran srun -v (SRUN_DEBUG > 3) or the admin set verbose.  Every node
 * computes the same thing, so node 0 speaks for all.
 */
static bool told(const struct lagom_stepd *sd)
{
	return sd->step.node_id == 0 &&
	       (sd->user_verbose || sd->st->cfg.verbose);
}

static void fail_open(const struct lagom_stepd *sd, const char *why)
{
	lagom_tell(told(sd), "job %u.%u on %s: %s; environment left unchanged",
		   sd->step.job_id, sd->step.step_id,
		   sd->step.node_name[0] ? sd->step.node_name : "?", why);
}

/* srun -v exports SRUN_DEBUG=4 (3 by default). */
static bool user_asked_verbose(spank_t sp)
{
	char buf[16];

	return spank_getenv(sp, "SRUN_DEBUG", buf, sizeof(buf)) ==
		       ESPANK_SUCCESS &&
	       atoi(buf) > 3;
}

static bool user_has(void *ctx, const char *name)
{
	return lagom_step_env_has((spank_t)ctx, name);
}

int lagom_remote_init_post_opt(spank_t sp, const struct lagom_state *st)
{
	struct lagom_stepd *sd = stepd_of(st);

	/* slurmstepd's first callback after slurm_spank_init: a fresh state
	 * (as lagom_g is from slurm_spank_init on); a spool directory an
	 * earlier step of this process held is closed first */
	lagom_spank_spool_release(sd);
	memset(sd, 0, sizeof(*sd));
	sd->st = st;
	sd->mode = LAGOM_MODE_OFF;
	/* the spool only for a step srun planned (every node alike) */
	/* a plan text: srun sends an empty one when it planned nothing
	 * (local.c), which is no plan */
	if (lagom_step_env_set(sp, LAGOM_CARRIER_VAR))
		lagom_spank_spool_prepare(sp, sd);
	return 0;
}

static void report_plan(const struct lagom_stepd *sd, double plan_ms)
{
	char skipped[256];
	size_t n_set = 0;

	for (size_t i = 0; i < sd->n_items; i++)
		n_set += sd->items[i].action == LAGOM_ENV_SET ||
			 sd->items[i].action == LAGOM_ENV_OVERRIDE;
	lagom_env_skipped(sd->items, sd->n_items, skipped, sizeof(skipped));
	lagom_log_info(
		"job %u.%u on %s: %s plan %s from srun, checked in %.1f ms: "
		"%zu variables set%s%s",
		sd->step.job_id, sd->step.step_id, sd->step.node_name,
		lagom_mode_name(sd->mode), sd->carrier.plan_id, plan_ms,
		sd->mode == LAGOM_MODE_AUTO ? n_set : 0,
		skipped[0] ? ", kept the user's " : "", skipped);
}

/*
 * The plan text from the step's environment into *text (to free): 1 when
 * there is one, 0 when there is none or it is longer than
 * LAGOM_CARRIER_MAX (the same on every node: applied nowhere), -ENOMEM
 * when this node cannot hold it.
 */
static int read_carrier(spank_t sp, char **text)
{
	int rc = lagom_step_getenv_alloc(sp, LAGOM_CARRIER_VAR,
					 LAGOM_CARRIER_MAX + 1, text);

	return rc == -ENOMEM ? rc : rc == 0;
}

/* This step's identity, from what every node of it sees alike. */
static int step_here(spank_t sp, const struct lagom_stepd *sd,
		     struct lagom_carrier_step *here, struct lagom_error *err)
{
	char buf[64];
	uint32_t ntasks = 0;

	memset(here, 0, sizeof(*here));
	if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntasks) !=
		    ESPANK_SUCCESS ||
	    spank_getenv(sp, "SLURM_STEP_TASKS_PER_NODE", here->tpn,
			 sizeof(here->tpn)) != ESPANK_SUCCESS)
		return lagom_errprintf(err, EIO,
				       "cannot read the step's tasks");
	/* a heterogeneous step: each component sees its own counts, the
	 * environment the whole step's */
	if (spank_getenv(sp, "SLURM_STEP_NUM_NODES", buf, sizeof(buf)) !=
		    ESPANK_SUCCESS ||
	    strtoul(buf, NULL, 10) != sd->step.nnodes)
		return lagom_errprintf(err, EINVAL,
				       "a heterogeneous step: left to NCCL");
	here->job_id = sd->step.job_id;
	here->step_id = sd->step.step_id;
	here->nnodes = sd->step.nnodes;
	here->ntasks = ntasks;
	here->nodes_hash = lagom_nodes_hash(
		(const char *const *)sd->step.node_names, sd->step.node_count);
	return 0;
}

/* Check the received plan; 0 when every node will apply it. */
static int check_carrier(spank_t sp, struct lagom_stepd *sd, const char *text,
			 struct lagom_error *err)
{
	struct lagom_carrier_step here;
	int rc;

	if (sd->st->opt_invalid)
		return lagom_errprintf(err, EINVAL, "bad --lagom value");
	if ((rc = lagom_step_read(sp, &sd->step, err)) < 0)
		return rc;
	if ((rc = lagom_carrier_decode(text, &sd->carrier, err)) < 0)
		return lagom_error_prefix(err, "plan from srun");
	if ((rc = step_here(sp, sd, &here, err)) < 0 ||
	    (rc = lagom_carrier_matches(&sd->carrier, &here, err)) < 0)
		return rc;
	/* the user's input (srun runs as the user): only what they could
	 * set themselves, the tuner only at the admin's path */
	if ((rc = lagom_carrier_vet(&sd->carrier, sd->st->cfg.tuner, err)) < 0)
		return lagom_error_prefix(err, "plan from srun");
	return 0;
}

/* Decide per variable (the user wins); -ENOMEM is this node's alone. */
static int decide(spank_t sp, struct lagom_stepd *sd)
{
	size_t n = sd->carrier.nvars;

	if (lagom_env_decide(sd->carrier.vars, n, &sd->st->cfg, user_has, sp,
			     &sd->items) < 0)
		return -ENOMEM;
	sd->n_items = n;
	return 0;
}

/* A per-node observation that differs from the plan: said, never acted on
 * (acting on it on one node would split the step). */
static void note_gpus(const struct lagom_stepd *sd)
{
	if (sd->step.gpus_per_node != sd->carrier.gpus_per_node)
		lagom_log_info("job %u.%u on %s: planned for %u GPUs per node, "
			       "this node has %u; applied as planned",
			       sd->step.job_id, sd->step.step_id,
			       sd->step.node_name, sd->carrier.gpus_per_node,
			       sd->step.gpus_per_node);
}

/* This node alone cannot apply a plan the others apply: its tasks fail,
 * so Slurm ends the step rather than letting it hang. */
static void cannot_apply(struct lagom_stepd *sd)
{
	sd->apply_failed = true;
	lagom_log_error("job %u.%u on %s: out of memory applying the step's "
			"plan: failing this node's tasks so the step cannot "
			"hang",
			sd->step.job_id, sd->step.step_id,
			sd->step.node_name[0] ? sd->step.node_name : "?");
}

void lagom_remote_drop_carried(spank_t sp)
{
	spank_unsetenv(sp, LAGOM_CARRIER_VAR);
	spank_unsetenv(sp, LAGOM_PREDICTED_VAR);
	spank_unsetenv(sp, LAGOM_STEP_KEY_VAR);
}

/* The checked plan's state on this node (user_init). */
static int take_plan(spank_t sp, struct lagom_stepd *sd, const char *text,
		     const struct timespec *start)
{
	struct lagom_error err = { 0 };
	int rc = check_carrier(sp, sd, text, &err);

	if (rc == -ENOMEM || (rc == 0 && decide(sp, sd) < 0)) {
		cannot_apply(sd);
		return -1;
	}
	if (rc < 0) {
		fail_open(sd, err.text);
		lagom_carrier_release(&sd->carrier);
		return -1;
	}
	sd->mode = sd->carrier.mode;
	sd->planned = true;
	note_gpus(sd);
	report_plan(sd, lagom_ms_since(start));
	lagom_container_decide(sp, sd);
	return 0;
}

int lagom_remote_user_init(spank_t sp, const struct lagom_state *st)
{
	struct lagom_stepd *sd = stepd_of(st);
	struct timespec start;
	uint32_t step_id = 0;
	char *text = NULL;
	int rc;

	if (spank_get_item(sp, S_JOB_STEPID, &step_id) == ESPANK_SUCCESS &&
	    step_id >= LAGOM_FIRST_SPECIAL_STEP)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	rc = read_carrier(sp, &text);
	spank_unsetenv(sp, LAGOM_CARRIER_VAR); /* never for a task */
	if (rc < 0)
		cannot_apply(sd);
	sd->user_verbose = user_asked_verbose(sp);
	/* "" or nothing: srun planned nothing, every node leaves NCCL */
	if (rc <= 0 || !text[0] || take_plan(sp, sd, text, &start) < 0) {
		free(text);
		lagom_remote_drop_carried(sp);
		return 0;
	}
	free(text);
	/* these read and remove what srun sent beside the plan */
	lagom_learn_write_key(sp, sd);
	lagom_spank_spool_write_predicted(sp, sd);
	return 0;
}

int lagom_remote_task_init_privileged(spank_t sp, const struct lagom_state *st)
{
	struct lagom_stepd *sd = stepd_of(st);

	if (sd->apply_failed)
		return -1; /* the step fails rather than hangs */
	if (sd->planned && sd->mode != LAGOM_MODE_AUTO &&
	    lagom_mode_measured(sd->mode))
		return lagom_spank_spool_task_env(sp, sd); /* NCCL's defaults */
	if (!sd->planned || sd->mode != LAGOM_MODE_AUTO ||
	    lagom_container_withheld(sd))
		return 0;
	lagom_container_task_note(sp, sd);
	for (size_t i = 0; i < sd->n_items; i++) {
		const struct lagom_env_item *it = &sd->items[i];
		spank_err_t rc;

		if (it->action != LAGOM_ENV_SET &&
		    it->action != LAGOM_ENV_OVERRIDE)
			continue;
		rc = spank_setenv(sp, it->var->name, it->var->value,
				  it->action == LAGOM_ENV_OVERRIDE);
		if (rc != ESPANK_SUCCESS && rc != ESPANK_ENV_EXISTS &&
		    sd->st->cfg.verbose)
			lagom_log_info("cannot set %s: %s", it->var->name,
				       spank_strerror(rc));
	}
	lagom_spank_spool_task_env(sp, sd);
	return 0;
}

int lagom_remote_task_init(spank_t sp, const struct lagom_state *st)
{
	struct lagom_stepd *sd = stepd_of(st);

	if (sd->apply_failed)
		return -1;
	lagom_container_task_check(sp, sd);
	return 0;
}

/*
 * The comment text, which root writes (planner/comment_text.h): the fields
 * of srun's summary that pass their checks (never the text srun sent),
 * then node 0's own: the container's words, explain mode, and what lagom
 * did not set (names from lagom's own list: lagom_carrier_vet()).  Longer
 * text is cut here and shortened again by the merge.
 */
static void comment_text(const struct lagom_stepd *sd, char *buf, size_t len)
{
	struct lagom_comment_text c;
	char container[256], skipped[512];

	lagom_comment_text_read(sd->carrier.summary, &c);
	if (lagom_container_comment(sd, container, sizeof(container)))
		c.value[LAGOM_COMMENT_CONTAINER] = container;
	if (sd->mode == LAGOM_MODE_EXPLAIN)
		c.value[LAGOM_COMMENT_MODE] = "explain (not applied)";
	else if (sd->mode == LAGOM_MODE_CONTROL)
		c.value[LAGOM_COMMENT_ARM] =
			"control (NCCL's defaults, measured)";
	else if (sd->mode == LAGOM_MODE_MEASURE)
		c.value[LAGOM_COMMENT_ARM] =
			"measure (NCCL's defaults, measured)";
	else if (sd->mode == LAGOM_MODE_REVERT)
		c.value[LAGOM_COMMENT_ARM] =
			"reverted (NCCL's defaults: measured slower)";
	lagom_env_skipped(sd->items, sd->n_items, skipped, sizeof(skipped));
	if (skipped[0])
		c.value[LAGOM_COMMENT_SKIPPED] = skipped;
	lagom_comment_text_write(&c, sd->carrier.plan_id, buf, len);
}

static void finish_comment(const struct lagom_stepd *sd, int rc,
			   const struct lagom_error *err)
{
	if (rc < 0)
		lagom_log_info("job %u.%u: comment not written: %s",
			       sd->step.job_id, sd->step.step_id,
			       err && err->text[0] ? err->text : "error");
}

/* Join the comment thread, if any (bounded: slurmctld may be down). */
static void wait_comment(struct lagom_stepd *sd)
{
	struct lagom_error err = { 0 };
	struct timespec start;
	double busy_ms = 0;
	int rc;

	if (!sd->comment.job)
		return;
	clock_gettime(CLOCK_MONOTONIC, &start);
	rc = lagom_comment_wait(sd->comment.job, comment_wait_ms, &busy_ms,
				&err);
	sd->comment.job = NULL;
	finish_comment(sd, rc, &err);
	if (sd->st->cfg.verbose >= 2)
		lagom_log_info("job %u.%u: comment took %.1f ms, %.1f ms of "
			       "it after the first task exited",
			       sd->step.job_id, sd->step.step_id, busy_ms,
			       lagom_ms_since(&start));
}

/*
 * Node 0 starts the comment thread in its first task_post_fork: every task
 * is forked by then (none can inherit the thread's socket) and slurmstepd
 * is root for good (a stable identity for the round trips; AdminComment
 * needs root).  The tasks exec right after, without waiting for the
 * update.  Without a thread (pthread_create failed) there is no comment:
 * writing it here would make the tasks wait for slurmctld.
 */
static void post_comment(struct lagom_stepd *sd)
{
	struct lagom_error err = { 0 };
	char text[LAGOM_COMMENT_MAX + 1];
	bool admin = sd->st->cfg.comment == LAGOM_COMMENT_ADMIN;

	if (!sd->planned || sd->comment.started || sd->step.node_id != 0 ||
	    sd->step.step_id >= LAGOM_FIRST_SPECIAL_STEP ||
	    sd->st->cfg.comment == LAGOM_COMMENT_NO)
		return;
	sd->comment.started = true;
	comment_text(sd, text, sizeof(text));
	sd->comment.job = lagom_comment_start(sd->step.job_id, text, admin);
	if (!sd->comment.job) {
		lagom_errprintf(&err, EAGAIN, "cannot start a thread");
		finish_comment(sd, -EAGAIN, &err);
	}
}

int lagom_remote_task_post_fork(spank_t sp, const struct lagom_state *st)
{
	struct lagom_stepd *sd = stepd_of(st);

	post_comment(sd);
	return 0;
}

/*
 * The first task exit on node 0 waits for the comment thread: slurmstepd
 * reports the task's exit to srun only after this returns, so the job
 * cannot have ended before the update reaches slurmctld.
 */
int lagom_remote_task_exit(spank_t sp, const struct lagom_state *st)
{
	struct lagom_stepd *sd = stepd_of(st);
	uint32_t local = 0;

	wait_comment(sd);
	/* the last task of node 0: its records are final, and slurmstepd
	 * reports this exit to srun only after we return (the job lives) */
	if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &local) ==
		    ESPANK_SUCCESS &&
	    ++sd->tasks_exited == local)
		lagom_spank_spool_step_end(sp, sd);
	return 0;
}

void lagom_remote_exit(spank_t sp, const struct lagom_state *st)
{
	struct lagom_stepd *sd = stepd_of(st);

	wait_comment(sd); /* no task exited (a failed launch) */
	lagom_spank_spool_release(sd);
	lagom_container_release(sd);
	lagom_carrier_release(&sd->carrier);
	free(sd->items);
	sd->items = NULL;
	sd->n_items = 0;
	sd->planned = false;
	sd->apply_failed = false;
	sd->tasks_exited = 0;
	sd->comment.started = false;
	lagom_step_clear(&sd->step);
}
