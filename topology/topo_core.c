/* topology/topo_core.c - the plain topology value: init, PCIe helpers,
 * GPU <-> NIC affinity.  No I/O. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topology/topology_int.h"

void lagom_topo_init(struct lagom_node_topo *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < LAGOM_TOPO_MAX_GPUS; i++) {
		t->gpus[i].cuda_dev = -1;
		t->gpus[i].numa_node = -1;
		t->gpus[i].nic_affinity = LAGOM_AFF_NONE;
	}
	for (int i = 0; i < LAGOM_TOPO_MAX_NICS; i++)
		t->nics[i].numa_node = -1;
}

void lagom_topo_copy(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

int lagom_topo_pcisw_intern(struct lagom_node_topo *t, const char *busid,
			    int parent)
{
	for (int i = 0; i < t->npcisw; i++)
		if (t->pcisw[i].parent == parent &&
		    strcmp(t->pcisw[i].busid, busid) == 0)
			return i;
	if (t->npcisw >= LAGOM_TOPO_MAX_PCISW)
		return -E2BIG;
	lagom_topo_copy(t->pcisw[t->npcisw].busid, LAGOM_TOPO_BUSID_MAX, busid);
	t->pcisw[t->npcisw].parent = parent;
	return t->npcisw++;
}

/* PCIe Gen1/2 use 8b/10b line coding, Gen3 and later 128b/130b. */
double lagom_pcie_bw_Bps(double GTps, int width)
{
	double coding = GTps >= 8.0 ? 128.0 / 130.0 : 8.0 / 10.0;

	if (GTps <= 0 || width <= 0)
		return 0;
	return GTps * 1e9 * width * coding / 8.0;
}

/*
 * hwloc reports a link as lanes x rate x coding / 8 in GB/s.  Find the
 * (rate, width) pair that gives it, to within 1%.
 */
double lagom_pcie_GTps_from_GBps(double GBps, int *width_out)
{
	static const double rates[] = { 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	static const int widths[] = { 16, 8, 4, 2, 1, 32, 12 };

	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
		for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
			double bw = lagom_pcie_bw_Bps(rates[r], widths[w]);
			double diff = bw / 1e9 - GBps;

			if (GBps > 0 && diff < 0.01 * GBps &&
			    diff > -0.01 * GBps) {
				*width_out = widths[w];
				return rates[r];
			}
		}
	*width_out = 0;
	return 0;
}

/* Facts from the PCI ID database (pci.ids), NVIDIA data-centre parts. */
const char *lagom_nvidia_model_by_device(uint16_t device)
{
	static const struct {
		uint16_t device;
		const char *model;
	} table[] = {
		{ 0x15f9, "Tesla P100-SXM2-16GB" },
		{ 0x1db1, "Tesla V100-SXM2-16GB" },
		{ 0x1db5, "Tesla V100-SXM2-32GB" },
		{ 0x1db8, "Tesla V100-SXM3-32GB" },
		{ 0x20b0, "A100-SXM4-40GB" },
		{ 0x20b2, "A100-SXM4-80GB" },
		{ 0x20b5, "A100-PCIE-80GB" },
		{ 0x2237, "A10G" },
		{ 0x2330, "H100-SXM5-80GB" },
		{ 0x2331, "H100-PCIE-80GB" },
		{ 0x2335, "H200-SXM-141GB" },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].device == device)
			return table[i].model;
	return NULL;
}

/* Virtual-function device ids from pci.ids (vendor, device). */
bool lagom_pci_is_known_vf(uint16_t vendor, uint16_t device)
{
	static const struct {
		uint16_t vendor, device;
	} table[] = {
		{ 0x8086, 0x10ca }, /* 82576 VF */
		{ 0x8086, 0x1520 }, /* I350 VF */
		{ 0x8086, 0x10ed }, /* 82599 VF */
		{ 0x8086, 0x154c }, /* XL710/X710 VF */
		{ 0x8086, 0x1889 }, /* E800 adaptive VF */
		{ 0x15b3, 0x1002 }, /* ConnectX-2 VF */
		{ 0x15b3, 0x1004 }, /* ConnectX-3 VF */
		{ 0x15b3, 0x1012 }, /* ConnectX-4 VF */
		{ 0x15b3, 0x1014 }, /* ConnectX-4 Lx VF */
		{ 0x15b3, 0x1016 }, /* ConnectX-5 VF */
		{ 0x15b3, 0x1018 }, /* ConnectX-5 Ex VF */
		{ 0x15b3, 0x101a }, /* ConnectX-6 VF */
		{ 0x15b3, 0x101c }, /* ConnectX-6 Dx VF */
		{ 0x15b3, 0x101e }, /* ConnectX family VF */
		{ 0x1137, 0x00cf }, /* Cisco VIC usNIC VF */
		{ 0x1138, 0x00cf }, /* same, seen with a damaged vendor id */
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].vendor == vendor && table[i].device == device)
			return true;
	return false;
}

bool lagom_pci_class_is_gpu(unsigned class_id)
{
	return class_id == 0x0300 || class_id == 0x0302;
}

bool lagom_pci_class_is_nic(unsigned class_id)
{
	return (class_id >> 8) == 0x02 || class_id == 0x0c06;
}

static void swap_gpus(struct lagom_node_topo *t, int a, int b)
{
	struct lagom_topo_gpu g = t->gpus[a];
	double bw;
	uint8_t links;

	t->gpus[a] = t->gpus[b];
	t->gpus[b] = g;
	for (int k = 0; k < LAGOM_TOPO_MAX_GPUS; k++) {
		bw = t->nvlink_bw_Bps[a][k];
		t->nvlink_bw_Bps[a][k] = t->nvlink_bw_Bps[b][k];
		t->nvlink_bw_Bps[b][k] = bw;
		links = t->nvlink_links[a][k];
		t->nvlink_links[a][k] = t->nvlink_links[b][k];
		t->nvlink_links[b][k] = links;
	}
	for (int k = 0; k < LAGOM_TOPO_MAX_GPUS; k++) {
		bw = t->nvlink_bw_Bps[k][a];
		t->nvlink_bw_Bps[k][a] = t->nvlink_bw_Bps[k][b];
		t->nvlink_bw_Bps[k][b] = bw;
		links = t->nvlink_links[k][a];
		t->nvlink_links[k][a] = t->nvlink_links[k][b];
		t->nvlink_links[k][b] = links;
	}
}

/* Insertion sort: at most 64 GPUs. */
void lagom_topo_sort_gpus(struct lagom_node_topo *t)
{
	for (int i = 1; i < t->gpus_per_node; i++)
		for (int j = i; j > 0 && strcmp(t->gpus[j - 1].busid,
						t->gpus[j].busid) > 0;
		     j--)
			swap_gpus(t, j - 1, j);
}

/* Number of leading bridges two PCIe paths share. */
static int shared_bridges(const struct lagom_topo_pcie *a,
			  const struct lagom_topo_pcie *b)
{
	int n = 0;

	while (n < a->pcie_depth && n < b->pcie_depth &&
	       a->pcie_path[n] == b->pcie_path[n])
		n++;
	return n;
}

/*
 * GPU <-> NIC affinity, the order NCCL itself prefers: a NIC under a shared
 * PCIe switch (deepest shared bridge wins), then one on the same NUMA node,
 * then any.  Several NICs at the same best distance all go into the mask.
 */
static void gpu_affinity(struct lagom_node_topo *t, struct lagom_topo_gpu *g)
{
	int best_shared = 0;
	bool any_numa = false;

	g->nic_mask = 0;
	g->nic_affinity = LAGOM_AFF_NONE;
	if (t->nnics == 0)
		return;
	for (int n = 0; n < t->nnics; n++) {
		int s = shared_bridges(&g->pcie, &t->nics[n].pcie);

		if (s > best_shared)
			best_shared = s;
		if (g->numa_node >= 0 && g->numa_node == t->nics[n].numa_node)
			any_numa = true;
	}
	for (int n = 0; n < t->nnics; n++) {
		const struct lagom_topo_nic *nic = &t->nics[n];
		bool pick;

		if (best_shared > 0)
			pick = shared_bridges(&g->pcie, &nic->pcie) ==
			       best_shared;
		else if (any_numa)
			pick = nic->numa_node == g->numa_node;
		else
			pick = true;
		if (pick)
			g->nic_mask |= UINT64_C(1) << n;
	}
	g->nic_affinity = best_shared > 0 ? LAGOM_AFF_PCIE_SWITCH
			  : any_numa	  ? LAGOM_AFF_NUMA
					  : LAGOM_AFF_SYSTEM;
}

void lagom_topo_compute_affinity(struct lagom_node_topo *t)
{
	for (int g = 0; g < t->gpus_per_node; g++)
		gpu_affinity(t, &t->gpus[g]);
}

int lagom_topo_gpus_per_nic(const struct lagom_node_topo *t, int n)
{
	int count = 0;

	if (n < 0 || n >= t->nnics)
		return 0;
	for (int g = 0; g < t->gpus_per_node; g++)
		if (t->gpus[g].nic_mask & (UINT64_C(1) << n))
			count++;
	return count;
}

int lagom_topo_nics_per_gpu(const struct lagom_node_topo *t, int g)
{
	if (g < 0 || g >= t->gpus_per_node)
		return 0;
	return __builtin_popcountll(t->gpus[g].nic_mask);
}

const char *lagom_nic_kind_name(enum lagom_nic_kind kind)
{
	switch (kind) {
	case LAGOM_NIC_ETHERNET:
		return "ethernet";
	case LAGOM_NIC_IB:
		return "ib";
	case LAGOM_NIC_ROCE:
		return "roce";
	case LAGOM_NIC_EFA:
		return "efa";
	}
	return "unknown";
}
