/*
 * profiler/prof_flush.c - where and when libnccl-profiler-lagom.so writes:
 * the once-per-process decision (LAGOM_MEASURE_DIR), communicator contexts,
 * the flush thread, and the record written atomically (temporary file,
 * then rename) every LAGOM_MEASURE_FLUSH_S seconds, at the last finalize
 * and at process exit.  A job killed at its time limit keeps the record of
 * its last flush.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"
#include "profiler/prof_int.h"

#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define DEFAULT_FLUSH_S 30
#define MAX_FLUSH_S 3600

/* All zero, so it lies in .bss: an initialiser with any nonzero field would
 * put all of its 6 MB (the snapshot and the text) in the plugin's file.  So
 * the directory is held as fd + 1 (0: none; pf_dir_fd()). */
struct pf_state pf = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* The measurement directory's fd, -1 when there is none. */
static int pf_dir_fd(void)
{
	return pf.dir_fd1 - 1;
}

/* Copy s into out as a record token: [A-Za-z0-9._:-], others -> '_'. */
static void token_copy(char *out, size_t max, const char *s)
{
	size_t i;

	for (i = 0; s && s[i] && i < max; i++)
		out[i] = lagom_rec_token_char((unsigned char)s[i]) ? s[i] : '_';
	out[i] = '\0';
	if (strcmp(out, "-") == 0)
		out[0] = '_';
}

static void env_token(char *out, const char *name)
{
	const char *v = getenv(name);
	size_t n = v ? strlen(v) : 0;
	size_t i;

	out[0] = '\0';
	if (n == 0 || n > LAGOM_REC_TOKEN_MAX || strcmp(v, "-") == 0)
		return;
	for (i = 0; i < n; i++)
		if (!lagom_rec_token_char((unsigned char)v[i]))
			return;
	memcpy(out, v, n + 1);
}

static long env_long(const char *name, long lo, long hi, long dflt)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return dflt;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return dflt;
	return n;
}

/* The spool directory: absolute, ours, a directory, not a link. */
static int open_dir(const char *dir, char *why, size_t len)
{
	struct stat st;
	int fd;

	if (!dir || !*dir) {
		snprintf(why, len, "LAGOM_MEASURE_DIR is not set");
		return -1;
	}
	if (dir[0] != '/' || strlen(dir) > PATH_MAX - 128) {
		snprintf(why, len, "LAGOM_MEASURE_DIR is not an absolute path");
		return -1;
	}
	fd = open(dir,
		  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "cannot open LAGOM_MEASURE_DIR: %s",
			 strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		snprintf(why, len,
			 "LAGOM_MEASURE_DIR is not owned by uid %lu or is "
			 "writable by others",
			 (unsigned long)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

int pf_decide(lagom_nccl_logger_t log, unsigned abi)
{
	char why[200];

	if (pf.decided)
		return pf.enabled;
	pf.decided = 1;
	pf.pid = getpid();
	pf.abi = abi;
	pf.start_unix = (uint64_t)time(NULL);
	pf.flush_s = (unsigned)env_long("LAGOM_MEASURE_FLUSH_S", 1, MAX_FLUSH_S,
					DEFAULT_FLUSH_S);
	env_token(pf.job, "SLURM_JOB_ID");
	env_token(pf.step, "SLURM_STEP_ID");
	env_token(pf.plan, "LAGOM_PLAN_ID");
	pf.task = env_long("SLURM_PROCID", 0, INT32_MAX, -1);
	if (pf.task >= 0)
		snprintf(pf.file, sizeof(pf.file), "task-%ld.%ld.rec",
			 (long)pf.task, (long)getpid());
	else
		snprintf(pf.file, sizeof(pf.file), "pid-%ld.rec",
			 (long)getpid());
	pf.dir_fd1 = open_dir(getenv("LAGOM_MEASURE_DIR"), why, sizeof(why)) +
		     1;
	if (pf_dir_fd() >= 0 && pf_flush_locked() != 0) {
		snprintf(why, sizeof(why),
			 "cannot write a record in "
			 "LAGOM_MEASURE_DIR");
		close(pf_dir_fd());
		pf.dir_fd1 = 0;
	}
	pf.enabled = pf_dir_fd() >= 0;
	if (log && pf.enabled)
		log(LAGOM_NCCL_LOG_INFO, LAGOM_NCCL_SUBSYS_INIT, __func__,
		    __LINE__,
		    "lagom profiler %s (ABI v%u): recording to %s/%s every "
		    "%u s",
		    PACKAGE_VERSION, abi, getenv("LAGOM_MEASURE_DIR"), pf.file,
		    pf.flush_s);
	else if (log)
		log(LAGOM_NCCL_LOG_INFO, LAGOM_NCCL_SUBSYS_INIT, __func__,
		    __LINE__, "lagom profiler %s (ABI v%u): off: %s",
		    PACKAGE_VERSION, abi, why);
	return pf.enabled;
}

/* A free context, else the oldest closed one (its figures are lost). */
static struct pf_ctx *ctx_claim(void)
{
	struct pf_ctx *oldest = NULL;
	int i;

	for (i = 0; i < PF_MAX_CTX; i++)
		if (pf.ctx[i].state == PF_FREE)
			return &pf.ctx[i];
	for (i = 0; i < PF_MAX_CTX; i++)
		if (pf.ctx[i].state == PF_CLOSED &&
		    (!oldest || pf.ctx[i].order < oldest->order))
			oldest = &pf.ctx[i];
	if (oldest)
		pf.dropped_comms++;
	return oldest;
}

int pf_init(void **context, uint64_t comm_id, int *mask, const char *comm_name,
	    int n_nodes, int n_ranks, int rank, lagom_nccl_logger_t log,
	    unsigned abi)
{
	struct pf_ctx *x = NULL;

	pthread_mutex_lock(&pf.lock);
	if (pf_decide(log, abi)) {
		x = ctx_claim();
		if (!x)
			pf.dropped_comms++;
	}
	if (x) {
		memset(x, 0, sizeof(*x));
		x->order = ++pf.opened;
		x->comm_id = comm_id;
		token_copy(x->name, LAGOM_REC_NAME_MAX, comm_name);
		x->ranks = n_ranks > 0 ? (uint32_t)n_ranks : 1;
		x->nodes = n_nodes > 0 && (uint32_t)n_nodes <= x->ranks
				   ? (uint32_t)n_nodes
				   : 1;
		x->rank = rank >= 0 && (uint32_t)rank < x->ranks
				  ? (uint32_t)rank
				  : 0;
		__atomic_store_n(&x->state, PF_LIVE, __ATOMIC_RELEASE);
		if (pf.live++ == 0)
			pf_thread_start();
	}
	if (mask)
		*mask = pf.enabled ? (int)PF_MASK : 0;
	if (context)
		*context = x;
	pthread_mutex_unlock(&pf.lock);
	return 0;
}

void pf_finalize(void *context)
{
	int i;

	pthread_mutex_lock(&pf.lock);
	for (i = 0; i < PF_MAX_CTX; i++)
		if (context == &pf.ctx[i] && pf.ctx[i].state == PF_LIVE) {
			__atomic_store_n(&pf.ctx[i].state, PF_CLOSED,
					 __ATOMIC_RELEASE);
			if (--pf.live == 0) {
				pf_flush_locked();
				pf_thread_stop();
			}
		}
	pthread_mutex_unlock(&pf.lock);
}

static void *flush_main(void *unused)
{
	struct timespec at;

	pthread_mutex_lock(&pf.lock);
	while (!pf.stop) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += pf.flush_s;
		while (!pf.stop &&
		       pthread_cond_timedwait(&pf.wake, &pf.lock, &at) == 0)
			;
		if (!pf.stop)
			pf_flush_locked();
	}
	pthread_mutex_unlock(&pf.lock);
	return unused;
}

int pf_thread_start(void)
{
	pthread_condattr_t ca;

	if (pf.thread_running || pf_dir_fd() < 0)
		return 0;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pf.wake, &ca);
	pthread_condattr_destroy(&ca);
	pf.stop = 0;
	if (pthread_create(&pf.thread, NULL, flush_main, NULL) != 0)
		return -1; /* still flushed at the last finalize and exit */
	pf.thread_running = 1;
	return 0;
}

void pf_thread_stop(void)
{
	if (!pf.thread_running)
		return;
	pf.stop = 1;
	pthread_cond_signal(&pf.wake);
	pthread_mutex_unlock(&pf.lock);
	pthread_join(pf.thread, NULL);
	pthread_mutex_lock(&pf.lock);
	pthread_cond_destroy(&pf.wake);
	pf.thread_running = 0;
}

/*
 * The iteration: the shortest period p (<= LAGOM_REC_MAX_PERIOD) with which
 * the whole window of recent classes repeats, seen at least twice; its
 * sequence starts after the longest host pause inside one period (where a
 * training step usually begins) and its time is the mean host time of one.
 */
void pf_find_period(const uint16_t *cls, const uint64_t *t_ns, unsigned n,
		    struct lagom_rec_comm *out)
{
	unsigned p, i, reps, cut = 0;
	uint64_t longest = 0;

	out->period_len = out->period_n = 0;
	out->period_ns = 0;
	for (p = 1; p <= LAGOM_REC_MAX_PERIOD && 2 * p <= n; p++) {
		for (i = p; i < n && cls[i] == cls[i - p]; i++)
			;
		if (i == n)
			break;
	}
	if (p > LAGOM_REC_MAX_PERIOD || 2 * p > n)
		return;
	for (i = 0; i < p; i++)
		if (cls[n - p + i] == PF_NO_CLASS)
			return;
	reps = (n - 1) / p;
	for (i = n - p; i < n; i++)
		if (t_ns[i] - t_ns[i - 1] > longest) {
			longest = t_ns[i] - t_ns[i - 1];
			cut = i - (n - p);
		}
	for (i = 0; i < p; i++)
		out->seq[i] = cls[n - p + (cut + i) % p];
	out->period_len = p;
	out->period_n = n / p;
	out->period_ns = (t_ns[n - 1] - t_ns[n - 1 - reps * p]) / reps;
}

static void snap_period(struct pf_ctx *x, struct lagom_rec_comm *m)
{
	static uint16_t cls[PF_RING];
	static uint64_t t[PF_RING];
	uint64_t end = LOAD(&x->seq_n), first, k;
	unsigned n = 0;

	first = end > PF_RING ? end - PF_RING : 0;
	for (k = first; k < end; k++) {
		struct pf_seq *e = &x->ring[k & (PF_RING - 1)];

		if (LOAD(&e->pos) != k + 1)
			continue;
		cls[n] = e->cls;
		t[n] = e->t_ns;
		if (LOAD(&e->pos) != k + 1)
			continue;
		if (n && t[n] < t[n - 1]) {
			/* overwritten while read: keep the consistent tail */
			cls[0] = cls[n];
			t[0] = t[n];
			n = 0;
		}
		n++;
	}
	pf_find_period(cls, t, n, m);
}

static void snap_class(const struct pf_class *c, struct lagom_rec_class *k)
{
	k->gpu_n = RELAXED(&c->gpu_n);
	k->gpu_ns = RELAXED(&c->gpu_ns);
	k->gpu_min_ns = RELAXED(&c->gpu_min);
	k->gpu_max_ns = RELAXED(&c->gpu_max);
	k->gap_n = RELAXED(&c->gap_n);
	k->gap_ns = RELAXED(&c->gap_ns);
	k->count = RELAXED(&c->count);
	k->op = c->op;
	k->algo = c->algo;
	k->proto = c->proto;
	k->channels = c->channels;
	k->bytes = c->bytes;
	if (k->gpu_n > k->count)
		k->gpu_n = k->count;
	if (k->gap_n > k->count)
		k->gap_n = k->count;
	if (k->gpu_n == 0)
		k->gpu_ns = k->gpu_min_ns = k->gpu_max_ns = 0;
	else if (k->gpu_min_ns > k->gpu_max_ns)
		k->gpu_min_ns = k->gpu_max_ns;
}

static void snap_comm(struct pf_ctx *x, struct lagom_rec_comm *m)
{
	uint32_t i;

	m->id = x->comm_id;
	memcpy(m->name, x->name, sizeof(m->name));
	m->ranks = x->ranks;
	m->nodes = x->nodes;
	m->rank = x->rank;
	m->overflow = RELAXED(&x->overflow);
	m->incomplete = RELAXED(&x->incomplete);
	m->n_classes = LOAD(&x->n_cls);
	for (i = 0; i < m->n_classes; i++)
		snap_class(&x->cls[i], &m->cls[i]);
	snap_period(x, m);
	for (i = 0; i < m->period_len; i++)
		if (m->seq[i] >= m->n_classes)
			m->period_len = m->period_n = 0, m->period_ns = 0;
}

int pf_flush_locked(void)
{
	struct lagom_rec *r = &pf.snap;
	int dir_fd = pf_dir_fd();
	int i, len;

	if (dir_fd < 0 || getpid() != pf.pid)
		return -1; /* a child would overwrite its parent's record */
	memset(r, 0, sizeof(*r));
	r->abi = pf.abi;
	memcpy(r->job, pf.job, sizeof(r->job));
	memcpy(r->step, pf.step, sizeof(r->step));
	memcpy(r->plan, pf.plan, sizeof(r->plan));
	r->task = pf.task;
	r->pid = (uint64_t)getpid();
	r->start_unix = pf.start_unix;
	r->written_unix = (uint64_t)time(NULL);
	if (r->written_unix < r->start_unix)
		r->written_unix = r->start_unix;
	r->dropped_comms = pf.dropped_comms;
	for (i = 0; i < PF_MAX_CTX; i++)
		if (LOAD(&pf.ctx[i].state) != PF_FREE &&
		    r->n_comms < LAGOM_REC_MAX_COMMS)
			snap_comm(&pf.ctx[i], &r->comm[r->n_comms++]);
		else if (LOAD(&pf.ctx[i].state) != PF_FREE)
			r->dropped_comms++;
	len = lagom_rec_format(r, pf.text, sizeof(pf.text));
	if (len < 0)
		goto fail;
	/* a fresh temporary file, renamed: nothing found in the directory
	 * is opened, so nothing there can block the task or redirect it */
	if (lagom_replace_at(dir_fd, pf.file, pf.text, (size_t)len, 0600,
			     false) != 0)
		goto fail;
	pf.flushes++;
	return 0;
fail:
	pf.flush_failures++;
	return -1;
}

/*
 * A process that exits without destroying its communicators.  A child
 * forked after init (a data-loader worker) does nothing: the lock may have
 * been held by the parent's flush thread at the fork.
 */
__attribute__((destructor)) static void pf_at_exit(void)
{
	if (!pf.decided || getpid() != pf.pid)
		return;
	pthread_mutex_lock(&pf.lock);
	if (pf.live > 0)
		pf_flush_locked();
	pthread_mutex_unlock(&pf.lock);
}
