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
#include "measurement/spool.h"
#include "spank/local_int.h"
#include "spank/remote_int.h"

#define KEY_MAX LAGOM_LEARN_KEY_MAX
#define MAX_SCAN 4096	 /* steps looked at, the latest */
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

void lagom_learn_write_key(spank_t sp, const struct lagom_stepd *sd)
{
	char key[KEY_MAX];
	spank_err_t rc = spank_getenv(sp, LAGOM_STEP_KEY_VAR, key, sizeof(key));

	spank_unsetenv(sp, LAGOM_STEP_KEY_VAR); /* not for the tasks */
	if (rc != ESPANK_SUCCESS || !sd->spool.ready || !sd->planned ||
	    !lagom_learn_key_ok(key))
		return;
	/* through the step directory root checked (measure.c); a fresh
	 * temporary file: nothing the user planted is opened or blocks */
	lagom_replace_at(sd->spool.fd, LAGOM_SPOOL_KEY, key, strlen(key), 0600,
			 false);
}

/* The walk that finds the latest other step with the same key. */
struct find {
	const char *self, *key;
	char best[LAGOM_SPOOL_NAME_MAX];
};

/* A step of the user's, the latest first in the spool's order (version
 * order: job, then step, as numbers): the first whose key is the same and
 * that holds records wins. */
static int find_on_step(void *ctx, const struct lagom_spool_at *at)
{
	struct find *f = ctx;
	struct lagom_read_rule rule = { .max_bytes = KEY_MAX - 1,
					.owner = LAGOM_OWNER_UID,
					.uid = at->uid };
	char buf[KEY_MAX];
	size_t n = 0;

	if (strcmp(at->step, f->self) != 0 && strlen(at->step) <= 64 &&
	    at->kept > 0 &&
	    lagom_read_file_at(at->step_fd, LAGOM_SPOOL_KEY, &rule, buf, &n,
			       NULL, NULL) == 0 &&
	    n == strlen(f->key) && memcmp(buf, f->key, n) == 0) {
		snprintf(f->best, sizeof(f->best), "%s", at->step);
		return LAGOM_SPOOL_STOP;
	}
	return LAGOM_SPOOL_SKIP; /* its records: only the chosen step's */
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
		struct lagom_learn_class mc;
		size_t j;

		if (k->gpu_n == 0 || lagom_learn_class(m, k, &mc) != 0)
			continue;
		c.coll = mc.coll;
		c.bytes = mc.bytes;
		c.config = mc.config;
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

/* Reading the chosen step: every acceptable record's measured classes,
 * and (when want_workload) the first one's iteration as the workload;
 * every refused record is one line. */
struct from_step {
	struct lagom_rec rec, scratch;
	char text[LAGOM_REC_MAX_BYTES + 1];
	char wname[LAGOM_NAME_MAX];
	bool want_workload;
	struct lagom_learned *l;
	struct lagom_planner_measured_class *tab;
	void (*say)(const char *, void *);
	void *ctx;
};

static void from_say(void *ctx, const char *line)
{
	struct from_step *f = ctx;

	f->say(line, f->ctx);
}

static int from_record(void *ctx, const struct lagom_spool_at *at)
{
	struct from_step *f = ctx;
	const struct lagom_rec_comm *m;
	struct lagom_error err = { 0 };
	char where[LAGOM_SPOOL_NAME_MAX * 4],
		line[sizeof(where) + LAGOM_ERROR_TEXT_MAX + 32];

	if (lagom_spool_read_record(at, f->text, &f->rec, &f->scratch, &err) !=
	    0) {
		lagom_spool_where(at, where, sizeof(where));
		snprintf(line, sizeof(line), "measurement refused: %s: %s",
			 where, err.text);
		f->say(line, f->ctx);
		return LAGOM_SPOOL_NEXT;
	}
	for (uint32_t c = 0; c < f->rec.n_comms; c++)
		add_measured(f->l, f->tab, &f->rec.comm[c]);
	m = lagom_rec_main_comm(&f->rec);
	if (f->want_workload && !f->l->workload && m)
		f->l->workload = lagom_learn_workload(m, f->wname);
	return LAGOM_SPOOL_NEXT;
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
	char key[KEY_MAX], self[32], user[64], user_dir[2048];
	struct find find = { .self = self, .key = key };
	struct lagom_spool_walk walk = {
		.lim = { .steps_max = MAX_SCAN, .records_max = MAX_RECORDS },
		.latest_first = true,
		.on_step = find_on_step,
		.ctx = &find,
	};
	struct from_step *f;
	struct lagom_learned *l;
	struct lagom_planner_measured_class *tab;
	uid_t uid = getuid();
	struct stat ust;
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
	user_fd = lagom_open_at(AT_FDCWD, user_dir, O_RDONLY | O_DIRECTORY, 0,
				&ust);
	if (user_fd < 0)
		return NULL;
	/* the user's own directory, the user's own records */
	if (ust.st_uid == uid)
		lagom_spool_walk_user(user_fd, user, &walk);
	if (!find.best[0]) {
		close(user_fd);
		return NULL;
	}
	f = malloc(sizeof(*f));
	l = calloc(1, sizeof(*l));
	tab = calloc(MAX_MEASURED, sizeof(*tab));
	if (!f || !l || !tab) {
		free(f);
		free(l);
		free(tab);
		close(user_fd);
		return NULL;
	}
	snprintf(l->measured.from, sizeof(l->measured.from), "%.64s",
		 find.best);
	l->measured.cls = tab;
	*f = (struct from_step){ .want_workload = !st->workload_given,
				 .l = l,
				 .tab = tab,
				 .say = say,
				 .ctx = ctx };
	snprintf(f->wname, sizeof(f->wname), "measured-%.40s", find.best);
	/* the same records of a step on every rerun: the first by name */
	walk.latest_first = false;
	walk.on_step = NULL;
	walk.on_record = from_record;
	walk.say = from_say;
	walk.ctx = f;
	lagom_spool_walk_step(user_fd, find.best, uid, &walk);
	close(user_fd);
	free(f);
	if (!l->workload && l->measured.n == 0) {
		lagom_learned_destroy(l);
		return NULL;
	}
	return l;
}
