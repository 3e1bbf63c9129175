/*
 * planner/hw.c - the hardware a step plans for: the weakest of its nodes,
 * field by field, so that every node of the step computes the same plan
 * whatever node it runs on.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "planner/planner_int.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* The GPU part: the slower GPU's name, the lowest of every rate. */
static void weakest_gpu(struct lagom_gpu_spec *a,
			const struct lagom_gpu_spec *b)
{
	int p;

	if (b->tflops[LAGOM_PREC_BF16] < a->tflops[LAGOM_PREC_BF16] ||
	    (b->tflops[LAGOM_PREC_BF16] == a->tflops[LAGOM_PREC_BF16] &&
	     strcmp(b->name, a->name) < 0))
		memcpy(a->name, b->name, sizeof(a->name));
	a->sm_arch = MIN(a->sm_arch, b->sm_arch);
	a->sm_count = MIN(a->sm_count, b->sm_count);
	for (p = 0; p < LAGOM_PREC_COUNT; p++)
		a->tflops[p] = MIN(a->tflops[p], b->tflops[p]);
	a->hbm_Bps = MIN(a->hbm_Bps, b->hbm_Bps);
	a->mem_bytes = MIN(a->mem_bytes, b->mem_bytes);
	a->l2_bytes = MIN(a->l2_bytes, b->l2_bytes);
	a->nvlink_gen = MIN(a->nvlink_gen, b->nvlink_gen);
	a->nvlink_links = MIN(a->nvlink_links, b->nvlink_links);
	a->nvlink_link_Bps = MIN(a->nvlink_link_Bps, b->nvlink_link_Bps);
	a->pcie_gen = MIN(a->pcie_gen, b->pcie_gen);
	a->pcie_lanes = MIN(a->pcie_lanes, b->pcie_lanes);
	a->intra_default = MIN(a->intra_default, b->intra_default);
}

/* Combine b into a: lowest rates and counts, highest costs. */
static void weakest_hw(struct lagom_hw *a, const struct lagom_hw *b)
{
	/* a property of the GPU architecture the result describes */
	if (b->gpu.sm_arch < a->gpu.sm_arch)
		a->contention_resident = b->contention_resident;
	weakest_gpu(&a->gpu, &b->gpu);
	a->gpus_per_node = MIN(a->gpus_per_node, b->gpus_per_node);
	a->intra = MIN(a->intra, b->intra);
	a->intra_link_Bps = MIN(a->intra_link_Bps, b->intra_link_Bps);
	a->intra_links = MIN(a->intra_links, b->intra_links);
	a->nvlink_peers = MIN(a->nvlink_peers, b->nvlink_peers);
	a->pcie_gen = MIN(a->pcie_gen, b->pcie_gen);
	a->pcie_lanes = MIN(a->pcie_lanes, b->pcie_lanes);
	a->gpus_per_pcie_switch = MAX(a->gpus_per_pcie_switch,
				      b->gpus_per_pcie_switch);
	a->pcie_Bps = MIN(a->pcie_Bps, b->pcie_Bps);
	a->nic_count = MIN(a->nic_count, b->nic_count);
	a->nic_Bps = MIN(a->nic_Bps, b->nic_Bps);
	a->gpus_per_nic = MAX(a->gpus_per_nic, b->gpus_per_nic);
	a->nic_gdr = a->nic_gdr && b->nic_gdr;
	a->collnet = a->collnet && b->collnet;
	if (a->transport != b->transport)
		a->transport = LAGOM_NET_DEFAULT;
	a->nvl_domain_nodes = MIN(a->nvl_domain_nodes, b->nvl_domain_nodes);
	a->launch_us = MAX(a->launch_us, b->launch_us);
	a->intra_lat_us = MAX(a->intra_lat_us, b->intra_lat_us);
	a->net_lat_us = MAX(a->net_lat_us, b->net_lat_us);
	a->spine_lat_us = MAX(a->spine_lat_us, b->spine_lat_us);
	a->contention_sm = MAX(a->contention_sm, b->contention_sm);
	a->contention_l2 = MAX(a->contention_l2, b->contention_l2);
	a->contention_l2_cap = MAX(a->contention_l2_cap, b->contention_l2_cap);
	a->contention_l2_knee = MIN(a->contention_l2_knee,
				    b->contention_l2_knee);
	/* the L2 term's gate the most open: ungated (x1 0) if either is */
	a->contention_l2_x0 = MIN(a->contention_l2_x0, b->contention_l2_x0);
	a->contention_l2_x1 = a->contention_l2_x1 > 0 && b->contention_l2_x1 > 0
				      ? MIN(a->contention_l2_x1,
					    b->contention_l2_x1)
				      : 0;
	a->contention_rate = MAX(a->contention_rate, b->contention_rate);
	a->contention_rate_cap = MAX(a->contention_rate_cap,
				     b->contention_rate_cap);
	a->channel_sm_share = MAX(a->channel_sm_share, b->channel_sm_share);
	/* a measured channel rate only when every node measured one */
	a->ch_Bps = a->ch_Bps > 0 && b->ch_Bps > 0 ? MIN(a->ch_Bps, b->ch_Bps)
						   : 0;
}

/* Keep the combined description self-consistent. */
static void settle_hw(struct lagom_hw *hw)
{
	if (hw->intra == LAGOM_INTRA_PCIE) {
		hw->intra_link_Bps = 0;
		hw->intra_links = 0;
	}
	hw->nvlink_peers = MIN(hw->nvlink_peers, hw->gpus_per_node - 1);
	if (hw->nic_count == 0) {
		hw->nic_Bps = 0;
		hw->gpus_per_nic = 0;
	} else {
		/* The profile's sharing (rails) stands; only a node with
		 * fewer GPUs than that caps it. */
		hw->gpus_per_nic = MIN(hw->gpus_per_nic, hw->gpus_per_node);
	}
}

int planner_weakest_hw_of(const struct lagom_hw *const *hws, size_t n,
			  struct lagom_hw *out, struct lagom_error *err)
{
	struct lagom_hw acc;
	bool mixed = false;
	size_t i;
	int rc;

	if (n == 0)
		return lagom_errprintf(err, EINVAL, "no nodes");
	/*
	 * Bandwidths are compared on one basis: when some nodes measured them
	 * (achievable) and some took the table's (nominal), every node is put
	 * on the achievable basis first, so neither the order nor the names of
	 * the nodes decide which basis the step plans with.
	 */
	for (i = 1; i < n; i++)
		if (hws[i]->bw_measured != hws[0]->bw_measured)
			mixed = true;
	acc = *hws[0];
	if (mixed)
		lagom_hw_bw_achievable(&acc);
	for (i = 1; i < n; i++) {
		struct lagom_hw b;

		if (mixed) {
			b = *hws[i];
			lagom_hw_bw_achievable(&b);
			weakest_hw(&acc, &b);
		} else {
			weakest_hw(&acc, hws[i]);
		}
	}
	settle_hw(&acc);
	if ((rc = lagom_hw_check(&acc, err)))
		return lagom_error_prefix(err, "combined hardware of the step");
	*out = acc;
	return 0;
}

int planner_weakest_hw(const struct lagom_hw *hws, size_t n,
		       struct lagom_hw *out, struct lagom_error *err)
{
	const struct lagom_hw **refs = calloc(n ? n : 1, sizeof(*refs));
	int rc;

	if (!refs)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		refs[i] = &hws[i];
	rc = planner_weakest_hw_of(refs, n, out, err);
	free(refs);
	return rc;
}
