/*
 * spank/lagom.h - private header of the SPANK plugin lagom.so: what its
 * three contexts share.
 *
 * Layout (after pyxis: one file and one state per context):
 *   lagom.c         SPANK_PLUGIN(), the shared state lagom_g, and one
 *                   switch on the context per callback, nothing else
 *   options.c       the state's setup from plugstack.conf and the options
 *                   --lagom, --lagom-workload, --lagom-registered-buffers
 *   log.c           the "lagom: " lines: lagom_log_*(), lagom_say() (srun),
 *                   lagom_tell() (slurmstepd)
 *   srun, sbatch, salloc:
 *   local.c         (spank/local_int.h) srun plans once per step in
 *                   local_user_init and hands the plan to every node as
 *                   carrier.c's text (doc/consistency.md), with learn.c's
 *                   step key and spool.c's predictions beside it
 *   srun_step.c     the step as srun sees it: srun's ids, environment,
 *                   command line and option table; srun_parse.c parses
 *                   what it reads (pure), step_query.c asks slurmctld when
 *                   srun's own state cannot tell (bounded)
 *   srun_planner.c  srun's one call into the planner (linked into
 *                   lagom.so only, so the unit tests can stub it)
 *   learn.c         planning from the user's measured steps (srun's half;
 *                   the step key's node half too)
 *   revert.c        the user's own tuned runs against their controls: a
 *                   plan that loses runs NCCL's defaults
 *   slurmstepd:
 *   remote.c        (spank/remote_int.h) the step's state struct
 *                   lagom_stepd: check and apply the received plan in
 *                   user_init, the environment per task in task_init, the
 *                   comment from node 0 in a thread started in
 *                   task_post_fork and joined in task_exit
 *   carrier_trust.c what a node takes from srun's text (user data): the
 *                   variables lagom sets, the comment's checked fields
 *                   (planner/comment_text.h)
 *   comment.c       node 0's round trips that put lagom's segment into the
 *                   job's Comment
 *   container.c     a containerised step: the whole plan or none;
 *                   container_mounts.c judges the bundle's mounts
 *   step.c          the step (spank/step.h, struct lagom_step) as
 *                   slurmstepd sees it
 *   spool.c         the plugin's side of the measurement spool: srun's
 *                   predictions in the environment, the step's spool
 *                   directory and the profiler's variables on each node,
 *                   node 0's measured figure into the comment
 *   shared:
 *   carrier.c       the plan's text from srun to the nodes
 *   envset.c        decides what to set (the user wins)
 *   pin.c           bounded calls to slurmctld (a thread srun or node 0
 *                   waits for only so long)
 *
 * Each Slurm process (srun, sbatch, slurmstepd) loads its own copy of the
 * plugin, so every state is per process: lagom_g (lagom.c: the
 * configuration and the options, used by every context) and, in
 * slurmstepd only, the step's struct lagom_stepd (remote.c).  srun keeps
 * no state of its own beyond lagom_g.
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
#include "spank/srun_planner.h"

/* Longest --lagom-workload value (a catalog name or a file path). */
#define LAGOM_WORKLOAD_ARG_MAX 1024

/* What srun sends every node beside the plan carrier, in the step's
 * environment; removed there before any task starts (remote.c).  SLURM_
 * names, as the carrier's: srun --export=NONE (or =VARS) sends no other
 * (tests/integration/export_none.sh). */
#define LAGOM_PREDICTED_VAR "SLURM_LAGOM_PREDICTED" /* spool.c */
#define LAGOM_PREDICTED_ENV_MAX 16384		    /* bytes */
#define LAGOM_STEP_KEY_VAR "SLURM_LAGOM_STEP_KEY"   /* learn.c */

/* The state every context shares (lagom_g, lagom.c). */
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
	bool nocontrol;		 /* --lagom=auto,nocontrol (doc/report.md) */
	bool opt_invalid;	 /* a bad value reached slurmstepd: lagom off */
};

/* A step mode whose tasks run lagom's profiler (when the spool is set):
 * auto, and those that apply no plan: measure, control, revert. */
static inline bool lagom_mode_measured(enum lagom_mode m)
{
	return m == LAGOM_MODE_AUTO || m == LAGOM_MODE_MEASURE ||
	       m == LAGOM_MODE_CONTROL || m == LAGOM_MODE_REVERT;
}

/* The plugin's shared state (lagom.c). */
extern struct lagom_state lagom_g;

/* options.c: slurm_spank_init's work in srun, sbatch, salloc and
 * slurmstepd: zero lagom_g, register the options, parse plugstack.conf
 * (ac, av). */
int lagom_state_init(spank_t sp, spank_context_t ctx, int ac, char **av);
/* options.c: an inert lagom (bad plugstack.conf line) tells a step that
 * asks for it (--lagom other than off) why nothing happens. */
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

/* What happens to one variable of the plan (decided once per node). */
enum lagom_env_action {
	LAGOM_ENV_SET,	     /* absent: set it */
	LAGOM_ENV_OVERRIDE,  /* the user set it, the admin's override= wins */
	LAGOM_ENV_SKIP_USER, /* the user set it: keep theirs */
	LAGOM_ENV_SKIP_FORBIDDEN, /* the admin's forbid= names it */
};

struct lagom_env_item {
	const struct lagom_env_var *var; /* borrowed from the carrier */
	enum lagom_env_action action;
};

/*
 * envset.c: decide, for each variable of the plan, whether to set it.
 * is_set(ctx, name) says whether the user's environment already has name.
 * Writes n items (allocated, caller frees; each points at its variable of
 * env, which must outlive them) to *out.  Returns 0 or -ENOMEM.
 */
int lagom_env_decide(const struct lagom_env_var *env, size_t n,
		     const struct lagom_config *cfg,
		     bool (*is_set)(void *ctx, const char *name), void *ctx,
		     struct lagom_env_item **out);
/*
 * Comma-separated names of the skipped items into buf ("" when none).
 * Returns the number skipped.  Truncates with "..." when buf is short.
 */
size_t lagom_env_skipped(const struct lagom_env_item *items, size_t n,
			 char *buf, size_t len);

/* spool.c: the spool's directory name of uid (srun and slurmstepd). */
int lagom_spank_spool_user_name(uid_t uid, char *out, size_t len);

/*
 * pin.c: run(arg) in a thread with every signal blocked, for a call to
 * slurmctld the caller waits for only so long.  NULL when the thread
 * cannot start (arg is the caller's still).
 * lagom_bounded_wait(): 0 when run() returned within timeout_ms: the
 * thread is joined (none of its code runs after the return; arg is the
 * caller's again); -ETIMEDOUT when it did not: lagom.so is then pinned
 * (RTLD_NODELETE, it must outlive Slurm's dlclose()), the thread is
 * detached, goes on and calls release(arg) when run() returns.  Where the
 * module cannot be pinned it waits for run() instead.  The handle is gone
 * either way.
 */
struct lagom_bounded;
struct lagom_bounded *lagom_bounded_start(void (*run)(void *),
					  void (*release)(void *), void *arg);
int lagom_bounded_wait(struct lagom_bounded *b, unsigned timeout_ms);

/* log.c: logging with the "lagom: " prefix, escaped (common/escape.h). */
void lagom_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lagom_log_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* The same line on the job's stderr (slurm_spank_log), escaped. */
void lagom_log_user(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* srun: one line, at info level when the admin set verbose, else at
 * verbose level (srun -v shows it). */
void lagom_say(const struct lagom_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* slurmstepd: one line, always in the slurmd log (lagom_log_info); also
 * on the job's stderr when to_user (node 0 speaks for all: every node
 * computes the same thing). */
void lagom_tell(bool to_user, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* log.c: milliseconds of CLOCK_MONOTONIC since *t0 (the hooks' timings). */
struct timespec;
double lagom_ms_since(const struct timespec *t0);

#endif /* LAGOM_SPANK_LAGOM_H */
