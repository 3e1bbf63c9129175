/*
 * topology/topo_hwloc.c - fill struct lagom_node_topo through hwloc, from
 * the live machine or an hwloc XML export.  The only file of lagom that
 * includes <hwloc.h>.
 *
 * OS devices are recognised by name and attributes as well as by their
 * osdev type: hwloc 2.x reading an XML written by hwloc 3 keeps the names
 * and info attributes but not the meaning of the type numbers.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "topology/topology_int.h"
#include "topology/xml_lite_int.h"

struct hwloc_load {
	hwloc_topology_t topo;
	bool live;
	struct lagom_node_topo *t;
	hwloc_obj_t gpu_obj[LAGOM_TOPO_MAX_GPUS]; /* PCIDev of gpus[i] */
	struct lagom_error *err;
};

static bool has_prefix(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static void busid_of(const struct hwloc_pcidev_attr_s *p, char *buf,
		     size_t size)
{
	snprintf(buf, size, "%04x:%02x:%02x.%01x", (unsigned)p->domain,
		 (unsigned)p->bus, (unsigned)p->dev, (unsigned)p->func);
}

/* Read the first line of a sysfs file; false when it cannot be read. */
static bool sysfs_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool osdev_is_openfabrics(hwloc_obj_t os)
{
	static const char *const names[] = { "mlx4_", "mlx5_",	 "hfi1_",
					     "qib",   "usnic_",	 "efa_",
					     "rdmap", "bnxt_re", "irdma",
					     "ionic_" };

	if (os->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS ||
	    hwloc_obj_get_info_by_name(os, "NodeGUID"))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (has_prefix(os->name, names[i]))
			return true;
	return false;
}

static bool osdev_is_netdev(hwloc_obj_t os)
{
	return !osdev_is_openfabrics(os) &&
	       (os->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK ||
		hwloc_obj_get_info_by_name(os, "Address"));
}

/* IPoIB: an "ib" name or a 20-byte hardware address. */
static bool netdev_is_ib(hwloc_obj_t os)
{
	const char *addr = hwloc_obj_get_info_by_name(os, "Address");

	return has_prefix(os->name, "ib") || (addr && strlen(addr) == 59);
}

/* Live only: the link layer and rate sysfs gives for an RDMA device. */
static void nic_live_rdma(struct lagom_topo_nic *nic)
{
	char path[256], line[128];
	double Gbit;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/link_layer", nic->name);
	if (sysfs_line(path, line, sizeof(line)) && nic->kind != LAGOM_NIC_EFA)
		nic->kind = strcmp(line, "InfiniBand") == 0 ? LAGOM_NIC_IB
							    : LAGOM_NIC_ROCE;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/rate",
		 nic->name);
	if (sysfs_line(path, line, sizeof(line)) &&
	    sscanf(line, "%lf Gb/sec", &Gbit) == 1 && Gbit > 0 && Gbit < 1e6)
		nic->speed_Bps = Gbit * 1e9 / 8;
}

/* Live only: the speed of an Ethernet netdev in Mb/s (-1 when down). */
static void nic_live_netdev(struct lagom_topo_nic *nic)
{
	char path[256], line[64];
	long Mbit;

	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", nic->netdev);
	if (sysfs_line(path, line, sizeof(line)) &&
	    sscanf(line, "%ld", &Mbit) == 1 && Mbit > 0)
		nic->speed_Bps = (double)Mbit * 1e6 / 8;
}

static bool pci_is_live_vf(const char *busid)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn", busid);
	return access(path, F_OK) == 0;
}

static int numa_of(hwloc_topology_t topo, hwloc_obj_t obj)
{
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, obj);

	if (!anc || !anc->nodeset || hwloc_bitmap_weight(anc->nodeset) != 1)
		return -1;
	return hwloc_bitmap_first(anc->nodeset);
}

/* The chain of PCI-to-PCI bridges above obj, outermost first. */
static int pcie_path_of(struct hwloc_load *L, hwloc_obj_t obj,
			struct lagom_topo_pcie *pcie)
{
	hwloc_obj_t chain[LAGOM_TOPO_PCIE_DEPTH];
	int n = 0, parent = -1;
	char busid[LAGOM_TOPO_BUSID_MAX];

	for (hwloc_obj_t p = obj->parent; p && p->type == HWLOC_OBJ_BRIDGE;
	     p = p->parent) {
		if (p->attr->bridge.upstream_type != HWLOC_OBJ_BRIDGE_PCI)
			break;
		if (n == LAGOM_TOPO_PCIE_DEPTH)
			return lagom_errprintf(L->err, E2BIG,
					       "PCIe tree deeper than %d",
					       LAGOM_TOPO_PCIE_DEPTH);
		chain[n++] = p;
	}
	pcie->pcie_depth = n;
	for (int i = 0; i < n; i++) {
		busid_of(&chain[n - 1 - i]->attr->bridge.upstream.pci, busid,
			 sizeof(busid));
		parent = lagom_topo_pcisw_intern(L->t, busid, parent);
		if (parent < 0)
			return lagom_errprintf(L->err, E2BIG,
					       "more than %d PCI bridges",
					       LAGOM_TOPO_MAX_PCISW);
		pcie->pcie_path[i] = parent;
	}
	return 0;
}

static void pcie_link_of(hwloc_obj_t obj, struct lagom_topo_pcie *pcie)
{
	double GBps = obj->attr->pcidev.linkspeed;

	if (!(GBps > 0 && GBps < 1e4))
		return;
	pcie->pcie_bw_Bps = GBps * 1e9;
	pcie->pcie_GTps = lagom_pcie_GTps_from_GBps(GBps, &pcie->pcie_width);
}

static void gpu_names(hwloc_obj_t pci, struct lagom_topo_gpu *g)
{
	const char *model = NULL, *m;
	unsigned long long dev;

	for (hwloc_obj_t os = pci->io_first_child; os; os = os->next_sibling) {
		if (os->type != HWLOC_OBJ_OS_DEVICE || !os->name)
			continue;
		m = hwloc_obj_get_info_by_name(os, "GPUModel");
		if (has_prefix(os->name, "nvml")) {
			lagom_topo_copy(g->nvml_name, sizeof(g->nvml_name),
					os->name);
			model = m ? m : model;
		} else if (has_prefix(os->name, "cuda")) {
			lagom_topo_copy(g->cuda_name, sizeof(g->cuda_name),
					os->name);
			if (xml_parse_uint(os->name + 4, INT_MAX, &dev))
				g->cuda_dev = (int)dev;
			model = model ? model : m;
		}
	}
	if (!model)
		model = hwloc_obj_get_info_by_name(pci, "PCIDevice");
	if (!model)
		model = lagom_nvidia_model_by_device(
			pci->attr->pcidev.device_id);
	lagom_topo_copy(g->model, sizeof(g->model), model);
}

static int add_gpu(struct hwloc_load *L, hwloc_obj_t pci)
{
	struct lagom_node_topo *t = L->t;
	struct lagom_topo_gpu *g;

	if (t->gpus_per_node == LAGOM_TOPO_MAX_GPUS)
		return lagom_errprintf(L->err, E2BIG, "more than %d GPUs",
				       LAGOM_TOPO_MAX_GPUS);
	g = &t->gpus[t->gpus_per_node];
	busid_of(&pci->attr->pcidev, g->busid, sizeof(g->busid));
	g->pci_vendor = pci->attr->pcidev.vendor_id;
	g->pci_device = pci->attr->pcidev.device_id;
	g->numa_node = numa_of(L->topo, pci);
	gpu_names(pci, g);
	pcie_link_of(pci, &g->pcie);
	L->gpu_obj[t->gpus_per_node++] = pci;
	return pcie_path_of(L, pci, &g->pcie);
}

/* Name, netdev and kind of a NIC from its OS devices. */
static void nic_names(hwloc_obj_t pci, struct lagom_topo_nic *nic)
{
	bool rdma = false, ib = false;

	for (hwloc_obj_t os = pci->io_first_child; os; os = os->next_sibling) {
		if (os->type != HWLOC_OBJ_OS_DEVICE || !os->name)
			continue;
		if (osdev_is_openfabrics(os) && !rdma) {
			rdma = true;
			lagom_topo_copy(nic->name, sizeof(nic->name), os->name);
		} else if (osdev_is_netdev(os)) {
			if (!nic->netdev[0] || netdev_is_ib(os))
				lagom_topo_copy(nic->netdev,
						sizeof(nic->netdev), os->name);
			ib = ib || netdev_is_ib(os);
		}
	}
	if (!nic->name[0])
		lagom_topo_copy(nic->name, sizeof(nic->name),
				nic->netdev[0] ? nic->netdev : nic->busid);
	if (nic->pci_vendor == 0x1d0f || has_prefix(nic->name, "efa") ||
	    has_prefix(nic->name, "rdmap"))
		nic->kind = LAGOM_NIC_EFA;
	else if (ib)
		nic->kind = LAGOM_NIC_IB;
	else
		nic->kind = rdma ? LAGOM_NIC_ROCE : LAGOM_NIC_ETHERNET;
}

static int add_nic(struct hwloc_load *L, hwloc_obj_t pci)
{
	struct lagom_node_topo *t = L->t;
	struct lagom_topo_nic *nic;
	char busid[LAGOM_TOPO_BUSID_MAX];

	busid_of(&pci->attr->pcidev, busid, sizeof(busid));
	if (lagom_pci_is_known_vf(pci->attr->pcidev.vendor_id,
				  pci->attr->pcidev.device_id) ||
	    (L->live && pci_is_live_vf(busid))) {
		t->nvfs_skipped++;
		return 0;
	}
	if (t->nnics == LAGOM_TOPO_MAX_NICS)
		return lagom_errprintf(L->err, E2BIG, "more than %d NICs",
				       LAGOM_TOPO_MAX_NICS);
	nic = &t->nics[t->nnics++];
	lagom_topo_copy(nic->busid, sizeof(nic->busid), busid);
	nic->pci_vendor = pci->attr->pcidev.vendor_id;
	nic->pci_device = pci->attr->pcidev.device_id;
	nic->numa_node = numa_of(L->topo, pci);
	nic_names(pci, nic);
	if (L->live && strcmp(nic->name, nic->netdev) != 0)
		nic_live_rdma(nic);
	if (L->live && nic->speed_Bps == 0 && nic->netdev[0])
		nic_live_netdev(nic);
	pcie_link_of(pci, &nic->pcie);
	return pcie_path_of(L, pci, &nic->pcie);
}

static bool pci_has_net_osdev(hwloc_obj_t pci)
{
	for (hwloc_obj_t os = pci->io_first_child; os; os = os->next_sibling)
		if (os->type == HWLOC_OBJ_OS_DEVICE &&
		    (osdev_is_openfabrics(os) || osdev_is_netdev(os)))
			return true;
	return false;
}

static int walk_pci(struct hwloc_load *L)
{
	hwloc_obj_t pci = NULL;
	int rc = 0;

	while (rc == 0 && (pci = hwloc_get_next_pcidev(L->topo, pci))) {
		unsigned cls = pci->attr->pcidev.class_id;

		if (pci->attr->pcidev.vendor_id == 0x10de &&
		    lagom_pci_class_is_gpu(cls))
			rc = add_gpu(L, pci);
		else if (lagom_pci_class_is_nic(cls) || pci_has_net_osdev(pci))
			rc = add_nic(L, pci);
	}
	return rc;
}

static int gpu_index_of(const struct hwloc_load *L, hwloc_obj_t obj)
{
	if (obj->type == HWLOC_OBJ_OS_DEVICE)
		obj = obj->parent;
	for (int g = 0; g < L->t->gpus_per_node; g++)
		if (L->gpu_obj[g] == obj)
			return g;
	return -1;
}

static bool is_cpu_side(hwloc_obj_t obj)
{
	return obj->type == HWLOC_OBJ_PACKAGE ||
	       obj->type == HWLOC_OBJ_MACHINE ||
	       obj->type == HWLOC_OBJ_NUMANODE;
}

/* One matrix entry of NVLinkBandwidth (MB/s) from GPU row g. */
static void nvlink_entry(struct hwloc_load *L, int g, hwloc_obj_t peer,
			 double bw_Bps)
{
	struct lagom_node_topo *t = L->t;
	int h = gpu_index_of(L, peer);

	if (h == g)
		return;
	if (h >= 0) {
		t->nvlink_bw_Bps[g][h] = bw_Bps;
		t->has_nvlink = true;
	} else if (peer->type == HWLOC_OBJ_PCI_DEVICE) {
		t->gpus[g].nvswitch_bw_Bps += bw_Bps;
		t->has_nvlink = true;
	} else if (is_cpu_side(peer)) {
		t->gpus[g].cpu_nvlink_bw_Bps += bw_Bps;
	}
}

/* NVSwitches: the PCI devices of the matrix that are not GPUs. */
static int count_nvswitches(struct hwloc_load *L, struct hwloc_distances_s *d)
{
	int n = 0;

	for (unsigned i = 0; i < d->nbobjs; i++)
		if (d->objs[i]->type == HWLOC_OBJ_PCI_DEVICE &&
		    gpu_index_of(L, d->objs[i]) < 0)
			n++;
	if (n > LAGOM_TOPO_MAX_NVSWITCHES)
		return lagom_errprintf(L->err, E2BIG, "more than %d NVSwitches",
				       LAGOM_TOPO_MAX_NVSWITCHES);
	L->t->nnvswitches = n;
	return 0;
}

/* NVLink matrix, NVSwitch and CPU links from hwloc's NVLinkBandwidth. */
static int read_nvlink(struct hwloc_load *L)
{
	struct hwloc_distances_s *d = NULL;
	unsigned nr = 1;
	int rc;

	for (int g = 0; g < L->t->gpus_per_node; g++)
		if (L->t->gpus[g].nvml_name[0])
			L->t->nvlink_known = true;
	if (hwloc_distances_get_by_name(L->topo, "NVLinkBandwidth", &nr, &d,
					0) != 0 ||
	    nr == 0)
		return 0;
	rc = count_nvswitches(L, d);
	for (unsigned i = 0; rc == 0 && i < d->nbobjs; i++) {
		int g = gpu_index_of(L, d->objs[i]);

		if (g < 0)
			continue;
		for (unsigned j = 0; j < d->nbobjs; j++)
			if (j != i && d->values[i * d->nbobjs + j] > 0)
				nvlink_entry(
					L, g, d->objs[j],
					(double)d->values[i * d->nbobjs + j] *
						1e6);
	}
	hwloc_distances_release(L->topo, d);
	L->t->nvlink_known = true;
	return rc;
}

static int open_topology(hwloc_topology_t *topo, const char *xml_path,
			 struct lagom_error *err)
{
	if (hwloc_topology_init(topo) != 0)
		return lagom_errprintf(err, ENOMEM,
				       "hwloc_topology_init failed");
	hwloc_topology_set_io_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	if (xml_path && access(xml_path, R_OK) != 0) {
		int e = errno;

		hwloc_topology_destroy(*topo);
		return lagom_errprintf(err, e, "%s: %s", xml_path, strerror(e));
	}
	if ((xml_path && hwloc_topology_set_xml(*topo, xml_path) != 0) ||
	    hwloc_topology_load(*topo) != 0) {
		hwloc_topology_destroy(*topo);
		return lagom_errprintf(err, EINVAL, "hwloc cannot load %s",
				       xml_path ? xml_path : "this machine");
	}
	return 0;
}

int lagom_topo_load_hwloc(const char *xml_path, struct lagom_node_topo *out,
			  struct lagom_error *err)
{
	struct hwloc_load *L = calloc(1, sizeof(*L));
	int rc;

	if (!L || !(L->t = malloc(sizeof(*L->t)))) {
		free(L);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	L->live = xml_path == NULL;
	L->err = err;
	lagom_topo_init(L->t);
	rc = open_topology(&L->topo, xml_path, err);
	if (rc)
		goto free_load;
	L->t->nnuma = hwloc_get_nbobjs_by_type(L->topo, HWLOC_OBJ_NUMANODE);
	rc = walk_pci(L);
	if (rc == 0)
		rc = read_nvlink(L);
	hwloc_topology_destroy(L->topo);
	if (rc)
		goto free_load;
	lagom_topo_copy(L->t->source, sizeof(L->t->source),
			L->live ? "hwloc" : "hwloc-xml");
	lagom_topo_sort_gpus(L->t);
	lagom_topo_compute_affinity(L->t);
	memcpy(out, L->t, sizeof(*out));
free_load:
	free(L->t);
	free(L);
	return rc;
}
