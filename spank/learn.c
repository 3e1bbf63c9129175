/*
 * spank/learn.c - planning from measurements (doc/profiler.md, "Planning
 * from measurements").  Runs once per step in srun's local_user_init,
 * where the one plan of the step is made (doc/consistency.md): srun runs
 * as the job's owner, so everything here is read with the user's
 * privileges, only from the user's own spool directory, and only through
 * the strict record reader.  Every node then applies the same plan.
 *
 * The key of a step: the user's LAGOM_MEASURE_KEY when set ("user:KEY"),
 * else "job:NAME shape:NODESxTASKSxGPUS workload:W" (the job name, the
 * step's shape and the --lagom-workload value, "-" when none).  srun sends
 * the key to the nodes (LAGOM_STEP_KEY_VAR) and each node leaves it in
 * STEP/key.  A later step with no --lagom-workload and the same key plans
 * from the latest such step's records: the repeating sequence of
 * collectives one task measured becomes the workload (one region per
 * collective, its measured gap as the computation beside it), named
 * "measured-JOB.STEP", which the plan summary and the job comment then
 * show.  With or without --lagom-workload, every timed collective class
 * of that step (all its tasks' records, read in name order) goes to the
 * planner, which corrects the model's time of the matching classes by
 * measured / model (planner/learned.c; "corrected=... from=JOB.STEP" in
 * the summary).  Planning from measurements needs the spool where srun
 * runs (a shared file system, or srun on a node); elsewhere srun finds
 * none.  What needs no file or environment (the key's text, a record's
 * meaning to the model, the measured workload) is measurement/learn.c's.
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

#include "common/io.h"
#include "model/model.h"
#include "measurement/learn.h"
#include "measurement/record.h"
#include "spank/local_int.h"
#include "spank/remote_int.h"

#define KEY_MAX LAGOM_LEARN_KEY_MAX
#define KEY_FILE "key"
#define MAX_SCAN 4096	 /* step directories looked at */
#define MAX_RECORDS 64	 /* records read from the chosen step */
#define MAX_MEASURED 512 /* distinct measured classes kept */

static void step_key(const struct lagom_state *st,
		     const struct lagom_step *step, char *key, size_t len)
{
	lagom_learn_key(key, len, getenv("LAGOM_MEASURE_KEY"),
			getenv("SLURM_JOB_NAME"), step->node_count,
			step->ranks_per_node, step->gpus_per_node,
			st->workload_given ? st->workload : NULL);
}

/* The whole of a small file of the user's, or -1. */
static ssize_t read_small_at(int dir_fd, const char *name, uid_t uid, char *buf,
			     size_t cap)
{
	struct stat st;
	ssize_t n;
	int fd = openat(dir_fd, name,
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != uid ||
	    st.st_size >= (off_t)cap) {
		close(fd);
		return -1;
	}
	n = read(fd, buf, cap);
	close(fd);
	return n;
}

void lagom_learn_write_key(spank_t sp, const struct lagom_stepd *sd)
{
	char key[KEY_MAX];
	spank_err_t rc = spank_getenv(sp, LAGOM_STEP_KEY_VAR, key, sizeof(key));

	spank_unsetenv(sp, LAGOM_STEP_KEY_VAR); /* not for the tasks */
	if (rc != ESPANK_SUCCESS || !sd->measure_ready || !sd->planned ||
	    !lagom_learn_key_ok(key))
		return;
	/* through the step directory root checked (measure.c); a fresh
	 * temporary file: nothing the user planted is opened or blocks */
	lagom_replace_at(sd->measure_fd, KEY_FILE, key, strlen(key), 0600,
			 false);
}

/* "JOB.STEP" -> numbers for ordering; 0 when not numeric. */
static unsigned long long step_order(const char *name)
{
	unsigned long job = 0, step = 0;
	char tail;

	if (sscanf(name, "%lu.%lu%c", &job, &step, &tail) != 2)
		return 0;
	return ((unsigned long long)job << 32) | (step & 0xffffffffu);
}

/* Whether dir_fd/name holds a *.rec entry (a bounded look). */
static int has_records(int dir_fd, const char *name)
{
	int fd = openat(dir_fd, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	unsigned seen = 0;
	int found = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (!found && (e = readdir(d)) != NULL && seen++ < MAX_SCAN) {
		size_t len = strlen(e->d_name);

		found = e->d_name[0] != '.' && len > 4 &&
			strcmp(e->d_name + len - 4, ".rec") == 0;
	}
	closedir(d);
	return found;
}

/* The latest other step of this user with the same key and records. */
static int find_step(int user_fd, const char *self, const char *key, uid_t uid,
		     char *best, size_t len)
{
	unsigned long long best_order = 0, o;
	char buf[KEY_MAX];
	struct dirent *e;
	unsigned seen = 0;
	int fd = dup(user_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	ssize_t n;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	best[0] = '\0';
	while ((e = readdir(d)) != NULL && seen++ < MAX_SCAN) {
		char path[300];

		if (e->d_name[0] == '.' || strcmp(e->d_name, self) == 0 ||
		    strlen(e->d_name) > 64)
			continue;
		snprintf(path, sizeof(path), "%s/" KEY_FILE, e->d_name);
		n = read_small_at(fd, path, uid, buf, sizeof(buf));
		if (n != (ssize_t)strlen(key) || memcmp(buf, key, (size_t)n) ||
		    !has_records(fd, e->d_name))
			continue;
		o = step_order(e->d_name);
		if (o >= best_order) {
			best_order = o;
			snprintf(best, len, "%s", e->d_name);
		}
	}
	closedir(d);
	return best[0] ? 0 : -1;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Add the timed classes of one communicator to the measured table. */
static void add_measured(struct lagom_learned *l,
			 struct lagom_planner_measured_class *tab,
			 const struct lagom_rec_comm *m)
{
	for (uint32_t i = 0; i < m->n_classes; i++) {
		const struct lagom_rec_class *k = &m->cls[i];
		struct lagom_planner_measured_class c = { .ranks = m->ranks,
							  .nodes = m->nodes };
		size_t j;

		if (k->gpu_n == 0 || k->bytes == 0 ||
		    lagom_learn_coll(k->op, &c.coll) != 0 ||
		    lagom_learn_config(k, &c.config))
			continue;
		c.bytes = lagom_rec_plan_bytes(k->op, k->bytes, m->ranks);
		for (j = 0; j < l->measured.n; j++)
			if (tab[j].coll == c.coll && tab[j].bytes == c.bytes &&
			    tab[j].ranks == c.ranks &&
			    tab[j].nodes == c.nodes &&
			    memcmp(&tab[j].config, &c.config,
				   sizeof(c.config)) == 0)
				break;
		if (j == l->measured.n) {
			if (j == MAX_MEASURED)
				continue;
			tab[l->measured.n++] = c;
		}
		tab[j].samples = sat_add(tab[j].samples, k->gpu_n);
		tab[j].gpu_ns = sat_add(tab[j].gpu_ns, k->gpu_ns);
	}
}

struct learn_buf {
	struct lagom_rec rec, scratch;
	char text[LAGOM_REC_MAX_BYTES + 1];
	char names[MAX_RECORDS][LAGOM_REC_FILE_NAME_MAX];
};

/*
 * Every acceptable record of dir: its measured classes, and (when
 * want_workload) the first one's iteration as the workload; every refused
 * record is one line.
 */
static void from_step(const char *dir, const char *name, uid_t uid,
		      bool want_workload, struct learn_buf *b,
		      struct lagom_learned *l,
		      struct lagom_planner_measured_class *tab,
		      void (*say)(const char *, void *), void *ctx)
{
	struct lagom_error err;
	char path[2600], wname[LAGOM_NAME_MAX], line[400];
	size_t n, i;

	/* the same records of a step on every node and every rerun */
	n = lagom_rec_names(dir, b->names, MAX_RECORDS, MAX_SCAN, NULL);
	snprintf(wname, sizeof(wname), "measured-%.40s", name);
	for (i = 0; i < n; i++) {
		const struct lagom_rec_comm *m;

		snprintf(path, sizeof(path), "%s/%s", dir, b->names[i]);
		memset(&err, 0, sizeof(err));
		if (lagom_rec_read_file(path, (long)uid, b->text, &b->rec,
					&b->scratch, &err) != 0) {
			snprintf(line, sizeof(line), "measurement refused: %s",
				 err.text);
			say(line, ctx);
			continue;
		}
		for (uint32_t c = 0; c < b->rec.n_comms; c++)
			add_measured(l, tab, &b->rec.comm[c]);
		m = lagom_rec_main_comm(&b->rec);
		if (want_workload && !l->workload && m)
			l->workload = lagom_learn_workload(m, wname);
	}
}

void lagom_learned_destroy(struct lagom_learned *learned)
{
	if (!learned)
		return;
	lagom_workload_destroy(learned->workload);
	free((void *)learned->measured.cls);
	free(learned);
}

struct lagom_learned *lagom_learn_srun(const struct lagom_state *st,
				       const struct lagom_step *step,
				       void (*say)(const char *, void *),
				       void *ctx)
{
	const struct lagom_measure_config *m = &st->cfg.measure;
	struct learn_buf *b;
	struct lagom_learned *l;
	struct lagom_planner_measured_class *tab;
	char key[KEY_MAX], self[32], best[80], user[64], user_dir[2048],
		dir[2200];
	uid_t uid = getuid();
	int user_fd;

	unsetenv(LAGOM_STEP_KEY_VAR);
	/* explain shows what auto would do: it learns too (and records
	 * nothing: only auto steps get a spool) */
	if (!m->on || !m->dir[0] || lagom_effective_mode(st) == LAGOM_MODE_OFF)
		return NULL;
	step_key(st, step, key, sizeof(key));
	setenv(LAGOM_STEP_KEY_VAR, key, 1);
	/* only the job's owner learns from the owner's spool (step->uid:
	 * srun_step.c, srun's user where Slurm reports "nobody") */
	if (uid != step->uid ||
	    lagom_measure_user_name(uid, user, sizeof(user)) != 0 ||
	    (size_t)snprintf(user_dir, sizeof(user_dir), "%s/%s", m->dir,
			     user) >= sizeof(user_dir))
		return NULL;
	snprintf(self, sizeof(self), "%u.%u", step->job_id, step->step_id);
	user_fd = open(user_dir,
		       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (user_fd < 0)
		return NULL;
	if (find_step(user_fd, self, key, uid, best, sizeof(best))) {
		close(user_fd);
		return NULL;
	}
	close(user_fd);
	b = malloc(sizeof(*b));
	l = calloc(1, sizeof(*l));
	tab = calloc(MAX_MEASURED, sizeof(*tab));
	if (!b || !l || !tab) {
		free(b);
		free(l);
		free(tab);
		return NULL;
	}
	snprintf(dir, sizeof(dir), "%s/%s", user_dir, best);
	snprintf(l->measured.from, sizeof(l->measured.from), "%s", best);
	l->measured.cls = tab;
	from_step(dir, best, uid, !st->workload_given, b, l, tab, say, ctx);
	free(b);
	if (!l->workload && l->measured.n == 0) {
		lagom_learned_destroy(l);
		return NULL;
	}
	return l;
}
