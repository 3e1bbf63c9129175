/*
 * cli/cmd_runs.c - `lagom runs`: a user's measured steps, from the records
 * libnccl-profiler-lagom.so left in the spool (doc/profiler.md): plan id,
 * whether lagom tuned the step, per collective class the measured GPU time
 * (and the predicted one where the step's plan left it), the iteration.
 *
 * Everything here was written by the user's own processes: it is read
 * with the invoker's privileges, in the spool's order (version order of
 * names, measurement/spool.h), through the strict record reader, and a
 * file that is refused (a link, too large, corrupt, someone else's) costs
 * one "lagom: " line and exit status 1; the other files are still listed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/runs_int.h"
#include "common/escape.h"
#include "common/io.h"
#include "measurement/arm.h"
#include "measurement/record.h"
#include "measurement/spool.h"
#include "measurement/stats.h"

#define MAX_STEPS 4096
#define MAX_FILES 4096 /* records read per step */
#define MAX_AGG (LAGOM_REC_MAX_COMMS * LAGOM_REC_MAX_CLASSES)
#define DEFAULT_SPOOL "/var/spool/lagom"

static const char runs_usage[] =
	"Usage: lagom runs [--spool DIR] [--user NAME] [--format text|json] "
	"[STEP_DIR...]\n"
	"\n"
	"List measured steps: what NCCL did and how long it took in every "
	"task\n"
	"that ran with lagom's profiler plugin.  Without STEP_DIR, every "
	"step under\n"
	"DIR/USER (the plugstack measure_dir=, default " DEFAULT_SPOOL ").\n"
	"\n"
	"Options:\n"
	"  --spool DIR         the admin's measurement spool\n"
	"  --user NAME         whose steps (default: you)\n"
	"  --format text|json  output format (default text)\n"
	"  -h, --help          this help\n";

struct step_view {
	char name[1024]; /* escaped */
	char job[LAGOM_REC_TOKEN_MAX + 1], step[LAGOM_REC_TOKEN_MAX + 1];
	char plan[LAGOM_REC_TOKEN_MAX + 1];
	char arm[8], arm_plan[24]; /* doc/report.md: a control step */
	bool reverted;		   /* arm revert, and why below */
	struct lagom_speedup why;  /* the class's runs before it */
	bool plan_mixed;
	unsigned tasks, refused;
	uint64_t written_unix;
	uint64_t period_ns_sum;
	unsigned period_n, period_len;
	size_t n_agg;
	struct agg agg[MAX_AGG];
};

static struct lagom_rec rec, scratch;
static char text[LAGOM_REC_MAX_BYTES + 1];

static int same_class(const struct agg *a, const char *comm,
		      const struct lagom_rec_comm *m,
		      const struct lagom_rec_class *k)
{
	return strcmp(a->comm, comm) == 0 && a->k.op == k->op &&
	       a->k.bytes == k->bytes && a->k.algo == k->algo &&
	       a->k.proto == k->proto && a->k.channels == k->channels &&
	       a->ranks == m->ranks && a->nodes == m->nodes;
}

static void add_class(struct step_view *v, const struct lagom_rec_comm *m,
		      const struct lagom_rec_class *k)
{
	const char *comm = m->name[0] ? m->name : "-";
	struct agg *a = NULL;
	size_t i;

	for (i = 0; i < v->n_agg && !a; i++)
		if (same_class(&v->agg[i], comm, m, k))
			a = &v->agg[i];
	if (!a) {
		if (v->n_agg == MAX_AGG)
			return;
		a = &v->agg[v->n_agg++];
		memset(a, 0, sizeof(*a));
		snprintf(a->comm, sizeof(a->comm), "%s", comm);
		a->k = *k;
		a->k.count = a->k.gpu_n = a->k.gpu_ns = 0;
		a->k.gap_n = a->k.gap_ns = 0;
		a->ranks = m->ranks;
		a->nodes = m->nodes;
		a->predicted_us = -1;
	}
	a->tasks++;
	a->k.count += k->count;
	a->k.gpu_n += k->gpu_n;
	a->k.gpu_ns += k->gpu_ns;
	a->k.gap_n += k->gap_n;
	a->k.gap_ns += k->gap_ns;
}

static void add_record(struct step_view *v, const struct lagom_rec *r)
{
	uint32_t c, i;

	if (v->tasks == 0) {
		memcpy(v->job, r->job, sizeof(v->job));
		memcpy(v->step, r->step, sizeof(v->step));
		memcpy(v->plan, r->plan, sizeof(v->plan));
	} else if (strcmp(v->plan, r->plan) != 0) {
		v->plan_mixed = true;
	}
	v->tasks++;
	if (r->written_unix > v->written_unix)
		v->written_unix = r->written_unix;
	for (c = 0; c < r->n_comms; c++) {
		const struct lagom_rec_comm *m = &r->comm[c];

		for (i = 0; i < m->n_classes; i++)
			add_class(v, m, &m->cls[i]);
		/* the iteration: the longest period of any communicator */
		if (m->period_len && m->period_ns &&
		    m->period_len >= v->period_len) {
			if (m->period_len > v->period_len)
				v->period_ns_sum = v->period_n = 0;
			v->period_len = m->period_len;
			v->period_ns_sum += m->period_ns;
			v->period_n++;
		}
	}
}

static double mean_us(uint64_t sum_ns, uint64_t n)
{
	return n ? (double)sum_ns / (double)n / 1e3 : -1;
}

static const char *tuned(const struct step_view *v)
{
	return v->plan[0] && !v->plan_mixed ? "yes" : "no";
}

static void print_text(const struct step_view *v)
{
	static const char *const hdr[] = {
		"COMM", "OP",	      "BYTES",	     "ALGO",	     "PROTO",
		"CH",	"CALLS/TASK", "MEASURED_US", "PREDICTED_US", "GAP_US",
	};
	static const bool right[] = { 0, 0, 1, 0, 0, 1, 1, 1, 1, 1 };
	struct cli_table *t = cli_table_create(10, hdr, right);
	size_t i;

	printf("step %s (job %s step %s): plan %s, tuned %s, %u task(s)",
	       v->name, v->job[0] ? v->job : "-", v->step[0] ? v->step : "-",
	       v->plan_mixed ? "mixed" : (v->plan[0] ? v->plan : "-"), tuned(v),
	       v->tasks);
	if (v->period_n)
		printf(", iteration %.3f ms (%u collectives)",
		       (double)v->period_ns_sum / v->period_n / 1e6,
		       v->period_len);
	if (v->refused)
		printf(", %u record(s) refused", v->refused);
	if (v->arm[0])
		printf(", arm %s (NCCL's defaults; plan %s not applied)",
		       v->arm, v->arm_plan);
	if (v->reverted)
		printf(", reverted: measured %.2fx [%.2f, %.2f] over %zu runs "
		       "before it",
		       v->why.speedup, v->why.lo, v->why.hi,
		       v->why.n_tuned + v->why.n_control);
	printf("\n");
	if (!t)
		return;
	for (i = 0; i < v->n_agg; i++) {
		const struct agg *a = &v->agg[i];
		char m[32] = "-", p[32] = "-", g[32] = "-";

		if (a->k.gpu_n)
			snprintf(m, sizeof(m), "%.1f",
				 mean_us(a->k.gpu_ns, a->k.gpu_n));
		if (a->predicted_us >= 0)
			snprintf(p, sizeof(p), "%.1f", a->predicted_us);
		if (a->k.gap_n)
			snprintf(g, sizeof(g), "%.1f",
				 mean_us(a->k.gap_ns, a->k.gap_n));
		cli_table_addf(t, "%s\t%s\t%llu\t%s\t%s\t%u\t%llu\t%s\t%s\t%s",
			       a->comm, lagom_rec_op_name(a->k.op),
			       (unsigned long long)a->k.bytes,
			       lagom_rec_algo_name(a->k.algo),
			       lagom_rec_proto_name(a->k.proto),
			       (unsigned)a->k.channels,
			       (unsigned long long)(a->k.count / a->tasks), m,
			       p, g);
	}
	cli_table_print(t, stdout, "  ");
	cli_table_destroy(t);
}

static json_t *num_or_null(double v)
{
	return v >= 0 ? json_real(v) : json_null();
}

static json_t *step_json(const struct step_view *v)
{
	json_t *classes = json_array();
	size_t i;

	for (i = 0; i < v->n_agg; i++) {
		const struct agg *a = &v->agg[i];

		json_array_append_new(
			classes,
			json_pack(
				"{s:s, s:s, s:I, s:s, s:s, s:i, s:i, s:i, "
				"s:I, s:I, s:o, s:o, s:o}",
				"comm", a->comm, "op",
				lagom_rec_op_name(a->k.op), "bytes",
				(json_int_t)a->k.bytes, "algo",
				lagom_rec_algo_name(a->k.algo), "proto",
				lagom_rec_proto_name(a->k.proto), "channels",
				(int)a->k.channels, "ranks", (int)a->ranks,
				"tasks", (int)a->tasks, "calls",
				(json_int_t)a->k.count, "gpu_samples",
				(json_int_t)a->k.gpu_n, "measured_us",
				num_or_null(mean_us(a->k.gpu_ns, a->k.gpu_n)),
				"predicted_us", num_or_null(a->predicted_us),
				"gap_us",
				num_or_null(mean_us(a->k.gap_ns, a->k.gap_n))));
	}
	return json_pack(
		"{s:s, s:s, s:s, s:s?, s:b, s:i, s:i, s:o, s:i, s:o}", "dir",
		v->name, "job", v->job, "step", v->step, "plan",
		v->plan_mixed ? "mixed" : (v->plan[0] ? v->plan : NULL),
		"tuned", !strcmp(tuned(v), "yes"), "tasks", (int)v->tasks,
		"refused", (int)v->refused, "iteration_ms",
		num_or_null(v->period_n ? (double)v->period_ns_sum /
						  v->period_n / 1e6
					: -1),
		"iteration_collectives", (int)v->period_len, "classes",
		classes);
}

struct runs_args {
	const char *spool, *user;
	enum cli_format format;
	char **dirs;
	int n_dirs;
};

static int runs_opt(void *ctx, int value, const char *arg)
{
	struct runs_args *a = ctx;

	if (value == 's')
		a->spool = arg;
	else if (value == 'u')
		a->user = arg;
	else
		return cli_parse_format(arg, &a->format);
	return 0;
}

static int parse_args(int argc, char **argv, struct runs_args *a)
{
	static const struct option longopts[] = {
		{ "spool", required_argument, NULL, 's' },
		{ "user", required_argument, NULL, 'u' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt(argc, argv, "runs", "+h", longopts, runs_usage,
			    runs_opt, a);

	if (rc)
		return rc;
	a->dirs = argv + optind;
	a->n_dirs = argc - optind;
	return CLI_OK;
}

/* The walk's state: the step being read and where its view goes. */
struct runs_walk {
	struct step_view *v;
	const char *shown;	 /* the step's name as shown; NULL: its own */
	const char *root, *user; /* the user's directory (show_user) */
	struct lagom_arm_steps all; /* its steps (measurement/arm.h) */
	bool all_read;
	long uid;
	enum cli_format format;
	json_t *steps;
	size_t n_steps;
	int status;
};

static void runs_say(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "lagom: runs: %s\n", line);
}

static int runs_step(void *ctx, const struct lagom_spool_at *at)
{
	struct runs_walk *w = ctx;
	memset(w->v, 0, sizeof(*w->v));
	lagom_escape(w->shown ? w->shown : at->step, w->v->name,
		     sizeof(w->v->name));
	return LAGOM_SPOOL_NEXT;
}

static int runs_record(void *ctx, const struct lagom_spool_at *at)
{
	struct runs_walk *w = ctx;
	struct lagom_error err = { 0 };
	char where[sizeof(w->v->name) + LAGOM_SPOOL_NAME_MAX * 4 + 2],
		name[LAGOM_SPOOL_NAME_MAX * 4];

	if (lagom_spool_read_record(at, text, &rec, &scratch, &err) != 0) {
		lagom_escape(at->name, name, sizeof(name));
		snprintf(where, sizeof(where), "%s/%s", w->v->name, name);
		cli_fail(CLI_FAIL, "runs: refused %s: %s", where, err.text);
		w->v->refused++;
		return LAGOM_SPOOL_NEXT;
	}
	add_record(w->v, &rec);
	return LAGOM_SPOOL_NEXT;
}

/*
 * A reverted step (doc/report.md): srun's judgement again, from the
 * spool as it is now: the runs of the step's class (its key) whose last
 * record was written before the step started (its key's time), the tuned
 * ones of the plan it stood in for, against the controls.  The
 * user's steps are read once (measurement/arm.h's adapter, silently: the
 * walk here says what it refuses), at the first reverted step.
 */
static void judge_reverted(struct runs_walk *w, const struct lagom_spool_at *at)
{
	struct lagom_read_rule rule = { .max_bytes = LAGOM_LEARN_KEY_MAX - 1,
					.owner = LAGOM_OWNER_UID,
					.uid = (uid_t)w->uid };
	struct lagom_arm_steps before = { 0 };
	struct lagom_arm_class *cls;
	char key[LAGOM_LEARN_KEY_MAX];
	struct stat st;
	size_t i, len = 0;

	/* its key, written by its node as it started (the walk below yields
	 * only steps with records) */
	if (!w->root || lagom_read_file_at(at->step_fd, LAGOM_SPOOL_KEY, &rule,
					   key, &len, &st, NULL) != 0)
		return;
	key[len] = '\0';
	if (!w->all_read) {
		w->all_read = true;
		lagom_arm_spool_user(w->root, w->uid, w->user, NULL,
				     lagom_arm_steps_fn, NULL, &w->all);
	}
	/* what srun saw: the class's steps measured before it started */
	for (i = 0; i < w->all.n; i++)
		if (strcmp(w->all.v[i].key, key) == 0 &&
		    strcmp(w->all.v[i].dir, at->step) != 0 &&
		    w->all.v[i].end_unix <= (uint64_t)st.st_mtime)
			lagom_arm_steps_fn(&w->all.v[i], &before);
	cls = before.n && !before.full ? malloc(sizeof(*cls)) : NULL;
	if (cls) {
		lagom_arm_class_fill(cls, before.v, before.n, w->v->arm_plan);
		w->v->reverted = lagom_speedup_estimate(
					 cls->tuned_s, cls->n_tuned,
					 cls->control_s, cls->n_control,
					 &w->v->why) == 0 &&
				 w->v->why.verdict != LAGOM_VERDICT_TOO_FEW;
	}
	free(cls);
	lagom_arm_steps_free(&before);
}

static json_t *reverted_json(const struct step_view *v)
{
	if (!v->reverted)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:i, s:i, s:s}", "speedup",
			 v->why.speedup, "lo", v->why.lo, "hi", v->why.hi,
			 "tuned_runs", (int)v->why.n_tuned, "control_runs",
			 (int)v->why.n_control, "verdict",
			 lagom_verdict_name(v->why.verdict));
}

static void runs_step_end(void *ctx, const struct lagom_spool_at *at)
{
	struct runs_walk *w = ctx;

	cli_runs_predicted(at->step_fd, w->v->name, w->uid, w->v->plan,
			   w->v->agg, w->v->n_agg, w->v->arm, w->v->arm_plan);
	if (strcmp(w->v->arm, "revert") == 0)
		judge_reverted(w, at);
	w->n_steps++;
	if (w->format == CLI_JSON) {
		json_t *o = step_json(w->v);

		json_object_set_new(o, "arm",
				    w->v->arm[0] ? json_string(w->v->arm)
						 : json_null());
		json_object_set_new(o, "reverted", reverted_json(w->v));
		json_array_append_new(w->steps, o);
	} else
		print_text(w->v);
	if (w->v->refused)
		w->status = CLI_FAIL;
}

static struct lagom_spool_walk runs_walk_of(struct runs_walk *w)
{
	return (struct lagom_spool_walk){
		.lim = { .steps_max = MAX_STEPS, .records_max = MAX_FILES },
		.on_step = runs_step,
		.on_record = runs_record,
		.on_step_end = runs_step_end,
		.say = runs_say,
		.ctx = w,
	};
}

/* Every step of the user's spool directory root, in the spool's order. */
static void show_user(struct runs_walk *w, const char *root, const char *user)
{
	struct lagom_spool_walk walk = runs_walk_of(w);
	struct stat st;
	char esc[4096 * 4];
	int fd = lagom_open_at(AT_FDCWD, root, O_RDONLY | O_DIRECTORY, 0, &st);

	lagom_escape(root, esc, sizeof(esc));
	if (fd >= 0 && st.st_uid != (uid_t)w->uid) {
		w->status = cli_fail(CLI_FAIL,
				     "runs: %s is owned by uid %u, not the "
				     "user's",
				     esc, (unsigned)st.st_uid);
		close(fd);
		return;
	}
	w->root = root;
	w->user = user;
	if (fd >= 0)
		lagom_spool_walk_user(fd, user, &walk);
	if (fd >= 0)
		close(fd);
	w->root = w->user = NULL;
	lagom_arm_steps_free(&w->all);
	w->all_read = false;
	if (w->n_steps == 0 && w->format == CLI_TEXT)
		printf("no measured steps under %s\n", esc);
}

/* One step directory the invoker named. */
static void show_dir(struct runs_walk *w, const char *dir)
{
	struct lagom_spool_walk walk = runs_walk_of(w);
	char esc[4096 * 4];
	int rc;

	w->shown = dir;
	rc = lagom_spool_walk_step(AT_FDCWD, dir, (uid_t)w->uid, &walk);
	w->shown = NULL;
	if (rc < 0) {
		lagom_escape(dir, esc, sizeof(esc));
		w->status = cli_fail(CLI_FAIL, "runs: %s: %s", esc,
				     strerror(-rc));
	}
}

int cli_cmd_runs(int argc, char **argv)
{
	struct runs_args a = { .format = CLI_TEXT };
	struct runs_walk w = { .status = CLI_OK };
	json_t *doc = NULL;
	char root[4096];
	struct passwd *pw;
	int rc, i;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (!a.spool)
		a.spool = DEFAULT_SPOOL;
	pw = a.user ? getpwnam(a.user) : getpwuid(getuid());
	if (!pw)
		return cli_fail(CLI_USAGE, "runs: unknown user '%s'",
				a.user ? a.user : "(you)");
	w.v = malloc(sizeof(*w.v));
	if (!w.v)
		return cli_fail(CLI_FAIL, "out of memory");
	w.uid = (long)pw->pw_uid;
	w.format = a.format;
	if (a.format == CLI_JSON) {
		doc = cli_json_doc("runs");
		w.steps = json_array();
		json_object_set_new(doc, "user", json_string(pw->pw_name));
	}
	if (a.n_dirs == 0) {
		snprintf(root, sizeof(root), "%s/%s", a.spool, pw->pw_name);
		show_user(&w, root, pw->pw_name);
	}
	for (i = 0; i < a.n_dirs; i++)
		show_dir(&w, a.dirs[i]);
	free(w.v);
	if (doc) {
		json_object_set_new(doc, "steps", w.steps);
		if (cli_json_print(doc) != CLI_OK)
			w.status = CLI_FAIL;
	}
	return w.status;
}
