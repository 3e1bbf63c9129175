/*
 * tests/spank/test_srun_parse.c - what srun is asked, read from text alone
 * (spank/srun_parse.h): TRES strings, the GPUs per node a request fixes,
 * the request slurmctld keeps for srun's GPU options, the step's working
 * directory from srun's command line.  Links srun_parse.c, placement/ and
 * common/ only: the parsers need no Slurm, no stub.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/lagom_test.h"

#include "spank/srun_parse.h"

static void tres_strings(void **state)
{
	unsigned long n = 0;

	assert_int_equal(lagom_tres_gpus("gres:gpu:4", &n), 1);
	assert_int_equal(n, 4);
	assert_int_equal(lagom_tres_gpus("cpu:3,gres:gpu:7", &n), 1);
	assert_int_equal(n, 7);
	assert_int_equal(lagom_tres_gpus("gres:gpu:a100:8", &n), 1);
	assert_int_equal(n, 8);
	assert_int_equal(lagom_tres_gpus("gres/gpu=2", &n), 1);
	assert_int_equal(n, 2);
	assert_int_equal(lagom_tres_gpus("gres:gpumem:4", &n), 0);
	assert_int_equal(lagom_tres_gpus("cpu:3", &n), 0);
	assert_int_equal(lagom_tres_gpus("", &n), 0);
	assert_int_equal(lagom_tres_gpus(NULL, &n), 0);
	assert_int_equal(lagom_tres_gpus("gres:gpu:", &n), -1);
	assert_int_equal(lagom_tres_gpus("gres:gpu:99999", &n), -1);
	assert_int_equal(lagom_tres_gpus("gres:gpu:4x", &n), -1);
}

/* GPUs per node are planned only where Slurm fixes them on every node. */
static void gpus_per_node_from_request(void **state)
{
	struct lagom_tasks_per_node even, uneven;
	struct lagom_error err = { 0 };
	unsigned g = 99;

	assert_int_equal(lagom_tasks_per_node_parse("2(x3)", &even, NULL), 0);
	assert_int_equal(lagom_tasks_per_node_parse("3,2(x2)", &uneven, NULL),
			 0);
	assert_int_equal(
		lagom_step_gpus(
			&(struct lagom_gpu_request){ .per_node = "gres:gpu:4" },
			&uneven, &g, NULL),
		0);
	assert_int_equal(g, 4);
	assert_int_equal(
		lagom_step_gpus(
			&(struct lagom_gpu_request){ .per_task = "gres:gpu:2" },
			&even, &g, NULL),
		0);
	assert_int_equal(g, 4);
	assert_int_equal(
		lagom_step_gpus(
			&(struct lagom_gpu_request){ .per_task = "gres:gpu:1" },
			&uneven, &g, &err),
		-EINVAL);
	assert_non_null(strstr(err.text, "differ between nodes"));
	assert_int_equal(lagom_step_gpus(
				 &(struct lagom_gpu_request){
					 .per_step = "cpu:3,gres:gpu:7" },
				 &even, &g, &err),
			 -EINVAL);
	assert_non_null(strstr(err.text, "--gpus=7 over 3 nodes"));
	assert_int_equal(lagom_step_gpus(
				 &(struct lagom_gpu_request){
					 .per_socket = "gres:gpu:1" },
				 &even, &g, &err),
			 -EINVAL);
	g = 99;
	assert_int_equal(lagom_step_gpus(&(struct lagom_gpu_request){ 0 },
					 &even, &g, NULL),
			 0);
	assert_int_equal(g, 0);
	lagom_tasks_per_node_release(&even);
	lagom_tasks_per_node_release(&uneven);
}

#define WORDS(...) ((char *[]){ "srun", __VA_ARGS__, NULL })
#define NWORDS(...) ((int)(sizeof(WORDS(__VA_ARGS__)) / sizeof(char *)) - 1)

/* lagom_srun_chdir's answer for a command ending with a 2-word command,
 * srun's directory being /home/u. */
static void assert_chdir(char **argv, int argc, const char *remote_cwd,
			 const char *working_dir, const char *want)
{
	char out[64];

	assert_int_equal(lagom_srun_chdir(argc, argv, 2, remote_cwd,
					  working_dir, "/home/u", out,
					  sizeof(out), NULL),
			 0);
	assert_string_equal(out, want);
}

/* srun's command line (ending with a 2-word command) as srun reads it. */
static void step_working_directory(void **state)
{
	const struct {
		char **argv;
		int argc;
		const char *remote_cwd, *want;
	} cases[] = {
		{ WORDS("-N3", "cmd", "x"), NWORDS("-N3", "cmd", "x"), NULL,
		  "/home/u" },
		{ WORDS("--chdir=/d", "cmd", "x"),
		  NWORDS("--chdir=/d", "cmd", "x"), NULL, "/d" },
		{ WORDS("--chdir", "sub", "cmd", "x"),
		  NWORDS("--chdir", "sub", "cmd", "x"), NULL, "/home/u/sub" },
		{ WORDS("-D", "/d", "cmd", "x"), NWORDS("-D", "/d", "cmd", "x"),
		  NULL, "/d" },
		{ WORDS("-D/d", "cmd", "x"), NWORDS("-D/d", "cmd", "x"), NULL,
		  "/d" },
		/* a cluster of flags ending in D; -N's value is skipped */
		{ WORDS("-N", "3", "-lvD", "s", "cmd", "x"),
		  NWORDS("-N", "3", "-lvD", "s", "cmd", "x"), NULL,
		  "/home/u/s" },
		/* a prefix of --chdir that getopt takes; the last one wins */
		{ WORDS("-D/a", "--chd=/b", "cmd", "x"),
		  NWORDS("-D/a", "--chd=/b", "cmd", "x"), NULL, "/b" },
		/* D inside another option's value is no option */
		{ WORDS("-JD", "-o", "-D", "cmd", "x"),
		  NWORDS("-JD", "-o", "-D", "cmd", "x"), NULL, "/home/u" },
		{ WORDS("--job-name=-D/x", "--chdirx=/y", "cmd", "x"),
		  NWORDS("--job-name=-D/x", "--chdirx=/y", "cmd", "x"), NULL,
		  "/home/u" },
		/* the command's own words are not srun's */
		{ WORDS("-N1", "cmd", "-D/x"), NWORDS("-N1", "cmd", "-D/x"),
		  NULL, "/home/u" },
		{ WORDS("--", "cmd", "x"), NWORDS("--", "cmd", "x"), NULL,
		  "/home/u" },
		/* SLURM_REMOTE_CWD, unless the command line says otherwise */
		{ WORDS("-N1", "cmd", "x"), NWORDS("-N1", "cmd", "x"), "/e",
		  "/e" },
		{ WORDS("-N1", "cmd", "x"), NWORDS("-N1", "cmd", "x"), "e",
		  "/home/u/e" },
		{ WORDS("-D/d", "cmd", "x"), NWORDS("-D/d", "cmd", "x"), "/e",
		  "/d" },
	};
	/* SLURM_WORKING_DIR: srun reads it after SLURM_REMOTE_CWD */
	const struct {
		char **argv;
		int argc;
		const char *remote_cwd, *working_dir, *want;
	} env_cases[] = {
		{ WORDS("-N1", "cmd", "x"), NWORDS("-N1", "cmd", "x"), NULL,
		  "/w", "/w" },
		{ WORDS("-N1", "cmd", "x"), NWORDS("-N1", "cmd", "x"), "/e",
		  "/w", "/w" },
		{ WORDS("-N1", "cmd", "x"), NWORDS("-N1", "cmd", "x"), "/e",
		  "w", "/home/u/w" },
		{ WORDS("--chdir=/d", "cmd", "x"),
		  NWORDS("--chdir=/d", "cmd", "x"), "/e", "/w", "/d" },
	};
	char out[64], lng[80];
	struct lagom_error err = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_chdir(cases[i].argv, cases[i].argc, cases[i].remote_cwd,
			     NULL, cases[i].want);
	for (size_t i = 0; i < sizeof(env_cases) / sizeof(env_cases[0]); i++)
		assert_chdir(env_cases[i].argv, env_cases[i].argc,
			     env_cases[i].remote_cwd, env_cases[i].working_dir,
			     env_cases[i].want);
	/* more command words than srun has: not srun's command line */
	assert_int_equal(lagom_srun_chdir(2, WORDS("cmd", "x"), 2, NULL, NULL,
					  "/home/u", out, sizeof(out), &err),
			 -EINVAL);
	memset(lng, 'd', sizeof(lng) - 1);
	lng[0] = '/';
	lng[sizeof(lng) - 1] = '\0';
	assert_int_equal(lagom_srun_chdir(4, WORDS("-D", lng, "cmd"), 1, NULL,
					  NULL, "/home/u", out, sizeof(out),
					  &err),
			 -ENAMETOOLONG);
}

/* lagom_srun_gpu_request(): the request slurmctld keeps for srun's
 * options (srun 22.05 launch.c, slurmctld step_mgr.c), or 0 where
 * slurmctld substitutes the job's. */
static void gpu_request_from_options(void **state)
{
	const struct {
		struct lagom_srun_gpu_opts o;
		int rc;
		const char *node, *task, *step, *socket;
	} cases[] = {
		/* --gres=gpu:4 (Slurm prepends gres:) */
		{ { .gres = "gres:gpu:4" }, 1, "gres:gpu:4", NULL, NULL, NULL },
		/* srun 24.11+: gres/gpu:, --gres=none alone, --tres-per-task */
		{ { .slurm24 = true, .gpus_per_node = "2", .gpus = "3" },
		  1,
		  "gres/gpu:2",
		  NULL,
		  "gres/gpu:3",
		  NULL },
		{ { .slurm24 = true, .gpus_per_node = "2", .gres = "none" },
		  1,
		  NULL,
		  NULL,
		  NULL,
		  NULL },
		{ { .slurm24 = true,
		    .gpus_per_task = "2",
		    .tres_per_task = "cpu:1,gres/gpu:2" },
		  1,
		  NULL,
		  "cpu:1,gres/gpu:2",
		  NULL,
		  NULL },
		{ { .slurm24 = true, .tres_per_task = "cpu:2" },
		  0,
		  NULL,
		  NULL,
		  NULL,
		  NULL },
		{ { .gpus_per_node = "2" }, 1, "gres:gpu:2", NULL, NULL, NULL },
		{ { .gpus_per_node = "a100:2,v100:1" },
		  1,
		  "gres:gpu:a100:2,gres:gpu:v100:1",
		  NULL,
		  NULL,
		  NULL },
		/* per node first, then --gres */
		{ { .gpus_per_node = "2", .gres = "gres:nic:1" },
		  1,
		  "gres:gpu:2,gres:nic:1",
		  NULL,
		  NULL,
		  NULL },
		{ { .gpus_per_task = "1" }, 1, NULL, "gres:gpu:1", NULL, NULL },
		{ { .gpus = "7" }, 1, NULL, NULL, "gres:gpu:7", NULL },
		{ { .gpus_per_socket = "2" },
		  1,
		  NULL,
		  NULL,
		  NULL,
		  "gres:gpu:2" },
		/* zero counts go; what is left stays */
		{ { .gpus_per_node = "0", .gpus_per_task = "1" },
		  1,
		  NULL,
		  "gres:gpu:1",
		  NULL,
		  NULL },
		/* --gres=none: the step has no GRES at all */
		{ { .gres = "none", .gpus = "2" }, 1, NULL, NULL, NULL, NULL },
		{ { .gres = "NONE" }, 1, NULL, NULL, NULL, NULL },
		/* SLURM_STEP_GRES only without --gres */
		{ { .step_gres_env = "gres:gpu:3" },
		  1,
		  "gres:gpu:3",
		  NULL,
		  NULL,
		  NULL },
		{ { .gres = "gres:gpu:1", .step_gres_env = "gres:gpu:3" },
		  1,
		  "gres:gpu:1",
		  NULL,
		  NULL,
		  NULL },
		/* no GRES named: slurmctld gives the step the job's request */
		{ { 0 }, 0, NULL, NULL, NULL, NULL },
		{ { .step_gres_env = "gpu:3" }, 0, NULL, NULL, NULL, NULL },
		/* "none" only as the whole string, as slurmctld compares it */
		{ { .step_gres_env = "none," }, 0, NULL, NULL, NULL, NULL },
	};
	struct lagom_error err = { 0 };
	struct lagom_gpu_request req;
	char gres[600];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = lagom_srun_gpu_request(&cases[i].o, &req, &err);

		if (rc != cases[i].rc)
			fail_msg("case %zu: rc %d, want %d", i, rc,
				 cases[i].rc);
		if (cases[i].node)
			assert_string_equal(req.per_node, cases[i].node);
		else
			assert_null(req.per_node);
		if (cases[i].task)
			assert_string_equal(req.per_task, cases[i].task);
		else
			assert_null(req.per_task);
		if (cases[i].step)
			assert_string_equal(req.per_step, cases[i].step);
		else
			assert_null(req.per_step);
		if (cases[i].socket)
			assert_string_equal(req.per_socket, cases[i].socket);
		else
			assert_null(req.per_socket);
		lagom_gpu_request_release(&req);
	}
	/* entries past the tokenizer's stack buffer: a zero count still goes,
	 * another stays whole (a hostile SLURM_STEP_GRES) */
	memset(gres, 'x', sizeof(gres));
	memcpy(gres, "gres:", 5);
	snprintf(gres + 300, sizeof(gres) - 300, ":0,gres:gpu:2");
	assert_int_equal(
		lagom_srun_gpu_request(
			&(struct lagom_srun_gpu_opts){ .step_gres_env = gres },
			&req, &err),
		1);
	assert_string_equal(req.per_node, "gres:gpu:2");
	lagom_gpu_request_release(&req);
	snprintf(gres + 300, sizeof(gres) - 300, ":4");
	assert_int_equal(
		lagom_srun_gpu_request(
			&(struct lagom_srun_gpu_opts){ .step_gres_env = gres },
			&req, &err),
		1);
	assert_string_equal(req.per_node, gres);
	lagom_gpu_request_release(&req);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tres_strings),
		cmocka_unit_test(gpus_per_node_from_request),
		cmocka_unit_test(gpu_request_from_options),
		cmocka_unit_test(step_working_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
