/*
 * measurement/arm_spool.c - the one adapter between the control arm's
 * readers (`lagom report`, srun's revert) and the measurement spool
 * (arm.h): it turns each step directory of a user into a struct
 * lagom_arm_step.  It reads the way `lagom runs` does (cli/cmd_runs.c):
 * with the invoker's privileges, through the strict record, key and
 * predictions readers, each file opened O_NOFOLLOW | O_NONBLOCK, owned by
 * the user the directory names, bounded in size; the 64 first records by
 * name of a step's first 4096 entries, so that the figures never depend on
 * the directory's order.  When the spool walker of measurement/ lands,
 * this file is what changes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measurement/arm.h"
#include "measurement/predicted.h"
#include "measurement/record.h"

#define MAX_RECORDS 64
#define MAX_SCAN 4096
#define MAX_STEPS 4096

struct reader {
	struct lagom_rec rec, scratch;
	char text[LAGOM_REC_MAX_BYTES + 1];
	char names[MAX_RECORDS][LAGOM_REC_FILE_NAME_MAX];
	struct lagom_measure_pred pred;
	char pred_text[LAGOM_MEASURE_PRED_MAX];
	void (*refused)(const char *why, void *ctx);
	void *ctx;
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

/* dir/name into path (8192 bytes): 0, or -ENAMETOOLONG. */
static int join(char *path, const char *dir, const char *name)
{
	int n = snprintf(path, 8192, "%s/%s", dir, name);

	return n < 0 || n >= 8192 ? -ENAMETOOLONG : 0;
}

static void refuse(struct reader *rd, const struct lagom_error *err)
{
	if (rd->refused)
		rd->refused(err->text, rd->ctx);
}

static int read_records(struct reader *rd, const char *dir, long uid,
			struct sums *s)
{
	struct lagom_error err;
	char path[8192];
	size_t n, i;

	memset(s, 0, sizeof(*s));
	n = lagom_rec_names(dir, rd->names, MAX_RECORDS, MAX_SCAN, NULL);
	for (i = 0; i < n; i++) {
		memset(&err, 0, sizeof(err));
		if (join(path, dir, rd->names[i]) != 0 ||
		    lagom_rec_read_file(path, uid, rd->text, &rd->rec,
					&rd->scratch, &err) != 0) {
			refuse(rd, &err);
			continue;
		}
		add_record(s, &rd->rec);
	}
	return s->n ? 0 : -ENOENT;
}

static int read_key(struct reader *rd, const char *dir, long uid, char *key)
{
	struct lagom_error err = { 0 };
	char path[8192];
	size_t len = 0;
	int rc;

	if (join(path, dir, "key") != 0)
		return -ENAMETOOLONG;
	rc = lagom_rec_read_text(path, uid, rd->text, LAGOM_LEARN_KEY_MAX - 1,
				 &len, &err);
	if (rc == -ENOENT)
		return rc;
	rd->text[rc == 0 ? len : 0] = '\0';
	if (rc != 0 || !lagom_learn_key_ok(rd->text)) {
		if (rc == 0)
			snprintf(err.text, sizeof(err.text),
				 "%.200s: not a step key", path);
		refuse(rd, &err);
		return -EINVAL;
	}
	memcpy(key, rd->text, len + 1);
	return 0;
}

/* STEP/predicted, or an empty one (no arm, no plan) when there is none. */
static void read_predicted(struct reader *rd, const char *dir, long uid)
{
	struct lagom_error err = { 0 };
	char path[8192];
	int rc;

	memset(&rd->pred, 0, sizeof(rd->pred));
	rc = join(path, dir, LAGOM_MEASURE_PRED_FILE);
	if (rc == 0)
		rc = lagom_measure_pred_read_file(path, uid, rd->pred_text,
						  &rd->pred, &err);
	if (rc != 0 && rc != -ENOENT)
		refuse(rd, &err);
	if (rc != 0)
		memset(&rd->pred, 0, sizeof(rd->pred));
}

static void classify(const struct reader *rd, const struct sums *sm,
		     struct lagom_arm_step *s)
{
	const struct lagom_measure_pred *p = &rd->pred;
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

static void read_step(struct reader *rd, const char *dir, const char *name,
		      long uid, const char *user, const char *key,
		      void (*fn)(const struct lagom_arm_step *s, void *ctx))
{
	struct lagom_arm_step s = { .uid = uid };
	struct sums sm;

	if (read_key(rd, dir, s.uid, s.key) != 0 ||
	    (key && strcmp(key, s.key) != 0) ||
	    read_records(rd, dir, s.uid, &sm) != 0)
		return;
	read_predicted(rd, dir, s.uid);
	snprintf(s.user, sizeof(s.user), "%s", user);
	snprintf(s.dir, sizeof(s.dir), "%s", name);
	classify(rd, &sm, &s);
	s.tasks = sm.n;
	s.iteration_s = sm.iter_n ? sm.iter_ns / sm.iter_n / 1e9 : 0;
	s.comm_s = sm.comm_ns / sm.n / 1e9;
	s.gpu_s = sm.end > sm.start ? (double)(sm.end - sm.start) * sm.n : 0;
	fn(&s, rd->ctx);
}

static int name_ok(const char *n)
{
	size_t i;

	if (n[0] == '.' || strlen(n) > 200)
		return 0;
	for (i = 0; n[i]; i++)
		if (!lagom_rec_token_char((unsigned char)n[i]))
			return 0;
	return 1;
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

char **lagom_arm_subdirs(const char *dir, size_t max, size_t *n_out)
{
	char **names = calloc(max + 1, sizeof(*names));
	struct dirent *e;
	struct stat st;
	size_t n = 0;
	DIR *d;
	int fd;

	*n_out = 0;
	if (!names)
		return NULL;
	fd = open(dir,
		  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return names;
	}
	while ((e = readdir(d)) != NULL && n < max) {
		if (!name_ok(e->d_name) ||
		    fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	*n_out = n;
	return names;
}

void lagom_arm_free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int lagom_arm_spool_user(const char *user_dir, long uid, const char *user,
			 const char *key,
			 void (*fn)(const struct lagom_arm_step *s, void *ctx),
			 void (*refused)(const char *why, void *ctx), void *ctx)
{
	struct reader *rd = malloc(sizeof(*rd));
	char dir[8192];
	char **steps;
	size_t n, i;

	if (!rd)
		return -ENOMEM;
	rd->refused = refused;
	rd->ctx = ctx;
	steps = lagom_arm_subdirs(user_dir, MAX_STEPS, &n);
	if (!steps) {
		free(rd);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (join(dir, user_dir, steps[i]) == 0)
			read_step(rd, dir, steps[i], uid, user, key, fn);
	lagom_arm_free_names(steps, n);
	free(rd);
	return 0;
}
