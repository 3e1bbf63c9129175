/*
 * tests/spank/test_trust.c - what a node takes from the plan text srun
 * sends, which is the user's input (spank/carrier.h "Trust",
 * doc/consistency.md "Trust"): every plan the real planner makes passes the
 * node's checks and gives a job comment equal to the planner's summary;
 * anything else a user could write is refused or left out of the comment,
 * and no error quotes it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"
#include "tests/lib/write_profile.h"

#include "planner/planner.h"
#include "profile/profile.h"
#include "spank/carrier.h"

#define TUNER "/usr/lib/lagom/libnccl-tuner-lagom.so"

static char dir[64];

static void write_profile(const char *node)
{
	lagom_test_write_profile(dir, &(struct lagom_test_profile){
					      .node = node,
					      .gpu = "H100-SXM",
					      .gpus = 8,
					      .sms = 132,
					      .nvlinks = 18,
					      .nics = 8,
					      .nic_Bps = 50e9,
					      .measured = true,
					      .bf16_flops = 989.4e12,
					      .hbm_Bps = 3350e9,
					      .version = "0.1.0",
				      });
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/lagom-trust-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	write_profile("gpu001");
	write_profile("gpu002");
	return 0;
}

static int teardown(void **state)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/gpu001.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/gpu002.json", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

/* The planner's result as srun sends it and a node decodes it (local.c
 * make_carrier()). */
static void carry(const struct lagom_planner_result *res,
		  struct lagom_carrier *out)
{
	struct lagom_carrier c = { .step = { .job_id = 7, .nnodes = 2 } };
	char *text = NULL;

	strcpy(c.step.tpn, "8(x2)");
	c.mode = LAGOM_MODE_AUTO;
	snprintf(c.plan_id, sizeof(c.plan_id), "%s", res->plan_id);
	snprintf(c.summary, sizeof(c.summary), "%s", res->summary);
	for (size_t i = 0; i < res->env_count; i++)
		assert_int_equal(lagom_carrier_add(&c, res->env[i].name,
						   res->env[i].value, NULL),
				 0);
	assert_int_equal(lagom_carrier_encode(&c, &text, NULL), 0);
	assert_int_equal(lagom_carrier_decode(text, out, NULL), 0);
	lagom_carrier_release(&c);
	free(text);
}

/* Every plan the planner makes passes, and the comment a node composes is
 * the planner's own summary, byte for byte. */
static void planner_plans_pass(void **state)
{
	static const char *const names[] = { "gpu001", "gpu002" };
	const struct {
		const char *workload;
		unsigned nodes, gpus;
		bool tuner;
	} cases[] = {
		{ "phi-2:fsdp", 2, 8, true },
		{ "llama-3.1-8b:tp8,mb4", 2, 8, true },
		{ "LLAMA-3.1-8B:FSDP", 2, 8, false },
		{ "olmoe-1b-7b:ep8", 2, 8, true },
		{ NULL, 2, 8, true },	      /* the catalog's worst case */
		{ "phi-2:fsdp", 1, 1, true }, /* fallback: one GPU */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lagom_planner_input in = {
			.profile_dir = dir,
			.node_names = names,
			.node_count = cases[i].nodes,
			.ranks_per_node = cases[i].gpus,
			.gpus_per_node = cases[i].gpus,
			.workload_name = cases[i].workload,
			.tuner_path = cases[i].tuner ? TUNER : NULL,
			.job_id = 7,
		};
		struct lagom_planner_result *res = NULL;
		struct lagom_error err = { 0 };
		struct lagom_carrier c;
		char comment[LAGOM_CARRIER_SUMMARY_MAX + 64];
		bool has_tuner = false;

		if (lagom_planner_run(&in, &res, &err) != 0)
			fail_msg("case %zu: %s", i, err.text);
		carry(res, &c);
		if (lagom_carrier_vet(&c, TUNER, &err) != 0)
			fail_msg("case %zu: %s", i, err.text);
		for (size_t v = 0; v < c.nvars; v++)
			has_tuner |= !strcmp(c.vars[v].name,
					     "NCCL_TUNER_PLUGIN");
		/* another tuner path, or none, on the node: refused */
		assert_int_equal(lagom_carrier_vet(&c, "", NULL),
				 has_tuner ? -EPERM : 0);
		lagom_carrier_comment(&c, comment, sizeof(comment));
		if (cases[i].workload && cases[i].workload[0] == 'L')
			/* the catalog's spelling, not the user's */
			assert_non_null(
				strstr(comment, "workload=llama-3.1-8b:fsdp "));
		else if (strcmp(comment, res->summary) != 0)
			fail_msg("case %zu: node's comment\n  %s\nplanner's\n"
				 "  %s",
				 i, comment, res->summary);
		if (cases[i].gpus == 1)
			assert_non_null(strstr(comment, "fallback=a single"));
		lagom_carrier_release(&c);
		lagom_planner_result_destroy(res);
	}
}

/* A carrier with one variable NAME=VALUE (and the plan id's). */
static void one_var(struct lagom_carrier *c, const char *name,
		    const char *value)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->plan_id, "00000000deadbeef");
	assert_int_equal(
		lagom_carrier_add(c, "LAGOM_PLAN_ID", c->plan_id, NULL), 0);
	if (name)
		assert_int_equal(lagom_carrier_add(c, name, value, NULL), 0);
}

/* Only what lagom sets, each with a value of its kind; the tuner only at
 * the node's own path; errors never quote the text. */
static void hostile_variables_refused(void **state)
{
	const struct {
		const char *name, *value;
	} bad[] = {
		{ "LD_PRELOAD", "/tmp/evil.so" },
		{ "NCCL_PROFILER_PLUGIN", "/tmp/evil.so" },
		{ "NCCL_NET_PLUGIN", "/tmp/evil.so" },
		{ "NCCL_TUNER_PLUGIN", "/tmp/evil.so" },
		{ "NCCL_ALGO", "Evil" },
		{ "NCCL_ALGO", "ring,tree" },
		{ "NCCL_PROTO", "ll129" },
		{ "NCCL_MAX_CTAS", "-1" },
		{ "NCCL_MAX_CTAS", "08" },
		{ "NCCL_BUFFSIZE", "1e9" },
		{ "NCCL_BUFFSIZE", "99999999999999999999" },
		{ "TORCH_NCCL_HIGH_PRIORITY", "0" },
		{ "CUDA_DEVICE_MAX_CONNECTIONS", "32" },
		{ "LAGOM_PLAN", "evil" },
		{ "LAGOM_PLAN_ID", "00000000deadbeef" }, /* twice */
		{ "LAGOM_PREDICTED_SPEEDUP", "nan" },
		{ "LAGOM_PREDICTED_SPEEDUP", "1.1" },
	};
	struct lagom_error err = { 0 };
	struct lagom_carrier c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		one_var(&c, bad[i].name, bad[i].value);
		if (lagom_carrier_vet(&c, TUNER, &err) != -EPERM)
			fail_msg("%s=%s passed", bad[i].name, bad[i].value);
		assert_null(strstr(err.text, "evil"));
		assert_null(strstr(err.text, "LD_PRELOAD"));
		lagom_carrier_release(&c);
	}
	/* the tuner needs its plan, and the plan its tuner */
	one_var(&c, "NCCL_TUNER_PLUGIN", TUNER);
	assert_int_equal(lagom_carrier_vet(&c, TUNER, &err), -EPERM);
	assert_non_null(strstr(err.text, "come together"));
	assert_int_equal(
		lagom_carrier_add(&c, "LAGOM_PLAN", "lagom-plan 1 x", NULL), 0);
	assert_int_equal(lagom_carrier_vet(&c, TUNER, NULL), 0);
	assert_int_equal(lagom_carrier_vet(&c, NULL, NULL), -EPERM);
	lagom_carrier_release(&c);
	/* what the user could export themselves passes */
	one_var(&c, "NCCL_ALGO", "ring");
	assert_int_equal(lagom_carrier_add(&c, "NCCL_MAX_CTAS", "0", NULL), 0);
	assert_int_equal(lagom_carrier_vet(&c, NULL, NULL), 0);
	lagom_carrier_release(&c);
	/* a decode error does not quote the text either */
	assert_int_equal(lagom_carrier_decode("lagom-step 1\njob=1 step=0 "
					      "nodes=1 tasks=1 tpn=1 gpus=1 "
					      "nodes_hash=0000000000000000 "
					      "mode=auto plan=00000000deadbeef"
					      "\nsummary x\nvar PWNED-1=1\n"
					      "end 0000000000000000\n",
					      &c, &err),
			 -EINVAL);
	assert_null(strstr(err.text, "PWNED"));
}

static void comment_of(const char *summary, char *out, size_t len)
{
	struct lagom_carrier c = { .plan_id = "00000000deadbeef" };

	snprintf(c.summary, sizeof(c.summary), "%s", summary);
	lagom_carrier_comment(&c, out, len);
}

/* The comment root writes holds validated fields only. */
static void comment_from_validated_fields(void **state)
{
	const struct {
		const char *summary, *want;
	} cases[] = {
		/* free text: left out; the plan id is the step line's */
		{ "HACKED please call 555 {x}",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef" },
		{ "lagom 9.9-evil plan=1111111111111111 workload=my-secret "
		  "channels=8;rm chunk=128KiB algo=ring,evil speedup=1.05x",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef "
		  "workload=file chunk=128KiB speedup=1.05x" },
		{ "lagom 0.1.0 workload=measured-77.0 channels=2-40 "
		  "chunk=default algo=ring,tree speedup=1.13x "
		  "corrected=allreduce@1MiB:x1.83,allgather@48MiB:x0.60,+3 "
		  "from=77.0",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef "
		  "workload=measured-77.0 channels=2-40 chunk=default "
		  "algo=ring,tree speedup=1.13x "
		  "corrected=allreduce@1MiB:x1.83,allgather@48MiB:x0.60,+3 "
		  "from=77.0" },
		{ "workload=measured-77.0x corrected=evil@1MiB:x1.00 from=1",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef "
		  "workload=file" },
		{ "workload=Phi-2:FSDP,TP2 channels=<=8",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef "
		  "workload=phi-2:fsdp,tp2 channels=<=8" },
		{ "workload=phi-2:fsdp,evil",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef "
		  "workload=file" },
		{ "speedup=1.00x fallback=" LAGOM_PLANNER_FALLBACK_ONE_GPU,
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef "
		  "speedup=1.00x fallback=" LAGOM_PLANNER_FALLBACK_ONE_GPU },
		{ "speedup=1.00x fallback=call 555",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef "
		  "speedup=1.00x" },
		/* the site calibration's tail (planner/calib.c) */
		{ "speedup=1.05x; calibrated from 3 classes of 12 runs, "
		  "2026-11-28",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef "
		  "speedup=1.05x; calibrated from 3 classes of 12 runs, "
		  "2026-11-28" },
		{ "speedup=1.00x fallback=" LAGOM_PLANNER_FALLBACK_ONE_GPU
		  "; calibrated from 1 classes of 2 runs, 2026-01-02",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef "
		  "speedup=1.00x fallback=" LAGOM_PLANNER_FALLBACK_ONE_GPU
		  "; calibrated from 1 classes of 2 runs, 2026-01-02" },
		/* revert.c's word (doc/report.md): exactly its numbers */
		{ "reverted=0.96x[0.94,0.98]/20 speedup=1.05x",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef "
		  "speedup=1.05x reverted=0.96x[0.94,0.98]/20" },
		{ "reverted=0.96x[0.94,0.98]/20;rm speedup=1.05x",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef "
		  "speedup=1.05x" },
		{ "reverted=1e0x[0.94,0.98]/20 reverted=0.96x[ 0.94,0.98]/2 "
		  "reverted=0.96x[0.98,0.94]/2 reverted=-1.00x[0.94,0.98]/2",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef" },
		/* a tail that is not the planner's: the word before it too */
		{ "speedup=1.05x; calibrated from 3 classes of 12 runs, "
		  "2026-11-28 call 555",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef" },
		{ "speedup=1.05x; calibrated from evil classes of 1 runs, "
		  "2026-11-28",
		  "lagom " PACKAGE_VERSION " plan=00000000deadbeef" },
	};
	char out[LAGOM_CARRIER_SUMMARY_MAX + 64], small[24];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		comment_of(cases[i].summary, out, sizeof(out));
		if (strcmp(out, cases[i].want) != 0)
			fail_msg("case %zu:\n  got  %s\n  want %s", i, out,
				 cases[i].want);
	}
	comment_of("workload=phi-2:fsdp", small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(planner_plans_pass),
		cmocka_unit_test(hostile_variables_refused),
		cmocka_unit_test(comment_from_validated_fields),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
