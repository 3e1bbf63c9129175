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
 * none.
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
#include "profiler/record.h"
#include "spank/local_int.h"
#include "spank/remote_int.h"

#define KEY_MAX 256
#define KEY_FILE "key"
#define MAX_SCAN 4096	 /* step directories looked at */
#define MAX_RECORDS 64	 /* records read from the chosen step */
#define MAX_MEASURED 512 /* distinct measured classes kept */

static void token_into(char *out, size_t len, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		out[i] = lagom_rec_token_char((unsigned char)s[i]) ? s[i] : '_';
	out[i] = '\0';
}

static void step_key(const struct lagom_state *st,
		     const struct lagom_step *step, char *key, size_t len)
{
	const char *v;
	char name[128] = "-", wl[128] = "-";

	if ((v = getenv("LAGOM_MEASURE_KEY")) != NULL && v[0]) {
		token_into(name, sizeof(name), v);
		snprintf(key, len, "lagom-key 1\nuser:%s\n", name);
		return;
	}
	if ((v = getenv("SLURM_JOB_NAME")) != NULL && v[0])
		token_into(name, sizeof(name), v);
	if (st->workload_given)
		token_into(wl, sizeof(wl), st->workload);
	snprintf(key, len, "lagom-key 1\njob:%s shape:%zux%ux%u workload:%s\n",
		 name, step->node_count, step->ranks_per_node,
		 step->gpus_per_node, wl);
}

/* A key as step_key() writes it (it came through the step's environment). */
static bool key_ok(const char *key)
{
	size_t i, n = strlen(key);

	if (n < 13 || strncmp(key, "lagom-key 1\n", 12) != 0 ||
	    key[n - 1] != '\n')
		return false;
	for (i = 12; i < n; i++)
		if (key[i] != '\n' && key[i] != ' ' && key[i] != ':' &&
		    !lagom_rec_token_char((unsigned char)key[i]))
			return false;
	return true;
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
	    !key_ok(key))
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

static int coll_of(unsigned op, enum lagom_coll *out)
{
	switch (op) {
	case LAGOM_REC_OP_ALLREDUCE:
		*out = LAGOM_COLL_ALLREDUCE;
		return 0;
	case LAGOM_REC_OP_ALLGATHER:
		*out = LAGOM_COLL_ALLGATHER;
		return 0;
	case LAGOM_REC_OP_REDUCESCATTER:
		*out = LAGOM_COLL_REDUCESCATTER;
		return 0;
	case LAGOM_REC_OP_BROADCAST:
		*out = LAGOM_COLL_BROADCAST;
		return 0;
	case LAGOM_REC_OP_REDUCE:
		*out = LAGOM_COLL_REDUCE;
		return 0;
	case LAGOM_REC_OP_ALLTOALL:
		*out = LAGOM_COLL_ALLTOALL;
		return 0;
	case LAGOM_REC_OP_SEND:
	case LAGOM_REC_OP_RECV:
	case LAGOM_REC_OP_SENDRECV:
		*out = LAGOM_COLL_SENDRECV;
		return 0;
	default:
		return -1;
	}
}

/* One region per collective of the measured iteration. */
static struct lagom_workload *workload_of(const struct lagom_rec_comm *m,
					  const char *name)
{
	struct lagom_workload *w;
	size_t i, n = 0;

	if (m->period_len == 0 || m->nodes == 0 || m->ranks % m->nodes)
		return NULL;
	w = lagom_workload_create(name, m->period_len);
	if (!w)
		return NULL;
	for (i = 0; i < m->period_len; i++) {
		const struct lagom_rec_class *k = &m->cls[m->seq[i]];
		struct lagom_region *r = &w->regions[n];
		struct lagom_region_coll *c = &r->colls[0];

		if (coll_of(k->op, &c->coll) != 0 || k->bytes == 0)
			continue;
		snprintf(r->name, sizeof(r->name), "measured-%zu", i);
		c->bytes = lagom_rec_plan_bytes(k->op, k->bytes, m->ranks);
		c->comm.ranks = m->ranks;
		c->comm.nodes = m->nodes;
		c->comm.ranks_per_node = m->ranks / m->nodes;
		c->comm.hops = m->nodes > 1 ? LAGOM_HOPS_SAME_LEAF
					    : LAGOM_HOPS_SAME_NODE;
		r->ncolls = 1;
		if (k->gap_n && k->gap_ns / k->gap_n > 0) {
			r->kernels[0].time_s = (double)(k->gap_ns / k->gap_n) *
					       1e-9;
			r->nkernels = 1;
		}
		r->repeat = 1;
		n++;
	}
	w->nregions = n;
	if (n == 0) {
		lagom_workload_destroy(w);
		return NULL;
	}
	return w;
}

/* NCCL's algorithm and protocol as the model's; -1 when it has none. */
static int config_of(const struct lagom_rec_class *k,
		     struct lagom_coll_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	if (k->algo == LAGOM_REC_ALGO_P2P && k->proto == LAGOM_REC_PROTO_NONE) {
		cfg->algo = LAGOM_ALGO_RING; /* the model's send/recv */
		cfg->proto = LAGOM_PROTO_SIMPLE;
	} else if (k->algo < LAGOM_ALGO_COUNT && k->proto < LAGOM_PROTO_COUNT) {
		/* the record's first names are NCCL's indices, as the model's */
		cfg->algo = (enum lagom_algo)k->algo;
		cfg->proto = (enum lagom_proto)k->proto;
	} else {
		return -1;
	}
	cfg->nchannels = k->channels;
	return 0;
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
		    coll_of(k->op, &c.coll) != 0 || config_of(k, &c.config))
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
			l->workload = workload_of(m, wname);
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
