/*
 * topology/topology.h - what one node has: GPUs, the links between them,
 * NICs, and which NIC serves which GPU.
 *
 * struct lagom_node_topo is a plain value with fixed-size arrays: no pointer
 * inside it owns memory, so it may be copied with memcpy and dropped without
 * a destroy call.  It is large (about 75 KiB, mostly the NVLink matrices):
 * allocate it with malloc/calloc, not on a small stack.
 *
 * Sources that fill it:
 *  - hwloc (topo_hwloc.c, the only file of lagom that includes <hwloc.h>):
 *    the live machine or an hwloc XML export;
 *  - an NCCL topology file (NCCL_TOPO_FILE XML, as cloud vendors ship them),
 *    read by a small strict parser of lagom's own (nccl_topo.c).
 *
 * Errors: every function returns 0 or a negative errno and, when err is not
 * NULL, writes one line into it.  On failure *out is left untouched.
 *   -EINVAL  malformed input (the message names the place)
 *   -E2BIG   more GPUs, NICs, switches or NVSwitches than the caps below
 *   -ENOENT  a file that does not exist; other I/O errors pass their errno
 *   -ENOMEM  out of memory
 */
#ifndef LAGOM_TOPOLOGY_TOPOLOGY_H
#define LAGOM_TOPOLOGY_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define LAGOM_TOPO_MAX_GPUS 64
#define LAGOM_TOPO_MAX_NICS 64 /* physical functions; VFs are not stored */
#define LAGOM_TOPO_MAX_NVSWITCHES 64
#define LAGOM_TOPO_MAX_PCISW 256 /* PCI bridges/switches on GPU/NIC paths */
#define LAGOM_TOPO_PCIE_DEPTH \
	12 /* bridges between a host bridge and a device */
#define LAGOM_TOPO_NAME_MAX 64
#define LAGOM_TOPO_BUSID_MAX 20 /* "dddd:bb:dd.f", domain up to 8 digits */

enum lagom_nic_kind {
	LAGOM_NIC_ETHERNET = 0, /* plain Ethernet, no RDMA device seen */
	LAGOM_NIC_IB,		/* InfiniBand (IPoIB netdev or IB link layer) */
	LAGOM_NIC_ROCE,		/* RDMA (verbs) device on an Ethernet link */
	LAGOM_NIC_EFA,		/* AWS Elastic Fabric Adapter */
};

/* How close a GPU is to the NICs chosen for it (best first). */
enum lagom_affinity {
	LAGOM_AFF_PCIE_SWITCH = 0, /* GPU and NIC share a PCIe bridge/switch */
	LAGOM_AFF_NUMA,		   /* same NUMA node, across the host bridge */
	LAGOM_AFF_SYSTEM,	   /* across the CPU interconnect */
	LAGOM_AFF_NONE,		   /* the node has no NIC */
};

/*
 * Where a PCI device sits: pcie_path[0] is the outermost PCI-to-PCI bridge
 * below the host bridge (a root port or the top of a switch tree),
 * pcie_path[pcie_depth - 1] the bridge directly above the device.  Entries
 * are indices into lagom_node_topo.pcisw.  Two devices whose paths share a
 * first entry reach each other without crossing the CPU.
 */
struct lagom_topo_pcie {
	int pcie_depth;
	int pcie_path[LAGOM_TOPO_PCIE_DEPTH];
	double pcie_GTps;   /* per-lane rate: 8.0 = Gen3; 0 unknown */
	int pcie_width;	    /* lanes; 0 unknown */
	double pcie_bw_Bps; /* one direction, after encoding; 0 unknown */
};

struct lagom_topo_gpu {
	char busid[LAGOM_TOPO_BUSID_MAX]; /* "0000:34:00.0"; "" unknown */
	char model[LAGOM_TOPO_NAME_MAX];  /* "Tesla V100-SXM3-32GB-H"; "" */
	char nvml_name[16];		  /* hwloc OS device "nvml3"; "" */
	char cuda_name[16];		  /* hwloc OS device "cuda3"; "" */
	int cuda_dev;			  /* NCCL file dev=, cudaN's N; -1 */
	int sm;				  /* compute capability x10; 0 */
	uint16_t pci_vendor, pci_device;  /* 0x10de, ...; 0 unknown */
	int numa_node;			  /* OS index; -1 unknown */
	struct lagom_topo_pcie pcie;
	double nvswitch_bw_Bps;	  /* NVLink to all NVSwitches together */
	int nvswitch_links;	  /* from an NCCL file; 0 unknown */
	double cpu_nvlink_bw_Bps; /* NVLink to the CPU (POWER); 0 none */
	uint64_t nic_mask;	  /* bit n: nics[n] is among the closest */
	enum lagom_affinity nic_affinity; /* how close those NICs are */
};

struct lagom_topo_nic {
	char name[LAGOM_TOPO_NAME_MAX];	  /* "mlx5_0", "rdmap79s0", "eth0" */
	char netdev[LAGOM_TOPO_NAME_MAX]; /* "ib0", "eth4"; "" none seen */
	enum lagom_nic_kind kind;
	double speed_Bps; /* line rate, one direction; 0 unknown (hwloc XML
			   * has none) */
	char busid[LAGOM_TOPO_BUSID_MAX];
	uint16_t pci_vendor, pci_device;
	int numa_node; /* OS index; -1 unknown */
	struct lagom_topo_pcie pcie;
};

/* A PCI bridge on the path of a GPU or NIC (see struct lagom_topo_pcie). */
struct lagom_topo_pcisw {
	char busid[LAGOM_TOPO_BUSID_MAX];
	int parent; /* index into pcisw, -1 when below the host bridge */
};

struct lagom_node_topo {
	int gpus_per_node;				 /* entries of gpus[] */
	struct lagom_topo_gpu gpus[LAGOM_TOPO_MAX_GPUS]; /* by PCI bus id */
	int nnics;
	struct lagom_topo_nic nics[LAGOM_TOPO_MAX_NICS];
	int nvfs_skipped; /* SR-IOV virtual functions seen and left out */
	int npcisw;
	struct lagom_topo_pcisw pcisw[LAGOM_TOPO_MAX_PCISW];
	int nnuma;	  /* NUMA nodes; 0 unknown */
	int nunknown_pci; /* PCI devices the source gave no class for */
	bool has_nvlink;  /* some GPU has an NVLink to a GPU or NVSwitch */
	/*
	 * The source reports NVLink at all: hwloc with its NVML backend
	 * (nvmlN devices or an NVLinkBandwidth matrix), an NCCL file with
	 * <nvlink> elements.  When false, no NVLink seen says nothing.
	 */
	bool nvlink_known;
	int nnvswitches; /* NVSwitch devices seen (hwloc) */
	/* GPU <-> GPU direct NVLink, symmetric, 0 on the diagonal. */
	double nvlink_bw_Bps[LAGOM_TOPO_MAX_GPUS][LAGOM_TOPO_MAX_GPUS];
	/* Link counts where the source gives them (NCCL file); 0 unknown. */
	uint8_t nvlink_links[LAGOM_TOPO_MAX_GPUS][LAGOM_TOPO_MAX_GPUS];
	char source[16]; /* "hwloc", "hwloc-xml", "nccl-topo" */
};

/* Empty topology: no GPUs or NICs, every "unknown" field at its marker. */
void lagom_topo_init(struct lagom_node_topo *t);

/*
 * Load the live machine (xml_path NULL) or an hwloc XML export through hwloc
 * with all PCI and OS devices kept.  Live NIC speeds come from sysfs.
 * Fills *out (caller-owned storage).
 */
int lagom_topo_load_hwloc(const char *xml_path, struct lagom_node_topo *out,
			  struct lagom_error *err);

/*
 * Parse an NCCL topology file held in buf[0..len) (borrowed; it need not
 * end in a NUL byte).
 * The accepted subset: an optional <?xml ...?> line, comments, elements with
 * quoted attributes and no text content; at most LAGOM_NCCL_TOPO_MAX_BYTES
 * bytes and LAGOM_NCCL_TOPO_MAX_DEPTH nested elements.  Known elements:
 * system, cpu (numaid), pci (busid, class, vendor, device, link_speed,
 * link_width), gpu (dev, sm), nic, net (name, dev, speed), nvlink (target,
 * count, tclass); others are checked for form and skipped.
 */
#define LAGOM_NCCL_TOPO_MAX_BYTES (4u << 20)
#define LAGOM_NCCL_TOPO_MAX_DEPTH 32
int lagom_topo_parse_nccl(const char *buf, size_t len,
			  struct lagom_node_topo *out, struct lagom_error *err);

/* Read the NCCL topology file at path and parse it as above. */
int lagom_topo_load_nccl_file(const char *path, struct lagom_node_topo *out,
			      struct lagom_error *err);

/*
 * GPU <-> NIC affinity: for each GPU, the NICs that share the deepest PCIe
 * bridge with it; else those on its NUMA node; else all NICs.  Fills
 * nic_mask and nic_affinity of every GPU.  The loaders call it; call it
 * again after editing a topology by hand.
 */
void lagom_topo_compute_affinity(struct lagom_node_topo *t);

/* Number of GPUs whose nic_mask holds NIC n (n out of range: 0). */
int lagom_topo_gpus_per_nic(const struct lagom_node_topo *t, int n);

/* Number of NICs in GPU g's nic_mask (g out of range: 0). */
int lagom_topo_nics_per_gpu(const struct lagom_node_topo *t, int g);

const char *lagom_nic_kind_name(enum lagom_nic_kind kind);

#endif /* LAGOM_TOPOLOGY_TOPOLOGY_H */
