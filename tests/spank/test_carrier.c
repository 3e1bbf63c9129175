/*
 * tests/spank/test_carrier.c - the step's plan on its way from srun to the
 * nodes (spank/carrier.h) and the step as srun reads it
 * (spank/srun_step.h): round trips, hostile texts, srun's bounded wait for
 * slurmctld.  The parsers of srun's request: tests/spank/test_srun_parse.c.
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

/* srun's option table is read only on the release lagom was built for,
 * and only where that reading was checked (compat/slurm_compat.h). */
static void srun_opts_gate(void **state)
{
	char major[8], minor[8];
	bool checked = false;

	(void)state;
	snprintf(major, sizeof(major), "%02d",
		 SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER));
	snprintf(minor, sizeof(minor), "%02d",
		 SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
	for (const char *const *v =
		     (const char *const[]){ "22.05", "24.11", "26.05", NULL };
	     *v; v++)
		checked |= strncmp(*v, major, 2) == 0 &&
			   strcmp(*v + 3, minor) == 0;
	assert_int_equal(lagom_slurm_srun_opts_verified(major, minor), checked);
	assert_false(lagom_slurm_srun_opts_verified("21", "08"));
	assert_false(lagom_slurm_srun_opts_verified(major, "99"));
	assert_false(lagom_slurm_srun_opts_verified(NULL, minor));
	assert_false(lagom_slurm_srun_opts_verified(major, NULL));
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
		cmocka_unit_test(srun_opts_gate),
		cmocka_unit_test(step_read_bounded),
		cmocka_unit_test(step_user_in_srun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
