/*
 * tests/profiler/test_profiler_abi.c - the built libnccl-profiler-lagom.so
 * driven through ABI v4, v5 and v6 the way NCCL 2.27, 2.28 and 2.29 call
 * it (tests/profiler/harness.h), each scenario in a fresh process as a
 * real job would run it (the plugin decides once per process): the record
 * it leaves is then read back with lagom's strict reader and checked
 * against the GPU timestamps the harness fed in.  No GPU is needed: the
 * harness plays NCCL's proxy thread and hands in globaltimer values.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measurement/record.h"
#include "tests/lib/lagom_test.h"
#include "tests/profiler/harness.h"

#define ITER 40
#define AR_NS 100000u
#define SKEW_NS 50u
#define STEP_NS 1000000u

/* ---- scenarios: run in a child process, exit 0 when all went well ---- */

static int fails;
#define EXPECT(cond)                                                       \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, \
				#cond);                                    \
			fails++;                                           \
		}                                                          \
	} while (0)

static struct hp_coll ar(uint64_t start)
{
	return (struct hp_coll){ .func = "AllReduce",
				 .datatype = "ncclFloat32",
				 .algo = "RING",
				 .proto = "SIMPLE",
				 .count = 262144,
				 .nchannels = 8,
				 .gpu_start = start,
				 .gpu_ns = AR_NS,
				 .skew_ns = SKEW_NS };
}

static void dp_iteration(struct hp_comm *dp, uint64_t t)
{
	struct hp_coll g[2] = {
		{ .func = "AllGather",
		  .datatype = "ncclInt8",
		  .algo = "RING",
		  .proto = "LL128",
		  .count = 4194304,
		  .nchannels = 4,
		  .gpu_start = t + 200000,
		  .gpu_ns = 300000 },
		{ .func = "ReduceScatter",
		  .datatype = "ncclBfloat16",
		  .algo = "PAT",
		  .proto = "SIMPLE",
		  .count = 2097152,
		  .nchannels = 2,
		  .gpu_start = t + 500000,
		  .gpu_ns = 200000 },
	};
	struct hp_coll p[2] = {
		{ .func = "Send",
		  .datatype = "ncclFloat16",
		  .count = 65536,
		  .nchannels = 1,
		  .p2p = 1,
		  .peer = 1,
		  .gpu_start = t + 800000,
		  .gpu_ns = 50000 },
		{ .func = "Recv",
		  .datatype = "ncclFloat16",
		  .count = 65536,
		  .nchannels = 1,
		  .p2p = 1,
		  .peer = 1,
		  .gpu_start = t + 860000,
		  .gpu_ns = 50000 },
	};

	EXPECT(hp_group(dp, g, 2) == 0);
	EXPECT(hp_group(dp, p, 2) == 0);
}

static int scenario_train(int v)
{
	struct hp_comm tp, dp;
	int i;
	/* HP_RANKS/HP_NODES: the shape of a real step (integration test) */
	int ranks = getenv("HP_RANKS") ? atoi(getenv("HP_RANKS")) : 16;
	int nodes = getenv("HP_NODES") ? atoi(getenv("HP_NODES")) : 2;

	EXPECT(hp_init(&tp, v, 0x1122334455667788ull, "pg:tp", nodes, ranks,
		       3 % ranks) == 0);
	EXPECT(hp_init(&dp, v, 0xabcdef0123456789ull, "pg:dp 'x'$", nodes,
		       getenv("HP_RANKS") ? ranks : 2, 1) == 0);
	EXPECT(hp_mask ==
	       (int)(LAGOM_PROF_COLL | LAGOM_PROF_P2P | LAGOM_PROF_KERNEL_CH));
	EXPECT(tp.ctx != NULL && dp.ctx != NULL && tp.ctx != dp.ctx);
	for (i = 0; i < ITER; i++) {
		uint64_t t = 1000000000ull + (uint64_t)i * STEP_NS;
		struct hp_coll a = ar(t);

		EXPECT(hp_group(&tp, &a, 1) == 0);
		EXPECT(a.handle != NULL);
		dp_iteration(&dp, t);
		usleep(i % 4 == 0 ? 2000 : 100);
	}
	EXPECT(hp_finalize(&tp) == 0);
	EXPECT(hp_finalize(&dp) == 0);
	return fails;
}

/* Proxy, network and API events the plugin did not ask for: NULL. */
static int scenario_noise(int v)
{
	struct hp_comm c;
	struct hp_coll a = ar(5000000);
	int i;

	EXPECT(hp_init(&c, v, 42, "noise", 1, 8, 0) == 0);
	for (i = 0; i < 10; i++) {
		EXPECT(hp_host_part(&c, &a, 1) == 0);
		EXPECT(hp_proxy_noise(&c, &a) == 0);
		EXPECT(hp_proxy_part(&c, &a, 1) == 0);
	}
	hp_mask = -1; /* NCCL with every bit on: API events flow too */
	EXPECT(hp_host_part(&c, &a, 1) == 0);
	EXPECT(hp_proxy_noise(&c, &a) == 0);
	EXPECT(hp_proxy_part(&c, &a, 1) == 0);
	EXPECT(hp_finalize(&c) == 0);
	return fails;
}

static int scenario_bad(int v)
{
	union lagom_prof_state_args args = { .kernelCh = { .pTimer = 9 } };
	struct hp_comm c, alien;
	struct hp_coll nulls = {
		.nchannels = 200, .count = 7, .gpu_start = 1, .gpu_ns = 5
	};
	struct hp_coll a = ar(7000000), stale;
	const struct lagom_nccl_profiler_v5 *p5 = hp_symbol(v);
	void *h = (void *)0x55, *kh;
	int i;

	EXPECT(hp_init(&c, v, 7, NULL, 0, -3, 99) == 0); /* odd values */
	/* a NULL descriptor, a NULL handle slot, a foreign context */
	EXPECT(p5->startEvent(c.ctx, &h, NULL) == 0 && h == NULL);
	EXPECT(p5->startEvent(c.ctx, NULL, NULL) == 0);
	alien.version = v;
	alien.ctx = (void *)&h;
	EXPECT(hp_start(&alien, &h, LAGOM_PROF_COLL, NULL, &a, 0) == 0 &&
	       h == NULL);
	/* an unknown event type */
	EXPECT(hp_start(&c, &h, v == 4 ? 0xff : (1ull << 40), NULL, &a, 0) ==
		       0 &&
	       h == NULL);
	/* a collective with NULL strings and too many channels */
	EXPECT(hp_group(&c, &nulls, 1) == 0);
	/* garbage handles to stop and record; NULL state arguments */
	for (i = 0; i < 64; i++) {
		void *g = (void *)(uintptr_t)(0x9e3779b97f4a7c15ull * (i + 1));

		EXPECT(hp_stop(&c, g) == 0);
		EXPECT(hp_record(&c, g, LAGOM_PROF_STATE_KERNEL_CH_STOP,
				 &args) == 0);
	}
	EXPECT(hp_record(&c, NULL, LAGOM_PROF_STATE_KERNEL_CH_STOP, NULL) == 0);
	/* kernel channels of a parent that is NULL, or long gone */
	EXPECT(hp_start(&c, &kh, LAGOM_PROF_KERNEL_CH, NULL, NULL, 5) == 0 &&
	       kh == NULL);
	stale = ar(8000000);
	EXPECT(hp_host_part(&c, &stale, 1) == 0);
	for (i = 0; i < 4100; i++) { /* wraps the ring of 4096 slots */
		a = ar(9000000 + (uint64_t)i * STEP_NS);
		a.gpu_ns = 0; /* no kernel events for these */
		EXPECT(hp_host_part(&c, &a, 1) == 0);
	}
	EXPECT(hp_proxy_part(&c, &stale, 1) == 0);
	EXPECT(hp_record(&c, stale.handle, LAGOM_PROF_STATE_KERNEL_CH_STOP,
			 NULL) == 0);
	EXPECT(hp_finalize(&c) == 0);
	EXPECT(hp_finalize(&c) == 0); /* twice */
	return fails;
}

/* The spool is missing or unsafe: no record, and the calls go on. */
static int scenario_off(int v)
{
	struct hp_comm c;
	struct hp_coll a = ar(1000);

	EXPECT(hp_init(&c, v, 1, "off", 1, 2, 0) == 0);
	EXPECT(c.ctx == NULL);
	EXPECT(hp_mask == 0);
	EXPECT(hp_group(&c, &a, 1) == 0);
	EXPECT(a.handle == NULL);
	hp_mask = LAGOM_PROF_COLL | LAGOM_PROF_KERNEL_CH; /* another plugin? */
	EXPECT(hp_group(&c, &a, 1) == 0);
	EXPECT(a.handle == NULL);
	EXPECT(hp_finalize(&c) == 0);
	return fails;
}

/* Killed mid-run: the periodic flush (1 s here) left a record. */
static int scenario_killed(int v)
{
	struct hp_comm c;
	int i;

	EXPECT(hp_init(&c, v, 3, "killed", 1, 4, 2) == 0);
	for (i = 0; i < 5; i++) {
		struct hp_coll a = ar(1000000 + (uint64_t)i * STEP_NS);

		EXPECT(hp_group(&c, &a, 1) == 0);
	}
	sleep(2);
	if (fails)
		return fails;
	kill(getpid(), SIGKILL);
	return 1;
}

/* Exit without destroying the communicator: flushed at exit. */
static int scenario_exit(int v)
{
	struct hp_comm c;
	int i;

	EXPECT(hp_init(&c, v, 4, "exit", 1, 4, 1) == 0);
	for (i = 0; i < 9; i++) {
		struct hp_coll a = ar(1000000 + (uint64_t)i * STEP_NS);

		EXPECT(hp_group(&c, &a, 1) == 0);
	}
	return fails;
}

/* A child forked after init (a data-loader worker) exits: the parent's
 * record is not overwritten by the child's copy of the counters. */
static int scenario_fork(int v)
{
	struct hp_comm c;
	pid_t pid;
	int i, status = 0;

	EXPECT(hp_init(&c, v, 6, "fork", 1, 4, 0) == 0);
	for (i = 0; i < 7; i++) {
		struct hp_coll a = ar(1000000 + (uint64_t)i * STEP_NS);

		EXPECT(hp_group(&c, &a, 1) == 0);
	}
	sleep(2); /* the periodic flush writes the parent's 7 */
	pid = fork();
	if (pid == 0) {
		struct hp_coll a = ar(9000000);

		for (i = 0; i < 5; i++)
			hp_group(&c, &a, 1);
		exit(0); /* runs the destructors */
	}
	EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	_exit(fails ? 1 : 0); /* no flush of the parent's after the child's */
}

/* The proxy thread delivers kernel-channel events while the host enqueues. */
#define QN 64
static struct hp_coll queue[QN * 32];
static unsigned q_head, q_done;
static struct hp_comm tc;

static void *proxy_thread(void *unused)
{
	unsigned done = 0;

	while (done < QN * 32) {
		unsigned head = __atomic_load_n(&q_head, __ATOMIC_ACQUIRE);

		for (; done < head; done++) {
			hp_proxy_part(&tc, &queue[done], 1);
			__atomic_store_n(&q_done, done + 1, __ATOMIC_RELEASE);
		}
	}
	return unused;
}

static int scenario_threads(int v)
{
	pthread_t t;
	unsigned i;

	EXPECT(hp_init(&tc, v, 5, "threads", 1, 8, 0) == 0);
	EXPECT(pthread_create(&t, NULL, proxy_thread, NULL) == 0);
	for (i = 0; i < QN * 32; i++) {
		/* CUDA's launch queue bounds how far the host runs ahead */
		while (i - __atomic_load_n(&q_done, __ATOMIC_ACQUIRE) > 512)
			;
		queue[i] = ar(1000000 + (uint64_t)i * STEP_NS);
		EXPECT(hp_host_part(&tc, &queue[i], 1) == 0);
		__atomic_store_n(&q_head, i + 1, __ATOMIC_RELEASE);
	}
	pthread_join(t, NULL);
	EXPECT(hp_finalize(&tc) == 0);
	return fails;
}

static int run_scenario(const char *name, int v)
{
	if (strcmp(name, "train") == 0)
		return scenario_train(v);
	if (strcmp(name, "noise") == 0)
		return scenario_noise(v);
	if (strcmp(name, "bad") == 0)
		return scenario_bad(v);
	if (strcmp(name, "off") == 0)
		return scenario_off(v);
	if (strcmp(name, "killed") == 0)
		return scenario_killed(v);
	if (strcmp(name, "exit") == 0)
		return scenario_exit(v);
	if (strcmp(name, "threads") == 0)
		return scenario_threads(v);
	if (strcmp(name, "fork") == 0)
		return scenario_fork(v);
	return 99;
}

/* ---- the parent: runs a scenario, reads what it left ---- */

struct run {
	char dir[64], log[96];
	int status;
	pid_t pid;
	int n_rec;
	struct lagom_rec rec;
	char log_text[4096];
};

static struct lagom_rec scratch;
static char text[LAGOM_REC_MAX_BYTES + 1];

static void read_back(struct run *r)
{
	struct lagom_error err = { 0 };
	char path[256];
	struct dirent *e;
	DIR *d = opendir(r->dir);
	FILE *f;
	size_t n;

	r->n_rec = 0;
	while (d && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 4, ".rec") != 0)
			continue;
		assert_int_equal(e->d_name[0], 't'); /* task-N.PID.rec */
		snprintf(path, sizeof(path), "%s/%s", r->dir, e->d_name);
		if (lagom_rec_read_file(path, (long)geteuid(), text, &r->rec,
					&scratch, &err) != 0)
			fail_msg("%s", err.text);
		r->n_rec++;
	}
	if (d)
		closedir(d);
	r->log_text[0] = '\0';
	f = fopen(r->log, "r");
	if (f) {
		n = fread(r->log_text, 1, sizeof(r->log_text) - 1, f);
		r->log_text[n] = '\0';
		fclose(f);
	}
}

static void spawn(struct run *r, const char *scenario, int v,
		  const char *measure_dir)
{
	char vs[8];
	pid_t pid;

	snprintf(vs, sizeof(vs), "%d", v);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("HP_LOG", r->log, 1);
		if (measure_dir)
			setenv("LAGOM_MEASURE_DIR", measure_dir, 1);
		else
			unsetenv("LAGOM_MEASURE_DIR");
		setenv("LAGOM_MEASURE_FLUSH_S", "1", 1);
		setenv("SLURM_PROCID", "3", 1);
		setenv("SLURM_JOB_ID", "4242", 1);
		setenv("SLURM_STEP_ID", "0", 1);
		setenv("LAGOM_PLAN_ID", "3f2a9c0d11e4b7a5", 1);
		execl("/proc/self/exe", "test_profiler_abi", "--scenario",
		      scenario, vs, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &r->status, 0), pid);
	r->pid = pid;
	read_back(r);
}

static void run_in(struct run *r, const char *scenario, int v)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/lagom-prof.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	snprintf(r->log, sizeof(r->log), "%s.log", r->dir);
	unlink(r->log);
	spawn(r, scenario, v, r->dir);
}

static void cleanup(struct run *r)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", r->dir, r->log);
	assert_int_equal(system(cmd), 0);
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int version_of(void **state)
{
	return *(int *)*state;
}

static const struct lagom_rec_comm *comm_named(const struct lagom_rec *r,
					       const char *name)
{
	uint32_t i;

	for (i = 0; i < r->n_comms; i++)
		if (strcmp(r->comm[i].name, name) == 0)
			return &r->comm[i];
	fail_msg("no communicator named %s", name);
	return NULL;
}

static const struct lagom_rec_class *class_op(const struct lagom_rec_comm *m,
					      unsigned op)
{
	uint32_t i;

	for (i = 0; i < m->n_classes; i++)
		if (m->cls[i].op == op)
			return &m->cls[i];
	fail_msg("no class of op %u", op);
	return NULL;
}

static void assert_ok_exit(const struct run *r)
{
	assert_true(WIFEXITED(r->status));
	assert_int_equal(WEXITSTATUS(r->status), 0);
}

static void test_train(void **state)
{
	int v = version_of(state);
	const struct lagom_rec_comm *tp, *dp;
	const struct lagom_rec_class *k;
	struct run r;
	unsigned i, seen = 0;

	run_in(&r, "train", v);
	assert_ok_exit(&r);
	assert_int_equal(r.n_rec, 1);
	/* one INFO line through NCCL's logger for two communicators */
	assert_non_null(strstr(r.log_text, "recording to"));
	assert_int_equal(r.log_text[0], '3');
	assert_int_equal(lines(r.log_text), 1);
	assert_int_equal(r.rec.abi, (unsigned)v);
	assert_string_equal(r.rec.job, "4242");
	assert_string_equal(r.rec.plan, "3f2a9c0d11e4b7a5");
	assert_int_equal(r.rec.task, 3);
	assert_int_equal(r.rec.n_comms, 2);
	tp = comm_named(&r.rec, "pg:tp");
	dp = comm_named(&r.rec, "pg:dp__x__"); /* escaped */
	assert_true(tp->id == 0x1122334455667788ull);
	assert_int_equal(tp->ranks, 16);
	assert_int_equal(tp->nodes, 2);
	assert_int_equal(tp->rank, 3);
	/* the all-reduce: count, GPU span over 8 skewed channels, gaps */
	assert_int_equal(tp->n_classes, 1);
	k = &tp->cls[0];
	assert_int_equal(k->op, LAGOM_NCCL_FUNC_ALLREDUCE);
	assert_int_equal(k->algo, LAGOM_REC_ALGO_RING);
	assert_int_equal(k->proto, LAGOM_REC_PROTO_SIMPLE);
	assert_int_equal(k->channels, 8);
	assert_int_equal(k->bytes, 262144 * 4);
	assert_int_equal(k->count, ITER);
	assert_int_equal(k->gpu_n, ITER);
	assert_int_equal(k->gpu_min_ns, AR_NS + 7 * SKEW_NS);
	assert_int_equal(k->gpu_max_ns, AR_NS + 7 * SKEW_NS);
	assert_int_equal(k->gpu_ns, (uint64_t)ITER * (AR_NS + 7 * SKEW_NS));
	assert_int_equal(k->gap_n, ITER - 1);
	assert_int_equal(k->gap_ns, (uint64_t)(ITER - 1) *
					    (STEP_NS - AR_NS - 7 * SKEW_NS));
	assert_int_equal(tp->period_len, 1);
	/* dp: four classes, one iteration of four, in a rotation of the
	 * order they were issued in */
	assert_int_equal(dp->n_classes, 4);
	assert_int_equal(class_op(dp, LAGOM_NCCL_FUNC_ALLGATHER)->bytes,
			 4194304);
	assert_int_equal(class_op(dp, LAGOM_NCCL_FUNC_ALLGATHER)->proto,
			 LAGOM_REC_PROTO_LL128);
	assert_int_equal(class_op(dp, LAGOM_NCCL_FUNC_REDUCESCATTER)->bytes,
			 2097152 * 2);
	assert_int_equal(class_op(dp, LAGOM_NCCL_FUNC_REDUCESCATTER)->algo,
			 LAGOM_REC_ALGO_PAT);
	assert_int_equal(class_op(dp, LAGOM_NCCL_FUNC_SEND)->algo,
			 LAGOM_REC_ALGO_P2P);
	assert_int_equal(class_op(dp, LAGOM_NCCL_FUNC_RECV)->gpu_ns,
			 (uint64_t)ITER * 50000);
	assert_int_equal(class_op(dp, LAGOM_NCCL_FUNC_REDUCESCATTER)->gap_ns,
			 (uint64_t)ITER * 0); /* RS starts as AG ends */
	assert_int_equal(dp->period_len, 4);
	assert_true(dp->period_n >= 2);
	assert_true(dp->period_ns > 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(dp->seq[(i + 1) % 4], (dp->seq[i] + 1) % 4);
		seen |= 1u << dp->seq[i];
	}
	assert_int_equal(seen, 0xf);
	cleanup(&r);
}

static void test_noise(void **state)
{
	struct run r;

	run_in(&r, "noise", version_of(state));
	assert_ok_exit(&r);
	assert_int_equal(r.n_rec, 1);
	assert_int_equal(r.rec.comm[0].n_classes, 1);
	assert_int_equal(r.rec.comm[0].cls[0].count, 11);
	assert_int_equal(r.rec.comm[0].cls[0].gpu_n, 11);
	cleanup(&r);
}

static void test_bad(void **state)
{
	const struct lagom_rec_comm *m;
	const struct lagom_rec_class *k;
	struct run r;

	run_in(&r, "bad", version_of(state));
	assert_ok_exit(&r);
	assert_int_equal(r.n_rec, 1);
	m = &r.rec.comm[0];
	assert_string_equal(m->name, "");
	assert_int_equal(m->ranks, 1);
	k = class_op(m, LAGOM_REC_OP_OTHER);
	assert_int_equal(k->count, 1);
	assert_int_equal(k->bytes, 0);
	assert_int_equal(k->algo, LAGOM_REC_ALGO_OTHER);
	assert_int_equal(k->channels, LAGOM_REC_MAX_CHANNELS);
	k = class_op(m, LAGOM_NCCL_FUNC_ALLREDUCE);
	assert_int_equal(k->count, 4101);
	assert_int_equal(k->gpu_n, 0); /* the stale channels were dropped */
	cleanup(&r);
}

static void off_case(int v, const char *dir, const char *why)
{
	struct run r;

	memset(&r, 0, sizeof(r));
	snprintf(r.dir, sizeof(r.dir), "%s", dir ? dir : "/nonexistent");
	snprintf(r.log, sizeof(r.log), "/tmp/lagom-prof-off.%d.log",
		 (int)getpid());
	unlink(r.log);
	spawn(&r, "off", v, dir);
	assert_ok_exit(&r);
	assert_int_equal(r.n_rec, 0);
	assert_non_null(strstr(r.log_text, "off: "));
	if (!strstr(r.log_text, why))
		fail_msg("log '%s' does not say '%s'", r.log_text, why);
	unlink(r.log);
}

static void test_off(void **state)
{
	int v = version_of(state);
	char dir[] = "/tmp/lagom-prof-ww.XXXXXX", link[64];

	off_case(v, NULL, "not set");
	off_case(v, "/nonexistent/lagom", "cannot open");
	off_case(v, "relative/dir", "absolute");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0777), 0);
	off_case(v, dir, "writable by others");
	assert_int_equal(chmod(dir, 0700), 0);
	snprintf(link, sizeof(link), "%s.lnk", dir);
	assert_int_equal(symlink(dir, link), 0);
	off_case(v, link, "cannot open");
	unlink(link);
	rmdir(dir);
}

static void test_killed(void **state)
{
	struct run r;

	run_in(&r, "killed", version_of(state));
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(r.n_rec, 1);
	assert_int_equal(r.rec.comm[0].cls[0].count, 5);
	assert_int_equal(r.rec.comm[0].cls[0].gpu_n, 5);
	cleanup(&r);
}

static void test_exit(void **state)
{
	struct run r;

	run_in(&r, "exit", version_of(state));
	assert_ok_exit(&r);
	assert_int_equal(r.n_rec, 1);
	assert_int_equal(r.rec.comm[0].cls[0].count, 9);
	cleanup(&r);
}

static void test_threads(void **state)
{
	struct run r;

	run_in(&r, "threads", version_of(state));
	assert_ok_exit(&r);
	assert_int_equal(r.rec.comm[0].cls[0].count, QN * 32);
	assert_int_equal(r.rec.comm[0].cls[0].gpu_n, QN * 32);
	assert_int_equal(r.rec.comm[0].incomplete, 0);
	cleanup(&r);
}

static void test_fork(void **state)
{
	struct run r;

	run_in(&r, "fork", version_of(state));
	assert_ok_exit(&r);
	assert_int_equal(r.n_rec, 1);
	assert_int_equal(r.rec.comm[0].cls[0].count, 7);
	assert_int_equal(r.rec.pid, (uint64_t)r.pid); /* the parent's */
	cleanup(&r);
}

static int v4 = 4, v5 = 5, v6 = 6;

#define FOR_VERSIONS(fn)                            \
	cmocka_unit_test_prestate(fn, &v4),         \
		cmocka_unit_test_prestate(fn, &v5), \
		cmocka_unit_test_prestate(fn, &v6)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		FOR_VERSIONS(test_train),   FOR_VERSIONS(test_noise),
		FOR_VERSIONS(test_bad),	    FOR_VERSIONS(test_off),
		FOR_VERSIONS(test_killed),  FOR_VERSIONS(test_exit),
		FOR_VERSIONS(test_threads), FOR_VERSIONS(test_fork),
	};

	if (argc == 4 && strcmp(argv[1], "--scenario") == 0) {
		alarm(120); /* a hang (a lock held at fork...) fails the case */
		return run_scenario(argv[2], atoi(argv[3])) ? 1 : 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
