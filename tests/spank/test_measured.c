/*
 * tests/spank/test_measured.c - the step's end (spank/spool.c,
 * spank/comment.c): the measured figure of a step's records against its
 * predictions, and how it joins lagom's segment of the job comment (the
 * launch text and the user's text kept, an earlier figure replaced).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"

#include "measurement/predicted.h"
#include "measurement/record.h"
#include "spank/remote_int.h"
#include "tests/spank/stub.h"

#define PLAN "00000000000000aa"

static void comment_gains_measured_figure(void **state)
{
	char *seg;

	stub_reset(S_CTX_REMOTE);
	stub.job_id = 42;
	strcpy(stub.comment, "my run, measured=by hand");
	assert_int_equal(
		lagom_comment_update(42, "lagom 0.1.0 plan=" PLAN, false, NULL),
		0);
	assert_int_equal(
		lagom_comment_add_measured(
			42, "measured=42.0 tasks=2 iter_ms=1.000", false, NULL),
		0);
	seg = strstr(stub.comment, " {lagom: ");
	assert_non_null(seg);
	/* the user's text, their own "measured=" included, is kept */
	assert_memory_equal(stub.comment,
			    "my run, measured=by hand {lagom: ", 33);
	assert_non_null(strstr(seg, "{lagom: lagom 0.1.0 plan=" PLAN
				    " measured=42.0 tasks=2 iter_ms=1.000 #"));
	/* a later figure replaces the earlier one, never adds up */
	assert_int_equal(
		lagom_comment_add_measured(
			42, "measured=42.1 tasks=2 iter_ms=2.000", false, NULL),
		0);
	assert_non_null(strstr(stub.comment,
			       "plan=" PLAN
			       " measured=42.1 tasks=2 iter_ms=2.000 #"));
	assert_null(strstr(stub.comment, "42.0"));
	/* no segment yet: the figure becomes one */
	strcpy(stub.comment, "mine");
	assert_int_equal(lagom_comment_add_measured(42, "measured=42.2 tasks=1",
						    false, NULL),
			 0);
	assert_non_null(
		strstr(stub.comment, "mine {lagom: measured=42.2 tasks=1 #"));
	/* a job slurmctld does not know: an error, nothing written */
	assert_true(lagom_comment_add_measured(7, "measured=7.0", false, NULL) <
		    0);
}

/* A record of one task of a step of ranks tasks on 2 nodes: all-reduce
 * 100 us + all-gather 200 us + send 50 us per iteration of period_ns. */
static void write_record(const char *dir, const char *name, int task,
			 uint32_t ranks, uint64_t period_ns)
{
	static struct lagom_rec r;
	static char text[LAGOM_REC_MAX_BYTES];
	struct lagom_rec_comm *c = &r.comm[0];
	char path[256];
	FILE *f;
	int n;

	memset(&r, 0, sizeof(r));
	r.abi = 5;
	strcpy(r.job, "42");
	strcpy(r.step, "0");
	strcpy(r.plan, PLAN);
	r.task = task;
	r.pid = 100 + (uint64_t)task;
	r.start_unix = 1700000000;
	r.written_unix = 1700000010;
	r.n_comms = 1;
	c->id = 0x1122334455667788ull;
	c->ranks = ranks;
	c->nodes = 2;
	c->rank = (uint32_t)task;
	c->n_classes = 2;
	c->cls[0] = (struct lagom_rec_class){ .op = LAGOM_NCCL_FUNC_ALLREDUCE,
					      .algo = LAGOM_REC_ALGO_RING,
					      .proto = LAGOM_REC_PROTO_SIMPLE,
					      .channels = 8,
					      .bytes = 1 << 20,
					      .count = 40,
					      .gpu_n = 40,
					      .gpu_ns = 40 * 100000ull,
					      .gpu_min_ns = 100000,
					      .gpu_max_ns = 100000 };
	c->cls[1] = (struct lagom_rec_class){ .op = LAGOM_NCCL_FUNC_ALLGATHER,
					      .algo = LAGOM_REC_ALGO_RING,
					      .proto = LAGOM_REC_PROTO_LL128,
					      .channels = 4,
					      .bytes = 65536,
					      .count = 40,
					      .gpu_n = 40,
					      .gpu_ns = 40 * 200000ull,
					      .gpu_min_ns = 200000,
					      .gpu_max_ns = 200000 };
	c->cls[2] = (struct lagom_rec_class){ .op = LAGOM_NCCL_FUNC_SEND,
					      .algo = LAGOM_REC_ALGO_P2P,
					      .proto = LAGOM_REC_PROTO_NONE,
					      .channels = 1,
					      .bytes = 131072,
					      .count = 40,
					      .gpu_n = 40,
					      .gpu_ns = 40 * 50000ull,
					      .gpu_min_ns = 50000,
					      .gpu_max_ns = 50000 };
	c->n_classes = 3;
	c->period_len = 3;
	c->period_n = 20;
	c->period_ns = period_ns;
	c->seq[0] = 0;
	c->seq[1] = 1;
	c->seq[2] = 2;
	n = lagom_rec_format(&r, text, sizeof(text));
	assert_true(n > 0);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void figure_of_records(void **state)
{
	char dir[] = "/tmp/lagom-figure-XXXXXX", out[512], path[300];
	long uid = (long)getuid();

	assert_non_null(mkdtemp(dir));
	/* nothing measured: nothing to say */
	assert_int_equal(
		lagom_spank_spool_figure(dir, "42.0", uid, out, sizeof(out)),
		-1);
	write_record(dir, "task-0.100.rec", 0, 16, 1500000);
	write_record(dir, "task-1.101.rec", 1, 16, 1700000);
	write_text(dir, "task-2.102.rec", "lagom-measure 1\nabi 9\n");
	assert_true(lagom_spank_spool_figure(dir, "42.0", uid, out,
					     sizeof(out)) > 0);
	/* the corrupt record does not count; no predictions yet */
	assert_string_equal(out, "measured=42.0 tasks=2 iter_ms=1.600 "
				 "comm_ms=0.350");
	/* the plan's predictions: every class predicted (a send is the
	 * plan's sendrecv) */
	write_text(dir, LAGOM_PREDICTED_FILE,
		   "lagom-predicted 1\nplan " PLAN "\niteration_ns 1400000\n"
		   "class allreduce 0 2097152 16 2 90000\n"
		   "class allgather 1048576 1048576 16 2 250000\n"
		   "class sendrecv 131072 131072 16 2 60000\nend\n");
	assert_true(lagom_spank_spool_figure(dir, "42.0", uid, out,
					     sizeof(out)) > 0);
	assert_string_equal(out, "measured=42.0 tasks=2 iter_ms=1.600 "
				 "comm_ms=0.350 predicted_iter_ms=1.400 "
				 "predicted_comm_ms=0.400");
	/* a class the plan did not predict: no predicted figures */
	write_text(dir, LAGOM_PREDICTED_FILE,
		   "lagom-predicted 1\nplan " PLAN "\niteration_ns 1400000\n"
		   "class allreduce 0 2097152 16 2 90000\nend\n");
	assert_true(lagom_spank_spool_figure(dir, "42.0", uid, out,
					     sizeof(out)) > 0);
	assert_string_equal(out, "measured=42.0 tasks=2 iter_ms=1.600 "
				 "comm_ms=0.350");
	/* another plan's predictions are not these records' */
	write_text(dir, LAGOM_PREDICTED_FILE,
		   "lagom-predicted 1\nplan 00000000000000bb\n"
		   "iteration_ns 1400000\n"
		   "class allreduce 0 2097152 16 2 90000\n"
		   "class allgather 1048576 1048576 16 2 250000\nend\n");
	assert_true(lagom_spank_spool_figure(dir, "42.0", uid, out,
					     sizeof(out)) > 0);
	assert_null(strstr(out, "predicted"));
	/* records of another owner are not read */
	assert_int_equal(lagom_spank_spool_figure(dir, "42.0", uid + 1, out,
						  sizeof(out)),
			 -1);
	snprintf(path, sizeof(path), "%s/task-0.100.rec", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/task-1.101.rec", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/task-2.102.rec", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" LAGOM_PREDICTED_FILE, dir);
	unlink(path);
	rmdir(dir);
}

/* Of a 128-task step, the same 64 records (the first by name) whatever
 * order the directory lists them in: tasks 0-63 iterate in 1 ms, the
 * others in 3 ms. */
static void figure_of_many_records(void **state)
{
	char dirs[2][32] = { "/tmp/lagom-figure-XXXXXX",
			     "/tmp/lagom-figure-XXXXXX" };
	char out[2][512], name[32], path[300];
	long uid = (long)getuid();

	for (int d = 0; d < 2; d++) {
		assert_non_null(mkdtemp(dirs[d]));
		for (int i = 0; i < 128; i++) {
			int task = d == 0 ? i : 127 - i;

			snprintf(name, sizeof(name), "task-%03d.rec", task);
			write_record(dirs[d], name, task, 128,
				     task < 64 ? 1000000 : 3000000);
		}
		assert_true(lagom_spank_spool_figure(dirs[d], "42.0", uid,
						     out[d],
						     sizeof(out[d])) > 0);
	}
	assert_string_equal(out[0], "measured=42.0 tasks=64/128 iter_ms=1.000 "
				    "comm_ms=0.350");
	assert_string_equal(out[1], out[0]);
	for (int d = 0; d < 2; d++) {
		for (int task = 0; task < 128; task++) {
			snprintf(path, sizeof(path), "%s/task-%03d.rec",
				 dirs[d], task);
			unlink(path);
		}
		rmdir(dirs[d]);
	}
}

/* The figure's child keeps none of slurmstepd's descriptors: only the
 * pipe's write end, as descriptor 3 (and stdin, stdout, stderr). */
static void child_keeps_only_the_pipe(void **state)
{
	int fds[2], null = open("/dev/null", O_RDONLY), sentinel;
	char msg[64] = "";
	ssize_t n;
	pid_t pid;

	assert_true(null >= 0);
	sentinel = fcntl(null, F_DUPFD, 10); /* no FD_CLOEXEC */
	close(null);
	assert_true(sentinel >= 10);
	assert_int_equal(pipe(fds), 0); /* no O_CLOEXEC: as inherited */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int was_open = fcntl(sentinel, F_GETFD) >= 0, open_above = 0;
		int w;

		close(fds[0]);
		w = lagom_spank_spool_child_fds(fds[1]);
		for (int fd = 4; fd < 4096; fd++)
			open_above += fcntl(fd, F_GETFD) >= 0;
		n = snprintf(msg, sizeof(msg), "%d %d %d", was_open, w,
			     open_above);
		_exit(w < 0 || write(w, msg, (size_t)n) != n);
	}
	close(fds[1]);
	n = read(fds[0], msg, sizeof(msg) - 1);
	close(fds[0]);
	assert_true(n > 0);
	msg[n] = '\0';
	/* the sentinel was inherited, the pipe is 3, nothing above it */
	assert_string_equal(msg, "1 3 0");
	assert_int_equal(lagom_spank_spool_reap(pid), 0);
	close(sentinel);
}

/* A child that cannot be waited for is a failure, never a success read
 * from an unset status. */
static void unreaped_child_is_a_failure(void **state)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(3);
	assert_int_equal(lagom_spank_spool_reap(pid), 3);
	assert_int_equal(lagom_spank_spool_reap(pid), -1); /* ECHILD */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		raise(SIGKILL);
		_exit(0);
	}
	assert_int_equal(lagom_spank_spool_reap(pid), -1); /* killed */
	/* SIGCHLD ignored: the kernel reaps the child, waitpid says ECHILD */
	signal(SIGCHLD, SIG_IGN);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(lagom_spank_spool_reap(pid), -1);
	signal(SIGCHLD, SIG_DFL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(comment_gains_measured_figure),
		cmocka_unit_test(figure_of_records),
		cmocka_unit_test(figure_of_many_records),
		cmocka_unit_test(child_keeps_only_the_pipe),
		cmocka_unit_test(unreaped_child_is_a_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
