/*
 * tests/plugstack/test_plugstack.c - the plugstack.conf argument parser.
 */
#include <errno.h>
#include <string.h>

#include "tests/lib/lagom_test.h"

#include "plugstack/plugstack.h"

#define ARGV(...) ((char *const[]){ __VA_ARGS__ })
#define ARGC(...) ((int)(sizeof(ARGV(__VA_ARGS__)) / sizeof(char *)))
#define PARSE(cfg, err, ...) \
	lagom_config_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), cfg, err)

static void test_defaults(void **state)
{
	struct lagom_config cfg;
	struct lagom_error err = { 0 };

	assert_int_equal(lagom_config_parse(0, NULL, &cfg, &err), 0);
	assert_int_equal(cfg.default_mode, LAGOM_MODE_OFF);
	assert_int_equal(cfg.comment, LAGOM_COMMENT_YES);
	assert_string_equal(cfg.profile_dir, "/var/lib/lagom");
	assert_true(strstr(cfg.tuner, "libnccl-tuner-lagom.so") != NULL);
	assert_string_equal(cfg.topology_conf, "");
	assert_int_equal(cfg.forbid.n, 0);
	assert_int_equal(cfg.override.n, 0);
	assert_false(cfg.slurm_uid_valid);
	assert_int_equal(cfg.verbose, 0);
	assert_false(cfg.step_query_always);
}

static void test_every_key(void **state)
{
	struct lagom_config cfg;
	struct lagom_error err = { 0 };

	assert_int_equal(PARSE(&cfg, &err, "default=auto", "profile_dir=/p",
			       "tuner=/t/x.so", "comment=admin",
			       "forbid=NCCL_ALGO,NCCL_PROTO",
			       "forbid=NCCL_ALGO", "override=NCCL_BUFFSIZE",
			       "topology_conf=/e/t.conf", "slurm_user=64030",
			       "step_query=always", "verbose"),
			 0);
	assert_true(cfg.step_query_always);
	assert_int_equal(cfg.default_mode, LAGOM_MODE_AUTO);
	assert_string_equal(cfg.profile_dir, "/p");
	assert_string_equal(cfg.tuner, "/t/x.so");
	assert_int_equal(cfg.comment, LAGOM_COMMENT_ADMIN);
	assert_int_equal(cfg.forbid.n, 2);
	assert_true(lagom_varlist_has(&cfg.forbid, "NCCL_ALGO"));
	assert_true(lagom_varlist_has(&cfg.forbid, "NCCL_PROTO"));
	assert_false(lagom_varlist_has(&cfg.forbid, "NCCL_BUFFSIZE"));
	assert_true(lagom_varlist_has(&cfg.override, "NCCL_BUFFSIZE"));
	assert_string_equal(cfg.topology_conf, "/e/t.conf");
	assert_false(cfg.topology_none);
	assert_true(cfg.slurm_uid_valid);
	assert_int_equal(cfg.slurm_uid, 64030);
	assert_int_equal(cfg.verbose, 1);
}

static void test_values(void **state)
{
	struct lagom_config cfg;

	assert_int_equal(PARSE(&cfg, NULL, "default=explain", "comment=no",
			       "tuner=none", "slurm_user=slurm", "verbose=3",
			       "topology_conf=none"),
			 0);
	assert_int_equal(cfg.default_mode, LAGOM_MODE_EXPLAIN);
	assert_int_equal(cfg.comment, LAGOM_COMMENT_NO);
	assert_string_equal(cfg.tuner, "");
	assert_true(cfg.topology_none);
	assert_string_equal(cfg.topology_conf, "");
	assert_string_equal(cfg.slurm_user, "slurm");
	assert_false(cfg.slurm_uid_valid);
	assert_int_equal(cfg.verbose, 3);
	assert_int_equal(PARSE(&cfg, NULL, "default=off", "verbose=no"), 0);
	assert_int_equal(cfg.default_mode, LAGOM_MODE_OFF);
	assert_int_equal(cfg.verbose, 0);
	assert_int_equal(
		PARSE(&cfg, NULL, "step_query=always", "step_query=auto"), 0);
	assert_false(cfg.step_query_always);
	assert_string_equal(cfg.calibration_user, "");
	assert_int_equal(PARSE(&cfg, NULL, "calibration_user=lagom-cal"), 0);
	assert_string_equal(cfg.calibration_user, "lagom-cal");
}

/* A bad argument fails, names itself, and leaves *out untouched. */
static void expect_error(const char *word, int rc, const char *needle)
{
	struct lagom_config cfg;
	struct lagom_error err = { 0 };
	char *const argv[] = { "default=auto", (char *)word };

	memset(&cfg, 0x5a, sizeof(cfg));
	assert_int_equal(lagom_config_parse(2, argv, &cfg, &err), rc);
	assert_int_equal(err.errnum, -rc);
	if (!strstr(err.text, needle))
		fail_msg("error '%s' does not name '%s'", err.text, needle);
	assert_int_equal(((unsigned char *)&cfg)[0], 0x5a);
}

static void test_errors(void **state)
{
	char long_path[LAGOM_CONFIG_PATH_MAX + 8];

	expect_error("profiledir=/x", -EINVAL, "profiledir");
	expect_error("bogus", -EINVAL, "bogus");
	expect_error("default=on", -EINVAL, "default=on");
	expect_error("comment=maybe", -EINVAL, "comment=maybe");
	expect_error("step_query=never", -EINVAL, "step_query=never");
	expect_error("forbid=NCCL-ALGO", -EINVAL, "NCCL-ALGO");
	expect_error("forbid=", -EINVAL, "forbid");
	expect_error("override=A,,B", -EINVAL, "override");
	expect_error("forbid=1ABC", -EINVAL, "1ABC");
	expect_error("profile_dir=", -EINVAL, "profile_dir");
	expect_error("slurm_user=12x", -EINVAL, "slurm_user=12x");
	expect_error("calibration_user=", -EINVAL, "calibration_user");
	expect_error("verbose=loud", -EINVAL, "verbose=loud");
	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[sizeof(long_path) - 1] = '\0';
	memcpy(long_path, "tuner=/", 7);
	expect_error(long_path, -ERANGE, "tuner");
}

static void test_conflict_and_limit(void **state)
{
	struct lagom_config cfg;
	struct lagom_error err = { 0 };
	char many[LAGOM_CONFIG_VARS_MAX * 8 + 32] = "forbid=";

	assert_int_equal(
		PARSE(&cfg, &err, "forbid=NCCL_ALGO", "override=NCCL_ALGO"),
		-EINVAL);
	assert_non_null(strstr(err.text, "NCCL_ALGO"));
	for (int i = 0; i <= LAGOM_CONFIG_VARS_MAX; i++)
		sprintf(many + strlen(many), "%sV%d", i ? "," : "", i);
	assert_int_equal(PARSE(&cfg, &err, many), -ERANGE);
}

/* The measurement loop's arguments (plugstack/measure.h). */
static void test_measure(void **state)
{
	struct lagom_error err = { 0 };
	struct lagom_config cfg;

	assert_int_equal(lagom_config_parse(0, NULL, &cfg, &err), 0);
	assert_true(cfg.measure.on);
	assert_string_equal(cfg.measure.dir, "");
	assert_int_equal(cfg.measure.max_steps, 64);
	assert_int_equal(cfg.measure.max_mb, 256);
	assert_non_null(
		strstr(cfg.measure.profiler, "libnccl-profiler-lagom.so"));
	assert_int_equal(PARSE(&cfg, &err, "measure_dir=/var/spool/lagom",
			       "measure=off", "measure_max_steps=3",
			       "measure_max_mb=7", "profiler=/opt/p.so"),
			 0);
	assert_string_equal(cfg.measure.dir, "/var/spool/lagom");
	assert_false(cfg.measure.on);
	assert_int_equal(cfg.measure.max_steps, 3);
	assert_int_equal(cfg.measure.max_mb, 7);
	assert_string_equal(cfg.measure.profiler, "/opt/p.so");
	expect_error("measure_dir=spool", -EINVAL, "absolute");
	expect_error("measure=maybe", -EINVAL, "measure=maybe");
	expect_error("measure_max_steps=0", -EINVAL, "measure_max_steps");
	expect_error("measure_max_mb=-1", -EINVAL, "measure_max_mb");
	expect_error("measure_max_mb=12x", -EINVAL, "measure_max_mb");
	expect_error("measure_dir", -EINVAL, "measure_dir");
	expect_error("measures=on", -EINVAL, "measures");
}

/* The control arm's arguments (plugstack/measure.h, doc/report.md). */
static void test_control(void **state)
{
	struct lagom_error err = { 0 };
	struct lagom_config cfg;

	assert_int_equal(lagom_config_parse(0, NULL, &cfg, &err), 0);
	assert_double_near(cfg.measure.control_share, LAGOM_CONTROL_DEFAULT, 0);
	assert_true(cfg.measure.control_optout);
	assert_int_equal(PARSE(&cfg, &err, "control=0.1", "control_optout=no"),
			 0);
	assert_double_near(cfg.measure.control_share, 0.1, 1e-12);
	assert_false(cfg.measure.control_optout);
	assert_int_equal(PARSE(&cfg, &err, "control=0"), 0);
	assert_double_near(cfg.measure.control_share, 0, 0);
	assert_int_equal(PARSE(&cfg, &err, "control=1"), 0);
	assert_double_near(cfg.measure.control_share, 1, 0);
	assert_int_equal(PARSE(&cfg, &err, "control=.25"), 0);
	assert_double_near(cfg.measure.control_share, 0.25, 1e-12);
	expect_error("control=1.5", -EINVAL, "control=1.5");
	expect_error("control=5%", -EINVAL, "share");
	expect_error("control=-0.1", -EINVAL, "control=");
	expect_error("control=0x1", -EINVAL, "control=");
	expect_error("control=1e-2", -EINVAL, "control=");
	expect_error("control=", -EINVAL, "control=");
	expect_error("control=.", -EINVAL, "control=");
	expect_error("control=nan", -EINVAL, "control=");
	expect_error("control", -EINVAL, "control");
	expect_error("control_optout=maybe", -EINVAL, "control_optout");
	/* measure is a user's own A/B, not a site default */
	expect_error("default=measure", -EINVAL, "default=measure");
}

static void test_modes(void **state)
{
	enum lagom_mode m = LAGOM_MODE_OFF;

	assert_int_equal(lagom_mode_parse("auto", &m), 0);
	assert_int_equal(m, LAGOM_MODE_AUTO);
	assert_string_equal(lagom_mode_name(m), "auto");
	assert_int_equal(lagom_mode_parse("explain", &m), 0);
	assert_string_equal(lagom_mode_name(m), "explain");
	assert_int_equal(lagom_mode_parse("AUTO", &m), -EINVAL);
	assert_int_equal(lagom_mode_parse("", &m), -EINVAL);
	assert_int_equal(lagom_mode_parse(NULL, &m), -EINVAL);
	assert_int_equal(m, LAGOM_MODE_EXPLAIN);
	assert_int_equal(lagom_mode_parse("measure", &m), 0);
	assert_int_equal(m, LAGOM_MODE_MEASURE);
	assert_string_equal(lagom_mode_name(m), "measure");
	/* control is srun's pick, never typed */
	assert_int_equal(lagom_mode_parse("control", &m), -EINVAL);
	assert_string_equal(lagom_mode_name(LAGOM_MODE_CONTROL), "control");
	assert_true(lagom_config_valid_var_name("_A1"));
	assert_false(lagom_config_valid_var_name("A=B"));
	assert_false(lagom_config_valid_var_name(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_conflict_and_limit),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_control),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
