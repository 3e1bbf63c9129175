/*
 * bench/bench_plan_scale.c - what srun pays to plan one big step
 * (doc/consistency.md): lagom_planner_run() for N nodes x 8 GPUs, the
 * profiles of all N nodes in a trusted directory (N copies of
 * tests/profile/valid/a100-full.json, one per node name), first without
 * then with the cluster digest (profile/digest.h) that lagom-prolog keeps.
 * Prints the file opens, fstatat calls, bytes read and time of the whole
 * plan and of the hardware gathering alone, for several N, and whether the
 * plan is the same with and without the digest; asserts nothing about
 * speed.  Three hardware mixes: "identical" (every node the fixture),
 * "4 kinds" (four measured HBM rates, node i has rate i mod 4) and
 * "distinct" (every node a different measured HBM rate, as real nodes
 * have, so no two digest entries share their hardware text).  Each plan
 * from the digest runs in a child process whose peak RSS is printed (the
 * memory a plan of that size costs srun).  LAGOM_BENCH_REPS sets the
 * repetitions (best of; default 3; the first run of each, in a fresh
 * process as srun's one plan is, printed too: its pages are new);
 * LAGOM_BENCH_NO_PROFILES=1 skips the
 * runs without a digest (and the comparison of plans).
 *
 * open, openat, fstatat and read are wrapped (-Wl,--wrap) to count what
 * the planner does; the benchmark's own writes are not counted.
 *
 *   bench/bench_plan_scale [PROFILE.json [N...]]   default: 1024 4096 16384
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "planner/planner.h"
#include "common/io.h"
#include "profile/digest.h"

static unsigned long n_open, n_stat;
static unsigned long long n_read_bytes;
static int counting;

int __real_open(const char *path, int flags, ...);
int __real_openat(int dfd, const char *path, int flags, ...);
ssize_t __real_read(int fd, void *buf, size_t len);
int __real_fstatat(int dfd, const char *path, struct stat *st, int flags);
int __wrap_fstatat(int dfd, const char *path, struct stat *st, int flags);
int __wrap_open(const char *path, int flags, ...);
int __wrap_openat(int dfd, const char *path, int flags, ...);
ssize_t __wrap_read(int fd, void *buf, size_t len);

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	n_open += counting;
	return __real_open(path, flags, mode);
}

int __wrap_openat(int dfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	n_open += counting;
	return __real_openat(dfd, path, flags, mode);
}

int __wrap_fstatat(int dfd, const char *path, struct stat *st, int flags)
{
	n_stat += counting;
	return __real_fstatat(dfd, path, st, flags);
}

ssize_t __wrap_read(int fd, void *buf, size_t len)
{
	ssize_t n = __real_read(fd, buf, len);

	if (counting && n > 0)
		n_read_bytes += (unsigned long long)n;
	return n;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of this process (user + system), ms: on a shared machine the
 * wall time also counts other processes' turns. */
static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* The hardware mixes: how many distinct measured HBM rates (0: one per
 * node). */
struct mix {
	const char *name;
	unsigned kinds;
};

static const struct mix mixes[] = {
	{ "identical", 1 },
	{ "4 kinds of", 4 },
	{ "distinct", 0 },
};

/* One profile per node: the fixture with its node name replaced and its
 * measured HBM rate one of kinds (0: one per node). */
static int write_profiles(const char *dir, const char *fixture, unsigned n,
			  char **names, unsigned kinds)
{
	const char *at = strstr(fixture, "\"gpu001\"");
	const char *hbm = strstr(fixture, "1700000000000.0");

	if (!at || !hbm || hbm < at)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		char path[4096];
		FILE *f;

		snprintf(names[i], 16, "gpu%05u", i);
		snprintf(path, sizeof(path), "%s/%s.json", dir, names[i]);
		if (!(f = fopen(path, "w")))
			return -1;
		fprintf(f, "%.*s\"%s\"%.*s%.1f%s", (int)(at - fixture), fixture,
			names[i], (int)(hbm - at - strlen("\"gpu001\"")),
			at + strlen("\"gpu001\""),
			1700000000000.0 + (kinds ? i % kinds : i) * 1e6,
			hbm + strlen("1700000000000.0"));
		fclose(f);
		chmod(path, 0644);
	}
	return 0;
}

static void run(const char *dir, char **names, unsigned n, int profiles_only,
		char *plan_id, int once)
{
	struct lagom_planner_input in = {
		.profile_dir = dir,
		.enforce_trust = true,
		.trusted_uid = getuid(),
		.node_names = (const char *const *)names,
		.node_count = n,
		.ranks_per_node = 8,
		.gpus_per_node = 8,
		.workload_name = "llama-3.1-8b:fsdp",
		.job_id = 1,
	};
	struct lagom_planner_result *res = NULL;
	struct lagom_error err = { 0 };
	double t0, c0, best = 1e30, best_cpu = 1e30, first = 0, first_cpu = 0;
	size_t from_digest = 0;
	int rc = 0;

	int reps = getenv("LAGOM_BENCH_REPS") ? atoi(getenv("LAGOM_BENCH_REPS"))
					      : 3;

	if (once || reps < 1)
		reps = 1;

	for (int rep = 0; rep < reps; rep++) {
		n_open = 0;
		n_stat = 0;
		n_read_bytes = 0;
		counting = 1;
		t0 = now_ms();
		c0 = cpu_ms();
		if (profiles_only) {
			struct lagom_planner_inputs g;

			rc = lagom_planner_gather(&in, &g, &err);
			if (rc == 0) {
				from_digest = g.digest_nodes;
				lagom_planner_inputs_release(&g);
			}
		} else
			rc = lagom_planner_run(&in, &res, &err);
		if (rep == 0) {
			first = now_ms() - t0;
			first_cpu = cpu_ms() - c0;
		}
		if (now_ms() - t0 < best)
			best = now_ms() - t0;
		if (cpu_ms() - c0 < best_cpu)
			best_cpu = cpu_ms() - c0;
		counting = 0;
		if (res && plan_id)
			snprintf(plan_id, 17, "%s", res->plan_id);
		lagom_planner_result_destroy(res);
		res = NULL;
		if (rc < 0) {
			printf("  %u nodes: error: %s\n", n, err.text);
			return;
		}
	}
	printf("    %-11s %6lu opens (%.2f per node), %5lu fstatat, "
	       "%8.1f KiB read, %7.1f ms wall, %7.1f ms CPU (best of %d)",
	       profiles_only ? "hardware:" : "whole plan:", n_open,
	       (double)n_open / n, n_stat, n_read_bytes / 1024.0, best,
	       best_cpu, reps);
	if (reps > 1)
		printf("; the first: %.1f ms wall, %.1f ms CPU", first,
		       first_cpu);
	if (profiles_only)
		printf(", %zu nodes from the digest", from_digest);
	printf("\n");
}

/* Resident memory of this process now, KiB (0 when unknown). */
static long rss_kib(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f && fscanf(f, "%ld %ld", &pages, &resident) != 2)
		resident = 0;
	if (f)
		fclose(f);
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* The plans from the digest, in a child process: its peak RSS, and how
 * much of it the planning added to what the child started with (the
 * parent's pages, shared at fork). */
static void run_measured(const char *dir, char **names, unsigned n,
			 char *plan_id)
{
	int pfd[2];
	int status = 0;
	pid_t pid;

	fflush(stdout);
	if (pipe(pfd) < 0 || (pid = fork()) < 0) {
		perror("bench_plan_scale: fork");
		return;
	}
	if (pid == 0) {
		long start_kib = rss_kib();
		struct rusage ru;
		char id[17] = "";

		close(pfd[0]);
		run(dir, names, n, 1, NULL, 0);
		run(dir, names, n, 0, id, 0);
		getrusage(RUSAGE_SELF, &ru);
		printf("    memory:      %.1f MiB peak RSS, %.1f MiB above the "
		       "process's start\n",
		       ru.ru_maxrss / 1024.0,
		       (ru.ru_maxrss - start_kib) / 1024.0);
		fflush(stdout);
		if (write(pfd[1], id, sizeof(id)) != (ssize_t)sizeof(id))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], plan_id, 17) != 17)
		plan_id[0] = '\0';
	plan_id[16] = '\0';
	close(pfd[0]);
	waitpid(pid, &status, 0);
}

/* Without then with the digest; the plans must be the same. */
static int one_size(const char *dir, const char *fixture, char **names,
		    unsigned n, const struct mix *mix, int with_profiles)
{
	struct lagom_trust trust = { .owner_uid = getuid() };
	struct lagom_digest_sync_report rep;
	struct lagom_error err = { 0 };
	char without[17] = "", with[17] = "", path[4096];
	double t0;

	if (write_profiles(dir, fixture, n, names, mix->kinds) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, LAGOM_DIGEST_FILE);
	unlink(path);
	printf("  %u nodes x 8 GPUs, %s hardware:\n", n, mix->name);
	if (with_profiles) {
		printf("   no digest:\n");
		run(dir, names, n, 0, without, 1);
	}
	t0 = now_ms();
	if (lagom_digest_sync(dir, &trust, 10, &rep, &err) < 0) {
		printf("  digest: %s\n", err.text);
		return -1;
	}
	printf("   lagom-prolog's digest update: %zu entries, %.1f ms; "
	       "with the digest:\n",
	       rep.nodes, now_ms() - t0);
	run_measured(dir, names, n, with);
	if (!with_profiles) {
		printf("   plan %s\n", with);
		return with[0] ? 0 : -1;
	}
	printf("   plan %s without the digest, %s with: %s\n", without, with,
	       strcmp(without, with) == 0 ? "the same" : "DIFFERENT");
	return strcmp(without, with) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *fixture_path = argc > 1 ? argv[1] : NULL;
	char tmpl[] = "/tmp/lagom-bench-scale.XXXXXX";
	unsigned sizes[8] = { 1024, 4096, 16384 };
	int nsizes = 3;
	char default_path[4096];
	const char *no_profiles = getenv("LAGOM_BENCH_NO_PROFILES");
	int with_profiles = !no_profiles || strcmp(no_profiles, "1") != 0;
	char *fixture = NULL, *dir, **names;
	/* the fixture, read whole (the invoker names it: any owner, a link
	 * followed) with common/io.h's one reader */
	const struct lagom_read_rule fixture_rule = { .max_bytes = 64 << 20,
						      .owner = LAGOM_OWNER_ANY,
						      .follow = true };
	size_t fixture_len = 0;
	int rc = 0;

	if (!fixture_path) {
		const char *fx = getenv("LAGOM_FIXTURES");

		snprintf(default_path, sizeof(default_path),
			 "%s/../profile/valid/a100-full.json",
			 fx ? fx : "tests/fixtures");
		fixture_path = default_path;
	}
	if (argc > 2) {
		nsizes = 0;
		for (int i = 2; i < argc && nsizes < 8; i++)
			sizes[nsizes++] = (unsigned)strtoul(argv[i], NULL, 10);
	}
	if (lagom_read_file_alloc_at(AT_FDCWD, fixture_path, &fixture_rule,
				     &fixture, &fixture_len, NULL, NULL) != 0) {
		fprintf(stderr, "bench_plan_scale: cannot read %s\n",
			fixture_path);
		return 1;
	}
	if (!(dir = mkdtemp(tmpl)) || chmod(dir, 0755) < 0) {
		perror("bench_plan_scale: mkdtemp");
		return 1;
	}
	names = calloc(65536, sizeof(*names));
	for (unsigned i = 0; i < 65536; i++)
		names[i] = malloc(16);
	printf("bench_plan_scale: planning one step in srun, profiles from "
	       "%s\n",
	       dir);
	for (int s = 0; s < nsizes; s++) {
		for (size_t m = 0; m < sizeof(mixes) / sizeof(*mixes); m++) {
			if (sizes[s] == 0 || sizes[s] > 65536 ||
			    one_size(dir, fixture, names, sizes[s], &mixes[m],
				     with_profiles) < 0) {
				fprintf(stderr, "bench_plan_scale: bad size or "
						"fixture, or plans differ\n");
				rc = 1;
				goto done;
			}
		}
	}
done:
	for (unsigned i = 0; i < 65536; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/gpu%05u.json", dir, i);
		unlink(path);
		free(names[i]);
	}
	{
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, LAGOM_DIGEST_FILE);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", dir, LAGOM_DIGEST_DIR);
		rmdir(path);
		snprintf(path, sizeof(path), "%s/%s", dir,
			 LAGOM_DIGEST_LOCK_FILE);
		unlink(path);
	}
	rmdir(dir);
	free(names);
	free(fixture);
	return rc;
}
