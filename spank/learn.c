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
 * measured / model (planner/correct.c; "corrected=... from=JOB.STEP" in
 * the summary).  Planning from measurements needs the spool where srun
 * runs (a shared file system, or srun on a node); elsewhere srun finds
 * none.  What needs no file or environment (the key's text, a record's
 * meaning to the model, the measured workload) is measurement/learn.c's.
 *
 * The same walk of the user's spool (the only one srun makes per launch)
 * gathers the class's measured runs, tuned and control, that revert.c
 * judges the plan on (doc/report.md): each record is read and parsed once
 * (bench/bench_srun_spool prints what the walk costs).
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
#include "measurement/arm.h"
#include "measurement/learn.h"
#include "measurement/record.h"
#include "measurement/spool.h"
#include "spank/local_int.h"
#include "spank/remote_int.h"

#define KEY_MAX LAGOM_LEARN_KEY_MAX
#define MAX_MEASURED 512 /* distinct measured classes kept */
#define MAX_RUNS 4096	 /* the class's runs kept for revert.c */

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
	/* through the step directory root checked (spool.c); a fresh
	 * temporary file: nothing the user planted is opened or blocks */
	lagom_replace_at(sd->spool.fd, LAGOM_SPOOL_KEY, key, strlen(key), 0600,
			 false);
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

/*
 * The one walk of the user's spool (measurement/arm.h's adapter over
 * measurement/spool.h's walker), the latest step first: every step of the
 * key, its records read once.  The first that is not this step (and holds
 * a record) is the one learned from: every acceptable record's measured
 * classes, and (when want_workload) the first one's iteration as the
 * workload; each of its refused records is one line.  With runs, every
 * step of the key is also one of the class's runs (revert.c); without,
 * the walk ends at the step learned from.
 */
struct walk {
	const char *self;
	char from[LAGOM_SPOOL_NAME_MAX]; /* the step learned from, "" none */
	bool reading;			 /* its records are being read */
	char wname[LAGOM_NAME_MAX];
	bool want_workload;
	struct lagom_learned *l;
	struct lagom_planner_measured_class *tab; /* l's classes */
	struct lagom_class_runs *runs;		  /* NULL: learning only */
	void (*say)(const char *, void *);
	void *ctx;
};

static int walk_step(void *ctx, const struct lagom_spool_at *at)
{
	struct walk *w = ctx;
	char where[LAGOM_SPOOL_NAME_MAX * 8], line[sizeof(where) + 64];

	w->reading = false;
	if (!w->from[0] && strcmp(at->step, w->self) != 0 &&
	    strlen(at->step) <= 64) {
		snprintf(w->from, sizeof(w->from), "%s", at->step);
		snprintf(w->wname, sizeof(w->wname), "measured-%.40s",
			 at->step);
		w->reading = true;
		if (at->found > at->kept) {
			lagom_spool_where(at, where, sizeof(where));
			snprintf(line, sizeof(line),
				 "spool: %s: %zu records found, the first %zu "
				 "by name read",
				 where, at->found, at->kept);
			w->say(line, w->ctx);
		}
		return LAGOM_SPOOL_NEXT;
	}
	if (w->runs)
		return LAGOM_SPOOL_NEXT;
	return w->from[0] ? LAGOM_SPOOL_STOP : LAGOM_SPOOL_SKIP;
}

static void walk_record(void *ctx, const struct lagom_spool_at *at,
			const struct lagom_rec *rec,
			const struct lagom_error *err)
{
	struct walk *w = ctx;
	const struct lagom_rec_comm *m;
	char where[LAGOM_SPOOL_NAME_MAX * 4],
		line[sizeof(where) + LAGOM_ERROR_TEXT_MAX + 32];

	if (!w->reading)
		return;
	if (!rec) {
		lagom_spool_where(at, where, sizeof(where));
		snprintf(line, sizeof(line), "measurement refused: %s: %s",
			 where, err->text);
		w->say(line, w->ctx);
		return;
	}
	for (uint32_t c = 0; c < rec->n_comms; c++)
		add_measured(w->l, w->tab, &rec->comm[c]);
	m = lagom_rec_main_comm(rec);
	if (w->want_workload && !w->l->workload && m)
		w->l->workload = lagom_learn_workload(m, w->wname);
}

static void walk_run(const struct lagom_arm_step *s, void *ctx)
{
	lagom_arm_steps_fn(s, &((struct walk *)ctx)->runs->steps);
}

static void walk_refused(const char *why, void *ctx)
{
	struct lagom_class_runs *r = ((struct walk *)ctx)->runs;

	if (r->n_refused++ == 0)
		snprintf(r->refused, sizeof(r->refused), "%s", why);
}

void lagom_class_runs_free(struct lagom_class_runs *runs)
{
	if (runs)
		lagom_arm_steps_free(&runs->steps);
	free(runs);
}

void lagom_learned_destroy(struct lagom_learned *learned)
{
	if (!learned)
		return;
	lagom_workload_destroy(learned->workload);
	free((void *)learned->measured.cls);
	free(learned);
}

/* The runs in run order (the walk went from the latest). */
static void runs_in_order(struct lagom_arm_steps *r)
{
	for (size_t i = 0; i < r->n / 2; i++) {
		struct lagom_arm_step t = r->v[i];

		r->v[i] = r->v[r->n - 1 - i];
		r->v[r->n - 1 - i] = t;
	}
}

struct lagom_learned *lagom_learn_srun(const struct lagom_state *st,
				       const struct lagom_step *step,
				       void (*say)(const char *, void *),
				       void *ctx,
				       struct lagom_class_runs **runs)
{
	const struct lagom_measure_config *m = &st->cfg.measure;
	enum lagom_mode mode = lagom_effective_mode(st);
	char key[KEY_MAX], self[32], user[64], user_dir[2048];
	struct walk w = { .self = self,
			  .want_workload = !st->workload_given,
			  .say = say,
			  .ctx = ctx };
	struct lagom_arm_walk aw = { .key = key,
				     .latest_first = true,
				     .on_step = walk_step,
				     .on_record = walk_record,
				     .ctx = &w };
	struct lagom_learned *l;
	uid_t uid = getuid();
	int user_fd;

	*runs = NULL;
	unsetenv(LAGOM_STEP_KEY_VAR);
	/* explain shows what auto would do: it learns too (and records
	 * nothing: only auto steps get a spool) */
	if (!m->on || !m->dir[0] || mode == LAGOM_MODE_OFF)
		return NULL;
	step_key(st, step, key, sizeof(key));
	setenv(LAGOM_STEP_KEY_VAR, key, 1);
	/* only the job's owner learns from the owner's spool (step->uid:
	 * srun_step.c, srun's user where Slurm reports "nobody") */
	if (uid != step->uid ||
	    lagom_spank_spool_user_name(uid, user, sizeof(user)) != 0 ||
	    (size_t)snprintf(user_dir, sizeof(user_dir), "%s/%s", m->dir,
			     user) >= sizeof(user_dir))
		return NULL;
	snprintf(self, sizeof(self), "%u.%u", step->job_id, step->step_id);
	user_fd = lagom_open_at(AT_FDCWD, user_dir, O_RDONLY | O_DIRECTORY, 0,
				NULL);
	if (user_fd < 0)
		return NULL;
	l = calloc(1, sizeof(*l));
	w.tab = calloc(MAX_MEASURED, sizeof(*w.tab));
	if (l)
		l->measured.cls = w.tab;
	else
		free(w.tab);
	if (mode == LAGOM_MODE_AUTO || mode == LAGOM_MODE_EXPLAIN) {
		w.runs = calloc(1, sizeof(*w.runs));
		if (w.runs)
			w.runs->steps.max = MAX_RUNS;
		aw.fn = walk_run;
		aw.refused = walk_refused;
	}
	w.l = l;
	/* the user's own directory (its owner is the user), the user's own
	 * records */
	if (l && w.tab && (w.runs || aw.fn == NULL))
		lagom_arm_spool_walk(user_fd, (long)uid, user, &aw);
	close(user_fd);
	if (w.runs && w.runs->steps.n > 0) {
		runs_in_order(&w.runs->steps);
		*runs = w.runs;
	} else {
		lagom_class_runs_free(w.runs);
	}
	if (!l || (!l->workload && l->measured.n == 0)) {
		lagom_learned_destroy(l);
		return NULL;
	}
	snprintf(l->measured.from, sizeof(l->measured.from), "%.64s", w.from);
	return l;
}
