/*
 * topology/topo_to_hw.c - the model's hardware description (struct
 * lagom_hw) from a node topology.  Spec-sheet values and profile defaults
 * come from lagom_hw_from_spec(); what the topology shows replaces them.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "model/model.h"
#include "topology/topology.h"

/* Without a model name (NCCL files give only sm=), the usual SXM part. */
static const char *gpu_name(const struct lagom_topo_gpu *g)
{
	if (g->model[0])
		return g->model;
	switch (g->sm) {
	case 70:
		return "V100-SXM";
	case 80:
		return "A100-SXM";
	case 90:
		return "H100-SXM";
	default:
		return NULL;
	}
}

static int check_gpus(const struct lagom_node_topo *t, const char **name,
		      struct lagom_error *err)
{
	if (t->ngpus <= 0)
		return lagom_errprintf(err, EINVAL, "topology has no GPU");
	for (int g = 1; g < t->ngpus; g++)
		if (strcmp(t->gpus[g].model, t->gpus[0].model) != 0 ||
		    t->gpus[g].sm != t->gpus[0].sm)
			return lagom_errprintf(
				err, EINVAL, "GPUs differ: '%s' and '%s'",
				t->gpus[0].model, t->gpus[g].model);
	*name = gpu_name(&t->gpus[0]);
	if (!*name || !lagom_gpu_lookup(*name))
		return lagom_errprintf(err, EINVAL,
				       "GPU model '%s' (sm %d) is not in the "
				       "spec table",
				       t->gpus[0].model, t->gpus[0].sm);
	return 0;
}

static bool any_nvswitch(const struct lagom_node_topo *t)
{
	if (t->nnvswitches > 0)
		return true;
	for (int g = 0; g < t->ngpus; g++)
		if (t->gpus[g].nvswitch_bw_Bps > 0 ||
		    t->gpus[g].nvswitch_links > 0)
			return true;
	return false;
}

static enum lagom_intra intra_of(const struct lagom_node_topo *t)
{
	if (!t->nvlink_known)
		return LAGOM_INTRA_DEFAULT;
	if (any_nvswitch(t))
		return LAGOM_INTRA_NVSWITCH;
	return t->has_nvlink ? LAGOM_INTRA_NVLINK : LAGOM_INTRA_PCIE;
}

static bool nic_is_rdma(const struct lagom_topo_nic *n)
{
	return n->kind != LAGOM_NIC_ETHERNET;
}

/* The NICs NCCL would use: RDMA ones if any, else Ethernet; known speed. */
static uint64_t pick_nics(const struct lagom_node_topo *t, bool *rdma,
			  unsigned *count, double *gbps)
{
	uint64_t mask = 0;

	*rdma = false;
	for (int n = 0; n < t->nnics; n++)
		*rdma = *rdma || nic_is_rdma(&t->nics[n]);
	*count = 0;
	*gbps = 0;
	for (int n = 0; n < t->nnics; n++) {
		const struct lagom_topo_nic *nic = &t->nics[n];
		double g = (double)nic->speed_Mbps / 1000.0;

		if (nic_is_rdma(nic) != *rdma || nic->speed_Mbps == 0)
			continue;
		mask |= UINT64_C(1) << n;
		++*count;
		*gbps = *gbps == 0 || g < *gbps ? g : *gbps;
	}
	return mask;
}

/* NVLink links per GPU and peers, from bandwidth or from link counts. */
static void nvlink_fabric(const struct lagom_node_topo *t, struct lagom_hw *hw)
{
	unsigned links = 0, peers = 0;

	for (int g = 0; g < t->ngpus; g++) {
		const struct lagom_topo_gpu *gpu = &t->gpus[g];
		double bw = gpu->nvswitch_bw_Bps;
		unsigned l = (unsigned)gpu->nvswitch_links, p = 0;

		for (int h = 0; h < t->ngpus; h++) {
			bw += t->nvlink_bw_Bps[g][h];
			l += t->nvlink_links[g][h];
			p += t->nvlink_bw_Bps[g][h] > 0 ||
			     t->nvlink_links[g][h] > 0;
		}
		if (bw > 0 && hw->intra_link_Bps > 0)
			l = (unsigned)lround(bw / hw->intra_link_Bps);
		links = l > links ? l : links;
		peers = p > peers ? p : peers;
	}
	if (links > 0)
		hw->intra_links = links;
	if (hw->intra == LAGOM_INTRA_NVLINK)
		hw->nvlink_peers = peers;
}

static unsigned pcie_gen_of(double GTps)
{
	return GTps >= 64   ? 6
	       : GTps >= 32 ? 5
	       : GTps >= 16 ? 4
	       : GTps >= 8  ? 3
	       : GTps >= 5  ? 2
	       : GTps > 0   ? 1
			    : 0;
}

/* PCIe: generation and width of GPU 0; most GPUs under one top switch. */
static void pcie_fabric(const struct lagom_node_topo *t, struct lagom_hw *hw)
{
	const struct lagom_topo_pcie *p0 = &t->gpus[0].pcie;
	unsigned most = 1;

	if (pcie_gen_of(p0->pcie_GTps) && p0->pcie_width > 0) {
		hw->pcie_gen = pcie_gen_of(p0->pcie_GTps);
		hw->pcie_lanes = (unsigned)p0->pcie_width;
	}
	for (int g = 0; g < t->ngpus; g++) {
		unsigned n = 0;

		for (int h = 0; h < t->ngpus && t->gpus[g].pcie.pcie_depth; h++)
			n += t->gpus[h].pcie.pcie_depth > 0 &&
			     t->gpus[h].pcie.pcie_path[0] ==
				     t->gpus[g].pcie.pcie_path[0];
		most = n > most ? n : most;
	}
	hw->gpus_per_pcie_switch = most;
}

static void nic_fabric(const struct lagom_node_topo *t, uint64_t mask,
		       bool rdma, struct lagom_hw *hw)
{
	unsigned most = 0;

	for (int n = 0; n < t->nnics; n++) {
		unsigned k = (unsigned)lagom_topo_gpus_per_nic(t, n);

		if ((mask >> n) & 1)
			most = k > most ? k : most;
	}
	if (most > 0)
		hw->gpus_per_nic = most;
	hw->nic_gdr = rdma;
}

int lagom_topo_to_hw(const struct lagom_node_topo *t, struct lagom_hw *out,
		     struct lagom_error *err)
{
	struct lagom_hw hw;
	const char *name = NULL;
	unsigned nic_count;
	double nic_gbps;
	bool rdma;
	uint64_t mask;
	int rc;

	if (!t || !out)
		return lagom_errprintf(err, EINVAL, "no topology");
	rc = check_gpus(t, &name, err);
	if (rc)
		return rc;
	mask = pick_nics(t, &rdma, &nic_count, &nic_gbps);
	if (t->nnics > 0 && nic_count == 0)
		return lagom_errprintf(err, EINVAL,
				       "speed of NIC %s unknown: set "
				       "speed_Mbps",
				       t->nics[0].name);
	rc = lagom_hw_from_spec(name, (unsigned)t->ngpus, intra_of(t),
				nic_count, nic_gbps, &hw, err);
	if (rc)
		return rc;
	if (hw.intra != LAGOM_INTRA_PCIE && t->nvlink_known)
		nvlink_fabric(t, &hw);
	pcie_fabric(t, &hw);
	if (nic_count)
		nic_fabric(t, mask, rdma, &hw);
	rc = lagom_hw_check(&hw, err);
	if (rc == 0)
		*out = hw;
	return rc;
}
