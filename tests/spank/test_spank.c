/*
 * tests/spank/test_spank.c - lagom's SPANK callbacks against a stub host:
 * option registration and validation, plugstack arguments, the user-wins
 * rule, forbid/override, explain, fail-open paths and the job comment.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pwd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "tests/lib/lagom_test.h"

#include "spank/local_int.h"
#include "spank/remote_int.h"
#include "spank/step.h"
#include "tests/spank/stub.h"

#define SP ((spank_t)0)
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof(ARGV(__VA_ARGS__)) / sizeof(char *)) - 1)

static int init(spank_context_t ctx, int ac, char **av)
{
	stub.ctx = S_CTX_REMOTE; /* free what a previous step left */
	slurm_spank_exit(SP, 0, NULL);
	stub_reset(ctx);
	return slurm_spank_init(SP, ac, av);
}

/* A remote step on node node_id with 3 nodes x 2 tasks and 4 GPUs each. */
static void remote_step(uint32_t node_id, int ac, char **av)
{
	assert_int_equal(init(S_CTX_REMOTE, ac, av), 0);
	stub.node_id = node_id;
	stub_setenv("SLURMD_NODENAME", node_id ? "n2" : "n1");
	stub_setenv("SLURM_STEP_NODELIST", "n1,n2,n3");
	stub_setenv("SLURM_STEP_NUM_NODES", "3");
	stub_setenv("SLURM_STEP_TASKS_PER_NODE", "2(x3)");
	stub_setenv("SLURM_GPUS_ON_NODE", "4");
	stub_setenv("PWD", "/home/u");
}

/* What srun would send for the step of remote_step() (3 variables, and
 * extra_name=extra_value when not NULL), with summary when not NULL. */
static char *carrier_text_with(enum lagom_mode mode, uint32_t step_id,
			       const char *tpn, const char *summary,
			       const char *extra_name, const char *extra_value)
{
	static const char *const nodes[] = { "n1", "n2", "n3" };
	struct lagom_carrier c = {
		.step = { .job_id = 42,
			  .step_id = step_id,
			  .nnodes = 3,
			  .ntasks = 6 },
		.gpus_per_node = 4,
		.mode = mode,
		.plan_id = "0123456789abcdef",
		.summary = "lagom 0.1.0 plan=0123456789abcdef ch=8",
	};
	char *text = NULL;

	strcpy(c.step.tpn, tpn);
	c.step.nodes_hash = lagom_nodes_hash(nodes, 3);
	assert_int_equal(lagom_carrier_add(&c, "NCCL_MAX_CTAS", "8", NULL), 0);
	assert_int_equal(lagom_carrier_add(&c, "NCCL_ALGO", "ring", NULL), 0);
	assert_int_equal(lagom_carrier_add(&c, "LAGOM_PLAN_ID",
					   "0123456789abcdef", NULL),
			 0);
	if (extra_name)
		assert_int_equal(
			lagom_carrier_add(&c, extra_name, extra_value, NULL),
			0);
	if (summary)
		snprintf(c.summary, sizeof(c.summary), "%s", summary);
	assert_int_equal(lagom_carrier_encode(&c, &text, NULL), 0);
	lagom_carrier_release(&c);
	return text;
}

static char *carrier_text(enum lagom_mode mode, uint32_t step_id,
			  const char *tpn)
{
	return carrier_text_with(mode, step_id, tpn, NULL, NULL, NULL);
}

/* srun's plan in the step's environment, as Slurm delivers it. */
static void send_plan(enum lagom_mode mode)
{
	char *text = carrier_text(mode, 0, "2(x3)");

	stub_setenv(LAGOM_CARRIER_VAR, text);
	free(text);
}

/* Run the remote callbacks of one node, one task. */
static void run_remote(const char *mode)
{
	if (mode)
		assert_int_equal(lagom_option_mode_cb(1, mode, 1), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_post_fork(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init(SP, 0, NULL), 0); /* task 2 */
	assert_int_equal(slurm_spank_task_post_fork(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_exit(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_exit(SP, 0, NULL), 0);
}

static void finish(void)
{
	assert_int_equal(slurm_spank_exit(SP, 0, NULL), 0);
	stub_reset(S_CTX_LOCAL);
}

static void registers_both_options(void **state)
{
	spank_context_t ctxs[] = { S_CTX_LOCAL, S_CTX_ALLOCATOR, S_CTX_REMOTE };

	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(init(ctxs[i], 0, NULL), 0);
		assert_int_equal(stub.n_opts, 3);
		assert_string_equal(stub.opts[0].name, "lagom");
		assert_string_equal(stub.opts[1].name, "lagom-workload");
		assert_string_equal(stub.opts[2].name,
				    "lagom-registered-buffers");
		assert_int_equal(stub.opts[0].has_arg, 1);
		assert_int_equal(stub.opts[2].has_arg, 0);
		assert_non_null(strstr(stub.opts[0].usage, "explain"));
	}
	assert_int_equal(init(S_CTX_SLURMD, 0, NULL), 0);
	assert_int_equal(stub.n_opts, 0);
	finish();
}

static void bad_plugstack_argument(void **state)
{
	/* srun/sbatch refuse the job and name the argument ... */
	assert_int_equal(init(S_CTX_LOCAL, ARGC("profile_dir=/x", "colour=red"),
			      ARGV("profile_dir=/x", "colour=red")),
			 -1);
	assert_int_equal(stub_log_count("error: lagom: plugstack.conf"), 1);
	assert_int_equal(stub_log_count("colour"), 1);
	/* ... but the options stay registered: on an "optional" line Slurm
	 * ignores the -1 and --lagom must still be a known option; a step
	 * that asks for lagom is told it is off */
	assert_int_equal(stub.n_opts, 3);
	assert_int_equal(lagom_option_mode_cb(1, "auto", 0), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub_log_count("--lagom=auto ignored: plugstack.conf"),
			 1);
	assert_int_equal(init(S_CTX_LOCAL, 1, ARGV("colour=red")), -1);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub.n_log, 1); /* not asked: the load line only */
	assert_int_equal(init(S_CTX_ALLOCATOR, 1, ARGV("default=sometimes")),
			 -1);
	assert_int_equal(stub.n_opts, 3);
	/* ... the nodes log it and stay off (no drain). */
	remote_step(0, 1, ARGV("colour=red"));
	stub_setenv("SLURM_GPUS_ON_NODE", "4");
	assert_int_equal(lagom_option_mode_cb(1, "auto", 1), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init(SP, 0, NULL), 0);
	assert_int_equal(stub.plan_calls, 0);
	assert_int_equal(stub.n_setenv, 0);
	assert_int_equal(stub.n_opts, 3);
	assert_int_equal(stub_log_count("job 42.0: --lagom=auto ignored: "
					"plugstack.conf: unknown argument"),
			 1);
	finish();
}

/* Every line lagom logs is one line of printable ASCII. */
static void log_lines_are_escaped(void **state)
{
	char out[64];

	assert_int_equal(init(S_CTX_LOCAL, 0, NULL), 0);
	lagom_log_info("name=%s", "x\n[2026] error: forged \x1b[31m\\");
	assert_int_equal(stub.n_log, 1);
	assert_string_equal(
		stub.log[0],
		"info: lagom: name=x\\x0a[2026] error: forged \\x1b[31m\\\\");
	lagom_log_user("%s", "caf\xc3\xa9");
	assert_string_equal(stub.log[1], "spank: lagom: caf\\xc3\\xa9");
	/* cut between whole escapes */
	assert_int_equal(lagom_escape("ab\x01", out, 6), 2);
	assert_string_equal(out, "ab");
	finish();
}

static void mode_option_values(void **state)
{
	assert_int_equal(init(S_CTX_LOCAL, 0, NULL), 0);
	assert_int_equal(lagom_option_mode_cb(1, "bogus", 0), -1);
	assert_int_equal(stub_log_count("--lagom=bogus"), 1);
	assert_int_equal(stub.n_log, 1);
	assert_int_equal(lagom_option_mode_cb(1, "", 0), -1);
	assert_int_equal(lagom_option_mode_cb(1, NULL, 0), -1);
	assert_false(lagom_g.mode_given);
	assert_int_equal(lagom_effective_mode(&lagom_g), LAGOM_MODE_OFF);
	/* 22.05 runs the callback twice in remote context: idempotent. */
	assert_int_equal(lagom_option_mode_cb(1, "explain", 1), 0);
	assert_int_equal(lagom_option_mode_cb(1, "explain", 1), 0);
	assert_int_equal(lagom_effective_mode(&lagom_g), LAGOM_MODE_EXPLAIN);
	assert_int_equal(lagom_option_mode_cb(1, "off", 0), 0);
	assert_int_equal(lagom_effective_mode(&lagom_g), LAGOM_MODE_OFF);
	/* the control arm's words (doc/report.md) */
	assert_int_equal(lagom_option_mode_cb(1, "auto,nocontrol", 0), 0);
	assert_int_equal(lagom_effective_mode(&lagom_g), LAGOM_MODE_AUTO);
	assert_true(lagom_g.nocontrol);
	assert_int_equal(lagom_option_mode_cb(1, "measure", 0), 0);
	assert_int_equal(lagom_effective_mode(&lagom_g), LAGOM_MODE_MEASURE);
	assert_false(lagom_g.nocontrol);
	assert_int_equal(lagom_option_mode_cb(1, "explain,nocontrol", 0), -1);
	assert_int_equal(lagom_option_mode_cb(1, ",nocontrol", 0), -1);
	assert_int_equal(lagom_option_mode_cb(1, "auto,nocontrolx", 0), -1);
	assert_int_equal(lagom_option_mode_cb(1, "control", 0), -1);
	assert_int_equal(lagom_option_mode_cb(1, "off", 0), 0);
	/* default=auto applies only when the user says nothing. */
	assert_int_equal(init(S_CTX_LOCAL, 1, ARGV("default=auto")), 0);
	assert_int_equal(lagom_effective_mode(&lagom_g), LAGOM_MODE_AUTO);
	assert_int_equal(lagom_option_mode_cb(1, "off", 0), 0);
	assert_int_equal(lagom_effective_mode(&lagom_g), LAGOM_MODE_OFF);
	finish();
}

static void workload_option_values(void **state)
{
	char longv[LAGOM_WORKLOAD_ARG_MAX + 1];

	assert_int_equal(init(S_CTX_LOCAL, 0, NULL), 0);
	assert_int_equal(lagom_option_workload_cb(2, "phi-2:fsdp", 0), 0);
	assert_string_equal(lagom_g.workload, "phi-2:fsdp");
	assert_int_equal(lagom_option_workload_cb(2, "", 0), -1);
	assert_int_equal(lagom_option_workload_cb(2, "a\nb", 0), -1);
	memset(longv, 'w', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	assert_int_equal(lagom_option_workload_cb(2, longv, 0), -1);
	assert_string_equal(lagom_g.workload, "phi-2:fsdp");
	assert_int_equal(stub_log_count("error: lagom: --lagom-workload"), 3);
	finish();
}

/* srun's local_user_init for the stub step; returns the carrier it set in
 * srun's environment (to free), or NULL. */
static char *run_local(const char *mode, const char *workload, int ac,
		       char **av)
{
	const char *text;

	assert_int_equal(init(S_CTX_LOCAL, ac, av), 0);
	setenv("SLURM_TASKS_PER_NODE", "2(x3)", 1);
	if (workload)
		assert_int_equal(lagom_option_workload_cb(2, workload, 0), 0);
	if (mode)
		assert_int_equal(lagom_option_mode_cb(1, mode, 0), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_local_user_init(SP, 0, NULL), 0);
	text = getenv(LAGOM_CARRIER_VAR);
	return text && text[0] ? strdup(text) : NULL;
}

/* --lagom-registered-buffers reaches the planner in srun (NCCL_CTA_POLICY's
 * second gate: only the user can say it). */
static void registered_buffers_option(void **state)
{
	(void)state;
	assert_int_equal(init(S_CTX_LOCAL, 0, NULL), 0);
	setenv("SLURM_TASKS_PER_NODE", "2(x3)", 1);
	assert_false(lagom_g.registered_buffers);
	assert_int_equal(lagom_option_registered_cb(3, NULL, 0), 0);
	assert_int_equal(lagom_option_mode_cb(1, "auto", 0), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_local_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.plan_calls, 1);
	assert_true(stub.plan_registered);
	finish();
}

/* Every node of the step gets the same text and sets the same variables;
 * the user's own NCCL_ALGO (in the step's environment) wins everywhere. */
static void srun_plans_once_every_node_applies(void **state)
{
	char *text;
	char ids[3][32];

	text = run_local("auto", "phi-2:fsdp", 0, NULL);
	assert_non_null(text);
	assert_int_equal(stub.plan_calls, 1);
	assert_int_equal(stub.step_calls, 1);
	/* the local cluster only: no federation round trip first */
	assert_true(stub.step_flags & SHOW_LOCAL);
	assert_string_equal(stub.plan_workload, "phi-2:fsdp");
	assert_int_equal(stub.plan_nodes, 3);
	assert_int_equal(stub.plan_ranks, 2);
	assert_int_equal(stub.plan_gpus, 4);
	assert_false(stub.plan_registered);
	assert_int_equal(stub_log_count("verbose: lagom: job 42.0: auto plan "
					"0123456789abcdef for 3 nodes x 4"),
			 1);
	for (uint32_t node = 0; node < 3; node++) {
		remote_step(node, 0, NULL);
		stub_setenv("NCCL_ALGO", "Tree");
		stub_setenv(LAGOM_CARRIER_VAR, text);
		run_remote(NULL);
		assert_int_equal(stub.plan_calls, 0); /* nodes never plan */
		assert_null(stub_getenv(LAGOM_CARRIER_VAR));
		assert_string_equal(stub_getenv("NCCL_MAX_CTAS"), "8");
		assert_string_equal(stub_getenv("NCCL_ALGO"), "Tree");
		snprintf(ids[node], sizeof(ids[node]), "%s",
			 stub_getenv("LAGOM_PLAN_ID"));
		/* Node 0 wrote the comment once, naming what it kept; it
		 * read it from the local cluster only (one round trip) */
		assert_int_equal(stub.updates, node == 0 ? 1 : 0);
		if (node == 0)
			assert_true(stub.load_flags & SHOW_LOCAL);
		if (node == 0) {
			assert_non_null(
				strstr(stub.comment, "{lagom: lagom 0.1.0 "));
			assert_non_null(
				strstr(stub.comment, "skipped=NCCL_ALGO #"));
			assert_int_equal(
				stub_log_count("info: lagom: job 42.0 on n1: "
					       "auto plan 0123456789abcdef "
					       "from srun"),
				1);
		}
	}
	assert_string_equal(ids[0], ids[1]);
	assert_string_equal(ids[1], ids[2]);
	free(text);
	unsetenv(LAGOM_CARRIER_VAR);
	finish();
}

static void override_and_forbid(void **state)
{
	remote_step(0, 2, ARGV("override=NCCL_ALGO", "forbid=NCCL_MAX_CTAS"));
	stub_setenv("NCCL_ALGO", "Tree");
	send_plan(LAGOM_MODE_AUTO);
	run_remote("auto");
	assert_string_equal(stub_getenv("NCCL_ALGO"), "ring");
	assert_null(stub_getenv("NCCL_MAX_CTAS"));
	assert_string_equal(stub_getenv("LAGOM_PLAN_ID"), "0123456789abcdef");
	assert_non_null(strstr(stub.comment, "skipped=NCCL_MAX_CTAS #"));
	finish();
}

/* Off: srun asks slurmctld nothing, reads nothing, plans nothing, and
 * drops a plan inherited from an enclosing step; nodes without a plan do
 * nothing. */
static void off_does_nothing(void **state)
{
	char *text;

	setenv(LAGOM_CARRIER_VAR, "stale", 1);
	setenv(LAGOM_STEP_KEY_VAR, "stale", 1);
	text = run_local(NULL, NULL, 0, NULL); /* default=off, no option */
	assert_null(text);
	/* what travels is "" (no plan), not the inherited text */
	assert_string_equal(getenv(LAGOM_CARRIER_VAR), "");
	assert_string_equal(getenv(LAGOM_STEP_KEY_VAR), "");
	assert_int_equal(stub.plan_calls, 0);
	assert_int_equal(stub.step_calls, 0);
	assert_int_equal(stub.n_log, 0);
	text = run_local("off", NULL, 1, ARGV("default=auto"));
	assert_null(text);
	assert_int_equal(stub.step_calls, 0);
	remote_step(0, 1, ARGV("default=auto"));
	run_remote(NULL);
	assert_int_equal(stub.n_setenv, 0);
	assert_int_equal(stub.updates, 0);
	assert_int_equal(stub.n_log, 0);
	finish();
}

static void default_auto_applies(void **state)
{
	char *text = run_local(NULL, NULL, 1, ARGV("default=auto"));

	assert_non_null(text);
	assert_int_equal(stub.plan_calls, 1);
	remote_step(1, 0, NULL);
	stub_setenv(LAGOM_CARRIER_VAR, text);
	run_remote(NULL);
	assert_string_equal(stub_getenv("NCCL_MAX_CTAS"), "8");
	free(text);
	unsetenv(LAGOM_CARRIER_VAR);
	finish();
}

static void explain_reports_only(void **state)
{
	char *text = run_local("explain", NULL, 0, NULL);

	assert_non_null(text);
	assert_true(stub_log_count("spank: lagom: explain") == 1);
	assert_true(stub_log_count("spank: lagom:   line two") == 1);
	assert_true(stub_log_count("would set NCCL_MAX_CTAS=8") == 1);
	remote_step(0, 0, NULL);
	stub_setenv(LAGOM_CARRIER_VAR, text);
	run_remote(NULL);
	assert_int_equal(stub.n_setenv, 0);
	assert_null(stub_getenv("LAGOM_PLAN_ID"));
	assert_non_null(strstr(stub.comment, "mode=explain"));
	free(text);
	unsetenv(LAGOM_CARRIER_VAR);
	finish();
}

/* srun cannot plan: no plan for any node, one line (srun -v). */
static void srun_fails_open(void **state)
{
	static const struct {
		const char *per_node, *per_task, *per_step, *tpn, *why;
		int plan_rc;
		bool steps_fail;
		uint32_t het;
	} cases[] = {
		{ NULL, NULL, NULL, "2(x3)", "no GPUs", 0, false, 0 },
		{ NULL, NULL, "cpu:3,gres:gpu:7", "2(x3)", "unevenly", 0, false,
		  0 },
		{ NULL, "gres:gpu:1", NULL, "3,2(x2)", "differ between", 0,
		  false, 0 },
		{ "gres:gpu:4", NULL, NULL, "2(x3)", "stub planner says no",
		  -ENOENT, false, 0 },
		{ "gres:gpu:4", NULL, NULL, "2(x3)", "from slurmctld", 0, true,
		  0 },
		{ "gres:gpu:4", NULL, NULL, "2(x3)", "heterogeneous", 0, false,
		  1 },
		{ "gres:gpu:4", NULL, NULL, "2(x2)", "does not match", 0, false,
		  0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text;

		assert_int_equal(init(S_CTX_LOCAL, 0, NULL), 0);
		setenv("SLURM_TASKS_PER_NODE", cases[i].tpn, 1);
		setenv(LAGOM_CARRIER_VAR, "stale", 1);
		if (strchr(cases[i].tpn, ',')) {
			stub.ntasks = 7;
			stub.tres_per_node = NULL;
		}
		stub.tres_per_node = cases[i].per_node;
		stub.tres_per_task = cases[i].per_task;
		stub.tres_per_step = cases[i].per_step;
		stub.plan_rc = cases[i].plan_rc;
		stub.steps_fail = cases[i].steps_fail;
		stub.step_het_comp = cases[i].het;
		assert_int_equal(lagom_option_mode_cb(1, "auto", 0), 0);
		assert_int_equal(slurm_spank_local_user_init(SP, 0, NULL), 0);
		/* sent empty: Slurm's copy of the environment keeps what
		 * srun unsets (the user's own value would travel) */
		text = getenv(LAGOM_CARRIER_VAR);
		assert_non_null(text);
		assert_string_equal(text, "");
		assert_string_equal(getenv(LAGOM_PREDICTED_VAR), "");
		assert_string_equal(getenv(LAGOM_STEP_KEY_VAR), "");
		assert_int_equal(stub.n_log, 1);
		assert_int_equal(stub_log_count(cases[i].why), 1);
		assert_int_equal(stub_log_count("no node of the step is tuned"),
				 1);
	}
	finish();
}

/* A plan that does not belong to this step, or was altered on the way, is
 * applied by no node: every node reaches the same verdict from the same
 * bytes and the same step. */
static void foreign_or_altered_plan_applied_nowhere(void **state)
{
	char *other_step = carrier_text(LAGOM_MODE_AUTO, 7, "2(x3)");
	char *other_tpn = carrier_text(LAGOM_MODE_AUTO, 0, "3,2,1");
	char *altered = carrier_text(LAGOM_MODE_AUTO, 0, "2(x3)");
	char *cut = strdup(altered);
	const char *texts[] = { other_step, other_tpn, altered, cut,
				"lagom-step 2\n" };
	const char *why[] = { "another step (step id)",
			      "another step (tasks per node)", "bad check",
			      "bad check", "not a lagom-step 1" };

	*strstr(altered, "=8\n") = '9';
	cut[strlen(cut) - 10] = '\0';
	for (size_t i = 0; i < 5; i++)
		for (uint32_t node = 0; node < 3; node++) {
			remote_step(node, 0, NULL);
			stub_setenv(LAGOM_CARRIER_VAR, texts[i]);
			run_remote(NULL);
			assert_int_equal(stub.n_setenv, 0);
			assert_int_equal(stub.updates, 0);
			assert_int_equal(stub_log_count(why[i]), 1);
		}
	/* a heterogeneous step: the component's counts are not the step's */
	remote_step(0, 0, NULL);
	stub_setenv("SLURM_STEP_NUM_NODES", "5");
	send_plan(LAGOM_MODE_AUTO);
	run_remote(NULL);
	assert_int_equal(stub.n_setenv, 0);
	assert_int_equal(stub_log_count("heterogeneous"), 1);
	free(other_step);
	free(other_tpn);
	free(altered);
	free(cut);
	finish();
}

/* A plan whose GPU count differs from this node's is still applied: one
 * node acting alone on its own view would split the step. */
static void node_local_view_never_splits(void **state)
{
	remote_step(2, 0, NULL);
	stub_setenv("SLURM_GPUS_ON_NODE", "1");
	send_plan(LAGOM_MODE_AUTO);
	run_remote(NULL);
	assert_string_equal(stub_getenv("LAGOM_PLAN_ID"), "0123456789abcdef");
	assert_int_equal(stub_log_count("this node has 1; applied as planned"),
			 1);
	finish();
}

static void fail_open_missing_placement(void **state)
{
	assert_int_equal(init(S_CTX_REMOTE, 0, NULL), 0);
	stub_setenv("SLURM_GPUS_ON_NODE", "4");
	send_plan(LAGOM_MODE_AUTO);
	run_remote("auto");
	assert_int_equal(stub.n_setenv, 0);
	assert_int_equal(stub.n_log, 1);
	assert_int_equal(stub_log_count("SLURM_STEP_NODELIST not set"), 1);
	finish();
}

static void comment_only_from_node0_and_real_steps(void **state)
{
	remote_step(1, 0, NULL);
	send_plan(LAGOM_MODE_AUTO);
	run_remote("auto");
	assert_string_equal(stub_getenv("NCCL_MAX_CTAS"), "8");
	assert_int_equal(stub.updates, 0);
	remote_step(0, 0, NULL);
	stub.step_id = 0xfffffffb; /* the batch step */
	send_plan(LAGOM_MODE_AUTO);
	run_remote("auto");
	assert_int_equal(stub.n_setenv, 0);
	assert_int_equal(stub.updates, 0);
	remote_step(0, 1, ARGV("comment=no"));
	send_plan(LAGOM_MODE_AUTO);
	run_remote("auto");
	assert_int_equal(stub.updates, 0);
	remote_step(0, 1, ARGV("comment=admin"));
	send_plan(LAGOM_MODE_AUTO);
	strcpy(stub.comment, "user text");
	run_remote("auto");
	assert_string_equal(stub.comment, "user text");
	assert_non_null(strstr(stub.admin_comment, "{lagom: "));
	finish();
}

/*
 * The tasks do not wait for slurmctld, and no round trip runs before
 * task_post_fork: until then slurmstepd switches its effective uid to the
 * user's and back (which glibc applies to every thread, so a round trip
 * would carry the wrong credential) and forks the tasks (which would
 * inherit its socket).  task_post_fork returns while the round trips are
 * still blocked, and the first task_exit waits for them (the job is alive
 * until then).
 */
static void comment_off_the_launch_path(void **state)
{
	remote_step(0, 0, NULL);
	send_plan(LAGOM_MODE_AUTO);
	strcpy(stub.comment, "mine");
	stub.load_gate = true;
	stub.update_gate = true;
	assert_int_equal(lagom_option_mode_cb(1, "auto", 1), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	usleep(50 * 1000);
	assert_int_equal(__atomic_load_n(&stub.loads, __ATOMIC_SEQ_CST), 0);
	assert_int_equal(slurm_spank_task_post_fork(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_post_fork(SP, 0, NULL), 0);
	assert_int_equal(stub.updates, 0);
	assert_string_equal(stub.comment, "mine");
	stub_open_gate();
	assert_int_equal(slurm_spank_task_exit(SP, 0, NULL), 0);
	assert_false(stub.gate_timed_out);
	assert_int_equal(stub.updates, 1);
	assert_non_null(strstr(stub.comment, "mine {lagom: lagom 0.1.0 "));
	assert_int_equal(slurm_spank_task_exit(SP, 0, NULL), 0);
	assert_int_equal(stub.updates, 1);
	/* no task_exit (a task failed to exec): exit still waits for it */
	remote_step(0, 0, NULL);
	send_plan(LAGOM_MODE_AUTO);
	assert_int_equal(lagom_option_mode_cb(1, "auto", 1), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_post_fork(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_exit(SP, 0, NULL), 0);
	assert_int_equal(stub.updates, 1);
	/* the launch failed before any task was forked: no round trip */
	remote_step(0, 0, NULL);
	send_plan(LAGOM_MODE_AUTO);
	assert_int_equal(lagom_option_mode_cb(1, "auto", 1), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_exit(SP, 0, NULL), 0);
	assert_int_equal(stub.loads, 0);
	/* a failed update is one line in the log, never a failed task */
	remote_step(0, 0, NULL);
	send_plan(LAGOM_MODE_AUTO);
	stub.load_fails = true;
	run_remote("auto");
	assert_int_equal(stub.updates, 0);
	assert_int_equal(stub_log_count("comment not written"), 1);
	finish();
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/*
 * lagom-spank(8): node 0's first task_exit gives up on the comment after
 * 10 s (here 0.3 s) while slurmctld does not take the update, and the
 * comment is written whole when it finally does.  Without the bound the
 * task_exit waits for the stub's gate (5 s, gate_timed_out).
 */
static void comment_wait_bounded(void **state)
{
	char healthy[sizeof(stub.comment)];
	struct timespec t0;
	double ms;

	/* what a healthy slurmctld gets, to compare with */
	remote_step(0, 0, NULL);
	send_plan(LAGOM_MODE_AUTO);
	strcpy(stub.comment, "mine");
	run_remote("auto");
	assert_int_equal(stub.updates, 1);
	snprintf(healthy, sizeof(healthy), "%s", stub.comment);
	assert_non_null(strstr(healthy, "mine {lagom: lagom 0.1.0 "));
	finish();

	lagom_remote_set_comment_wait(300);
	remote_step(0, 0, NULL);
	send_plan(LAGOM_MODE_AUTO);
	strcpy(stub.comment, "mine");
	stub.update_gate = true; /* slurmctld reads, then stalls */
	assert_int_equal(lagom_option_mode_cb(1, "auto", 1), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_post_fork(SP, 0, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(slurm_spank_task_exit(SP, 0, NULL), 0);
	ms = ms_since(&t0);
	assert_false(stub.gate_timed_out);
	assert_true(ms >= 290 && ms < 2500);
	assert_int_equal(stub_log_count("comment not written: slurmctld did "
					"not answer within 300 ms"),
			 1);
	assert_int_equal(slurm_spank_task_exit(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_exit(SP, 0, NULL), 0);
	assert_int_equal(__atomic_load_n(&stub.updates, __ATOMIC_SEQ_CST), 0);
	assert_string_equal(stub.comment, "mine");
	/* slurmctld answers: the thread left behind writes all of it */
	stub_open_gate();
	for (int i = 0;
	     i < 500 && __atomic_load_n(&stub.updates, __ATOMIC_SEQ_CST) == 0;
	     i++)
		usleep(10 * 1000);
	assert_int_equal(__atomic_load_n(&stub.updates, __ATOMIC_SEQ_CST), 1);
	assert_string_equal(stub.comment, healthy);
	lagom_remote_set_comment_wait(LAGOM_COMMENT_WAIT_MS);
	usleep(50 * 1000); /* the thread frees its job after the update */
	stub_reset(S_CTX_LOCAL);
}

/*
 * lagom_bounded_wait() returns 0 only once the thread has left lagom.so's
 * code for good: Slurm may dlclose() the plugin right after (node 0's
 * slurmstepd does, at the step's end), and a thread still returning then
 * runs unmapped memory (slurmstepd died so, a step in ~70 on 26.05).  The
 * run() below leaves a thread-specific value whose destructor runs in the
 * thread's exit, after its start routine has returned, and takes 50 ms:
 * a wait that does not join the thread returns before it ends.
 */
static pthread_key_t exit_key;
static int thread_ended; /* atomic */

static void thread_exit_slowly(void *v)
{
	(void)v;
	usleep(50 * 1000);
	__atomic_store_n(&thread_ended, 1, __ATOMIC_SEQ_CST);
}

static void run_quickly(void *arg)
{
	(void)arg;
	pthread_setspecific(exit_key, &exit_key);
}

static void release_nothing(void *arg)
{
	(void)arg;
}

static void bounded_wait_joins_the_thread(void **state)
{
	struct lagom_bounded *b;

	(void)state;
	assert_int_equal(pthread_key_create(&exit_key, thread_exit_slowly), 0);
	for (int i = 0; i < 3; i++) {
		__atomic_store_n(&thread_ended, 0, __ATOMIC_SEQ_CST);
		b = lagom_bounded_start(run_quickly, release_nothing, NULL);
		assert_non_null(b);
		assert_int_equal(lagom_bounded_wait(b, 5000), 0);
		assert_int_equal(
			__atomic_load_n(&thread_ended, __ATOMIC_SEQ_CST), 1);
	}
	pthread_key_delete(exit_key);
}

static int rm_entry(const char *path, const struct stat *sb, int type,
		    struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* Open descriptors of this process. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/*
 * The step's spool directory (spank/spool.c's spool.fd) is closed on every
 * exit path: after a measured step, after one whose launch failed before
 * any task, and when a second prepare replaces the first.
 */
static void spool_fd_closed_on_every_exit(void **state)
{
	char dir[] = "/var/tmp/lagom-spool-XXXXXX", arg[64], step[96];
	struct passwd *pw = getpwuid(0);
	struct stat sb;
	int before;

	(void)state;
	if (geteuid() != 0 || !pw) {
		skip(); /* measure_dir must be root's (the trust rules) */
		return;
	}
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(arg, sizeof(arg), "measure_dir=%s", dir);
	snprintf(step, sizeof(step), "%s/%s/42.0", dir, pw->pw_name);
	before = open_fds();
	/* a measured step, to its end */
	remote_step(0, 2, ARGV(arg, "profiler=/bin/true"));
	stub.job_id = 42;
	stub.uid = 0;
	stub.gid = 0;
	send_plan(LAGOM_MODE_AUTO);
	run_remote("auto");
	assert_int_equal(stat(step, &sb), 0); /* the spool was prepared */
	assert_true(open_fds() > before);     /* and held open */
	finish();
	assert_int_equal(open_fds(), before);
	/* a launch that failed before any task was forked */
	remote_step(0, 2, ARGV(arg, "profiler=/bin/true"));
	stub.job_id = 42;
	stub.uid = 0;
	stub.gid = 0;
	send_plan(LAGOM_MODE_AUTO);
	assert_int_equal(lagom_option_mode_cb(1, "auto", 1), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	finish();
	assert_int_equal(open_fds(), before);
	assert_int_equal(nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
}

/* A bad option value that reaches slurmstepd (a hand-made
 * _SLURM_SPANK_OPTION_lagom_lagom in the job's environment, the same on
 * every node) must not fail the step (for a batch step that drains the
 * node): no node applies the plan. */
static void bad_remote_option_fails_open(void **state)
{
	remote_step(0, 1, ARGV("default=auto"));
	send_plan(LAGOM_MODE_AUTO);
	assert_int_equal(lagom_option_mode_cb(1, "bogus", 1), 0);
	assert_int_equal(lagom_effective_mode(&lagom_g), LAGOM_MODE_OFF);
	run_remote(NULL);
	assert_int_equal(stub.n_setenv, 0);
	assert_int_equal(stub.updates, 0);
	assert_int_equal(stub_log_count("--lagom=bogus: bad value"), 1);
	remote_step(0, 0, NULL);
	send_plan(LAGOM_MODE_AUTO);
	assert_int_equal(lagom_option_workload_cb(2, "a\tb", 1), 0);
	run_remote("auto");
	assert_int_equal(stub.n_setenv, 0);
	finish();
}

/* A comment longer than the limit (not settable through Slurm today) is
 * never cut and written back. */
static void overlong_comment_left_alone(void **state)
{
	remote_step(0, 0, NULL);
	send_plan(LAGOM_MODE_AUTO);
	memset(stub.comment, 'u', 1100);
	stub.comment[1100] = '\0';
	run_remote("auto");
	assert_int_equal(stub.updates, 0);
	assert_int_equal(strlen(stub.comment), 1100);
	assert_int_equal(stub_log_count("longer than 1024 bytes"), 1);
	finish();
}

/* "{lagom: TEXT #XXXXXXXX}": TEXT as written, and the check. */
static void assert_segment(const char *out, const char *user, const char *text)
{
	size_t u = strlen(user);
	char want[LAGOM_COMMENT_MAX + 1];

	snprintf(want, sizeof(want), "%s%s{lagom: %s #", user, u ? " " : "",
		 text);
	if (strncmp(out, want, strlen(want)) != 0)
		fail_msg("'%s' does not start with '%s'", out, want);
	assert_int_equal(strlen(out), strlen(want) + 9);
	assert_int_equal(out[strlen(out) - 1], '}');
}

static void comment_merge_keeps_user_text(void **state)
{
	char out[LAGOM_COMMENT_MAX + 1];
	char user[LAGOM_COMMENT_MAX + 8]; /* "x " + a segment + " y" */
	char first[LAGOM_COMMENT_MAX + 1];

	assert_int_equal(lagom_comment_merge(NULL, "a", out, sizeof(out), NULL),
			 0);
	assert_segment(out, "", "a");
	/* the check is a wire format (sacct): 32-bit FNV-1a of "a" */
	assert_string_equal(out, "{lagom: a #e40c292c}");
	assert_int_equal(lagom_comment_merge("my run", "b{c}|d\n", out,
					     sizeof(out), NULL),
			 0);
	assert_segment(out, "my run", "b(c)/d ");
	/* ASCII only: no split UTF-8 sequence, nothing slurmdbd can refuse */
	assert_int_equal(lagom_comment_merge("", "w=caf\xc3\xa9\xff", out,
					     sizeof(out), NULL),
			 0);
	assert_segment(out, "", "w=caf???");
	/* lagom's earlier segment is replaced, the user's text around it kept */
	assert_int_equal(
		lagom_comment_merge(NULL, "old", first, sizeof(first), NULL),
		0);
	snprintf(user, sizeof(user), "x %s y", first);
	assert_int_equal(
		lagom_comment_merge(user, "new", out, sizeof(out), NULL), 0);
	assert_segment(out, "x y", "new");
	assert_int_equal(
		lagom_comment_merge(out, "newer", out, sizeof(out), NULL), 0);
	assert_segment(out, "x y", "newer");
	/* a long user text is never cut: lagom's segment shrinks */
	memset(user, 'u', 980);
	user[980] = '\0';
	memset(out, 0, sizeof(out));
	assert_int_equal(
		lagom_comment_merge(user,
				    "0123456789012345678901234567890123456789",
				    out, sizeof(out), NULL),
		0);
	assert_int_equal(strlen(out), LAGOM_COMMENT_MAX);
	assert_memory_equal(out, user, 980);
	assert_memory_equal(out + 980, " {lagom: 012345678901234567890... #",
			    35);
	/* no room at all: leave the comment alone */
	memset(user, 'u', 1020);
	user[1020] = '\0';
	assert_int_equal(lagom_comment_merge(user, "x", out, sizeof(out), NULL),
			 -ENOSPC);
}

/* lagom removes only what it wrote: never the user's own "{lagom: ". */
static void comment_merge_keeps_users_lagom_text(void **state)
{
	static const char *const users[] = {
		"my note {lagom: unterminated",
		"{lagom: mine}",
		"a {lagom: typed by hand #00000000} b",
		"{lagom: {lagom: nested}",
	};
	char out[LAGOM_COMMENT_MAX + 1], again[LAGOM_COMMENT_MAX + 1];

	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		assert_int_equal(lagom_comment_merge(users[i], "plan=1", out,
						     sizeof(out), NULL),
				 0);
		assert_segment(out, users[i], "plan=1");
		/* the next step replaces lagom's segment, and only it */
		assert_int_equal(lagom_comment_merge(out, "plan=2", again,
						     sizeof(again), NULL),
				 0);
		assert_segment(again, users[i], "plan=2");
	}
}

static void skipped_list_truncates(void **state)
{
	static const struct lagom_env_var vars[] = {
		{ "NCCL_ALGO", "x" },
		{ "NCCL_MAX_CTAS", "x" },
		{ "NCCL_PROTO", "x" },
		{ "NCCL_BUFFSIZE", "x" },
	};
	struct lagom_env_item items[] = {
		{ &vars[0], LAGOM_ENV_SKIP_USER },
		{ &vars[1], LAGOM_ENV_SET },
		{ &vars[2], LAGOM_ENV_SKIP_FORBIDDEN },
		{ &vars[3], LAGOM_ENV_OVERRIDE },
	};
	char buf[64];
	char tiny[16];

	assert_int_equal(lagom_env_skipped(items, 4, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "NCCL_ALGO,NCCL_PROTO");
	assert_int_equal(lagom_env_skipped(items, 4, tiny, sizeof(tiny)), 2);
	assert_string_equal(tiny, "NCCL_ALGO...");
}

/* The step's strings go through placement/placement.h's strict parsers. */
static void malformed_step_strings_fail_open(void **state)
{
	static const char *const tasks[] = { "", "2(x3", "a", "0" };

	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		remote_step(0, 0, NULL);
		send_plan(LAGOM_MODE_AUTO);
		stub_setenv("SLURM_STEP_TASKS_PER_NODE", tasks[i]);
		run_remote("auto");
		assert_int_equal(stub.n_setenv, 0);
		assert_int_equal(stub.n_log, 1);
		assert_int_equal(stub_log_count("SLURM_STEP_TASKS_PER_NODE"),
				 1);
		finish();
	}
	remote_step(0, 0, NULL);
	send_plan(LAGOM_MODE_AUTO);
	stub_setenv("SLURM_STEP_NODELIST", "n1,n1"); /* a node named twice */
	run_remote("auto");
	assert_int_equal(stub.n_setenv, 0);
	assert_int_equal(stub.n_log, 1);
	finish();
}

/* A step node list longer than any fixed buffer is read whole, never
 * replaced by the job's list: the plan for these 200 nodes applies. */
static void long_step_nodelist(void **state)
{
	static char list[200 * 48];
	const char *names[200];
	struct lagom_carrier c = { .step = { .job_id = 42,
					     .nnodes = 200,
					     .ntasks = 200,
					     .tpn = "1(x200)" },
				   .gpus_per_node = 4,
				   .mode = LAGOM_MODE_AUTO,
				   .plan_id = "00000000000000aa" };
	char *text;
	size_t used = 0;

	for (int i = 0; i < 200; i++) {
		names[i] = list + used + (i ? 1 : 0);
		used += (size_t)snprintf(
			list + used, sizeof(list) - used,
			"%sgpu-node-with-a-long-name-rack%03d-%06d",
			i ? "," : "", i / 10, i);
	}
	assert_true(used > 8192);
	remote_step(0, 0, NULL);
	stub_setenv("SLURM_STEP_NODELIST", list);
	stub_setenv("SLURM_STEP_NUM_NODES", "200");
	stub_setenv("SLURM_STEP_TASKS_PER_NODE", "1(x200)");
	stub_setenv("SLURM_NODELIST", "n1,n2,n3,n4");
	stub.nnodes = 200;
	stub.ntasks = 200;
	{
		/* the names as separate strings for the hash */
		char *copy = strdup(list), *save = NULL;
		size_t n = 0;

		for (char *t = strtok_r(copy, ",", &save); t;
		     t = strtok_r(NULL, ",", &save))
			names[n++] = t;
		c.step.nodes_hash = lagom_nodes_hash(names, n);
		assert_int_equal(lagom_carrier_add(&c, "LAGOM_PLAN_ID",
						   "00000000000000aa", NULL),
				 0);
		assert_int_equal(lagom_carrier_encode(&c, &text, NULL), 0);
		free(copy);
	}
	stub_setenv(LAGOM_CARRIER_VAR, text);
	run_remote("auto");
	assert_string_equal(stub_getenv("LAGOM_PLAN_ID"), "00000000000000aa");
	free(text);
	lagom_carrier_release(&c);
	finish();
}

/* srun sends "" when it planned nothing (an inherited text must not
 * travel): no plan, no line, and nothing of it reaches a task. */
static void empty_carrier_is_no_plan(void **state)
{
	remote_step(0, 0, NULL);
	stub_setenv(LAGOM_CARRIER_VAR, "");
	stub_setenv(LAGOM_PREDICTED_VAR, "");
	stub_setenv(LAGOM_STEP_KEY_VAR, "");
	run_remote(NULL);
	assert_int_equal(stub.n_setenv, 0);
	assert_int_equal(stub.n_log, 0);
	assert_null(stub_getenv(LAGOM_CARRIER_VAR));
	assert_null(stub_getenv(LAGOM_PREDICTED_VAR));
	assert_null(stub_getenv(LAGOM_STEP_KEY_VAR));
	assert_int_equal(stub.updates, 0);
	finish();
	/* a node whose plugstack line is bad removes them too */
	remote_step(0, 1, ARGV("bogus=1"));
	stub_setenv(LAGOM_CARRIER_VAR, "");
	stub_setenv(LAGOM_STEP_KEY_VAR, "");
	run_remote(NULL);
	assert_null(stub_getenv(LAGOM_CARRIER_VAR));
	assert_null(stub_getenv(LAGOM_STEP_KEY_VAR));
	finish();
}

/* An srun whose plugstack line is bad still sends no inherited text. */
static void inert_srun_drops_inherited_carrier(void **state)
{
	assert_int_equal(init(S_CTX_LOCAL, 1, ARGV("bogus=1")), -1);
	setenv(LAGOM_CARRIER_VAR, "a user's text", 1);
	assert_int_equal(lagom_option_mode_cb(1, "auto", 0), 0);
	assert_int_equal(slurm_spank_local_user_init(SP, 0, NULL), 0);
	assert_string_equal(getenv(LAGOM_CARRIER_VAR), "");
	assert_int_equal(stub.plan_calls, 0);
	unsetenv(LAGOM_CARRIER_VAR);
	unsetenv(LAGOM_PREDICTED_VAR);
	unsetenv(LAGOM_STEP_KEY_VAR);
	finish();
}

/* A text srun could not have made (a user's own, sent by an srun without
 * lagom): a variable lagom never sets refuses it on every node, and no
 * line quotes it. */
static void forged_variable_applied_nowhere(void **state)
{
	char *text = carrier_text_with(LAGOM_MODE_AUTO, 0, "2(x3)", NULL,
				       "LD_PRELOAD", "/tmp/evil.so");

	for (uint32_t node = 0; node < 3; node++) {
		remote_step(node, 0, NULL);
		stub_setenv(LAGOM_CARRIER_VAR, text);
		run_remote(NULL);
		assert_int_equal(stub.n_setenv, 0);
		assert_null(stub_getenv("LD_PRELOAD"));
		assert_int_equal(stub.updates, 0);
		assert_int_equal(stub_log_count("variable 4 is not one lagom "
						"sets; environment left "
						"unchanged"),
				 1);
		assert_int_equal(stub_log_count("evil"), 0);
		assert_int_equal(stub_log_count("LD_PRELOAD"), 0);
		finish();
	}
	free(text);
	/* a tuner at a path of the user's choosing: the same */
	text = carrier_text_with(LAGOM_MODE_AUTO, 0, "2(x3)", NULL,
				 "NCCL_TUNER_PLUGIN", "/tmp/evil.so");
	remote_step(0, 1, ARGV("tuner=/usr/lib/lagom/tuner.so"));
	stub_setenv(LAGOM_CARRIER_VAR, text);
	run_remote(NULL);
	assert_int_equal(stub.n_setenv, 0);
	assert_int_equal(stub_log_count("NCCL_TUNER_PLUGIN: not the tuner= "
					"of this node"),
			 1);
	finish();
	free(text);
}

/* The comment root writes (AdminComment here) is composed from validated
 * fields: the user's words in the summary never reach it. */
static void comment_never_copies_the_text(void **state)
{
	char *text = carrier_text_with(
		LAGOM_MODE_AUTO, 0, "2(x3)",
		"lagom 0.1.0 plan=0123456789abcdef workload=PWNED-by-me "
		"channels=8 call-555 speedup=1.10x",
		NULL, NULL);

	remote_step(0, 1, ARGV("comment=admin"));
	stub_setenv(LAGOM_CARRIER_VAR, text);
	run_remote(NULL);
	assert_int_equal(stub.updates, 1);
	assert_string_equal(stub.comment, "");
	assert_non_null(strstr(stub.admin_comment,
			       "{lagom: lagom 0.1.0 plan=0123456789abcdef "
			       "workload=file channels=8 speedup=1.10x #"));
	assert_null(strstr(stub.admin_comment, "PWNED"));
	assert_null(strstr(stub.admin_comment, "555"));
	assert_int_equal(stub_log_count("PWNED"), 0);
	finish();
	free(text);
}

/* slurm_user= naming no user is a bad plugstack value, found at load:
 * srun refuses (under "required"), the nodes stay inert and say so. */
static void unknown_slurm_user_refused_at_load(void **state)
{
	assert_int_equal(
		init(S_CTX_LOCAL, 1, ARGV("slurm_user=lagom-no-such-user")),
		-1);
	assert_false(lagom_g.cfg_ok);
	assert_int_equal(stub_log_count("error: lagom: plugstack.conf: "
					"slurm_user=lagom-no-such-user: no "
					"such user"),
			 1);
	finish();
	assert_int_equal(
		init(S_CTX_REMOTE, 1, ARGV("slurm_user=lagom-no-such-user")),
		0);
	assert_false(lagom_g.cfg_ok);
	finish();
	/* a name that exists: its uid, once, at load */
	assert_int_equal(init(S_CTX_LOCAL, 1, ARGV("slurm_user=root")), 0);
	assert_true(lagom_g.cfg_ok);
	assert_true(lagom_g.cfg.slurm_uid_valid);
	assert_int_equal(lagom_g.cfg.slurm_uid, 0);
	finish();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registers_both_options),
		cmocka_unit_test(bad_plugstack_argument),
		cmocka_unit_test(mode_option_values),
		cmocka_unit_test(log_lines_are_escaped),
		cmocka_unit_test(workload_option_values),
		cmocka_unit_test(registered_buffers_option),
		cmocka_unit_test(srun_plans_once_every_node_applies),
		cmocka_unit_test(override_and_forbid),
		cmocka_unit_test(off_does_nothing),
		cmocka_unit_test(default_auto_applies),
		cmocka_unit_test(explain_reports_only),
		cmocka_unit_test(srun_fails_open),
		cmocka_unit_test(foreign_or_altered_plan_applied_nowhere),
		cmocka_unit_test(node_local_view_never_splits),
		cmocka_unit_test(fail_open_missing_placement),
		cmocka_unit_test(comment_only_from_node0_and_real_steps),
		cmocka_unit_test(comment_off_the_launch_path),
		cmocka_unit_test(comment_wait_bounded),
		cmocka_unit_test(bounded_wait_joins_the_thread),
		cmocka_unit_test(spool_fd_closed_on_every_exit),
		cmocka_unit_test(bad_remote_option_fails_open),
		cmocka_unit_test(overlong_comment_left_alone),
		cmocka_unit_test(comment_merge_keeps_user_text),
		cmocka_unit_test(comment_merge_keeps_users_lagom_text),
		cmocka_unit_test(skipped_list_truncates),
		cmocka_unit_test(malformed_step_strings_fail_open),
		cmocka_unit_test(long_step_nodelist),
		cmocka_unit_test(empty_carrier_is_no_plan),
		cmocka_unit_test(inert_srun_drops_inherited_carrier),
		cmocka_unit_test(forged_variable_applied_nowhere),
		cmocka_unit_test(comment_never_copies_the_text),
		cmocka_unit_test(unknown_slurm_user_refused_at_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
