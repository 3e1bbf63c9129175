/*
 * spank/spool.c - the plugin's side of the measurement spool
 * (doc/profiler.md; the spool's layout and walk are measurement/spool.h's):
 * in srun, the plan's predictions into the environment; on each node, for
 * a step lagom tunes, a spool directory for the tasks' records, the step's
 * predictions next to it, and the variables that load
 * libnccl-profiler-lagom.so in every task.
 *
 *   init_post_opt (root)  measure_dir/USER/JOB.STEP created, owned by the
 *                         user, mode 0700: measure_dir walked from "/"
 *                         and checked (common/trusted_dir.h), USER and
 *                         JOB.STEP made and opened relative to it;
 *                         nothing is followed through a symbolic link,
 *                         nothing opened can block, and nothing the user
 *                         owns is written by root except through a
 *                         checked fd, kept for user_init;
 *                         over measure_max_steps or measure_max_mb the
 *                         step is not measured (one lagom: line)
 *   user_init (the user)  the plan's per-class predictions, "predicted",
 *                         and the key (learn.c), written through that fd
 *                         (common/io.h: fresh O_EXCL temporary files,
 *                         renamed)
 *   task_init (the user)  NCCL_PROFILER_PLUGIN, LAGOM_MEASURE_DIR, unless
 *                         the user set them (the user wins)
 *   task_exit (root)      node 0, last local task: the measured figure of
 *                         its tasks' records, read by a child process
 *                         that runs as the user, into the job comment
 *                         (bounded: the step's end waits at most
 *                         LAGOM_MEASURED_READ_MS + LAGOM_MEASURED_RPC_MS)
 * Fail open: a problem costs one line and the step runs unmeasured.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"
#include "common/trusted_dir.h"
#include "planner/planner.h"
#include "measurement/predicted.h"
#include "measurement/record.h"
#include "measurement/spool.h"
#include "search/search.h"
#include "spank/local_int.h"
#include "spank/remote_int.h"

#define SCAN_MAX 100000	  /* entries looked at when summing a user's spool */
#define FIGURE_RECORDS 64 /* records read for the step's figure */
/* The step's end: how long node 0 waits for the child that reads the
 * records, and for slurmctld to take the comment. */
#define LAGOM_MEASURED_READ_MS 2000
#define LAGOM_MEASURED_RPC_MS 3000

int lagom_spank_spool_user_name(uid_t uid, char *out, size_t len)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	size_t i;

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0 || !res ||
	    strlen(pw.pw_name) >= len)
		return -1;
	for (i = 0; pw.pw_name[i]; i++)
		if (!lagom_rec_token_char((unsigned char)pw.pw_name[i]))
			return -1;
	strcpy(out, pw.pw_name);
	return 0;
}

/* Open (creating when missing) dir/name as a directory owned by uid. */
static int own_dir(int dir_fd, const char *name, uid_t uid, gid_t gid,
		   const char **why)
{
	struct stat st;
	int fd;

	if (mkdirat(dir_fd, name, 0700) != 0 && errno != EEXIST) {
		*why = "cannot create a directory in the spool";
		return -1;
	}
	fd = lagom_open_at(dir_fd, name, O_RDONLY | O_DIRECTORY, 0, &st);
	if (fd < 0) {
		*why = "a spool entry is not a directory (or is a link)";
		goto fail;
	}
	if (st.st_uid == 0 && uid != 0 && fchown(fd, uid, gid) != 0) {
		*why = "cannot give the spool directory to the user";
		goto fail;
	}
	if (st.st_uid != 0 && st.st_uid != uid) {
		*why = "the spool directory belongs to someone else";
		goto fail;
	}
	if (fchmod(fd, 0700) != 0) {
		*why = "cannot restrict the spool directory";
		goto fail;
	}
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Steps and bytes the user keeps on this node (the spool's bounded
 * walk: every file of every step, by name). */
struct usage {
	unsigned steps;
	unsigned long long bytes;
};

static int usage_step(void *ctx, const struct lagom_spool_at *at)
{
	((struct usage *)ctx)->steps++;
	return LAGOM_SPOOL_NEXT;
}

static int usage_file(void *ctx, const struct lagom_spool_at *at)
{
	struct stat st;

	if (fstatat(at->step_fd, at->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode))
		((struct usage *)ctx)->bytes += (unsigned long long)st.st_size;
	return LAGOM_SPOOL_NEXT;
}

static void usage_of(int user_fd, unsigned *steps, unsigned long long *bytes)
{
	struct usage u = { 0 };
	struct lagom_spool_walk walk = {
		.lim = { .scan_max = SCAN_MAX,
			 .steps_max = SCAN_MAX,
			 .records_max = SCAN_MAX,
			 .user_scan_max = SCAN_MAX },
		.every_file = true,
		.on_step = usage_step,
		.on_record = usage_file,
		.ctx = &u,
	};

	lagom_spool_walk_user(user_fd, "", &walk);
	*steps = u.steps;
	*bytes = u.bytes;
}

static void off(const struct lagom_stepd *sd, uint32_t job, uint32_t step,
		const char *why)
{
	lagom_log_info("job %u.%u: not measured: %s", job, step, why);
}

void lagom_spank_spool_release(struct lagom_stepd *sd)
{
	if (sd->spool.ready)
		close(sd->spool.fd);
	sd->spool.ready = false;
	sd->spool.fd = -1;
	sd->spool.dir[0] = '\0';
}

int lagom_spank_spool_prepare(spank_t sp, struct lagom_stepd *sd)
{
	const struct lagom_measure_config *m = &sd->st->cfg.measure;
	uint32_t job, step;
	uid_t uid;
	gid_t gid;
	char user[64], name[32];
	const char *why = NULL;
	struct lagom_error err = { 0 };
	unsigned steps;
	unsigned long long bytes;
	int root_fd = -1, user_fd = -1, step_fd = -1;

	lagom_spank_spool_release(sd);
	if ((lagom_effective_mode(sd->st) != LAGOM_MODE_AUTO &&
	     lagom_effective_mode(sd->st) != LAGOM_MODE_MEASURE) ||
	    !m->on || !m->dir[0] ||
	    spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS ||
	    step >= LAGOM_FIRST_SPECIAL_STEP)
		return 0;
	if (lagom_spank_spool_user_name(uid, user, sizeof(user)) != 0) {
		off(sd, job, step, "the user has no plain account name");
		return 0;
	}
	/* root only: whoever else owns or may write a directory on the way
	 * could point the trees made below at another place */
	root_fd = lagom_trusted_dir_open(m->dir, 0, "measure_dir", &err);
	if (root_fd < 0) {
		off(sd, job, step, err.text);
		return 0;
	}
	if ((user_fd = own_dir(root_fd, user, uid, gid, &why)) < 0)
		goto fail;
	usage_of(user_fd, &steps, &bytes);
	snprintf(name, sizeof(name), "%u.%u", job, step);
	if (faccessat(user_fd, name, F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
	    (steps >= m->max_steps || bytes >= (unsigned long long)m->max_mb
						       << 20)) {
		lagom_log_info("job %u.%u: not measured: user %s keeps %u "
			       "steps, %llu MiB in %s/%s (limits %u steps, "
			       "%u MiB)",
			       job, step, user, steps, bytes >> 20, m->dir,
			       user, m->max_steps, m->max_mb);
		goto out;
	}
	step_fd = own_dir(user_fd, name, uid, gid, &why);
	if (step_fd < 0)
		goto fail;
	if ((size_t)snprintf(sd->spool.dir, sizeof(sd->spool.dir), "%s/%s/%s",
			     m->dir, user, name) >= sizeof(sd->spool.dir)) {
		why = "the spool path is too long";
		goto fail;
	}
	sd->spool.fd = step_fd;
	step_fd = -1;
	sd->spool.ready = true;
	goto out;
fail:
	off(sd, job, step, why);
out:
	if (step_fd >= 0)
		close(step_fd);
	if (user_fd >= 0)
		close(user_fd);
	close(root_fd);
	return 0;
}

static void fill_predicted(const struct lagom_planner_result *res,
			   struct lagom_predicted *p)
{
	const struct lagom_plan *plan = res->plan;
	size_t i;

	memset(p, 0, sizeof(*p));
	snprintf(p->plan, sizeof(p->plan), "%s", res->plan_id);
	p->iteration_ns = (uint64_t)(res->predicted_time_s * 1e9);
	if (res->nccl_default_time_s > 0 && res->predicted_time_s > 0)
		p->default_ns = (uint64_t)(res->nccl_default_time_s * 1e9);
	for (i = 0;
	     plan && i < plan->ncolls && p->n < LAGOM_PREDICTED_MAX_CLASSES;
	     i++) {
		const struct lagom_plan_coll *c = &plan->colls[i];
		struct lagom_predicted_class *k = &p->cls[p->n];

		if (!(c->time_s > 0) || c->comm.ranks == 0 ||
		    c->comm.nodes == 0)
			continue;
		snprintf(k->op, sizeof(k->op), "%s", lagom_coll_name(c->coll));
		k->min_bytes = c->min_bytes;
		k->max_bytes = c->max_bytes;
		k->ranks = c->comm.ranks;
		k->nodes = c->comm.nodes;
		k->time_ns = (uint64_t)(c->time_s * 1e9);
		p->n++;
	}
}

/*
 * srun: the plan's predictions as the text of LAGOM_PREDICTED_VAR, which
 * Slurm copies to every node with the plan (the step directory does not
 * exist yet); nothing when measurement is off or the text is too long.
 */
void lagom_spank_spool_carry_predicted(const struct lagom_state *st,
				       const struct lagom_planner_result *res,
				       enum lagom_mode mode)
{
	static struct lagom_predicted p;
	static char text[LAGOM_PREDICTED_MAX];
	int len;

	unsetenv(LAGOM_PREDICTED_VAR);
	if (!st->cfg.measure.on || !st->cfg.measure.dir[0] || !res)
		return;
	fill_predicted(res, &p);
	if (mode == LAGOM_MODE_CONTROL || mode == LAGOM_MODE_MEASURE ||
	    mode == LAGOM_MODE_REVERT)
		snprintf(p.arm, sizeof(p.arm), "%s", lagom_mode_name(mode));
	len = lagom_predicted_format(&p, text, sizeof(text));
	if (len > 0 && len < LAGOM_PREDICTED_ENV_MAX)
		setenv(LAGOM_PREDICTED_VAR, text, 1);
}

/* As the user, on each node: the predictions srun sent, checked by the
 * strict reader, into STEP/predicted (a fresh temporary file, renamed),
 * through the step directory root checked (whatever the user put in it,
 * nothing is followed and nothing blocks). */
int lagom_spank_spool_write_predicted(spank_t sp, struct lagom_stepd *sd)
{
	static struct lagom_predicted p;
	static char text[LAGOM_PREDICTED_ENV_MAX + 1];
	struct lagom_error err = { 0 };
	spank_err_t rc;
	int len;

	rc = spank_getenv(sp, LAGOM_PREDICTED_VAR, text, sizeof(text));
	spank_unsetenv(sp, LAGOM_PREDICTED_VAR); /* not for the tasks */
	if (rc != ESPANK_SUCCESS || !sd->spool.ready || !sd->planned)
		return 0;
	len = (int)strlen(text);
	if (lagom_predicted_parse(text, (size_t)len, &p, &err) != 0 ||
	    strcmp(p.plan, sd->carrier.plan_id) != 0)
		return 0; /* not this plan's: no predictions file */
	lagom_replace_at(sd->spool.fd, LAGOM_PREDICTED_FILE, text, (size_t)len,
			 0600, false);
	return 0;
}

int lagom_spank_spool_task_env(spank_t sp, const struct lagom_stepd *sd)
{
	if (!sd->spool.ready || !sd->planned || !lagom_mode_measured(sd->mode))
		return 0;
	spank_setenv(sp, "NCCL_PROFILER_PLUGIN", sd->st->cfg.measure.profiler,
		     0);
	spank_setenv(sp, "LAGOM_MEASURE_DIR", sd->spool.dir, 0);
	return 0;
}

/* ---- the step's end: the measured figure into the job comment ---- */

struct figure_buf {
	struct lagom_rec rec, scratch;
	struct lagom_predicted pred;
	char text[LAGOM_REC_MAX_BYTES + 1];
	bool have_pred;
	size_t found, kept;
	unsigned tasks, timed, predicted;
	uint64_t iter, comm, pred_comm;
};

/* "1.234" ms from ns, integers only (no locale in the comment). */
static void ms_word(uint64_t ns, char *buf, size_t len)
{
	uint64_t us = (ns + 500) / 1000;

	snprintf(buf, len, "%llu.%03llu", (unsigned long long)(us / 1000),
		 (unsigned long long)(us % 1000));
}

/*
 * GPU time of one iteration of m (the mean of each class in its
 * sequence), and its prediction from pred (0 when a class has no
 * prediction, or pred is NULL).  false when a class was never timed.
 */
static bool iteration_comm(const struct lagom_rec_comm *m,
			   const struct lagom_predicted *pred,
			   uint64_t *comm_ns, uint64_t *pred_ns)
{
	bool all_predicted = pred != NULL;

	*comm_ns = 0;
	*pred_ns = 0;
	for (uint32_t i = 0; i < m->period_len; i++) {
		const struct lagom_rec_class *k = &m->cls[m->seq[i]];
		const struct lagom_predicted_class *c =
			pred ? lagom_predicted_find(
				       pred, lagom_rec_plan_op(k->op),
				       lagom_rec_plan_bytes(k->op, k->bytes,
							    m->ranks),
				       m->ranks, m->nodes)
			     : NULL;

		if (k->gpu_n == 0)
			return false;
		*comm_ns += k->gpu_ns / k->gpu_n;
		if (c)
			*pred_ns += c->time_ns;
		all_predicted = all_predicted && c;
	}
	if (!all_predicted)
		*pred_ns = 0;
	return true;
}

static int figure_step(void *ctx, const struct lagom_spool_at *at)
{
	struct figure_buf *b = ctx;

	b->found = at->found;
	b->kept = at->kept;
	b->have_pred = lagom_predicted_read_at(
			       at->step_fd, LAGOM_PREDICTED_FILE, (long)at->uid,
			       b->text, &b->pred, NULL) == 0;
	return LAGOM_SPOOL_NEXT;
}

static int figure_record(void *ctx, const struct lagom_spool_at *at)
{
	struct figure_buf *b = ctx;
	const struct lagom_rec_comm *m;
	uint64_t c, p;

	if (lagom_spool_read_record(at, b->text, &b->rec, &b->scratch, NULL))
		return LAGOM_SPOOL_NEXT;
	b->tasks++;
	m = lagom_rec_main_comm(&b->rec);
	if (!m || !iteration_comm(
			  m,
			  b->have_pred && strcmp(b->pred.plan, b->rec.plan) == 0
				  ? &b->pred
				  : NULL,
			  &c, &p))
		return LAGOM_SPOOL_NEXT;
	b->timed++;
	b->iter += m->period_ns;
	b->comm += c;
	if (p) {
		b->predicted++;
		b->pred_comm += p;
	}
	return LAGOM_SPOOL_NEXT;
}

int lagom_spank_spool_figure(const char *dir, const char *name, long uid,
			     char *out, size_t len)
{
	struct figure_buf *b = calloc(1, sizeof(*b));
	/* the same records on every rerun, whatever the directory's order:
	 * the first by name (measurement/spool.h) */
	struct lagom_spool_walk walk = {
		.lim = { .scan_max = SCAN_MAX, .records_max = FIGURE_RECORDS },
		.on_step = figure_step,
		.on_record = figure_record,
		.ctx = b,
	};
	uint64_t iter, comm, pred_iter = 0, pred_comm;
	unsigned tasks, timed, predicted;
	size_t n, found;
	char w[4][32];
	int at;

	if (!b)
		return -1;
	lagom_spool_walk_step(AT_FDCWD, dir, (uid_t)uid, &walk);
	iter = b->iter;
	comm = b->comm;
	pred_comm = b->pred_comm;
	tasks = b->tasks;
	timed = b->timed;
	predicted = b->predicted;
	n = b->kept;
	found = b->found;
	if (b->have_pred && predicted && predicted == timed)
		pred_iter = b->pred.iteration_ns;
	free(b);
	if (tasks == 0)
		return -1;
	at = snprintf(out, len, LAGOM_COMMENT_MEASURED "%s tasks=%u", name,
		      tasks);
	if (found > n) /* the figure is over the first records by name */
		at += snprintf(out + at, len - (size_t)at, "/%zu", found);
	if (timed == 0) {
		snprintf(out + at, len - (size_t)at, " no_iteration");
		return (int)strlen(out);
	}
	ms_word(iter / timed, w[0], sizeof(w[0]));
	ms_word(comm / timed, w[1], sizeof(w[1]));
	at += snprintf(out + at, len - (size_t)at, " iter_ms=%s comm_ms=%s",
		       w[0], w[1]);
	if (pred_iter) {
		ms_word(pred_iter, w[2], sizeof(w[2]));
		at += snprintf(out + at, len - (size_t)at,
			       " predicted_iter_ms=%s", w[2]);
	}
	if (predicted && predicted == timed) {
		ms_word(pred_comm / predicted, w[3], sizeof(w[3]));
		snprintf(out + at, len - (size_t)at, " predicted_comm_ms=%s",
			 w[3]);
	}
	return (int)strlen(out);
}

static long ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(deadline->tv_sec - now.tv_sec) * 1000 +
	       (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/*
 * The figure, computed by a child process that runs as the user (no
 * supplementary group, the job's gid, the job's uid): the records are the
 * user's and never read as root.  Waits at most LAGOM_MEASURED_READ_MS,
 * then kills the child.  The length, or -1.
 */
/* Descriptors closed one by one where close_range(2) is not there. */
#define CHILD_FD_SCAN_MAX 65536

int lagom_spank_spool_child_fds(int wfd)
{
	long max = sysconf(_SC_OPEN_MAX);

	if (wfd != 3 && dup2(wfd, 3) != 3)
		return -1;
#ifdef HAVE_CLOSE_RANGE
	if (close_range(4, ~0U, 0) == 0)
		return 3;
#endif
	if (max < 0 || max > CHILD_FD_SCAN_MAX)
		max = CHILD_FD_SCAN_MAX;
	for (int fd = 4; fd < max; fd++)
		close(fd);
	return 3;
}

int lagom_spank_spool_reap(pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1; /* ECHILD: not ours, or reaped already */
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int figure_as_user(const struct lagom_stepd *sd, uid_t uid, gid_t gid,
			  const char *name, char *out, size_t len)
{
	struct timespec deadline;
	size_t got = 0;
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		int n, wfd;

		/* none of slurmstepd's descriptors reach the user's side */
		close(fds[0]);
		if ((wfd = lagom_spank_spool_child_fds(fds[1])) < 0 ||
		    setgroups(0, NULL) != 0 || setgid(gid) != 0 ||
		    setuid(uid) != 0 || (uid != 0 && setuid(0) == 0))
			_exit(1);
		n = lagom_spank_spool_figure(sd->spool.dir, name, (long)uid,
					     out, len);
		if (n > 0 && write(wfd, out, (size_t)n) != n)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += LAGOM_MEASURED_READ_MS / 1000;
	for (;;) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		long left = ms_left(&deadline);
		ssize_t n;

		if (left <= 0 || got + 1 >= len) {
			kill(pid, SIGKILL);
			got = 0;
			break;
		}
		if (poll(&p, 1, (int)left) <= 0)
			continue; /* EINTR or the deadline: look again */
		n = read(fds[0], out + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	if (lagom_spank_spool_reap(pid) != 0 || got == 0)
		return -1;
	out[got] = '\0';
	return (int)got;
}

void lagom_spank_spool_step_end(spank_t sp, struct lagom_stepd *sd)
{
	struct lagom_comment_job *job;
	struct lagom_error err = { 0 };
	char words[512], name[32];
	bool admin = sd->st->cfg.comment == LAGOM_COMMENT_ADMIN;
	gid_t gid;
	int rc;

	if (!sd->spool.ready || !sd->planned ||
	    !lagom_mode_measured(sd->mode) || sd->step.node_id != 0 ||
	    sd->st->cfg.comment == LAGOM_COMMENT_NO ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS)
		return;
	snprintf(name, sizeof(name), "%u.%u", sd->step.job_id,
		 sd->step.step_id);
	if (figure_as_user(sd, sd->step.uid, gid, name, words, sizeof(words)) <
	    0)
		return; /* no record on node 0: nothing measured to say */
	job = lagom_comment_start_measured(sd->step.job_id, words, admin);
	if (!job) {
		lagom_log_info("job %s: measured figure not written: cannot "
			       "start a thread",
			       name);
		return;
	}
	rc = lagom_comment_wait(job, LAGOM_MEASURED_RPC_MS, NULL, &err);
	if (rc < 0)
		lagom_log_info("job %s: measured figure not written: %s", name,
			       err.text[0] ? err.text : "error");
	else if (sd->st->cfg.verbose)
		lagom_log_info("job %s: %s", name, words);
}
