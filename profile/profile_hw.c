/*
 * profile/profile_hw.c - a profile as the cost model's struct lagom_hw:
 * table values for the GPU model, overridden by what the node's profile
 * knows (method: the model is fed measured hardware where there is some).
 * See profile.h.
 */
#include "config.h"

#include <errno.h>

#include "model/model.h"
#include "profile/profile.h"

static enum lagom_intra intra_of(enum lagom_profile_intra intra)
{
	switch (intra) {
	case LAGOM_PROFILE_INTRA_NVLINK:
		return LAGOM_INTRA_NVLINK;
	case LAGOM_PROFILE_INTRA_NVSWITCH:
		return LAGOM_INTRA_NVSWITCH;
	default:
		return LAGOM_INTRA_PCIE;
	}
}

static void override_u(unsigned *dst, int value)
{
	if (value > 0)
		*dst = (unsigned)value;
}

/* Hardware-section values that topology/ saw beat the table's guesses. */
static void apply_hw(const struct lagom_profile_hw *h, struct lagom_hw *hw)
{
	override_u(&hw->gpu.sm_count, h->gpu_sm_count);
	if (h->gpu_memory_bytes > 0)
		hw->gpu.mem_bytes = h->gpu_memory_bytes;
	if (hw->intra != LAGOM_INTRA_PCIE) {
		override_u(&hw->intra_links, h->nvlinks_per_gpu);
		override_u(&hw->nvlink_peers, h->nvlink_peers);
	}
	override_u(&hw->pcie_gen, h->pcie_gen);
	override_u(&hw->pcie_lanes, h->pcie_lanes);
	override_u(&hw->gpus_per_pcie_switch, h->gpus_per_pcie_switch);
	if (hw->nic_count > 0) {
		override_u(&hw->gpus_per_nic, h->gpus_per_nic);
		hw->nic_gdr = h->nic_rdma != 0;
	}
}

/* Measured (or tabled) numbers of the profile beat the model's table. */
static void apply_meas(const struct lagom_profile_measurements *m,
		       struct lagom_hw *hw)
{
	for (int i = 0; i < LAGOM_PREC_COUNT; i++)
		if (m->gemm_flops[i].source != LAGOM_SOURCE_ABSENT)
			hw->gpu.tflops[i] = m->gemm_flops[i].value / 1e12;
	if (m->hbm_bw_Bps.source != LAGOM_SOURCE_ABSENT)
		hw->gpu.hbm_Bps = m->hbm_bw_Bps.value;
	if (m->intra_bw_Bps.source != LAGOM_SOURCE_ABSENT) {
		if (hw->intra == LAGOM_INTRA_PCIE)
			hw->pcie_Bps = m->intra_bw_Bps.value;
		else if (hw->intra_links > 0)
			hw->intra_link_Bps = m->intra_bw_Bps.value /
					     hw->intra_links;
	}
	if (m->nic_bw_Bps.source != LAGOM_SOURCE_ABSENT && hw->nic_count > 0)
		hw->nic_Bps = m->nic_bw_Bps.value;
	/*
	 * The model applies its spec-sheet efficiencies unless every
	 * bandwidth it uses was achieved on this node: one flag covers them
	 * all, so a partly measured node keeps the efficiencies.
	 */
	hw->bw_measured = m->intra_bw_Bps.source == LAGOM_SOURCE_MEASURED &&
			  (hw->nic_count == 0 ||
			   m->nic_bw_Bps.source == LAGOM_SOURCE_MEASURED);
}

int lagom_profile_to_hw(const struct lagom_profile *p, struct lagom_hw *out,
			struct lagom_error *err)
{
	const struct lagom_profile_hw *h = &p->hw;
	struct lagom_hw hw;
	double nic_gbps = h->nic_link_bw_Bps * 8 / 1e9;
	unsigned nics = (unsigned)h->nic_count;
	int rc;

	if (h->gpu_count <= 0)
		return lagom_errprintf(err, ENODEV, "profile %s: no GPU",
				       p->node);
	if (p->meas.nic_bw_Bps.source != LAGOM_SOURCE_ABSENT)
		nic_gbps = p->meas.nic_bw_Bps.value * 8 / 1e9;
	if (!(nic_gbps > 0))
		nics = 0; /* NICs of unknown speed: treated as single node */
	rc = lagom_hw_from_spec(h->gpu_model, (unsigned)h->gpu_count,
				intra_of(h->intra), nics, nic_gbps, &hw, err);
	if (rc < 0)
		return lagom_error_prefix(err, "profile %s", p->node);
	apply_hw(h, &hw);
	apply_meas(&p->meas, &hw);
	rc = lagom_hw_check(&hw, err);
	if (rc < 0)
		return lagom_error_prefix(err, "profile %s", p->node);
	*out = hw;
	return 0;
}
