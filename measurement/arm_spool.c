/*
 * measurement/arm_spool.c - the one adapter between the control arm's
 * readers (`lagom report`; srun, which learns from the class's latest step
 * and judges its runs in the same walk: spank/learn.c) and the measurement
 * spool (arm.h): it turns each step directory of a user into a struct
 * lagom_arm_step.  The spool is walked by measurement/spool.h's walker
 * (its order, its limits per user, its owner rule: the user is the owner
 * of the user's directory, and only that user's files are read), with the
 * invoker's privileges, through the strict record, key and predictions
 * readers; the first 64 records of a step by name, so that the figures
 * never depend on the directory's order.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/io.h"
#include "measurement/arm.h"
#include "measurement/learn.h"
#include "measurement/predicted.h"
#include "measurement/record.h"
#include "measurement/spool.h"

#define MAX_RECORDS 64
#define MAX_STEPS 4096

struct reader {
	struct lagom_rec rec, scratch;
	char text[LAGOM_REC_MAX_BYTES + 1];
	struct lagom_predicted pred;
	char pred_text[LAGOM_PREDICTED_MAX];
	struct lagom_arm_walk w; /* key NULL: every key */
	const char *user;
	struct lagom_arm_step s;
	bool key_read; /* s.key is the step's, read by on_step_open */
	struct sums *sm;
};

struct sums {
	char plan[LAGOM_REC_TOKEN_MAX + 1];
	bool mixed;
	unsigned n;
	double iter_ns, comm_ns;
	unsigned iter_n;
	uint64_t start, end;
};

/* A class's GPU time, its untimed calls counted at the timed mean. */
static double comm_ns(const struct lagom_rec *r)
{
	double sum = 0;
	uint32_t c, i;

	for (c = 0; c < r->n_comms; c++)
		for (i = 0; i < r->comm[c].n_classes; i++) {
			const struct lagom_rec_class *k = &r->comm[c].cls[i];

			if (k->gpu_n)
				sum += (double)k->gpu_ns * (double)k->count /
				       (double)k->gpu_n;
		}
	return sum;
}

static void add_record(struct sums *s, const struct lagom_rec *r)
{
	const struct lagom_rec_comm *m = lagom_rec_main_comm(r);

	if (s->n == 0)
		memcpy(s->plan, r->plan, sizeof(s->plan));
	else if (strcmp(s->plan, r->plan) != 0)
		s->mixed = true;
	if (s->n == 0 || r->start_unix < s->start)
		s->start = r->start_unix;
	if (r->written_unix > s->end)
		s->end = r->written_unix;
	s->n++;
	if (m && m->period_ns) {
		s->iter_ns += (double)m->period_ns;
		s->iter_n++;
	}
	s->comm_ns += comm_ns(r);
}

static void refuse(struct reader *rd, const struct lagom_spool_at *at,
		   const struct lagom_error *err)
{
	char where[LAGOM_SPOOL_NAME_MAX * 12 + 8],
		line[sizeof(where) + LAGOM_ERROR_TEXT_MAX + 2];

	if (!rd->w.refused)
		return;
	lagom_spool_where(at, where, sizeof(where));
	snprintf(line, sizeof(line), "%s: %s", where, err->text);
	rd->w.refused(line, rd->w.ctx);
}

/* STEP/key into rd->s.key: 0, -ENOENT (none), or -EINVAL (refused). */
static int read_key(struct reader *rd, const struct lagom_spool_at *at)
{
	struct lagom_read_rule rule = { .max_bytes = LAGOM_LEARN_KEY_MAX - 1,
					.owner = LAGOM_OWNER_UID,
					.uid = at->uid };
	struct lagom_error err = { 0 };
	size_t len = 0;
	int rc = lagom_read_file_at(at->step_fd, LAGOM_SPOOL_KEY, &rule,
				    rd->text, &len, NULL, &err);

	if (rc == -ENOENT)
		return rc;
	rd->text[rc == 0 ? len : 0] = '\0';
	if (rc != 0 || !lagom_learn_key_ok(rd->text)) {
		if (rc == 0)
			snprintf(err.text, sizeof(err.text),
				 "key: not a step key");
		refuse(rd, at, &err);
		return -EINVAL;
	}
	memcpy(rd->s.key, rd->text, len + 1);
	return 0;
}

/* STEP/predicted, or an empty one (no arm, no plan) when there is none. */
static void read_predicted(struct reader *rd, const struct lagom_spool_at *at)
{
	struct lagom_error err = { 0 };
	int rc = lagom_predicted_read_at(at->step_fd, LAGOM_PREDICTED_FILE,
					 (long)at->uid, rd->pred_text,
					 &rd->pred, &err);

	if (rc != 0 && rc != -ENOENT)
		refuse(rd, at, &err);
	if (rc != 0)
		memset(&rd->pred, 0, sizeof(rd->pred));
}

static void classify(const struct reader *rd, const struct sums *sm,
		     struct lagom_arm_step *s)
{
	const struct lagom_predicted *p = &rd->pred;
	bool untuned = !sm->plan[0] || strcmp(sm->plan, "-") == 0;

	if (sm->mixed)
		s->arm = LAGOM_ARM_UNTUNED;
	else if (!untuned)
		s->arm = LAGOM_ARM_TUNED;
	else if (strcmp(p->arm, "control") == 0)
		s->arm = LAGOM_ARM_CONTROL;
	else if (strcmp(p->arm, "measure") == 0)
		s->arm = LAGOM_ARM_MEASURE;
	else
		s->arm = LAGOM_ARM_UNTUNED;
	snprintf(s->plan, sizeof(s->plan), "%s",
		 s->arm == LAGOM_ARM_TUNED ? sm->plan : p->plan);
	if (p->default_ns && p->iteration_ns && strcmp(p->plan, s->plan) == 0)
		s->predicted_speedup = (double)p->default_ns /
				       (double)p->iteration_ns;
}

/* With a key asked for: a step of another key passed over before its
 * records are listed.  Silent: a key that cannot be read is on_step's to
 * refuse, once it is known the step holds a record. */
static int on_step_open(void *ctx, const struct lagom_spool_at *at)
{
	struct reader *rd = ctx;
	struct lagom_read_rule rule = { .max_bytes = LAGOM_LEARN_KEY_MAX - 1,
					.owner = LAGOM_OWNER_UID,
					.uid = at->uid };
	size_t len = 0;

	rd->key_read = false;
	if (lagom_read_file_at(at->step_fd, LAGOM_SPOOL_KEY, &rule, rd->text,
			       &len, NULL, NULL) != 0)
		return LAGOM_SPOOL_NEXT;
	rd->text[len] = '\0';
	if (!lagom_learn_key_ok(rd->text))
		return LAGOM_SPOOL_NEXT;
	if (strcmp(rd->w.key, rd->text) != 0)
		return LAGOM_SPOOL_SKIP;
	rd->key_read = true;
	return LAGOM_SPOOL_NEXT;
}

static int on_step(void *ctx, const struct lagom_spool_at *at)
{
	struct reader *rd = ctx;
	bool key_read = rd->key_read;
	int rc;

	rd->key_read = false;
	memset(&rd->s, 0, sizeof(rd->s));
	memset(rd->sm, 0, sizeof(*rd->sm));
	if (at->kept == 0)
		return LAGOM_SPOOL_SKIP;
	if (key_read)
		snprintf(rd->s.key, sizeof(rd->s.key), "%s", rd->w.key);
	else if (read_key(rd, at) != 0 ||
		 (rd->w.key && strcmp(rd->w.key, rd->s.key) != 0))
		return LAGOM_SPOOL_SKIP;
	if (rd->w.on_step &&
	    (rc = rd->w.on_step(rd->w.ctx, at)) != LAGOM_SPOOL_NEXT)
		return rc;
	if (rd->w.fn)
		read_predicted(rd, at);
	return LAGOM_SPOOL_NEXT;
}

static int on_record(void *ctx, const struct lagom_spool_at *at)
{
	struct reader *rd = ctx;
	struct lagom_error err = { 0 };

	if (lagom_spool_read_record(at, rd->text, &rd->rec, &rd->scratch,
				    &err) != 0) {
		refuse(rd, at, &err);
		if (rd->w.on_record)
			rd->w.on_record(rd->w.ctx, at, NULL, &err);
		return LAGOM_SPOOL_NEXT;
	}
	add_record(rd->sm, &rd->rec);
	if (rd->w.on_record)
		rd->w.on_record(rd->w.ctx, at, &rd->rec, NULL);
	return LAGOM_SPOOL_NEXT;
}

static void on_step_end(void *ctx, const struct lagom_spool_at *at)
{
	struct reader *rd = ctx;
	struct lagom_arm_step *s = &rd->s;
	const struct sums *sm = rd->sm;

	if (sm->n == 0 || !rd->w.fn)
		return;
	s->uid = (long)at->uid;
	snprintf(s->user, sizeof(s->user), "%s",
		 at->user && at->user[0] ? at->user : rd->user);
	snprintf(s->dir, sizeof(s->dir), "%s", at->step);
	classify(rd, sm, s);
	s->tasks = sm->n;
	s->iteration_s = sm->iter_n ? sm->iter_ns / sm->iter_n / 1e9 : 0;
	s->comm_s = sm->comm_ns / sm->n / 1e9;
	s->gpu_s = sm->end > sm->start ? (double)(sm->end - sm->start) * sm->n
				       : 0;
	s->end_unix = sm->end;
	rd->w.fn(s, rd->w.ctx);
}

/* A user's directory whose name is not its owner's is refused: the
 * figures of a user are that user's own. */
static int on_user(void *ctx, const struct lagom_spool_at *at)
{
	struct reader *rd = ctx;
	struct lagom_error err = { 0 };
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwuid_r(at->uid, &pw, buf, sizeof(buf), &res) == 0 && res &&
	    strcmp(res->pw_name, at->user) == 0)
		return LAGOM_SPOOL_NEXT;
	snprintf(err.text, sizeof(err.text),
		 "owned by uid %u, not by the user it names",
		 (unsigned)at->uid);
	refuse(rd, at, &err);
	return LAGOM_SPOOL_SKIP;
}

static void say(void *ctx, const char *line)
{
	struct reader *rd = ctx;

	if (rd->w.refused)
		rd->w.refused(line, rd->w.ctx);
}

static struct reader *reader_new(const char *user,
				 const struct lagom_arm_walk *w)
{
	struct reader *rd = calloc(1, sizeof(*rd));

	if (!rd)
		return NULL;
	rd->sm = calloc(1, sizeof(*rd->sm));
	if (!rd->sm) {
		free(rd);
		return NULL;
	}
	rd->user = user ? user : "";
	rd->w = *w;
	return rd;
}

static void reader_free(struct reader *rd)
{
	if (rd)
		free(rd->sm);
	free(rd);
}

static struct lagom_spool_walk walk_of(struct reader *rd)
{
	return (struct lagom_spool_walk){
		.lim = { .steps_max = MAX_STEPS, .records_max = MAX_RECORDS },
		.on_user = on_user,
		.on_step = on_step,
		.on_record = on_record,
		.on_step_end = on_step_end,
		.say = say,
		.ctx = rd,
		.latest_first = rd->w.latest_first,
		.on_step_open = rd->w.key ? on_step_open : NULL,
	};
}

int lagom_arm_spool_walk(int user_fd, long uid, const char *user,
			 const struct lagom_arm_walk *w)
{
	struct reader *rd = reader_new(user, w);
	struct lagom_spool_walk walk;
	struct stat st;

	if (!rd)
		return -ENOMEM;
	walk = walk_of(rd);
	walk.on_user = NULL; /* the caller named the user */
	if (fstat(user_fd, &st) == 0 && st.st_uid == (uid_t)uid)
		lagom_spool_walk_user(user_fd, user, &walk);
	reader_free(rd);
	return 0;
}

int lagom_arm_spool_user(const char *user_dir, long uid, const char *user,
			 const char *key,
			 void (*fn)(const struct lagom_arm_step *s, void *ctx),
			 void (*refused)(const char *why, void *ctx), void *ctx)
{
	const struct lagom_arm_walk w = {
		.key = key, .fn = fn, .refused = refused, .ctx = ctx
	};
	int fd = lagom_open_at(AT_FDCWD, user_dir, O_RDONLY | O_DIRECTORY, 0,
			       NULL);
	int rc = 0;

	if (fd >= 0) {
		rc = lagom_arm_spool_walk(fd, uid, user, &w);
		close(fd);
	}
	return rc;
}

int lagom_arm_spool_root(const char *root,
			 void (*fn)(const struct lagom_arm_step *s, void *ctx),
			 void (*refused)(const char *why, void *ctx), void *ctx)
{
	const struct lagom_arm_walk aw = { .fn = fn,
					   .refused = refused,
					   .ctx = ctx };
	struct reader *rd = reader_new(NULL, &aw);
	struct lagom_spool_walk w;
	int fd, rc = 0;

	if (!rd)
		return -ENOMEM;
	w = walk_of(rd);
	fd = lagom_open_at(AT_FDCWD, root, O_RDONLY | O_DIRECTORY, 0, NULL);
	if (fd >= 0) {
		rc = lagom_spool_walk_root(fd, &w);
		close(fd);
	}
	reader_free(rd);
	return rc == -ENOMEM ? rc : 0;
}
