/*
 * One topology, one hardware, one translation: the hardware section
 * lagom-prolog writes for a topology holds only what the topology shows
 * (no spec-table value), and the planner's translation
 * (lagom_profile_to_hw) turns it into the model's struct lagom_hw.  A
 * profile as lagom-prolog wrote it before (SM count, memory and "table"
 * rates copied from the spec table into the file) plans the same: every
 * fixture of tests/fixtures/{hwloc,nccl-topo}, struct compared field by
 * field.  NICs of unknown speed (hwloc XML has none) are set to 200 Gb/s
 * first, as a live node reads them from sysfs.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "profile/profile.h"
#include "prolog/prolog.h"
#include "topology/topology.h"
#include "tests/lib/lagom_test.h"
#include "tests/topology/topo_fixture.h"

static const struct {
	const char *rel;
	bool nccl;
	bool usable; /* false: the planner refuses it (say why) */
} fixtures[] = {
	{ "hwloc/16intel64-manyVFs.xml", false, false },  /* no GPU */
	{ "hwloc/24em64t-2n6c2t-pci.xml", false, false }, /* GPU unnamed */
	{ "hwloc/32em64t-2n8c2t-pci-normalio.xml", false, false }, /* mixed */
	{ "hwloc/96em64t-4n4d3ca2co-pci.xml", false, false },	   /* no GPU */
	{ "hwloc/nvidia-dgx-gb10.xml", false, false }, /* no PCI GPU */
	{ "hwloc/nvidiaDGX2.xml", false, true },
	{ "hwloc/power8gpudistances.xml", false, false },  /* P100 */
	{ "nccl-topo/aws-g5.48xl-topo.xml", true, false }, /* no GPU */
	{ "nccl-topo/aws-p4d-24xl-topo.xml", true, true },
	{ "nccl-topo/aws-p4de-24xl-topo.xml", true, true },
	{ "nccl-topo/aws-p5.48xl-topo.xml", true, true },
};

/* A fixture with every NIC of unknown speed at 200 Gb/s. */
static struct lagom_node_topo *load(const char *rel, bool nccl)
{
	struct lagom_node_topo *t = topo_fixture_load(rel, nccl);

	for (int n = 0; n < t->nnics; n++)
		if (t->nics[n].speed_Bps == 0)
			t->nics[n].speed_Bps = 200e9 / 8;
	return t;
}

#define SAME_U(field) assert_int_equal(a->field, b->field)
#define SAME_D(field) assert_double_rel(a->field, b->field, 1e-12)

static void same_hw(const struct lagom_hw *a, const struct lagom_hw *b)
{
	assert_string_equal(a->gpu.name, b->gpu.name);
	SAME_U(gpu.sm_count);
	SAME_U(gpu.mem_bytes);
	SAME_D(gpu.hbm_Bps);
	for (int i = 0; i < LAGOM_PREC_COUNT; i++)
		SAME_D(gpu.tflops[i]);
	SAME_U(gpus_per_node);
	SAME_U(intra);
	SAME_D(intra_link_Bps);
	SAME_U(intra_links);
	SAME_U(nvlink_peers);
	SAME_U(pcie_gen);
	SAME_U(pcie_lanes);
	SAME_U(gpus_per_pcie_switch);
	SAME_D(pcie_Bps);
	SAME_U(nic_count);
	SAME_D(nic_Bps);
	SAME_U(gpus_per_nic);
	SAME_U(nic_gdr);
	SAME_U(collnet);
	SAME_U(bw_measured);
	SAME_D(launch_us);
	SAME_D(intra_lat_us);
	SAME_D(net_lat_us);
	SAME_D(spine_lat_us);
	SAME_D(contention_sm);
	SAME_D(contention_l2);
	SAME_D(contention_l2_cap);
	SAME_D(channel_sm_share);
	SAME_U(transport);
	SAME_U(nvl_domain_nodes);
}

/*
 * What lagom-prolog up to this change added from the spec table (format
 * 1.0: its hwinfo.c, topology/'s summary and fill_from_table()): the
 * GPU's usual fabric where the topology showed none, SM count, memory and
 * NVLink links in the hardware section, GEMM, HBM and NVLink rates marked
 * "table".
 */
static void add_old_table_values(struct lagom_profile *p)
{
	const struct lagom_gpu_spec *spec = lagom_gpu_lookup(p->hw.gpu_model);
	struct lagom_profile_measurements *m = &p->meas;
	bool nvlink;

	p->version_minor = 0;
	if (spec == NULL || p->hw.gpu_count == 0)
		return;
	if (p->hw.intra == LAGOM_INTRA_DEFAULT) {
		p->hw.intra = spec->intra_default;
		if (p->hw.intra == LAGOM_INTRA_NVSWITCH)
			p->hw.nvlink_peers = p->hw.gpu_count - 1;
	}
	nvlink = p->hw.intra == LAGOM_INTRA_NVLINK ||
		 p->hw.intra == LAGOM_INTRA_NVSWITCH;
	p->hw.gpu_sm_count = (int)spec->sm_count;
	p->hw.gpu_memory_bytes = spec->mem_bytes;
	if (nvlink && p->hw.nvlinks_per_gpu == 0)
		p->hw.nvlinks_per_gpu = (int)spec->nvlink_links;
	for (int i = 0; i < LAGOM_PREC_COUNT; i++)
		if (spec->tflops[i] > 0)
			m->gemm_flops[i] = (struct lagom_quantity){
				spec->tflops[i] * 1e12, LAGOM_SOURCE_TABLE
			};
	m->hbm_bw_Bps = (struct lagom_quantity){ spec->hbm_Bps,
						 LAGOM_SOURCE_TABLE };
	if (nvlink)
		m->intra_bw_Bps = (struct lagom_quantity){
			spec->nvlink_link_Bps * spec->nvlink_links,
			LAGOM_SOURCE_TABLE
		};
}

/* The hardware section holds no spec-table value: no SM count, memory
 * or rate, whatever the GPU. */
static void assert_measured_only(const struct lagom_profile *p)
{
	assert_int_equal(p->hw.gpu_sm_count, 0);
	assert_int_equal(p->hw.gpu_memory_bytes, 0);
	assert_int_equal(p->meas.hbm_bw_Bps.source, LAGOM_SOURCE_ABSENT);
	assert_int_equal(p->meas.intra_bw_Bps.source, LAGOM_SOURCE_ABSENT);
	for (int i = 0; i < LAGOM_PREC_COUNT; i++)
		assert_int_equal(p->meas.gemm_flops[i].source,
				 LAGOM_SOURCE_ABSENT);
}

static void old_and_new_profiles_agree(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct lagom_node_topo *t = load(fixtures[i].rel,
						 fixtures[i].nccl);
		struct lagom_profile *p = lagom_profile_create("n1");
		struct lagom_profile *old = lagom_profile_create("n1");
		struct lagom_error perr = { 0 }, oerr = { 0 };
		struct lagom_hw from_new, from_old;
		int prc, orc;

		assert_non_null(p);
		assert_non_null(old);
		(void)prolog_hw_from_topo(t, &p->hw, NULL);
		assert_measured_only(p);
		*old = *p;
		add_old_table_values(old);
		prc = lagom_profile_to_hw(p, &from_new, &perr);
		orc = lagom_profile_to_hw(old, &from_old, &oerr);
		print_message("# %s: '%s'\n", fixtures[i].rel,
			      prc ? perr.text : "ok");
		assert_int_equal(prc, orc);
		if (fixtures[i].usable) {
			assert_int_equal(prc, 0);
			same_hw(&from_new, &from_old);
		} else {
			assert_int_not_equal(prc, 0);
		}
		lagom_profile_destroy(old);
		lagom_profile_destroy(p);
		free(t);
	}
}

/* The fixture's hardware as the planner sees it: 0 or the error. */
static int plan_hw(struct lagom_node_topo *t, struct lagom_hw *hw,
		   struct lagom_error *err)
{
	struct lagom_profile *p = lagom_profile_create("n1");
	int rc;

	assert_non_null(p);
	rc = prolog_hw_from_topo(t, &p->hw, err);
	if (rc == 0)
		rc = lagom_profile_to_hw(p, hw, err);
	lagom_profile_destroy(p);
	return rc;
}

/*
 * Kept format-1.0 profiles (tests/prolog/format-1.0/), written by the
 * lagom-prolog before this change for two topology fixtures: SM count,
 * memory and the fabric from the spec table, GEMM, HBM and NVLink rates
 * marked "table".  They still read, and plan as the profile this
 * lagom-prolog writes for the same topology: field by field.  p5 also
 * has its fabric as the table's guess ("nvswitch"), now "unknown".
 */
static void format_1_0_profiles_plan_the_same(void **state)
{
	static const struct {
		const char *kept, *rel;
		bool nccl;
	} cases[] = {
		{ "../prolog/format-1.0/p5-old.json",
		  "nccl-topo/aws-p5.48xl-topo.xml", true },
		{ "../prolog/format-1.0/dgx2-old.json", "hwloc/nvidiaDGX2.xml",
		  false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lagom_node_topo *t = load(cases[i].rel, cases[i].nccl);
		struct lagom_profile *old = NULL;
		struct lagom_error err = { 0 };
		struct lagom_hw from_old, from_new;
		char path[4096];

		lagom_fixture(path, sizeof(path), cases[i].kept);
		if (lagom_profile_read_file(path, NULL, &old, &err) != 0)
			fail_msg("%s: %s", cases[i].kept, err.text);
		assert_int_equal(old->version_minor, 0);
		assert_true(old->hw.gpu_sm_count > 0);
		assert_int_equal(old->meas.hbm_bw_Bps.source,
				 LAGOM_SOURCE_TABLE);
		if (lagom_profile_to_hw(old, &from_old, &err) != 0)
			fail_msg("%s: %s", cases[i].kept, err.text);
		if (plan_hw(t, &from_new, &err) != 0)
			fail_msg("%s: %s", cases[i].rel, err.text);
		same_hw(&from_old, &from_new);
		lagom_profile_destroy(old);
		free(t);
	}
}

/* "unknown" fabric is format 1.1's: a file that says 1.0 is refused. */
static void unknown_fabric_needs_1_1(void **state)
{
	struct lagom_node_topo *t = load("nccl-topo/aws-p5.48xl-topo.xml",
					 true);
	struct lagom_profile *p = lagom_profile_create("n1"), *back = NULL;
	struct lagom_error err = { 0 };
	char *text = NULL, *v;

	(void)state;
	assert_non_null(p);
	assert_int_equal(prolog_hw_from_topo(t, &p->hw, NULL), 0);
	assert_int_equal(p->hw.intra, LAGOM_INTRA_DEFAULT);
	assert_int_equal(lagom_profile_to_string(p, &text, &err), 0);
	assert_non_null(strstr(text, "\"intra\": \"unknown\""));
	assert_int_equal(
		lagom_profile_from_buffer(text, strlen(text), &back, &err), 0);
	assert_int_equal(back->hw.intra, LAGOM_INTRA_DEFAULT);
	lagom_profile_destroy(back);
	back = NULL;
	v = strstr(text, "\"1.1\"");
	assert_non_null(v);
	v[3] = '0';
	assert_int_equal(
		lagom_profile_from_buffer(text, strlen(text), &back, &err),
		-EINVAL);
	assert_non_null(strstr(err.text, "needs format version 1.1"));
	assert_null(back);
	free(text);
	lagom_profile_destroy(p);
	free(t);
}

/*
 * DGX-2: 16 V100 on NVSwitches, 6 x 25000 MB/s per GPU = 6 links
 * (NVLinkBandwidth); four GPUs below each root port (bridges obj604 ->
 * obj538 -> ... -> 34:00.0, 36:00.0, 39:00.0, 3b:00.0); Gen3 x16
 * (15.753846 GB/s); no NIC in the file.
 */
static void hw_dgx2(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load("hwloc/nvidiaDGX2.xml",
						      false);
	struct lagom_error err = { 0 };
	struct lagom_hw hw;

	(void)state;
	if (plan_hw(t, &hw, &err) != 0)
		fail_msg("%s", err.text);
	assert_string_equal(hw.gpu.name, "V100-SXM");
	assert_int_equal(hw.gpus_per_node, 16);
	assert_int_equal(hw.intra, LAGOM_INTRA_NVSWITCH);
	assert_int_equal(hw.intra_links, 6);
	assert_int_equal(hw.pcie_gen, 3);
	assert_int_equal(hw.pcie_lanes, 16);
	assert_int_equal(hw.gpus_per_pcie_switch, 4);
	assert_int_equal(hw.nic_count, 0);
	free(t);
}

/*
 * p5: sm="90" and no model name: H100-SXM by architecture; the file has no
 * <nvlink>, so the H100's usual fabric (NVSwitch); 32 EFA NICs at
 * speed="100000" Mb/s = 12.5e9 B/s, one GPU per NIC; 32.0 GT/s x16 = Gen5.
 */
static void hw_p5(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load(
		"nccl-topo/aws-p5.48xl-topo.xml", true);
	struct lagom_error err = { 0 };
	struct lagom_hw hw;

	(void)state;
	if (plan_hw(t, &hw, &err) != 0)
		fail_msg("%s", err.text);
	assert_string_equal(hw.gpu.name, "H100-SXM");
	assert_int_equal(hw.gpus_per_node, 8);
	assert_int_equal(hw.intra, LAGOM_INTRA_NVSWITCH);
	assert_int_equal(hw.nic_count, 32);
	assert_double_rel(hw.nic_Bps, 100e9 / 8, 1e-12);
	assert_int_equal(hw.gpus_per_nic, 1);
	assert_true(hw.nic_gdr);
	assert_int_equal(hw.pcie_gen, 5);
	assert_int_equal(hw.gpus_per_pcie_switch, 1);
	free(t);
}

/* p4d: the file gives no NIC speed, so the node plans as one without a
 * network; with one set, 4 NICs x 2 GPUs. */
static void hw_p4d(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load(
		"nccl-topo/aws-p4d-24xl-topo.xml", true);
	struct lagom_error err = { 0 };
	struct lagom_hw hw;

	(void)state;
	if (plan_hw(t, &hw, &err) != 0)
		fail_msg("%s", err.text);
	assert_int_equal(hw.nic_count, 0);
	for (int n = 0; n < t->nnics; n++)
		t->nics[n].speed_Bps = 100e9 / 8;
	if (plan_hw(t, &hw, &err) != 0)
		fail_msg("%s", err.text);
	/* device="0x20b0" in the file: the 40 GB A100 of p4d.24xlarge */
	assert_string_equal(hw.gpu.name, "A100-SXM-40GB");
	assert_int_equal(hw.nic_count, 4);
	assert_int_equal(hw.gpus_per_nic, 2);
	assert_int_equal(hw.gpus_per_pcie_switch, 2);
	assert_int_equal(hw.pcie_gen, 3); /* link_speed="8 GT/s" */
	free(t);
}

/* What the model cannot take: P100 (not in the spec table), no GPU (g5's
 * file), GPUs of two models (32em64t: M2075 names and one "Tesla K40m"). */
static void hw_refused(void **state)
{
	static const struct {
		const char *rel;
		bool nccl;
		int rc;
		const char *says;
	} cases[] = {
		{ "hwloc/power8gpudistances.xml", false, -EINVAL,
		  "unknown GPU" },
		{ "nccl-topo/aws-g5.48xl-topo.xml", true, -ENODEV, "no GPU" },
		{ "hwloc/32em64t-2n8c2t-pci-normalio.xml", false, -EINVAL,
		  "differ" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lagom_node_topo *t = topo_fixture_load(cases[i].rel,
							      cases[i].nccl);
		struct lagom_error err = { 0 };
		struct lagom_hw hw = { .gpus_per_node = 99 };

		assert_int_equal(plan_hw(t, &hw, &err), cases[i].rc);
		if (!strstr(err.text, cases[i].says))
			fail_msg("%s: '%s'", cases[i].rel, err.text);
		assert_int_equal(hw.gpus_per_node, 99);
		free(t);
	}
}

/*
 * A slower NIC among faster ones sets the line rate (NCCL's rings run at
 * the slowest), a slower GPU link sets the PCIe generation, and GPUs of
 * two models leave the profile without a GPU model (issue 12).
 */
static void weakest_link_and_mixed_gpus(void **state)
{
	struct lagom_node_topo *t = load("nccl-topo/aws-p5.48xl-topo.xml",
					 true);
	struct lagom_profile_hw hw = { 0 };
	struct lagom_error err = { 0 };
	struct lagom_hw model_hw;

	(void)state;
	t->nics[3].speed_Bps = 25e9 / 8;
	t->gpus[5].pcie.pcie_GTps = 16;
	assert_int_equal(prolog_hw_from_topo(t, &hw, NULL), 0);
	assert_double_rel(hw.nic_link_bw_Bps, 25e9 / 8, 1e-12);
	assert_int_equal(hw.nic_count, 32);
	assert_int_equal(hw.pcie_gen, 4);
	assert_int_equal(plan_hw(t, &model_hw, &err), 0);
	assert_double_rel(model_hw.nic_Bps, 25e9 / 8, 1e-12);
	assert_int_equal(model_hw.pcie_gen, 4);

	snprintf(t->gpus[2].model, sizeof(t->gpus[2].model), "H200");
	memset(&hw, 0, sizeof(hw));
	assert_int_equal(prolog_hw_from_topo(t, &hw, &err), -EINVAL);
	assert_non_null(strstr(err.text, "GPUs differ"));
	assert_string_equal(hw.gpu_model, "");
	assert_int_equal(hw.gpu_count, 8);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(old_and_new_profiles_agree),
		cmocka_unit_test(format_1_0_profiles_plan_the_same),
		cmocka_unit_test(unknown_fabric_needs_1_1),
		cmocka_unit_test(hw_dgx2),
		cmocka_unit_test(hw_p5),
		cmocka_unit_test(hw_p4d),
		cmocka_unit_test(hw_refused),
		cmocka_unit_test(weakest_link_and_mixed_gpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
