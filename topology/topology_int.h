/*
 * topology/topology_int.h - helpers shared by the topology loaders (private
 * to topology/).
 */
#ifndef LAGOM_TOPOLOGY_TOPO_INTERNAL_H
#define LAGOM_TOPOLOGY_TOPO_INTERNAL_H

#include "topology/topology.h"

/*
 * Index of the bridge with this bus id and parent in t->pcisw, adding it
 * when new.  Returns the index or -E2BIG.
 */
int lagom_topo_pcisw_intern(struct lagom_node_topo *t, const char *busid,
			    int parent);

/* One-direction PCIe bandwidth after line encoding (8b/10b below 8 GT/s). */
double lagom_pcie_bw_Bps(double GTps, int width);

/* Per-lane rate of a PCIe link given as total GB/s (hwloc's linkspeed). */
double lagom_pcie_GTps_from_GBps(double GBps, int *width_out);

/* Model name of a known NVIDIA PCI device id, NULL when unknown. */
const char *lagom_nvidia_model_by_device(uint16_t device);

/* True for a PCI (vendor, device) known to be an SR-IOV virtual function. */
bool lagom_pci_is_known_vf(uint16_t vendor, uint16_t device);

/* True when the PCI class (0xCCSS) is a display or 3D controller. */
bool lagom_pci_class_is_gpu(unsigned class_id);

/* True when the PCI class is a network or InfiniBand controller. */
bool lagom_pci_class_is_nic(unsigned class_id);

/* Sort GPUs by bus id (stable for equal ids), keeping matrices aligned. */
void lagom_topo_sort_gpus(struct lagom_node_topo *t);

/* Copy src into a fixed buffer, truncating; dst always NUL-terminated. */
void lagom_topo_copy(char *dst, size_t size, const char *src);

#endif /* LAGOM_TOPOLOGY_TOPO_INTERNAL_H */
