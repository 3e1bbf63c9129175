/*
 * tests/spank/bench_srun_spool.c (the program bench/bench_srun_spool) -
 * what reading the user's spool costs srun at every launch (issue 32):
 * the measured-step half of srun's planning, spank/learn.c (the latest
 * step of the class, to learn from; the same walk gathers the class's
 * tuned and control runs) and spank/revert.c (judging them, to revert a
 * plan that measures slower), called as spank/local.c calls them, on a
 * spool of STEPS measured steps of one class (every 20th a control, the
 * tuned ones 5 % slower, so that the class is judged and reverted) with
 * RECORDS records each, plus OTHER later steps of another class.  Prints
 * the time of one launch's reading (median and fastest of REPS, the page
 * cache warm; wall and CPU time, the latter what it costs whatever runs
 * beside it) and whether it learned and reverted.
 *
 *   bench_srun_spool [STEPS RECORDS OTHER REPS [DIR]]
 *                                          default 1000 8 200 20
 *
 * DIR (default: a fresh directory under /tmp) is removed at the end.
 */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "measurement/learn.h"
#include "spank/lagom.h"
#include "spank/local_int.h"

#define PLAN "00000000000000aa"

static double ms_of(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double now_ms(void)
{
	return ms_of(CLOCK_MONOTONIC);
}

/* CPU time: what the reading costs, whatever else runs beside it. */
static double cpu_ms(void)
{
	return ms_of(CLOCK_PROCESS_CPUTIME_ID);
}

static int put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* One measured step as the profiler and the plugin leave it. */
static int write_step(const char *user_dir, unsigned job, const char *key,
		      bool control, unsigned records, double iter_ms)
{
	char dir[2048], path[2400], text[2048];
	int rc = 0;

	snprintf(dir, sizeof(dir), "%s/%u.0", user_dir, job);
	if (mkdir(dir, 0700))
		return -1;
	snprintf(path, sizeof(path), "%s/key", dir);
	rc |= put(path, key);
	snprintf(path, sizeof(path), "%s/predicted", dir);
	snprintf(text, sizeof(text),
		 "lagom-predicted 1\nplan %s\niteration_ns 9000000\n"
		 "default_ns 9500000\n%send\n",
		 PLAN, control ? "arm control\n" : "");
	rc |= put(path, text);
	for (unsigned t = 0; t < records; t++) {
		snprintf(path, sizeof(path), "%s/task-%u.%u.rec", dir, t,
			 1000 + t);
		snprintf(
			text, sizeof(text),
			"lagom-measure 1\nabi 5\njob %u step 0 task %u pid %u\n"
			"plan %s\ntime %u %u\ncomms 1 dropped 0\n"
			"comm 0000000000001000 ranks %u nodes 1 rank %u name - "
			"overflow 0 incomplete 0 classes 2\n"
			"class allreduce 1048576 ring simple 8 count 100 gpu "
			"100 1000000 9000 11000 gap 0 0\n"
			"class allgather 524288 ring simple 8 count 100 gpu "
			"100 500000 4000 6000 gap 0 0\n"
			"period 2 n 50 ns %.0f\nseq 0 1\nend\n",
			job, t, 1000 + t, control ? "-" : PLAN,
			1764200000 + 100 * job, 1764200060 + 100 * job, records,
			t, iter_ms * 1e6);
		rc |= put(path, text);
	}
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void quiet(const char *line, void *ctx)
{
	(void)line;
	(void)ctx;
}

int main(int argc, char **argv)
{
	unsigned steps = argc > 4 ? (unsigned)atoi(argv[1]) : 1000;
	unsigned records = argc > 4 ? (unsigned)atoi(argv[2]) : 8;
	unsigned other = argc > 4 ? (unsigned)atoi(argv[3]) : 200;
	unsigned reps = argc > 4 ? (unsigned)atoi(argv[4]) : 20;
	char dir[1024] = "/tmp/lagom-bench-srun-spool-XXXXXX", cmd[1100],
	     user_dir[1200], key[LAGOM_LEARN_KEY_MAX],
	     okey[LAGOM_LEARN_KEY_MAX];
	struct passwd *pw = getpwuid(getuid());
	struct lagom_state st;
	struct lagom_step step;
	double *ms, *ms_learn, *ms_cpu;
	unsigned reverted = 0, learned = 0;
	int rc = 0;

	if (argc > 5)
		snprintf(dir, sizeof(dir), "%s", argv[5]);
	else if (!mkdtemp(dir)) {
		perror("bench_srun_spool: mkdtemp");
		return 1;
	}
	ms = calloc(reps ? reps : 1, sizeof(*ms));
	ms_learn = calloc(reps ? reps : 1, sizeof(*ms_learn));
	ms_cpu = calloc(reps ? reps : 1, sizeof(*ms_cpu));
	if (!pw || !ms || !ms_learn || !ms_cpu || reps == 0) {
		fprintf(stderr, "bench_srun_spool: no user, or no memory\n");
		return 1;
	}
	snprintf(user_dir, sizeof(user_dir), "%s/%s", dir, pw->pw_name);
	mkdir(dir, 0755);
	if (mkdir(user_dir, 0700) && errno != EEXIST) {
		perror("bench_srun_spool: mkdir");
		return 1;
	}
	/* the key srun makes for this step (LAGOM_MEASURE_KEY), and another */
	setenv("LAGOM_MEASURE_KEY", "bench", 1);
	lagom_learn_key(key, sizeof(key), "bench", NULL, 1, 8, 8, NULL);
	lagom_learn_key(okey, sizeof(okey), "other", NULL, 1, 8, 8, NULL);
	for (unsigned i = 0; i < steps + other && rc == 0; i++) {
		bool mine = i % (steps + other) < steps;
		bool control = mine && i % 20 == 0;

		rc = write_step(user_dir, 1000 + 7 * i, mine ? key : okey,
				control, records,
				control ? 10.0 : 10.5 + 0.01 * (i % 7));
	}
	if (rc) {
		perror("bench_srun_spool: writing the spool");
		return 1;
	}

	memset(&st, 0, sizeof(st));
	lagom_config_defaults(&st.cfg);
	st.cfg.measure.on = true;
	snprintf(st.cfg.measure.dir, sizeof(st.cfg.measure.dir), "%s", dir);
	st.mode_given = true;
	st.mode_opt = LAGOM_MODE_AUTO;
	memset(&step, 0, sizeof(step));
	step.job_id = 1000000;
	step.uid = getuid();
	step.node_count = 1;
	step.ranks_per_node = 8;
	step.gpus_per_node = 8;

	for (unsigned r = 0; r < reps + 1; r++) {
		char why[64] = "";
		double c0 = cpu_ms(), t0 = now_ms();
		struct lagom_class_runs *runs = NULL;
		struct lagom_learned *l = lagom_learn_srun(&st, &step, quiet,
							   NULL, &runs);
		double t1 = now_ms();
		bool rev = lagom_revert_srun(&st, &step, LAGOM_MODE_AUTO, PLAN,
					     runs, why, sizeof(why));

		if (r > 0) { /* the first warms the page cache */
			ms[r - 1] = now_ms() - t0;
			ms_learn[r - 1] = t1 - t0;
			ms_cpu[r - 1] = cpu_ms() - c0;
		}
		learned += l != NULL;
		reverted += rev;
		lagom_learned_destroy(l);
		lagom_class_runs_free(runs);
	}
	qsort(ms, reps, sizeof(*ms), cmp_double);
	qsort(ms_learn, reps, sizeof(*ms_learn), cmp_double);
	qsort(ms_cpu, reps, sizeof(*ms_cpu), cmp_double);
	printf("srun's spool reading: %u steps of the class x %u records, "
	       "%u steps of another class\n",
	       steps, records, other);
	printf("  per launch: median %.2f ms, fastest %.2f ms (%u launches); "
	       "learned %u/%u, reverted %u/%u\n",
	       ms[reps / 2], ms[0], reps, learned, reps + 1, reverted,
	       reps + 1);
	printf("  of which lagom_learn_srun() (the walk): median %.2f ms, "
	       "fastest %.2f ms\n",
	       ms_learn[reps / 2], ms_learn[0]);
	printf("  CPU time per launch: median %.2f ms, least %.2f ms\n",
	       ms_cpu[reps / 2], ms_cpu[0]);
	free(ms_cpu);
	free(ms);
	free(ms_learn);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_srun_spool: could not remove %s\n", dir);
	return 0;
}
