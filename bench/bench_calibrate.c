/*
 * bench/bench_calibrate.c - `lagom calibrate` at site scale (issue 33,
 * "Site scale": 1,000,000 records in bounded memory, <= 512 MiB, and
 * time, <= 60 s here).  Builds a spool of USERS x STEPS x TASKS records:
 * per user and step one real record (its own job id, four multi-node
 * classes whose times differ by user and step), each task of the step a
 * hard link to it (a task's record differs from its neighbour's by its
 * task and pid only: the consensus folds the tasks of a run alike), the
 * user directories owned by distinct uids when run as root (the consensus
 * counts users by the spool directory's owner), then runs the `lagom`
 * binary's calibrate over the whole spool as root's daily run would and
 * prints its wall time and its peak resident memory (wait4's ru_maxrss),
 * and the lines calibrate said about the evidence.
 *
 *   bench_calibrate [USERS STEPS TASKS [LAGOM]]   default 250 40 100 ./lagom
 *
 * LAGOM may also come from the environment (LAGOM).  The spool (a fresh
 * directory under /tmp) is removed at the end.  Prints figures; asserts
 * nothing about speed.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* User u's record of step s: allreduce 1, 16, 256 MiB and allgather
 * 64 MiB, ring/simple, 32 channels, 2 nodes x 8; times a few percent
 * apart by user and step. */
static int write_record(const char *path, unsigned u, unsigned s)
{
	static const unsigned long long bytes[4] = { 1ULL << 20, 16ULL << 20,
						     256ULL << 20,
						     64ULL << 20 };
	static const char *const op[4] = { "allreduce", "allreduce",
					   "allreduce", "allgather" };
	static const double us[4] = { 80, 420, 6100, 900 };
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f,
		"lagom-measure 1\nabi 5\njob %u step 0 task 0 pid 100\n"
		"plan -\ntime 1764200000 1764200060\ncomms 1 dropped 0\n"
		"comm 0000000000001000 ranks 16 nodes 2 rank 0 name - "
		"overflow 0 incomplete 0 classes 4\n",
		1000 + s);
	for (int k = 0; k < 4; k++) {
		unsigned long long ns = (unsigned long long)(us[k] * 1e3 *
							     (1 +
							      0.01 * (u % 5) +
							      0.002 * (s % 7)));
		fprintf(f,
			"class %s %llu ring simple 32 count 20 gpu 20 %llu %llu "
			"%llu gap 0 0\n",
			op[k], bytes[k], ns * 22, ns, ns * 13 / 10);
	}
	fputs("period 0 n 0 ns 0\nseq\nend\n", f);
	return fclose(f);
}

static int build(const char *dir, unsigned users, unsigned steps,
		 unsigned tasks, bool *owned)
{
	char path[2048], one[4096], link_path[4096];

	*owned = geteuid() == 0;
	for (unsigned u = 0; u < users; u++) {
		snprintf(path, sizeof(path), "%s/user%u", dir, u);
		if (mkdir(path, 0755))
			return -1;
		for (unsigned s = 0; s < steps; s++) {
			snprintf(path, sizeof(path), "%s/user%u/%u.0", dir, u,
				 1000 + s);
			if (mkdir(path, 0755))
				return -1;
			snprintf(one, sizeof(one), "%s/task-0.100.rec", path);
			if (write_record(one, u, s))
				return -1;
			for (unsigned t = 1; t < tasks; t++) {
				snprintf(link_path, sizeof(link_path),
					 "%s/task-%u.%u.rec", path, t, 100 + t);
				if (link(one, link_path))
					return -1;
			}
		}
		if (*owned) {
			char cmd[2200];

			fflush(stdout);
			snprintf(cmd, sizeof(cmd), "chown -R %u '%s/user%u'",
				 20000 + u, dir, u);
			if (system(cmd) != 0)
				*owned = false;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned users = argc > 3 ? (unsigned)atoi(argv[1]) : 250;
	unsigned steps = argc > 3 ? (unsigned)atoi(argv[2]) : 40;
	unsigned tasks = argc > 3 ? (unsigned)atoi(argv[3]) : 100;
	const char *lagom = argc > 4	      ? argv[4]
			    : getenv("LAGOM") ? getenv("LAGOM")
					      : "./lagom";
	char dir[1024] = "/tmp/lagom-bench-calibrate-XXXXXX", out[1100],
	     err[1100], plug[1100], cmd[2300], line[4096];
	struct rusage ru;
	double t0, t1;
	bool owned = false;
	int rc, status = 0;
	pid_t pid;
	FILE *f;

	if (users == 0 || steps == 0 || tasks == 0) {
		fprintf(stderr, "bench_calibrate: USERS STEPS TASKS > 0\n");
		return 2;
	}
	if (access(lagom, X_OK)) {
		printf("bench_calibrate: skipped: %s not built\n", lagom);
		return 0;
	}
	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	t0 = now_s();
	rc = build(dir, users, steps, tasks, &owned);
	t1 = now_s();
	printf("spool: %u users x %u steps x %u tasks = %llu records (%u "
	       "distinct files, 4 classes each), built in %.1f s%s%s\n",
	       users, steps, tasks, (unsigned long long)users * steps * tasks,
	       users * steps, t1 - t0,
	       owned ? "" : "; one owner (not root): one user",
	       rc ? " (FAILED)" : "");
	snprintf(out, sizeof(out), "%s/site.json", dir);
	snprintf(err, sizeof(err), "%s/calibrate.err", dir);
	/* no calibration account: the users' consensus decides */
	snprintf(plug, sizeof(plug), "%s/plugstack.conf", dir);
	if ((f = fopen(plug, "w"))) {
		fputs("optional /usr/lib/slurm/lagom.so\n", f);
		fclose(f);
	}
	fflush(stdout);
	t0 = now_s();
	pid = rc ? -1 : fork();
	if (pid == 0) {
		if (!freopen(err, "w", stderr) ||
		    !freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(lagom, lagom, "calibrate", "--gpu", "H100-SXM", "--nic",
		      "8x400", "--accept", "--plugstack", plug, "--out", out,
		      dir, (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && wait4(pid, &status, 0, &ru) == pid) {
		t1 = now_s();
		printf("calibrate: exit %d in %.2f s (%.0f records/s); peak "
		       "memory %ld KiB (%.1f MiB)\n",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1, t1 - t0,
		       (double)users * steps * tasks / (t1 - t0), ru.ru_maxrss,
		       ru.ru_maxrss / 1024.0);
		if ((f = fopen(err, "r"))) {
			while (fgets(line, sizeof(line), f))
				if (strstr(line, "records") ||
				    strstr(line, "users") ||
				    strstr(line, "dense ib"))
					printf("  said: %s", line);
			fclose(f);
		}
		rc = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
	} else {
		rc = 1;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	fflush(stdout);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_calibrate: could not remove %s\n", dir);
	return rc;
}
