/*
 * tests/spank/test_carrier.c - the step's plan on its way from srun to the
 * nodes (spank/carrier.h) and the GPU request srun plans for
 * (spank/srun_step.h): round trips, hostile texts, request strings, the
 * step's working directory, srun's bounded wait for slurmctld.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"

#include "compat/slurm_compat.h"
#include "spank/carrier.h"
#include "spank/srun_step.h"
#include "tests/spank/stub.h"

static void fill(struct lagom_carrier *c)
{
	static const char *const nodes[] = { "gpu001", "gpu002" };

	memset(c, 0, sizeof(*c));
	c->step.job_id = 4242;
	c->step.step_id = 3;
	c->step.nnodes = 2;
	c->step.ntasks = 16;
	strcpy(c->step.tpn, "8(x2)");
	c->step.nodes_hash = lagom_nodes_hash(nodes, 2);
	c->gpus_per_node = 8;
	c->mode = LAGOM_MODE_AUTO;
	strcpy(c->plan_id, "0350460e27b8928e");
	strcpy(c->summary, "lagom 0.1.0 plan=0350460e27b8928e speedup=1.10x");
	assert_int_equal(lagom_carrier_add(c, "NCCL_MIN_CTAS", "4", NULL), 0);
	assert_int_equal(lagom_carrier_add(
				 c, "LAGOM_PLAN",
				 "lagom-plan 1 0.1.0 0350460e27b8928e job=4242 "
				 "ranks=16 nodes=2;env tuner=1;end",
				 NULL),
			 0);
}

static void round_trip(void **state)
{
	struct lagom_carrier c, d;
	char *text = NULL, *again = NULL;

	fill(&c);
	assert_int_equal(lagom_carrier_encode(&c, &text, NULL), 0);
	assert_non_null(strstr(text, "lagom-step 1\njob=4242 step=3 nodes=2 "
				     "tasks=16 tpn=8(x2) gpus=8 nodes_hash="));
	assert_int_equal(lagom_carrier_decode(text, &d, NULL), 0);
	assert_int_equal(d.step.job_id, 4242);
	assert_int_equal(d.step.ntasks, 16);
	assert_string_equal(d.step.tpn, "8(x2)");
	assert_true(d.step.nodes_hash == c.step.nodes_hash);
	assert_int_equal(d.gpus_per_node, 8);
	assert_int_equal(d.mode, LAGOM_MODE_AUTO);
	assert_string_equal(d.plan_id, c.plan_id);
	assert_string_equal(d.summary, c.summary);
	assert_int_equal(d.nvars, 2);
	assert_string_equal(d.vars[1].name, "LAGOM_PLAN");
	assert_string_equal(d.vars[1].value, c.vars[1].value);
	assert_int_equal(lagom_carrier_matches(&d, &c.step, NULL), 0);
	/* the same carrier encodes to the same bytes (every node compares
	 * the same thing) */
	assert_int_equal(lagom_carrier_encode(&d, &again, NULL), 0);
	assert_string_equal(text, again);
	free(text);
	free(again);
	lagom_carrier_release(&c);
	lagom_carrier_release(&d);
}

/* The control arm's modes travel as words of their own (doc/report.md);
 * "off" and unknown words never do. */
static void control_modes(void **state)
{
	static const enum lagom_mode modes[] = { LAGOM_MODE_CONTROL,
						 LAGOM_MODE_MEASURE,
						 LAGOM_MODE_EXPLAIN };
	struct lagom_carrier c, d;
	char *text = NULL, *at;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		fill(&c);
		c.mode = modes[i];
		assert_int_equal(lagom_carrier_encode(&c, &text, NULL), 0);
		assert_non_null(strstr(text, lagom_mode_name(modes[i])));
		assert_int_equal(lagom_carrier_decode(text, &d, NULL), 0);
		assert_int_equal(d.mode, modes[i]);
		lagom_carrier_release(&d);
		free(text);
		lagom_carrier_release(&c);
	}
	fill(&c);
	c.mode = LAGOM_MODE_OFF;
	assert_int_equal(lagom_carrier_encode(&c, &text, NULL), -EINVAL);
	c.mode = LAGOM_MODE_CONTROL;
	assert_int_equal(lagom_carrier_encode(&c, &text, NULL), 0);
	at = strstr(text, "mode=control");
	assert_non_null(at);
	memcpy(at, "mode=contrxl", 12); /* and the check fails too */
	assert_int_equal(lagom_carrier_decode(text, &d, NULL), -EINVAL);
	free(text);
	lagom_carrier_release(&c);
}

/* Anything but an intact text of this version is refused whole. */
static void hostile_texts_refused(void **state)
{
	struct lagom_carrier c, d;
	struct lagom_error err = { 0 };
	char *text = NULL, *bad;
	size_t n;

	fill(&c);
	assert_int_equal(lagom_carrier_encode(&c, &text, NULL), 0);
	n = strlen(text);
	/* every truncation */
	bad = strdup(text);
	for (size_t cut = 0; cut < n; cut++) {
		bad[cut] = '\0';
		assert_int_equal(lagom_carrier_decode(bad, &d, NULL), -EINVAL);
		bad[cut] = text[cut];
	}
	/* every single-byte change */
	for (size_t i = 0; i < n; i++) {
		bad[i] = bad[i] == 'x' ? 'y' : 'x';
		assert_int_not_equal(lagom_carrier_decode(bad, &d, NULL), 0);
		bad[i] = text[i];
	}
	/* bytes after the end */
	bad = realloc(bad, n + sizeof("var X=1\n"));
	strcpy(bad, text);
	strcat(bad, "var X=1\n");
	assert_int_equal(lagom_carrier_decode(bad, &d, NULL), -EINVAL);
	free(bad);
	assert_int_equal(lagom_carrier_decode("lagom-step 2\n", &d, &err),
			 -EINVAL);
	assert_non_null(strstr(err.text, "lagom-step 1"));
	assert_int_equal(lagom_carrier_decode(NULL, &d, NULL), -E2BIG);
	/* a value with a newline or a bad name cannot be carried */
	assert_int_equal(lagom_carrier_add(&c, "NCCL_ALGO", "a\nvar X=1", NULL),
			 -EINVAL);
	assert_int_equal(lagom_carrier_add(&c, "1BAD", "x", NULL), -EINVAL);
	assert_int_equal(lagom_carrier_add(&c, "LD_PRELOAD=", "x", NULL),
			 -EINVAL);
	while (c.nvars < LAGOM_CARRIER_MAX_VARS)
		assert_int_equal(lagom_carrier_add(&c, "V", "1", NULL), 0);
	assert_int_equal(lagom_carrier_add(&c, "V", "1", NULL), -E2BIG);
	free(text);
	lagom_carrier_release(&c);
}

/* Over the size Slurm carries: refused when made, refused when read. */
static void oversize_refused(void **state)
{
	struct lagom_carrier c, d;
	char *big = malloc(LAGOM_CARRIER_MAX + 2);
	char *text = NULL;

	fill(&c);
	memset(big, 'a', LAGOM_CARRIER_MAX + 1);
	big[LAGOM_CARRIER_MAX - 100] = '\0';
	assert_int_equal(lagom_carrier_add(&c, "BIG", big, NULL), 0);
	assert_int_equal(lagom_carrier_encode(&c, &text, NULL), -E2BIG);
	assert_null(text);
	big[LAGOM_CARRIER_MAX - 100] = 'a';
	big[LAGOM_CARRIER_MAX + 1] = '\0';
	assert_int_equal(lagom_carrier_decode(big, &d, NULL), -E2BIG);
	free(big);
	lagom_carrier_release(&c);
}

static void matches_names_the_field(void **state)
{
	struct lagom_carrier c;
	struct lagom_carrier_step here;
	struct lagom_error err = { 0 };
	static const char *const other[] = { "gpu001", "gpu003" };

	fill(&c);
	here = c.step;
	here.nodes_hash = lagom_nodes_hash(other, 2);
	assert_int_equal(lagom_carrier_matches(&c, &here, &err), -ESRCH);
	assert_non_null(strstr(err.text, "node list"));
	here = c.step;
	here.ntasks = 15;
	assert_int_equal(lagom_carrier_matches(&c, &here, &err), -ESRCH);
	assert_non_null(strstr(err.text, "task count"));
	here = c.step;
	here.job_id = 1;
	assert_int_equal(lagom_carrier_matches(&c, &here, &err), -ESRCH);
	assert_non_null(strstr(err.text, "job id"));
	/* order matters: Slurm gives both sides the same order */
	assert_true(lagom_nodes_hash(other, 2) !=
		    lagom_nodes_hash(
			    (const char *const[]){ "gpu003", "gpu001" }, 2));
	lagom_carrier_release(&c);
}

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

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* A stalled slurmctld holds srun for the bound, not for as long as it
 * stalls; the step is then planned nowhere.  The step's working directory
 * comes with the step. */
static void step_read_bounded(void **state)
{
	struct lagom_error err = { 0 };
	struct lagom_carrier_step id;
	struct lagom_step step;
	struct timespec t0;
	double ms = 0;

	stub_reset(S_CTX_LOCAL);
	setenv("SLURM_TASKS_PER_NODE", "2(x3)", 1);
	setenv("SLURM_REMOTE_CWD", "/job/dir", 1);
	stub.steps_gate = true; /* slurmctld does not answer (up to 5 s) */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(
		lagom_srun_step_read(NULL, 200, false, &step, &id, &ms, &err),
		-ETIMEDOUT);
	assert_true(seconds_since(&t0) < 2.0);
	assert_non_null(strstr(err.text, "slurmctld did not answer within "
					 "0.2 s"));
	assert_int_equal(step.node_count, 0);
	lagom_step_clear(&step);
	/* the abandoned round trip ends on its own */
	stub_open_gate();
	for (int i = 0; i < 500 && __atomic_load_n(&stub.steps_returned,
						   __ATOMIC_SEQ_CST) == 0;
	     i++)
		usleep(10 * 1000);
	assert_int_equal(stub.steps_returned, 1);
	assert_false(stub.gate_timed_out);
	/* an answer within the bound */
	assert_int_equal(
		lagom_srun_step_read(NULL, 2000, false, &step, &id, &ms, &err),
		0);
	assert_true(ms >= 0); /* not srun: slurmctld was asked */
	assert_int_equal(step.node_count, 3);
	assert_int_equal(step.gpus_per_node, 4);
	assert_string_equal(step.cwd, "/job/dir");
	lagom_step_clear(&step);
	unsetenv("SLURM_REMOTE_CWD");
	unsetenv("SLURM_TASKS_PER_NODE");
	stub_reset(S_CTX_LOCAL);
}

/* The step's user as srun knows it: what S_JOB_UID says on 22.05; from
 * 23.02 it says Slurm's "nobody" (99) in srun, and srun's own user is the
 * step's (without it planning from measurements never ran there). */
static void step_user_in_srun(void **state)
{
	struct lagom_error err = { 0 };
	struct lagom_carrier_step id;
	struct lagom_step step;
	double ms = 0;

	stub_reset(S_CTX_LOCAL);
	setenv("SLURM_TASKS_PER_NODE", "2(x3)", 1);
	stub.uid = 99;
	assert_int_equal(
		lagom_srun_step_read(NULL, 2000, false, &step, &id, &ms, &err),
		0);
	assert_int_equal(step.uid, LAGOM_SLURM_SRUN_UID_NOBODY ? getuid() : 99);
	lagom_step_clear(&step);
	stub.uid = 4242; /* a real user passes through on every release */
	assert_int_equal(
		lagom_srun_step_read(NULL, 2000, false, &step, &id, &ms, &err),
		0);
	assert_int_equal(step.uid, 4242);
	lagom_step_clear(&step);
	unsetenv("SLURM_TASKS_PER_NODE");
	stub_reset(S_CTX_LOCAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(control_modes),
		cmocka_unit_test(hostile_texts_refused),
		cmocka_unit_test(oversize_refused),
		cmocka_unit_test(matches_names_the_field),
		cmocka_unit_test(tres_strings),
		cmocka_unit_test(gpus_per_node_from_request),
		cmocka_unit_test(gpu_request_from_options),
		cmocka_unit_test(step_working_directory),
		cmocka_unit_test(step_read_bounded),
		cmocka_unit_test(step_user_in_srun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
