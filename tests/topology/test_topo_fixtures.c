/*
 * tests/topology/test_topo_fixtures.c - every hwloc and NCCL topology
 * fixture, loaded as it is.  Expected numbers come from reading the files
 * (tests/fixtures/PROVENANCE.md says what each machine is); each check says
 * where in the file its number is.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "tests/topology/topo_fixture.h"
#include "topology/topology.h"

/*
 * nvidiaDGX2.xml: 16 PCIDev "0302 [10de:1db8]" each with an nvmlN OS device
 * whose GPUModel is "Tesla V100-SXM3-32GB-H".  The NVLinkBandwidth matrix
 * (distances2hetero, 28 objects) lists 16 OSDev GPUs and 12 PCIDev
 * (subtype="NVSwitch"); each GPU row holds 6 x 25000 MB/s towards
 * NVSwitches and 0 towards every other GPU.  Two NUMANode objects.
 * pci_link_speed="15.753846" GB/s = PCIe Gen3 x16.
 */
static void test_dgx2(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load("hwloc/nvidiaDGX2.xml",
						      false);

	assert_int_equal(t->gpus_per_node, 16);
	assert_int_equal(t->nnvswitches, 12);
	assert_true(t->has_nvlink);
	assert_int_equal(t->nnuma, 2);
	assert_int_equal(t->nnics, 0); /* no NIC in this trimmed export */
	for (int g = 0; g < 16; g++) {
		assert_string_equal(t->gpus[g].model, "Tesla V100-SXM3-32GB-H");
		assert_int_equal(t->gpus[g].pci_device, 0x1db8);
		assert_double_rel(t->gpus[g].nvswitch_bw_Bps, 6 * 25000e6,
				  1e-9);
		assert_int_equal(t->gpus[g].pcie.pcie_width, 16);
		assert_double_near(t->gpus[g].pcie.pcie_GTps, 8.0, 1e-9);
		for (int h = 0; h < 16; h++)
			assert_double_near(t->nvlink_bw_Bps[g][h], 0, 0);
	}
	/* Sorted by bus id: 0000:34:00.0 is nvml0 (line 42-43). */
	assert_string_equal(t->gpus[0].busid, "0000:34:00.0");
	assert_string_equal(t->gpus[0].nvml_name, "nvml0");
	assert_int_equal(t->gpus[0].numa_node, 0);
	assert_int_equal(t->gpus[15].numa_node, 1);
	free(t);
}

/*
 * power8gpudistances.xml: 4 PCIDev "0302 [10de:15f9]" (P100-SXM2) with
 * cudaN, openclN and nvmlN OS devices.  NVLinkBandwidth, 6 objects
 * (nvml0..3, Package 0, Package 1): nvml0<->nvml1 and nvml2<->nvml3 40000
 * MB/s, each GPU 40000 MB/s to its own Package, nothing else.
 */
static void test_power8(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load(
		"hwloc/power8gpudistances.xml", false);

	assert_int_equal(t->gpus_per_node, 4);
	assert_true(t->has_nvlink);
	assert_int_equal(t->nnvswitches, 0);
	assert_double_rel(t->nvlink_bw_Bps[0][1], 40000e6, 1e-9);
	assert_double_rel(t->nvlink_bw_Bps[1][0], 40000e6, 1e-9);
	assert_double_rel(t->nvlink_bw_Bps[2][3], 40000e6, 1e-9);
	assert_double_near(t->nvlink_bw_Bps[0][2], 0, 0);
	assert_double_near(t->nvlink_bw_Bps[1][3], 0, 0);
	for (int g = 0; g < 4; g++) {
		char cuda[16], nvml[16];

		snprintf(cuda, sizeof(cuda), "cuda%d", g);
		snprintf(nvml, sizeof(nvml), "nvml%d", g);
		assert_string_equal(t->gpus[g].model, "Tesla P100-SXM2-16GB");
		assert_string_equal(t->gpus[g].cuda_name, cuda);
		assert_string_equal(t->gpus[g].nvml_name, nvml);
		assert_int_equal(t->gpus[g].cuda_dev, g);
		assert_double_rel(t->gpus[g].cpu_nvlink_bw_Bps, 40000e6, 1e-9);
		assert_double_near(t->gpus[g].nvswitch_bw_Bps, 0, 0);
	}
	free(t);
}

/* nvidia-dgx-gb10.xml: one Package, one NUMANode, no PCI object at all. */
static void test_gb10(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load(
		"hwloc/nvidia-dgx-gb10.xml", false);

	assert_int_equal(t->gpus_per_node, 0);
	assert_int_equal(t->nnics, 0);
	assert_int_equal(t->nnuma, 1);
	assert_false(t->has_nvlink);
	free(t);
}

/*
 * 24em64t-2n6c2t-pci.xml: NICs 04:00.0 eth0, 04:00.1 eth1 (82576) and a
 * Mellanox 05:00.0 (class 0c06) with eth2, ib0 and mlx4_0 (lines 93-101);
 * three NVIDIA "0302 [10de:06d2]" GPUs without OS devices or model name.
 */
static void test_24em64t(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load(
		"hwloc/24em64t-2n6c2t-pci.xml", false);

	assert_int_equal(t->nnics, 3);
	assert_int_equal(t->nvfs_skipped, 0);
	assert_string_equal(t->nics[0].name, "eth0");
	assert_int_equal(t->nics[0].kind, LAGOM_NIC_ETHERNET);
	assert_string_equal(t->nics[2].name, "mlx4_0");
	assert_string_equal(t->nics[2].netdev, "ib0");
	assert_int_equal(t->nics[2].kind, LAGOM_NIC_IB);
	assert_int_equal(t->nics[2].numa_node, 0);
	assert_int_equal(t->gpus_per_node, 3);
	assert_false(t->has_nvlink);
	/* 06:00.0 is on NUMA node 0 with all three NICs (same node). */
	assert_string_equal(t->gpus[0].busid, "0000:06:00.0");
	assert_int_equal(t->gpus[0].nic_affinity, LAGOM_AFF_NUMA);
	assert_int_equal(lagom_topo_nics_per_gpu(t, 0), 3);
	/* 11:00.0 and 14:00.0 sit on node 1, which has no NIC. */
	assert_int_equal(t->gpus[1].nic_affinity, LAGOM_AFF_SYSTEM);
	free(t);
}

/*
 * 32em64t-2n8c2t-pci-normalio.xml: three "0302 [10de:1094]" GPUs
 * (03:00.0, 83:00.0, 84:00.0; only 84:00.0 has an OS device, cuda0 with
 * GPUModel "Tesla K40m", line 222); NICs 81:00.0 eth0, 81:00.1 eth1 and a
 * ConnectX-4 04:00.0 with ib0 and mlx5_0 (line 247) that sits below root
 * port 80:03.0 together with GPU 84:00.0 (lines 216-219).  The AMD GPU
 * 84:00.1 is not NVIDIA and is not counted.
 */
static void test_32em64t(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load(
		"hwloc/32em64t-2n8c2t-pci-normalio.xml", false);

	assert_int_equal(t->gpus_per_node, 3);
	assert_int_equal(t->nnics, 3);
	assert_false(t->has_nvlink);
	assert_string_equal(t->gpus[2].busid, "0000:84:00.0");
	assert_string_equal(t->gpus[2].model, "Tesla K40m");
	assert_string_equal(t->gpus[2].cuda_name, "cuda0");
	assert_string_equal(t->nics[2].name, "mlx5_0");
	assert_int_equal(t->nics[2].kind, LAGOM_NIC_IB);
	assert_int_equal(t->gpus[2].nic_affinity, LAGOM_AFF_PCIE_SWITCH);
	assert_int_equal(t->gpus[2].nic_mask, 1u << 2);
	/* 03:00.0 is alone on NUMA node 0 where no NIC is. */
	assert_int_equal(t->gpus[0].nic_affinity, LAGOM_AFF_SYSTEM);
	free(t);
}

/*
 * 16intel64-manyVFs.xml: class 0200 functions: 02:00.0/.1 I350 (eth0, eth1),
 * four Cisco VIC physical functions [1137:0043] (0b:00.0 eth4+usnic_0,
 * 0c:00.0 eth5+usnic_1, 88:00.0 eth6+usnic_2, 89:00.0 eth7) and 12 "VIC
 * Userspace NIC" virtual functions [1137:00cf]/[1138:00cf] without OS
 * devices (0b:00.1-3, 0c:00.1-4, 88:00.1-5).
 */
static void test_many_vfs(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load(
		"hwloc/16intel64-manyVFs.xml", false);

	assert_int_equal(t->nnics, 6);
	assert_int_equal(t->nvfs_skipped, 12);
	assert_int_equal(t->gpus_per_node, 0);
	assert_int_equal(t->nnuma, 2);
	assert_string_equal(t->nics[2].name, "usnic_0");
	assert_string_equal(t->nics[2].netdev, "eth4");
	assert_int_equal(t->nics[2].kind, LAGOM_NIC_ROCE);
	assert_string_equal(t->nics[5].name, "eth7");
	assert_int_equal(t->nics[5].kind, LAGOM_NIC_ETHERNET);
	for (int n = 0; n < t->nnics; n++)
		assert_int_not_equal(t->nics[n].pci_device, 0x00cf);
	free(t);
}

/* 96em64t-4n4d3ca2co-pci.xml: eight BCM5709 functions eth0..eth7, two per
 * NUMA node (4 NUMANode objects); the only display device is an ATI ES1000. */
static void test_96em64t(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load(
		"hwloc/96em64t-4n4d3ca2co-pci.xml", false);

	assert_int_equal(t->gpus_per_node, 0);
	assert_int_equal(t->nnics, 8);
	assert_int_equal(t->nnuma, 4);
	for (int n = 0; n < 8; n++) {
		assert_int_equal(t->nics[n].kind, LAGOM_NIC_ETHERNET);
		assert_int_equal(t->nics[n].numa_node, n / 2);
	}
	free(t);
}

/*
 * aws-p4d-24xl-topo.xml / aws-p4de: two <cpu numaid>, four PCIe switches
 * (class 0x060400), each with two GPUs (class 0x030200, device 0x20b0 on
 * p4d, 0x20b2 on p4de) and one EFA NIC (vendor 0x1d0f device 0xefa0),
 * link_speed "8 GT/s" width 16.  No <nic>/<net> children, no speeds.
 */
static void check_p4(const char *rel, const char *model)
{
	struct lagom_node_topo *t = topo_fixture_load(rel, true);

	assert_int_equal(t->gpus_per_node, 8);
	assert_int_equal(t->nnics, 4);
	assert_int_equal(t->nnuma, 2);
	assert_false(t->has_nvlink); /* the file has no <nvlink> */
	for (int g = 0; g < 8; g++) {
		assert_string_equal(t->gpus[g].model, model);
		assert_int_equal(t->gpus[g].nic_affinity,
				 LAGOM_AFF_PCIE_SWITCH);
		assert_int_equal(lagom_topo_nics_per_gpu(t, g), 1);
		assert_int_equal(t->gpus[g].numa_node, g / 4);
		assert_double_rel(t->gpus[g].pcie.pcie_bw_Bps,
				  8e9 * 16 * 128 / 130 / 8, 1e-9);
	}
	for (int n = 0; n < 4; n++) {
		assert_int_equal(t->nics[n].kind, LAGOM_NIC_EFA);
		assert_int_equal(lagom_topo_gpus_per_nic(t, n), 2);
		assert_true(t->gpus[2 * n].nic_mask == 1u << n);
		assert_true(t->nics[n].speed_Bps == 0);
	}
	assert_string_equal(t->nics[0].busid, "0000:10:1b.0");
	free(t);
}

static void test_p4d(void **state)
{
	check_p4("nccl-topo/aws-p4d-24xl-topo.xml", "A100-SXM4-40GB");
	check_p4("nccl-topo/aws-p4de-24xl-topo.xml", "A100-SXM4-80GB");
}

/*
 * aws-p5.48xl-topo.xml: one <cpu numaid="0">, eight switches, each with one
 * GPU (<gpu dev=N sm="90">, link 32.0 GT/s x16) and four NICs (<net
 * name="rdmap..." speed="100000">), 32 NICs in all.
 */
static void test_p5(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load(
		"nccl-topo/aws-p5.48xl-topo.xml", true);

	assert_int_equal(t->gpus_per_node, 8);
	assert_int_equal(t->nnics, 32);
	assert_int_equal(t->nnuma, 1);
	for (int g = 0; g < 8; g++) {
		assert_int_equal(t->gpus[g].sm, 90);
		assert_int_equal(t->gpus[g].cuda_dev, g);
		assert_int_equal(lagom_topo_nics_per_gpu(t, g), 4);
		assert_int_equal(t->gpus[g].nic_affinity,
				 LAGOM_AFF_PCIE_SWITCH);
		assert_double_near(t->gpus[g].pcie.pcie_GTps, 32.0, 1e-9);
	}
	for (int n = 0; n < 32; n++) {
		assert_int_equal(t->nics[n].kind, LAGOM_NIC_EFA);
		assert_true(t->nics[n].speed_Bps == 100e9 / 8);
		assert_int_equal(lagom_topo_gpus_per_nic(t, n), 1);
	}
	assert_string_equal(t->nics[0].name, "rdmap79s0");
	assert_true(t->gpus[0].nic_mask == 0xf);
	free(t);
}

/*
 * aws-g5.48xl-topo.xml: two <cpu>, nine <pci busid> without class, vendor
 * or children: the file does not say which is a GPU (NCCL fills that in
 * from the live machine).  PCIe only: no <nvlink>.
 */
static void test_g5(void **state)
{
	struct lagom_node_topo *t = topo_fixture_load(
		"nccl-topo/aws-g5.48xl-topo.xml", true);

	assert_int_equal(t->nunknown_pci, 9);
	assert_int_equal(t->gpus_per_node, 0);
	assert_int_equal(t->nnics, 0);
	assert_int_equal(t->nnuma, 2);
	assert_false(t->has_nvlink);
	free(t);
}

static void test_missing_file(void **state)
{
	struct lagom_node_topo *t = malloc(sizeof(*t));
	struct lagom_error err = { 0 };

	t->gpus_per_node = 77;
	assert_int_equal(lagom_topo_load_hwloc("/nonexistent.xml", t, &err),
			 -ENOENT);
	assert_int_equal(lagom_topo_load_nccl_file("/nonexistent.xml", t, &err),
			 -ENOENT);
	assert_non_null(strstr(err.text, "/nonexistent.xml"));
	assert_int_equal(t->gpus_per_node, 77); /* untouched */
	free(t);
}

/* This machine, live: whatever it has, the loader succeeds and every NIC
 * it reports has a name and is a physical function. */
static void test_live(void **state)
{
	struct lagom_node_topo *t = malloc(sizeof(*t));
	struct lagom_error err = { 0 };

	assert_non_null(t);
	if (lagom_topo_load_hwloc(NULL, t, &err) != 0)
		fail_msg("live load: %s", err.text);
	assert_string_equal(t->source, "hwloc");
	assert_true(t->nnuma >= 1);
	for (int n = 0; n < t->nnics; n++)
		assert_true(t->nics[n].name[0] != '\0');
	print_message("# live: %d GPUs, %d NICs, %d VFs skipped, %d NUMA\n",
		      t->gpus_per_node, t->nnics, t->nvfs_skipped, t->nnuma);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dgx2),
		cmocka_unit_test(test_power8),
		cmocka_unit_test(test_gb10),
		cmocka_unit_test(test_24em64t),
		cmocka_unit_test(test_32em64t),
		cmocka_unit_test(test_many_vfs),
		cmocka_unit_test(test_96em64t),
		cmocka_unit_test(test_p4d),
		cmocka_unit_test(test_p5),
		cmocka_unit_test(test_g5),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
