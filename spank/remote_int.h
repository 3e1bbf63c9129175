/*
 * spank/remote_int.h - lagom.so in slurmstepd (remote context): remote.c
 * and its state, the job comment (comment.c), the measurement spool
 * (spool.c) and the step key's node half (learn.c).
 */
#ifndef LAGOM_SPANK_REMOTE_INT_H
#define LAGOM_SPANK_REMOTE_INT_H

#include "spank/lagom.h"

/* The job comment field's limit in slurmctld (bytes, without the NUL). */
#define LAGOM_COMMENT_MAX 1024

/* Step ids at or above this are Slurm's batch, extern and interactive
 * steps: user options do not reach them, and the real steps inside them
 * are planned (and measured) on their own. */
#define LAGOM_FIRST_SPECIAL_STEP 0xfffffff0u

/* spool.c's part: the step's directory in the measurement spool, when
 * ready; fd is that directory, opened and checked in init_post_opt
 * (O_CLOEXEC), which every later write goes through.  Released by
 * lagom_spank_spool_release(). */
struct lagom_stepd_spool {
	bool ready;
	int fd;
	char dir[LAGOM_MEASURE_PATH_MAX + 128];
};

/* container.c's part.  Released by lagom_container_release(). */
struct lagom_stepd_container {
	int decided; /* enum lagom_container_case (spank/container.h) */
	/* slurmstepd's mount namespace (user_init) */
	bool ns_known;
	dev_t ns_dev;
	ino_t ns_ino;
	/* This task (task_init_privileged), so that task_init can take the
	 * plan back: the measure variables lagom sets, the user's values
	 * that an override replaced (per item, NULL where none). */
	bool set_profiler, set_spool;
	char **saved;
	size_t n_saved; /* entries of saved */
};

/* remote.c's part on node 0: the job comment's thread (comment.c). */
struct lagom_stepd_comment {
	bool started;
	struct lagom_comment_job *job; /* until the first task_exit */
};

/*
 * slurmstepd's state for its one step: remote.c owns the one instance and
 * the plan's fields; each other part is its file's, written there only,
 * and released there (lagom_remote_exit() calls each release).
 */
struct lagom_stepd {
	const struct lagom_state *st; /* lagom_g: configuration, options */
	/* Filled in user_init. */
	enum lagom_mode mode; /* the received plan's mode, else off */
	bool planned;	      /* plan received, checked, items decided */
	bool apply_failed;    /* a checked plan could not be applied here:
			       * the tasks fail (doc/consistency.md) */
	struct lagom_step step;
	struct lagom_carrier carrier; /* the plan srun sent */
	struct lagom_env_item *items;
	size_t n_items;
	bool user_verbose;     /* srun -v: tell the job's stderr too */
	unsigned tasks_exited; /* task_exit calls on this node */
	struct lagom_stepd_comment comment;	/* remote.c */
	struct lagom_stepd_spool spool;		/* spool.c */
	struct lagom_stepd_container container; /* container.c */
};

/* remote.c: the callbacks, given lagom_g; the step's state is remote.c's. */
int lagom_remote_init_post_opt(spank_t sp, const struct lagom_state *st);
int lagom_remote_user_init(spank_t sp, const struct lagom_state *st);
/* Remove what srun sends for lagom alone (the plan carrier, the predictions
 * and the step key) from the step's environment: no task sees them.  Also
 * where lagom is inert (a bad plugstack.conf line). */
void lagom_remote_drop_carried(spank_t sp);
int lagom_remote_task_init_privileged(spank_t sp, const struct lagom_state *st);
int lagom_remote_task_init(spank_t sp, const struct lagom_state *st);
int lagom_remote_task_post_fork(spank_t sp, const struct lagom_state *st);
int lagom_remote_task_exit(spank_t sp, const struct lagom_state *st);
void lagom_remote_exit(spank_t sp, const struct lagom_state *st);
/* remote.c: how long node 0's first task_exit waits for the job comment
 * (LAGOM_COMMENT_WAIT_MS, 10 s); only the unit tests change it. */
#define LAGOM_COMMENT_WAIT_MS 10000u
void lagom_remote_set_comment_wait(unsigned ms);

/* spool.c: the measurement spool (doc/profiler.md), on each node. */
int lagom_spank_spool_prepare(spank_t sp, struct lagom_stepd *sd);
/* Close the step's spool directory (spool.fd) and forget it: every exit
 * path of the step (lagom_remote_exit) and every new prepare. */
void lagom_spank_spool_release(struct lagom_stepd *sd);
int lagom_spank_spool_write_predicted(spank_t sp, struct lagom_stepd *sd);
int lagom_spank_spool_task_env(spank_t sp, const struct lagom_stepd *sd);
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
int lagom_spank_spool_figure(const char *dir, const char *name, long uid,
			     char *out, size_t len);
/*
 * For the figure's child, before it drops to the user: wfd (the pipe's
 * write end) becomes descriptor 3 and every descriptor above 3 is closed
 * (close_range(2), else one by one up to sysconf(_SC_OPEN_MAX), at most
 * 65536), so none of slurmstepd's reach the user's side.  3, or -1.
 */
int lagom_spank_spool_child_fds(int wfd);
/* The exit status of child pid (waited for through EINTR), or -1 when it
 * did not exit or waitpid(2) fails (ECHILD: SIGCHLD ignored, or not ours). */
int lagom_spank_spool_reap(pid_t pid);
/* Node 0, the last local task's exit: the figure into the job comment. */
void lagom_spank_spool_step_end(spank_t sp, struct lagom_stepd *sd);

/* learn.c: on each node, the key srun sent (LAGOM_STEP_KEY_VAR) into the
 * step's directory. */
void lagom_learn_write_key(spank_t sp, const struct lagom_stepd *sd);

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
 * The step's end (spool.c): lagom's segment keeps its text up to an
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

#endif /* LAGOM_SPANK_REMOTE_INT_H */
