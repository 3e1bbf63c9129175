/* Tests of lagom-prolog's parts that need no GPU: plugstack.conf, notes,
 * the probe runner's time budget, the hardware section. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "prolog/prolog.h"
#include "topology/topology.h"
#include "tests/lib/lagom_test.h"

static int write_conf(char *path, const char *text)
{
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void plugstack_line_gives_the_defaults(void **state)
{
	char path[] = "/tmp/lagom-plugstack-XXXXXX";
	struct lagom_config cfg;
	struct lagom_error err = { 0 };

	assert_int_equal(
		write_conf(
			path,
			"# comment lagom.so profile_dir=/wrong\n"
			"optional /x/pyxis.so\n"
			"required /usr/lib/slurm/lagom.so  profile_dir=/srv/p"
			" slurm_user=600 # trailing comment\n"),
		0);
	assert_int_equal(prolog_read_plugstack(path, &cfg, &err), 0);
	assert_string_equal(cfg.profile_dir, "/srv/p");
	assert_true(cfg.slurm_uid_valid);
	assert_int_equal(cfg.slurm_uid, 600);
	unlink(path);
}

static void plugstack_errors_are_reported(void **state)
{
	char path[] = "/tmp/lagom-plugstack-XXXXXX";
	struct lagom_config cfg;
	struct lagom_error err = { 0 };

	assert_int_equal(write_conf(path, "required /a/lagom.so nonsense=1\n"),
			 0);
	assert_int_equal(prolog_read_plugstack(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.text, path));
	unlink(path);
	strcpy(path, "/tmp/lagom-plugstack-XXXXXX");
	assert_int_equal(write_conf(path, "required /a/lagomx.so\n"), 0);
	assert_int_equal(prolog_read_plugstack(path, &cfg, &err), -ENOENT);
	assert_string_equal(cfg.profile_dir, LAGOM_CONFIG_DEFAULT_PROFILE_DIR);
	unlink(path);
	assert_int_equal(prolog_read_plugstack(path, &cfg, &err), -ENOENT);
}

static void notes_are_joined_and_bounded(void **state)
{
	struct probe_result r = { 0 };
	char big[300];

	probe_note(&r, "first %d", 1);
	probe_note(&r, "second");
	assert_string_equal(r.note, "first 1; second");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	probe_note(&r, "%s", big);
	assert_int_equal(strlen(r.note), sizeof(r.note) - 1);
}

/* dlopen failures become notes, never crashes: the GPU-less path. */
static void missing_libraries_are_noted(void **state)
{
	static const char *const none[] = { "liblagom-no-such.so.9", NULL };
	static const char *const libm[] = { "libm.so.6", NULL };
	void *fn = NULL;
	const struct probe_sym syms[] = { { "lagom_no_such_symbol", &fn },
					  { NULL, NULL } };
	const struct probe_sym ok_syms[] = { { "cos", &fn }, { NULL, NULL } };
	struct probe_result r = { 0 };
	void *h;

	assert_null(probe_dlopen(none, ok_syms, &r));
	assert_string_equal(r.note, "liblagom-no-such.so.9 not loadable");
	memset(&r, 0, sizeof(r));
	assert_null(probe_dlopen(libm, syms, &r));
	assert_string_equal(r.note, "libm.so.6 has no lagom_no_such_symbol");
	h = probe_dlopen(libm, ok_syms, &r);
	assert_non_null(h);
	assert_non_null(fn);
	dlclose(h);
}

/* A zero budget: the runner gives up at once and says so. */
static void zero_budget_stops_the_probes(void **state)
{
	struct probe_opts o = { .budget_s = 0 };
	struct probe_result r;
	double t0 = prolog_now();

	probe_run(&o, &r);
	assert_true(prolog_now() - t0 < 30);
	assert_non_null(strstr(r.note, "stopped"));
	assert_int_equal(r.meas.n_busbw, 0);
	assert_int_equal(r.gpus_seen, -1);
}

static void without_a_gpu_nothing_is_measured(void **state)
{
	struct probe_opts o = { .budget_s = 20, .gpus_per_node_hint = 0 };
	struct probe_result r;

	/* cmocka 1.1.5's skip() prints "not ok # SKIP", a FAIL for automake */
	if (access("/dev/nvidiactl", F_OK) == 0) {
		print_message(
			"# not checked: this node has an NVIDIA driver\n");
		return;
	}
	probe_run(&o, &r);
	assert_true(r.gpus_seen <= 0);
	assert_int_equal(r.meas.busbw_source, LAGOM_SOURCE_ABSENT);
	assert_int_equal(r.meas.contention_source, LAGOM_SOURCE_ABSENT);
	for (int i = 0; i < LAGOM_PREC_COUNT; i++)
		assert_int_equal(r.meas.gemm_flops[i].source,
				 LAGOM_SOURCE_ABSENT);
	assert_true(strlen(r.note) > 0);
}

static void hardware_section_of_this_node(void **state)
{
	struct lagom_profile_hw hw, again;
	struct lagom_error err = { 0 };
	char a[40], b[40];

	if (prolog_hwinfo(&hw, &err) < 0)
		fail_msg("hwloc failed here: %s", err.text);
	assert_true(hw.cpu_cores > 0);
	assert_true(hw.gpu_count >= 0);
	assert_int_equal(prolog_hwinfo(&again, &err), 0);
	lagom_profile_fingerprint(&hw, a, sizeof(a));
	lagom_profile_fingerprint(&again, b, sizeof(b));
	assert_string_equal(a, b);
}

static void load_fixture(const char *rel, struct lagom_node_topo *t)
{
	char path[512];
	struct lagom_error err = { 0 };

	if (lagom_topo_load_hwloc(lagom_fixture(path, sizeof(path), rel), t,
				  &err) < 0)
		fail_msg("%s: %s", rel, err.text);
}

/* A DGX-2: 16 V100 on NVSwitches, 6 NVLinks each, two per PCIe switch. */
static void dgx2_hardware_section(void **state)
{
	struct lagom_node_topo *t = calloc(1, sizeof(*t));
	struct lagom_profile_hw hw = { 0 };

	assert_non_null(t);
	load_fixture("hwloc/nvidiaDGX2.xml", t);
	assert_int_equal(prolog_hw_from_topo(t, &hw, NULL), 0);
	assert_int_equal(hw.gpu_count, 16);
	assert_string_equal(hw.gpu_model, "Tesla V100-SXM3-32GB-H");
	/* the spec table's SM count and memory are the planner's to add */
	assert_int_equal(hw.gpu_sm_count, 0);
	assert_int_equal(hw.gpu_memory_bytes, 0);
	assert_int_equal(hw.intra, LAGOM_INTRA_NVSWITCH);
	assert_int_equal(hw.nvlinks_per_gpu, 6);
	assert_int_equal(hw.nvlink_peers, 15);
	assert_int_equal(hw.pcie_gen, 3);
	assert_int_equal(hw.pcie_lanes, 16);
	assert_int_equal(hw.numa_nodes, 2);
	assert_int_equal(hw.nic_count, 0);
	free(t);
}

/* POWER8 with NVLink between GPU pairs, no NVSwitch. */
static void power8_nvlink_pairs(void **state)
{
	struct lagom_node_topo *t = calloc(1, sizeof(*t));
	struct lagom_profile_hw hw = { 0 };

	assert_non_null(t);
	load_fixture("hwloc/power8gpudistances.xml", t);
	assert_int_equal(prolog_hw_from_topo(t, &hw, NULL), 0);
	assert_int_equal(hw.gpu_count, 4);
	assert_int_equal(hw.intra, LAGOM_INTRA_NVLINK);
	assert_int_equal(hw.nvlink_peers, 1);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plugstack_line_gives_the_defaults),
		cmocka_unit_test(plugstack_errors_are_reported),
		cmocka_unit_test(notes_are_joined_and_bounded),
		cmocka_unit_test(missing_libraries_are_noted),
		cmocka_unit_test(zero_budget_stops_the_probes),
		cmocka_unit_test(without_a_gpu_nothing_is_measured),
		cmocka_unit_test(hardware_section_of_this_node),
		cmocka_unit_test(dgx2_hardware_section),
		cmocka_unit_test(power8_nvlink_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
