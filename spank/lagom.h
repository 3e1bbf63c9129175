/*
 * spank/lagom.h - private header of the SPANK plugin lagom.so.
 *
 * Layout (after pyxis): lagom.c holds SPANK_PLUGIN() and only dispatches;
 * log.c the state, its setup from plugstack.conf and the log lines;
 * options.c the --lagom and --lagom-workload options; local.c the srun and
 * sbatch/salloc side (srun plans once per step in local_user_init, reading
 * the step with srun_step.c, and hands the plan to every node as
 * carrier.c's text: doc/consistency.md); remote.c the slurmstepd side
 * (check and apply the received plan in user_init, environment per task in
 * task_init, comment from node 0 in a thread started in task_post_fork and
 * joined in task_exit); envset.c decides what to set (the user wins);
 * comment.c merges the job comment; step.c reads the step's placement in
 * slurmstepd; plan.c is the only caller of the planner.
 *
 * All mutable state lives in one struct lagom_state, the plugin's only
 * global, owned by log.c.  Each Slurm process (srun, sbatch, slurmstepd)
 * loads its own copy of the plugin, so the struct is per process.
 */
#ifndef LAGOM_SPANK_LAGOM_H
#define LAGOM_SPANK_LAGOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <slurm/spank.h>

#include "common/error.h"
#include "common/escape.h"
#include "plugstack/plugstack.h"
#include "spank/carrier.h"
#include "spank/plan.h"

/* Longest --lagom-workload value (a catalog name or a file path). */
#define LAGOM_WORKLOAD_ARG_MAX 1024
/* The job comment field's limit in slurmctld (bytes, without the NUL). */
#define LAGOM_COMMENT_MAX 1024

/* What happens to one variable of the plan (decided once per node). */
enum lagom_env_action {
	LAGOM_ENV_SET,	     /* absent: set it */
	LAGOM_ENV_OVERRIDE,  /* the user set it, the admin's override= wins */
	LAGOM_ENV_SKIP_USER, /* the user set it: keep theirs */
	LAGOM_ENV_SKIP_FORBIDDEN, /* the admin's forbid= names it */
};

struct lagom_env_item {
	const char *name;  /* borrowed from the plan result */
	const char *value; /* borrowed from the plan result */
	enum lagom_env_action action;
};

struct lagom_state {
	/* plugstack.conf arguments, parsed in slurm_spank_init. */
	struct lagom_config cfg;
	bool cfg_ok;
	/* Why cfg is not usable (optional: lagom is inert, every step that
	 * asks for it is told this). */
	char cfg_error[LAGOM_ERROR_TEXT_MAX + 32];
	/* Option values as the user gave them (callbacks may run twice). */
	bool mode_given;
	enum lagom_mode mode_opt;
	bool workload_given;
	char workload[LAGOM_WORKLOAD_ARG_MAX];
	bool registered_buffers; /* --lagom-registered-buffers */
	bool opt_invalid;	 /* a bad value reached slurmstepd: lagom off */
	/* Remote context, filled in user_init. */
	enum lagom_mode mode; /* the received plan's mode, else off */
	bool planned;	      /* plan received, checked, items decided */
	bool apply_failed;    /* a checked plan could not be applied here:
			       * the tasks fail (doc/consistency.md) */
	struct lagom_step step;
	struct lagom_carrier carrier;	/* the plan srun sent */
	struct lagom_planner_env *vars; /* borrowed from carrier */
	struct lagom_env_item *items;
	size_t n_items;
	bool comment_done;
	struct lagom_comment_job *comment_job; /* node 0, until task_exit */
	bool user_verbose; /* srun -v: tell the job's stderr too */
	/* The step's measurement spool (measure.c), when ready: its path,
	 * and measure_fd, the directory root opened and checked in
	 * init_post_opt (O_CLOEXEC), which every later write goes through. */
	bool measure_ready;
	int measure_fd;
	unsigned tasks_exited; /* task_exit calls on this node */
	char measure_dir[LAGOM_MEASURE_PATH_MAX + 128];
	int container; /* enum lagom_container_case (spank/container.h) */
};

/* The plugin's one state struct (log.c). */
extern struct lagom_state lagom_g;

/* log.c: slurm_spank_init's work in srun, sbatch, salloc and slurmstepd:
 * zero lagom_g, register the options, parse plugstack.conf (ac, av). */
int lagom_state_init(spank_t sp, spank_context_t ctx, int ac, char **av);
/* log.c: an inert lagom (bad plugstack.conf line) tells a step that asks
 * for it (--lagom other than off) why nothing happens. */
void lagom_tell_inert(spank_t sp, spank_context_t ctx);
/* srun, sbatch and salloc: a user is watching (errors may refuse the job). */
bool lagom_context_is_user_facing(spank_context_t ctx);

/* options.c */
int lagom_options_register(spank_t sp);
int lagom_option_mode_cb(int val, const char *optarg, int remote);
int lagom_option_workload_cb(int val, const char *optarg, int remote);
int lagom_option_registered_cb(int val, const char *optarg, int remote);
/* Check a --lagom-workload value: non-empty, printable, not too long. */
int lagom_workload_arg_check(const char *value, struct lagom_error *err);
/* Mode in effect: the option if given, else the admin's default; off
 * when a bad option value reached slurmstepd. */
enum lagom_mode lagom_effective_mode(const struct lagom_state *st);

/* local.c: srun (local) and sbatch/salloc (allocator) contexts. */
int lagom_local_init_post_opt(spank_t sp, struct lagom_state *st);
int lagom_local_user_init(spank_t sp, struct lagom_state *st);
/* srun: replace the plan carrier and the variables beside it, inherited
 * from the user's environment, with "" (no plan); lagom.c calls it before
 * anything else, also when plugstack.conf's line is bad. */
void lagom_local_drop_inherited(void);

/* remote.c: slurmstepd. */
int lagom_remote_init_post_opt(spank_t sp, struct lagom_state *st);
int lagom_remote_user_init(spank_t sp, struct lagom_state *st);
/* Remove what srun sends for lagom alone (the plan carrier, the predictions
 * and the step key) from the step's environment: no task sees them.  Also
 * where lagom is inert (a bad plugstack.conf line). */
void lagom_remote_drop_carried(spank_t sp);
int lagom_remote_task_init(spank_t sp, struct lagom_state *st);
int lagom_remote_task_post_fork(spank_t sp, struct lagom_state *st);
int lagom_remote_task_exit(spank_t sp, struct lagom_state *st);
void lagom_remote_exit(spank_t sp, struct lagom_state *st);

/*
 * envset.c: decide, for each variable of the plan, whether to set it.
 * is_set(ctx, name) says whether the user's environment already has name.
 * Writes n items (allocated, caller frees) to *out.  Returns 0 or -ENOMEM.
 */
int lagom_env_decide(const struct lagom_planner_env *env, size_t n,
		     const struct lagom_config *cfg,
		     bool (*is_set)(void *ctx, const char *name), void *ctx,
		     struct lagom_env_item **out);
/*
 * Comma-separated names of the skipped items into buf ("" when none).
 * Returns the number skipped.  Truncates with "..." when buf is short.
 */
size_t lagom_env_skipped(const struct lagom_env_item *items, size_t n,
			 char *buf, size_t len);

/*
 * comment.c: the lagom segment of the job comment is
 * "{lagom: TEXT #XXXXXXXX}" (XXXXXXXX: a hash of TEXT).
 * lagom_comment_merge() removes any segment lagom wrote from existing
 * (NULL allowed), keeps the rest byte for byte, and appends the new
 * segment, shortening TEXT (never the user's part) so that the result fits
 * LAGOM_COMMENT_MAX bytes.  Braces, '|', control characters and non-ASCII
 * bytes in text become '(' ')' '/' ' ' '?'.  out must hold LAGOM_COMMENT_MAX + 1 bytes.
 * Returns 0, or -ENOSPC when the user's part leaves no room for a segment
 * (then the comment must be left alone).
 */
int lagom_comment_merge(const char *existing, const char *text, char *out,
			size_t out_len, struct lagom_error *err);
/*
 * Read the job's comment, merge text into it and write it back (Comment, or
 * AdminComment when admin).  Uses slurm_load_job/slurm_update_job of the
 * loading process.  Returns 0 or a negative errno with err filled.
 */
int lagom_comment_update(uint32_t job_id, const char *text, bool admin,
			 struct lagom_error *err);
/*
 * The same in a thread (all signals blocked), so that nothing waits for
 * slurmctld: start it only where slurmstepd's identity no longer changes
 * (task_post_fork; see comment.c).  text is copied.  Returns NULL when no
 * thread could be started.
 */
struct lagom_comment_job;
struct lagom_comment_job *lagom_comment_start(uint32_t job_id, const char *text,
					      bool admin);
/*
 * The step's end (measure.c): lagom's segment keeps its text up to an
 * earlier LAGOM_COMMENT_MEASURED part, and words (which start with it) are
 * appended; without a segment the words become one.  Merged and bounded
 * as lagom_comment_update().  _start_measured() does it in a thread.
 */
#define LAGOM_COMMENT_MEASURED "measured="
int lagom_comment_add_measured(uint32_t job_id, const char *words, bool admin,
			       struct lagom_error *err);
struct lagom_comment_job *lagom_comment_start_measured(uint32_t job_id,
						       const char *words,
						       bool admin);
/*
 * Wait up to timeout_ms for the thread;
 * returns its result (0, also when cancelled, or a negative errno with err
 * filled), writes how long its round trips took to *busy_ms (NULL allowed)
 * and frees job.  On timeout the thread is left to finish on its own
 * (lagom.so is pinned with RTLD_NODELETE so Slurm's dlclose cannot unmap
 * it; the thread frees job) and -ETIMEDOUT is returned; when the module cannot be
 * pinned, it waits for the thread however long it takes.
 */
int lagom_comment_wait(struct lagom_comment_job *job, unsigned timeout_ms,
		       double *busy_ms, struct lagom_error *err);

/* measure.c: the measurement spool (doc/profiler.md). */
#define LAGOM_PREDICTED_VAR "LAGOM_PREDICTED" /* srun -> nodes */
#define LAGOM_PREDICTED_ENV_MAX 16384	      /* bytes */
#define LAGOM_STEP_KEY_VAR "LAGOM_STEP_KEY"   /* srun -> nodes */
int lagom_measure_user_name(uid_t uid, char *out, size_t len);
int lagom_measure_prepare(spank_t sp, struct lagom_state *st);
void lagom_measure_carry_predicted(const struct lagom_state *st,
				   const struct lagom_planner_result *res);
int lagom_measure_write_predicted(spank_t sp, struct lagom_state *st);
int lagom_measure_task_env(spank_t sp, const struct lagom_state *st);
/*
 * The step's measured figure from the records in dir (read with the
 * caller's privileges, owned by uid), as words for the job comment:
 * "measured=NAME tasks=N[/M] iter_ms=A comm_ms=B[ predicted_iter_ms=C]
 * [ predicted_comm_ms=D]" (over the 64 records first by name, /M when dir
 * holds M > 64 of them: the mean over the records of the host time of
 * one iteration and the GPU time of its collectives; the predictions of
 * STEP/predicted when its plan is the records' and it predicts every
 * class), or "... no_iteration".  Its length, or -1 without a record.
 */
int lagom_measure_figure(const char *dir, const char *name, long uid, char *out,
			 size_t len);
/*
 * For the figure's child, before it drops to the user: wfd (the pipe's
 * write end) becomes descriptor 3 and every descriptor above 3 is closed
 * (close_range(2), else one by one up to sysconf(_SC_OPEN_MAX), at most
 * 65536), so none of slurmstepd's reach the user's side.  3, or -1.
 */
int lagom_measure_child_fds(int wfd);
/* The exit status of child pid (waited for through EINTR), or -1 when it
 * did not exit or waitpid(2) fails (ECHILD: SIGCHLD ignored, or not ours). */
int lagom_measure_reap(pid_t pid);
/* Node 0, the last local task's exit: the figure into the job comment. */
void lagom_measure_step_end(spank_t sp, struct lagom_state *st);
/*
 * learn.c: planning from measurements, once per step in srun (as the
 * user, where the plan is made).  lagom_learn_srun() puts the step's key
 * into LAGOM_STEP_KEY_VAR (for the nodes) and returns what the latest
 * earlier step of that key measured (plan.h, struct lagom_learned: the
 * workload of its iteration unless the user named one, and its measured
 * classes for the planner's correction; free with lagom_learned_destroy)
 * or NULL; say() gets one line per refused record.  On each node
 * lagom_learn_write_key() writes the key srun sent into the step's
 * directory.
 */
struct lagom_learned *lagom_learn_srun(const struct lagom_state *st,
				       const struct lagom_step *step,
				       void (*say)(const char *, void *),
				       void *ctx);
void lagom_learn_write_key(spank_t sp, const struct lagom_state *st);

/*
 * pin.c: run(arg) in a detached thread with every signal blocked, for a
 * call to slurmctld the caller waits for only so long.  NULL when the
 * thread cannot start (arg is the caller's still).
 * lagom_bounded_wait(): 0 when run() returned within timeout_ms (arg is
 * the caller's again); -ETIMEDOUT when it did not: lagom.so is then pinned
 * (RTLD_NODELETE, it must outlive Slurm's dlclose()), the thread goes on
 * and calls release(arg) when run() returns.  Where the module cannot be
 * pinned it waits for run() instead.  The handle is gone either way.
 */
struct lagom_bounded;
struct lagom_bounded *lagom_bounded_start(void (*run)(void *),
					  void (*release)(void *), void *arg);
int lagom_bounded_wait(struct lagom_bounded *b, unsigned timeout_ms);

/* remote.c: how long node 0's first task_exit waits for the job comment
 * (LAGOM_COMMENT_WAIT_MS, 10 s); only the unit tests change it. */
#define LAGOM_COMMENT_WAIT_MS 10000u
void lagom_remote_set_comment_wait(unsigned ms);

/* log.c: logging with the "lagom: " prefix, escaped (common/escape.h). */
void lagom_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lagom_log_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* The same line on the job's stderr (slurm_spank_log), escaped. */
void lagom_log_user(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* log.c: milliseconds of CLOCK_MONOTONIC since *t0 (the hooks' timings). */
struct timespec;
double lagom_ms_since(const struct timespec *t0);

#endif /* LAGOM_SPANK_LAGOM_H */
