/*
 * bench/bench_profiler.c - cost of libnccl-profiler-lagom.so per event, as
 * NCCL 2.27, 2.28 and 2.29 call it (ABI v4, v5, v6;
 * tests/profiler/harness.h): one all-reduce on 8 channels is 29 calls in
 * v4 and 35 in v5/v6 (API events, the plan's Group, the Coll, 8 x
 * KernelCh start/stop-state/stop, the network's stopEvent(NULL)).  Printed: ns per call with the plugin recording,
 * including the harness's own work of building NCCL's descriptors (an
 * upper bound on the plugin's cost), and ns per all-reduce.  Goal: under
 * 200 ns per event.  Prints figures, asserts nothing about speed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/profiler/harness.h"

#define WARM 20000
#define N 400000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double calls_per_coll;

/* ns per call over N all-reduces, in this process. */
static double run(int version)
{
	struct hp_comm c;
	double t0 = 0;
	unsigned long calls;
	int i;

	if (hp_init(&c, version, 0x1234, "bench", 2, 16, 0) != 0)
		return -1;
	for (i = 0; i < WARM + N; i++) {
		struct hp_coll a = { .func = "AllReduce",
				     .datatype = "ncclBfloat16",
				     .algo = "RING",
				     .proto = "SIMPLE",
				     .count = (size_t)(1 + i % 5) << 20,
				     .nchannels = 8,
				     .gpu_start = 1000000 + (uint64_t)i * 5000,
				     .gpu_ns = 3000,
				     .skew_ns = 10 };

		if (i == WARM) {
			hp_calls = 0;
			t0 = now_s();
		}
		hp_group(&c, &a, 1);
	}
	calls = hp_calls;
	calls_per_coll = (double)calls / N;
	t0 = (now_s() - t0) * 1e9 / (double)calls;
	hp_finalize(&c);
	return t0;
}

/* Each measurement in its own process: the plugin decides once. */
static double measure(int version, const char *dir)
{
	int fd[2];
	double ns[2] = { -1, -1 };
	pid_t pid;

	if (pipe(fd) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		if (dir)
			setenv("LAGOM_MEASURE_DIR", dir, 1);
		else
			unsetenv("LAGOM_MEASURE_DIR");
		ns[0] = run(version);
		ns[1] = calls_per_coll;
		if (write(fd[1], ns, sizeof(ns)) != sizeof(ns))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], ns, sizeof(ns)) != sizeof(ns))
		ns[0] = -1;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	calls_per_coll = ns[1];
	return ns[0];
}

int main(void)
{
	char dir[] = "/tmp/lagom-bench-prof.XXXXXX", cmd[96];
	int v;

	if (!mkdtemp(dir))
		return 1;
	printf("profiler plugin, %d all-reduces x 8 channels per ABI "
	       "(goal < 200 ns per event)\n",
	       N);
	for (v = 4; v <= 6; v++) {
		double ns = measure(v, dir);

		printf("  v%d: %.1f ns per call (harness included), %.0f ns "
		       "per all-reduce of %.0f calls\n",
		       v, ns, ns * calls_per_coll, calls_per_coll);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
