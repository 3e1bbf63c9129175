/*
 * One topology, one hardware: the profile lagom-prolog writes for a
 * topology, read back the way the planner reads it (lagom_profile_to_hw),
 * gives the same struct lagom_hw as lagom_topo_to_hw() on that topology.
 * Every fixture of tests/fixtures/{hwloc,nccl-topo}; NICs of unknown speed
 * (hwloc XML has none) are set to 200 Gb/s first, as a live node reads them
 * from sysfs.  Both paths refuse the same fixtures.
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
	bool usable; /* false: both paths refuse it (say why) */
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
		if (t->nics[n].speed_Gbit == 0)
			t->nics[n].speed_Gbit = 200;
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

static void profile_and_topology_agree(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct lagom_node_topo *t = load(fixtures[i].rel,
						 fixtures[i].nccl);
		struct lagom_profile *p = lagom_profile_create("n1");
		struct lagom_error perr = { 0 }, terr = { 0 };
		struct lagom_hw from_profile, from_topo;
		int prc, trc;

		assert_non_null(p);
		(void)prolog_hw_from_topo(t, &p->hw, NULL);
		prc = lagom_profile_to_hw(p, &from_profile, &perr);
		trc = lagom_topo_to_hw(t, &from_topo, &terr);
		print_message("# %s: profile '%s', topology '%s'\n",
			      fixtures[i].rel, prc ? perr.text : "ok",
			      trc ? terr.text : "ok");
		if (fixtures[i].usable) {
			assert_int_equal(prc, 0);
			assert_int_equal(trc, 0);
			same_hw(&from_profile, &from_topo);
		} else {
			assert_int_not_equal(prc, 0);
			assert_int_not_equal(trc, 0);
		}
		lagom_profile_destroy(p);
		free(t);
	}
}

/*
 * The three places the two translations disagreed (issue 12): a slower
 * NIC among faster ones sets the line rate (NCCL's rings run at the
 * slowest), a slower GPU link sets the PCIe generation, and GPUs of two
 * models leave the profile without a GPU model, as lagom_topo_to_hw()
 * refuses them.
 */
static void weakest_link_and_mixed_gpus(void **state)
{
	struct lagom_node_topo *t = load("nccl-topo/aws-p5.48xl-topo.xml",
					 true);
	struct lagom_profile_hw hw = { 0 };
	struct lagom_error err = { 0 };
	struct lagom_hw topo_hw;

	(void)state;
	t->nics[3].speed_Gbit = 25;
	t->gpus[5].pcie.pcie_GTps = 16;
	assert_int_equal(prolog_hw_from_topo(t, &hw, NULL), 0);
	assert_double_rel(hw.nic_link_bw_Bps, 25e9 / 8, 1e-12);
	assert_int_equal(hw.nic_count, 32);
	assert_int_equal(hw.pcie_gen, 4);
	assert_int_equal(lagom_topo_to_hw(t, &topo_hw, &err), 0);
	assert_double_rel(topo_hw.nic_Bps, 25e9 / 8, 1e-12);
	assert_int_equal(topo_hw.pcie_gen, 4);

	snprintf(t->gpus[2].model, sizeof(t->gpus[2].model), "H200");
	memset(&hw, 0, sizeof(hw));
	assert_int_equal(prolog_hw_from_topo(t, &hw, &err), -EINVAL);
	assert_non_null(strstr(err.text, "GPUs differ"));
	assert_string_equal(hw.gpu_model, "");
	assert_int_equal(hw.gpu_count, 8);
	assert_int_equal(lagom_topo_to_hw(t, &topo_hw, &err), -EINVAL);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(profile_and_topology_agree),
		cmocka_unit_test(weakest_link_and_mixed_gpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
