/*
 * tests/tuner/test_tuner_noop.c - a plan that is missing, malformed, huge,
 * for another shape, another lagom or another job makes the built module a
 * no-op for the communicator: init succeeds, exactly one warning goes
 * through NCCL's logger (and nothing else), getCollInfo succeeds and leaves
 * the table and the channel count alone.  Checked through every ABI version.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"
#include "tests/tuner/harness.h"

#define HDR "lagom-plan 1 " PACKAGE_VERSION " 3f2a9c0d11e4b7a5 job=4242 "
#define ENV_REC "env tuner=1 ctas=8-8 buffsize=0 nthreads=0 algo=any proto=any;"
#define WORLD HDR "ranks=16 nodes=2;" ENV_REC
#define ENTRY                                                               \
	"coll allreduce 0 1048575 ranks=16 nodes=2 algo=ring proto=simple " \
	"nc=8 chunk=0;"
#define GOOD WORLD ENTRY "end"
#define BASIC (H_ROW(LAGOM_NCCL_ALGO_TREE) | H_ROW(LAGOM_NCCL_ALGO_RING))
#define BIG (TUNER_PLAN_BIG + 4096)
#define TUNER_PLAN_BIG 65536

struct bad_case {
	const char *what;
	const char *plan; /* NULL: LAGOM_PLAN unset */
	const char *slurm_job_id;
	size_t ranks, nodes;
	const char *says; /* the warning contains this */
};

static const struct bad_case bad_cases[] = {
	{ "unset", NULL, NULL, 16, 2, "not set" },
	{ "empty", "", NULL, 16, 2, "not set" },
	{ "truncated, no end", WORLD ENTRY, NULL, 16, 2, "truncated" },
	{ "cut inside a record", WORLD "coll allreduce 0 10", NULL, 16, 2,
	  "record 3" },
	{ "no env record", HDR "ranks=16 nodes=2;" ENTRY "end", NULL, 16, 2,
	  "record 2: not an 'env' record" },
	{ "bad env record",
	  HDR "ranks=16 nodes=2;env tuner=1 ctas=8-4 buffsize=0 nthreads=0 "
	      "algo=any proto=any;" ENTRY "end",
	  NULL, 16, 2, "record 2: bad" },
	{ "format version 2",
	  "lagom-plan 2 " PACKAGE_VERSION
	  " 3f2a9c0d11e4b7a5 job=4242 ranks=16 nodes=2;" ENV_REC ENTRY "end",
	  NULL, 16, 2, "format major version is not 1" },
	{ "another lagom",
	  "lagom-plan 1 0.0.9 3f2a9c0d11e4b7a5 job=4242 ranks=16 nodes=2;" ENV_REC
		  ENTRY "end",
	  NULL, 16, 2, "lagom 0.0.9" },
	{ "another job", GOOD, "999", 16, 2, "job 4242" },
	{ "unreadable SLURM_JOB_ID", GOOD, "4242x", 16, 2, "job 4242" },
	{ "communicator has more ranks", GOOD, NULL, 32, 4, "exceeds" },
	{ "communicator has more nodes", GOOD, NULL, 16, 4, "exceeds" },
	{ "entry wider than the world",
	  WORLD "coll allreduce 0 9 ranks=32 nodes=2 algo=any proto=any nc=0 "
		"chunk=0;end",
	  NULL, 16, 2, "shape" },
	{ "nc out of range",
	  WORLD "coll allreduce 0 9 ranks=16 nodes=2 algo=any proto=any nc=65 "
		"chunk=0;end",
	  NULL, 16, 2, "out of range" },
	{ "number overflows 64 bits",
	  WORLD "coll allreduce 0 18446744073709551616 ranks=16 nodes=2 "
		"algo=any proto=any nc=1 chunk=0;end",
	  NULL, 16, 2, "out of range" },
	{ "not a plan", "NCCL_ALGO=ring", NULL, 16, 2, "record 1" },
	{ "control byte", WORLD "coll\tallreduce;end", NULL, 16, 2,
	  "printable" },
	{ "relative path", "@plan.txt", NULL, 16, 2, "not absolute" },
	{ "missing file", "@/nonexistent/lagom.plan", NULL, 16, 2,
	  "No such file" },
	{ "a directory", "@/", NULL, 16, 2, "not a regular file" },
};

/* Init through version v; expect a no-op and one warning containing says. */
static void expect_noop(int v, size_t ranks, size_t nodes, const char *says)
{
	float t[H_CELLS], ref[H_CELLS];
	void *ctx = NULL;
	int nc = 0;

	h_log_reset();
	assert_int_equal(h_init(v, ranks, nodes, &ctx), 0);
	assert_null(ctx);
	assert_int_equal(h_captured.n, 1);
	assert_int_equal(h_log_count(LAGOM_NCCL_LOG_WARN), 1);
	if (!strstr(h_captured.line[0].text, says))
		fail_msg("v%d: warning '%s' does not say '%s'", v,
			 h_captured.line[0].text, says);
	h_fill_table(t, H_NUM_ALGO, H_NUM_PROTO, 4096, BASIC);
	memcpy(ref, t, sizeof(t));
	assert_int_equal(h_coll(v, ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 4096, 1, t,
				H_NUM_ALGO, H_NUM_PROTO, 0, &nc),
			 0);
	assert_int_equal(nc, 0);
	assert_memory_equal(t, ref, sizeof(t));
	assert_int_equal(h_finalize(v, ctx), 0);
}

/* The plan was accepted: one INFO line, and the entry applies. */
static void expect_active(int v)
{
	float t[H_CELLS];
	void *ctx = NULL;
	int nc = 0;

	h_log_reset();
	assert_int_equal(h_init(v, 16, 2, &ctx), 0);
	assert_non_null(ctx);
	assert_int_equal(h_captured.n, 1);
	assert_int_equal(h_log_count(LAGOM_NCCL_LOG_INFO), 1);
	assert_non_null(strstr(h_captured.line[0].text, "3f2a9c0d11e4b7a5"));
	h_fill_table(t, H_NUM_ALGO, H_NUM_PROTO, 4096, BASIC);
	assert_int_equal(h_coll(v, ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 4096, 1, t,
				H_NUM_ALGO, H_NUM_PROTO, 0, &nc),
			 0);
	assert_int_equal(nc, 8);
	assert_true(t[LAGOM_NCCL_ALGO_RING * H_NUM_PROTO +
		      LAGOM_NCCL_PROTO_SIMPLE] == 0.0f);
	assert_int_equal(h_finalize(v, ctx), 0);
}

static void set_env(const char *name, const char *value)
{
	if (value)
		assert_int_equal(setenv(name, value, 1), 0);
	else
		unsetenv(name);
}

static void t_bad_plans(void **state)
{
	size_t i;
	int v;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];

		print_message("# case: %s\n", c->what);
		set_env("LAGOM_PLAN", c->plan);
		set_env("SLURM_JOB_ID", c->slurm_job_id);
		for (v = 2; v <= 6; v++)
			expect_noop(v, c->ranks, c->nodes, c->says);
	}
}

/* n coll records (each under 100 bytes) after a valid header. */
static char *plan_with_entries(size_t n, size_t pad_to)
{
	size_t cap = 256 + n * 100 + pad_to, len;
	char *s = malloc(cap);
	size_t i;

	assert_non_null(s);
	len = (size_t)snprintf(s, cap, "%s", WORLD);
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s", ENTRY);
	while (len < pad_to)
		len += (size_t)snprintf(s + len, cap - len, "%s", ENTRY);
	snprintf(s + len, cap - len, "end");
	return s;
}

static void t_bounds(void **state)
{
	char *s;
	int v;

	unsetenv("SLURM_JOB_ID");
	s = plan_with_entries(257, 0);
	set_env("LAGOM_PLAN", s);
	for (v = 2; v <= 6; v++)
		expect_noop(v, 16, 2, "more than 256");
	free(s);
	s = plan_with_entries(256, 0); /* the bound itself is fine */
	set_env("LAGOM_PLAN", s);
	for (v = 2; v <= 6; v++)
		expect_active(v);
	free(s);
	s = plan_with_entries(0, BIG); /* 700+ records, over 64 KiB */
	set_env("LAGOM_PLAN", s);
	for (v = 2; v <= 6; v++)
		expect_noop(v, 16, 2, "over 65536");
	free(s);
}

static void t_job_rules(void **state)
{
	int v;

	set_env("LAGOM_PLAN", GOOD);
	set_env("SLURM_JOB_ID", "4242");
	for (v = 2; v <= 6; v++)
		expect_active(v);
	unsetenv("SLURM_JOB_ID"); /* outside Slurm: nothing to compare */
	for (v = 2; v <= 6; v++)
		expect_active(v);
	/* job=0 (written by the CLI) binds to no job. */
	set_env("LAGOM_PLAN",
		"lagom-plan 1 " PACKAGE_VERSION " 3f2a9c0d11e4b7a5 job=0 "
		"ranks=16 nodes=2;" ENV_REC ENTRY "end");
	set_env("SLURM_JOB_ID", "999");
	for (v = 2; v <= 6; v++)
		expect_active(v);
}

/* Write text (len bytes) to a fresh file; LAGOM_PLAN=@file. */
static void plan_file(char *path, size_t cap, const char *text, size_t len)
{
	const char *dir = getenv("TMPDIR");
	FILE *f;
	int fd;

	snprintf(path, cap, "%s/lagom-tuner-XXXXXX", dir ? dir : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	{
		char env[4200];

		snprintf(env, sizeof(env), "@%s", path);
		set_env("LAGOM_PLAN", env);
	}
}

static void t_plan_file(void **state)
{
	char path[4096];
	char *big;
	int v;

	unsetenv("SLURM_JOB_ID");
	plan_file(path, sizeof(path), GOOD "\n", strlen(GOOD "\n"));
	for (v = 2; v <= 6; v++)
		expect_active(v);
	unlink(path);
	big = plan_with_entries(0, BIG);
	plan_file(path, sizeof(path), big, strlen(big));
	for (v = 2; v <= 6; v++)
		expect_noop(v, 16, 2, "over 65536");
	unlink(path);
	free(big);
	plan_file(path, sizeof(path), GOOD "\n\n", strlen(GOOD "\n\n"));
	for (v = 2; v <= 6; v++)
		expect_noop(v, 16, 2, "after end");
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_bad_plans),
		cmocka_unit_test(t_bounds),
		cmocka_unit_test(t_job_rules),
		cmocka_unit_test(t_plan_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
