/*
 * spank/remote.c - slurmstepd: plan once per node, environment per task,
 * the job comment from node 0.
 *
 *   init_post_opt  the options are known: settle the mode; node 0 starts
 *                  a thread that reads the job's comment (root)
 *   user_init      (euid = the user) read the placement, compute the plan,
 *                  decide per variable against the user's environment;
 *                  node 0 makes sure the read is over (the tasks are
 *                  forked next and would inherit its socket)
 *   task_init      (each task, as the user) set the decided variables
 *   task_post_fork (root, node 0, all tasks forked) hand the comment text
 *                  to the thread, which merges and writes it while the
 *                  tasks exec
 *   task_exit      (root, node 0) join that thread: the job surely exists
 *                  until then (from exit, an srun that made its own
 *                  allocation can race the end of the job: "Job has
 *                  already finished")
 *   exit           free everything
 *
 * Fail open: every problem is one "lagom:" line (slurmd log; the job's
 * stderr at srun -v) and an untouched environment.  Every callback here
 * returns 0.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/spank.h>

#include "spank/lagom.h"
#include "spank/step.h"
#include "model/model.h"

/* Step ids at or above this are Slurm's batch, extern and interactive
 * steps: user options do not reach them, and the real steps inside them
 * are planned on their own. */
#define LAGOM_FIRST_SPECIAL_STEP 0xfffffff0u

/* How long task_exit waits for slurmctld to take the comment (a healthy
 * controller answers in milliseconds; Slurm's own MessageTimeout is 10 s). */
#define LAGOM_COMMENT_WAIT_MS 10000u

/*
 * One "lagom:" line: always in the slurmd log; also on the job's stderr
 * from node 0 when the user ran srun -v (SRUN_DEBUG > 3) or the admin set
 * verbose.  Every node computes the same thing, so node 0 speaks for all.
 */
static void tell(const struct lagom_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tell(const struct lagom_state *st, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	lagom_log_info("%s", line);
	if (st->step.node_id == 0 && (st->user_verbose || st->cfg.verbose))
		slurm_spank_log("lagom: %s", line);
}

static void fail_open(const struct lagom_state *st, const char *why)
{
	tell(st, "job %u.%u on %s: %s; environment left unchanged",
	     st->step.job_id, st->step.step_id,
	     st->step.node_name[0] ? st->step.node_name : "?", why);
}

/* srun -v exports SRUN_DEBUG=4 (3 by default). */
static bool user_asked_verbose(spank_t sp)
{
	char buf[16];

	return spank_getenv(sp, "SRUN_DEBUG", buf, sizeof(buf)) ==
		       ESPANK_SUCCESS &&
	       atoi(buf) > 3;
}

/*
 * Node 0 of a real step reads the job's comment in a thread from here on
 * (root, before slurmstepd sets up I/O), so that by the time the plan is
 * known only the update is left, and it runs while the tasks start.
 */
static void start_comment(spank_t sp, struct lagom_state *st)
{
	uint32_t job_id, step_id, node_id;

	if (st->mode == LAGOM_MODE_OFF || st->cfg.comment == LAGOM_COMMENT_NO ||
	    spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NODEID, &node_id) != ESPANK_SUCCESS ||
	    node_id != 0 || step_id >= LAGOM_FIRST_SPECIAL_STEP)
		return;
	st->comment_job = lagom_comment_start(
		job_id, st->cfg.comment == LAGOM_COMMENT_ADMIN);
}

int lagom_remote_init_post_opt(spank_t sp, struct lagom_state *st)
{
	st->mode = lagom_effective_mode(st);
	start_comment(sp, st);
	lagom_measure_prepare(sp, st);
	return 0;
}

static bool user_has(void *ctx, const char *name)
{
	char probe[2];
	spank_err_t rc = spank_getenv((spank_t)ctx, name, probe, sizeof(probe));

	return rc == ESPANK_SUCCESS || rc == ESPANK_NOSPACE;
}

/* Explain mode: node 0 prints the plan's reasoning to the job's stderr. */
static void explain(const struct lagom_state *st)
{
	const char *p = st->plan->explanation ? st->plan->explanation : "";

	slurm_spank_log("lagom: explain (nothing set): %s", st->plan->summary);
	while (*p) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);

		slurm_spank_log("lagom:   %.*s", n, p);
		p += n + (nl ? 1 : 0);
	}
	for (size_t i = 0; i < st->n_items; i++)
		slurm_spank_log("lagom:   would set %s=%s%s", st->items[i].name,
				st->items[i].value,
				st->items[i].action == LAGOM_ENV_SKIP_USER
					? " (yours kept)"
				: st->items[i].action ==
						LAGOM_ENV_SKIP_FORBIDDEN
					? " (forbidden by the admin)"
					: "");
}

static double elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - since->tv_sec) * 1e3 +
	       (double)(now.tv_nsec - since->tv_nsec) / 1e6;
}

static void report_plan(const struct lagom_state *st, double plan_ms)
{
	char skipped[256];
	size_t n_set = 0;

	for (size_t i = 0; i < st->n_items; i++)
		n_set += st->items[i].action == LAGOM_ENV_SET ||
			 st->items[i].action == LAGOM_ENV_OVERRIDE;
	lagom_env_skipped(st->items, st->n_items, skipped, sizeof(skipped));
	tell(st,
	     "job %u.%u on %s: %s plan %s in %.1f ms: %zu variables set%s%s",
	     st->step.job_id, st->step.step_id, st->step.node_name,
	     lagom_mode_name(st->mode), st->plan->plan_id, plan_ms,
	     st->mode == LAGOM_MODE_AUTO ? n_set : 0,
	     skipped[0] ? ", kept the user's " : "", skipped);
}

static void say_line(const char *line, void *ctx)
{
	const struct lagom_state *st = ctx;

	tell(st, "job %u.%u: %s", st->step.job_id, st->step.step_id, line);
}

/*
 * The plan: from the user's workload, else from an earlier measured step
 * of the same key (spank/learn.c), else for the catalog's worst case.
 * A plan from measurements that fails is dropped for the ordinary one.
 */
static int plan_step(spank_t sp, struct lagom_state *st,
		     struct lagom_error *err)
{
	struct lagom_workload *learned = NULL;
	int rc;

	lagom_learn_write_key(sp, st);
	if (!st->workload_given)
		learned = lagom_learn_workload(sp, st, say_line, st);
	if (learned) {
		rc = lagom_plan_compute_learned(&st->cfg, &st->step, learned,
						&st->plan, err);
		lagom_workload_destroy(learned);
		if (rc == 0)
			return 0;
		tell(st, "job %u.%u: plan from measurements failed: %s",
		     st->step.job_id, st->step.step_id, err->text);
		lagom_error_clear(err);
	}
	return lagom_plan_compute(&st->cfg, &st->step,
				  st->workload_given ? st->workload : NULL,
				  &st->plan, err);
}

int lagom_remote_user_init(spank_t sp, struct lagom_state *st)
{
	struct lagom_error err = { 0 };
	struct timespec start;

	uint32_t step_id = 0;

	if (st->mode == LAGOM_MODE_OFF)
		return 0;
	if (spank_get_item(sp, S_JOB_STEPID, &step_id) == ESPANK_SUCCESS &&
	    step_id >= LAGOM_FIRST_SPECIAL_STEP)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	st->user_verbose = user_asked_verbose(sp);
	if (lagom_step_read(sp, &st->step, &err) < 0) {
		fail_open(st, err.text);
		lagom_step_clear(&st->step);
		return 0;
	}
	if (st->step.step_id >= LAGOM_FIRST_SPECIAL_STEP)
		return 0;
	if (st->step.gpus_per_node == 0) {
		fail_open(st, "no GPUs in this step (request them with "
			      "--gres=gpu:N or --gpus-per-node)");
		return 0;
	}
	if (plan_step(sp, st, &err) < 0) {
		fail_open(st, err.text);
		return 0;
	}
	if (lagom_env_decide(st->plan->env, st->plan->env_count, &st->cfg,
			     user_has, sp, &st->items) < 0) {
		fail_open(st, "out of memory");
		lagom_planner_result_destroy(st->plan);
		st->plan = NULL;
		return 0;
	}
	st->n_items = st->plan->env_count;
	st->planned = true;
	report_plan(st, elapsed_ms(&start));
	lagom_measure_write_predicted(st);
	if (st->mode == LAGOM_MODE_EXPLAIN && st->step.node_id == 0)
		explain(st);
	/* slurmstepd forks the tasks next: no socket may be open then */
	if (st->comment_job)
		lagom_comment_wait_read(st->comment_job);
	return 0;
}

int lagom_remote_task_init(spank_t sp, struct lagom_state *st)
{
	if (!st->planned || st->mode != LAGOM_MODE_AUTO)
		return 0;
	for (size_t i = 0; i < st->n_items; i++) {
		const struct lagom_env_item *it = &st->items[i];
		spank_err_t rc;

		if (it->action != LAGOM_ENV_SET &&
		    it->action != LAGOM_ENV_OVERRIDE)
			continue;
		rc = spank_setenv(sp, it->name, it->value,
				  it->action == LAGOM_ENV_OVERRIDE);
		if (rc != ESPANK_SUCCESS && rc != ESPANK_ENV_EXISTS &&
		    st->cfg.verbose)
			lagom_log_info("cannot set %s: %s", it->name,
				       spank_strerror(rc));
	}
	lagom_measure_task_env(sp, st);
	return 0;
}

/* The comment text: the planner's summary plus what lagom did not set. */
static void comment_text(const struct lagom_state *st, char *buf, size_t len)
{
	char skipped[512];

	lagom_env_skipped(st->items, st->n_items, skipped, sizeof(skipped));
	snprintf(buf, len, "%s%s%s%s", st->plan->summary,
		 st->mode == LAGOM_MODE_EXPLAIN ? " mode=explain (not applied)"
						: "",
		 skipped[0] ? " skipped=" : "", skipped);
}

static void finish_comment(const struct lagom_state *st, int rc,
			   const struct lagom_error *err)
{
	if (rc < 0)
		lagom_log_info("job %u.%u: comment not written: %s",
			       st->step.job_id, st->step.step_id,
			       err && err->text[0] ? err->text : "error");
}

/* Join the comment thread, if any (bounded: slurmctld may be down). */
static void wait_comment(struct lagom_state *st)
{
	struct lagom_error err = { 0 };
	struct timespec start;
	double busy_ms = 0;
	int rc;

	if (!st->comment_job)
		return;
	clock_gettime(CLOCK_MONOTONIC, &start);
	rc = lagom_comment_wait(st->comment_job, LAGOM_COMMENT_WAIT_MS,
				&busy_ms, &err);
	st->comment_job = NULL;
	finish_comment(st, rc, &err);
	if (st->cfg.verbose >= 2)
		lagom_log_info("job %u.%u: comment took %.1f ms, %.1f ms of "
			       "it after the first task exited",
			       st->step.job_id, st->step.step_id, busy_ms,
			       elapsed_ms(&start));
}

/*
 * Node 0 hands the comment text to the thread in task_post_fork: every
 * task is forked by then (no task can inherit the thread's socket) and
 * slurmstepd is root again (AdminComment needs root).  The tasks exec
 * right after, without waiting for the update.  Without a thread
 * (pthread_create failed) it is written here, synchronously.
 */
static void post_comment(struct lagom_state *st)
{
	struct lagom_error err = { 0 };
	char text[LAGOM_COMMENT_MAX + 1];
	bool admin = st->cfg.comment == LAGOM_COMMENT_ADMIN;

	if (!st->planned || st->comment_done || st->step.node_id != 0 ||
	    st->cfg.comment == LAGOM_COMMENT_NO)
		return;
	st->comment_done = true;
	comment_text(st, text, sizeof(text));
	if (st->comment_job)
		lagom_comment_post(st->comment_job, text);
	else
		finish_comment(st,
			       lagom_comment_update(st->step.job_id, text,
						    admin, &err),
			       &err);
}

int lagom_remote_task_post_fork(spank_t sp, struct lagom_state *st)
{
	post_comment(st);
	return 0;
}

/*
 * The first task exit on node 0 waits for the comment thread: slurmstepd
 * reports the task's exit to srun only after this returns, so the job
 * cannot have ended before the update reaches slurmctld.
 */
int lagom_remote_task_exit(spank_t sp, struct lagom_state *st)
{
	wait_comment(st);
	return 0;
}

void lagom_remote_exit(spank_t sp, struct lagom_state *st)
{
	wait_comment(st); /* no task exited (a failed launch) */
	lagom_planner_result_destroy(st->plan);
	st->plan = NULL;
	free(st->items);
	st->items = NULL;
	st->n_items = 0;
	st->planned = false;
	lagom_step_clear(&st->step);
}
