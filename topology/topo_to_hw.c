/*
 * topology/topo_to_hw.c - the one translation from a node topology to the
 * hardware facts the model needs (lagom_topo_summarize), used by
 * lagom-prolog for the profile's hardware section and by lagom_topo_to_hw()
 * for the model's struct lagom_hw.  Spec-sheet values and profile defaults
 * come from lagom_hw_from_spec(); what the topology shows replaces them.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
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
		return "";
	}
}

static int gpu_model(const struct lagom_node_topo *t,
		     struct lagom_topo_summary *s, struct lagom_error *err)
{
	for (int g = 1; g < t->gpus_per_node; g++)
		if (strcmp(t->gpus[g].model, t->gpus[0].model) != 0 ||
		    t->gpus[g].sm != t->gpus[0].sm)
			return lagom_errprintf(
				err, EINVAL, "GPUs differ: '%s' and '%s'",
				t->gpus[0].model, t->gpus[g].model);
	if (t->gpus_per_node > 0)
		snprintf(s->gpu_model, sizeof(s->gpu_model), "%s",
			 gpu_name(&t->gpus[0]));
	return 0;
}

static bool any_nvswitch(const struct lagom_node_topo *t)
{
	if (t->nnvswitches > 0)
		return true;
	for (int g = 0; g < t->gpus_per_node; g++)
		if (t->gpus[g].nvswitch_bw_Bps > 0 ||
		    t->gpus[g].nvswitch_links > 0)
			return true;
	return false;
}

/* The source says nothing of NVLink: the GPU's usual fabric. */
static enum lagom_intra intra_of(const struct lagom_node_topo *t,
				 const struct lagom_gpu_spec *spec)
{
	if (t->gpus_per_node < 2)
		return LAGOM_INTRA_PCIE;
	if (!t->nvlink_known)
		return spec ? spec->intra_default : LAGOM_INTRA_PCIE;
	if (any_nvswitch(t))
		return LAGOM_INTRA_NVSWITCH;
	return t->has_nvlink ? LAGOM_INTRA_NVLINK : LAGOM_INTRA_PCIE;
}

/*
 * NVLink links per GPU (from bandwidth over the spec's per-link rate, else
 * from link counts, else the spec's) and peers, most over the GPUs.
 */
static void nvlink_fabric(const struct lagom_node_topo *t,
			  const struct lagom_gpu_spec *spec,
			  struct lagom_topo_summary *s)
{
	int links = 0, peers = 0;

	for (int g = 0; t->nvlink_known && g < t->gpus_per_node; g++) {
		const struct lagom_topo_gpu *gpu = &t->gpus[g];
		double bw = gpu->nvswitch_bw_Bps;
		int l = gpu->nvswitch_links, p = 0;

		for (int h = 0; h < t->gpus_per_node; h++) {
			bw += t->nvlink_bw_Bps[g][h];
			l += t->nvlink_links[g][h];
			p += t->nvlink_bw_Bps[g][h] > 0 ||
			     t->nvlink_links[g][h] > 0;
		}
		if (bw > 0 && spec && spec->nvlink_link_Bps > 0)
			l = (int)lround(bw / spec->nvlink_link_Bps);
		links = l > links ? l : links;
		peers = p > peers ? p : peers;
	}
	if (links == 0 && spec)
		links = (int)spec->nvlink_links;
	s->nvlinks_per_gpu = links;
	if (s->intra == LAGOM_INTRA_NVSWITCH)
		s->nvlink_peers = t->gpus_per_node - 1;
	else if (t->nvlink_known)
		s->nvlink_peers = peers;
}

/* Generation from the per-lane rate, a tenth of slack below each step. */
static int pcie_gen_of(double GTps)
{
	static const double rate[] = { 64, 32, 16, 8, 5, 2.5 };

	for (int i = 0; i < 6; i++)
		if (GTps >= rate[i] * 0.9)
			return 6 - i;
	return 0;
}

/*
 * PCIe: the slowest generation and narrowest width any GPU reports; the
 * most GPUs below one top-level bridge (0 when no GPU's path is known).
 */
static void pcie_fabric(const struct lagom_node_topo *t,
			struct lagom_topo_summary *s)
{
	for (int g = 0; g < t->gpus_per_node; g++) {
		const struct lagom_topo_pcie *p = &t->gpus[g].pcie;
		int gen = pcie_gen_of(p->pcie_GTps), n = 0;

		if (gen > 0 && (s->pcie_gen == 0 || gen < s->pcie_gen))
			s->pcie_gen = gen;
		if (p->pcie_width > 0 &&
		    (s->pcie_lanes == 0 || p->pcie_width < s->pcie_lanes))
			s->pcie_lanes = p->pcie_width;
		for (int h = 0; h < t->gpus_per_node && p->pcie_depth > 0; h++)
			n += t->gpus[h].pcie.pcie_depth > 0 &&
			     t->gpus[h].pcie.pcie_path[0] == p->pcie_path[0];
		s->gpus_per_pcie_switch = n > s->gpus_per_pcie_switch
						  ? n
						  : s->gpus_per_pcie_switch;
	}
}

/*
 * The NICs NCCL would use: the RDMA ones (IB, RoCE, EFA) if there are any,
 * else the Ethernet ones.  All of them count; the slowest known speed is
 * the line rate; GPUs per NIC the most any of them serves.
 */
static void nic_fabric(const struct lagom_node_topo *t,
		       struct lagom_topo_summary *s)
{
	for (int n = 0; n < t->nnics; n++)
		s->nic_rdma = s->nic_rdma ||
			      t->nics[n].kind != LAGOM_NIC_ETHERNET;
	for (int n = 0; n < t->nnics; n++) {
		const struct lagom_topo_nic *nic = &t->nics[n];
		int per = lagom_topo_gpus_per_nic(t, n);

		if ((nic->kind != LAGOM_NIC_ETHERNET) != s->nic_rdma)
			continue;
		s->nic_count++;
		if (nic->speed_Gbit > 0 &&
		    (s->nic_Gbit == 0 || nic->speed_Gbit < s->nic_Gbit))
			s->nic_Gbit = nic->speed_Gbit;
		if (t->gpus_per_node > 0 && per > s->gpus_per_nic)
			s->gpus_per_nic = per;
	}
}

int lagom_topo_summarize(const struct lagom_node_topo *t,
			 struct lagom_topo_summary *s, struct lagom_error *err)
{
	const struct lagom_gpu_spec *spec;
	int rc;

	memset(s, 0, sizeof(*s));
	s->intra = LAGOM_INTRA_PCIE;
	if (!t)
		return lagom_errprintf(err, EINVAL, "no topology");
	s->gpus_per_node = t->gpus_per_node;
	rc = gpu_model(t, s, err);
	spec = rc == 0 ? lagom_gpu_lookup(s->gpu_model) : NULL;
	s->intra = intra_of(t, spec);
	if (s->intra != LAGOM_INTRA_PCIE)
		nvlink_fabric(t, spec, s);
	pcie_fabric(t, s);
	nic_fabric(t, s);
	return rc;
}

static unsigned positive(int v)
{
	return v > 0 ? (unsigned)v : 0;
}

int lagom_topo_to_hw(const struct lagom_node_topo *t, struct lagom_hw *out,
		     struct lagom_error *err)
{
	struct lagom_topo_summary s;
	struct lagom_hw hw;
	int rc;

	rc = lagom_topo_summarize(t, &s, err);
	if (rc)
		return rc;
	if (s.gpus_per_node <= 0)
		return lagom_errprintf(err, EINVAL, "topology has no GPU");
	if (!lagom_gpu_lookup(s.gpu_model))
		return lagom_errprintf(err, EINVAL,
				       "GPU model '%s' (sm %d) is not in the "
				       "spec table",
				       t->gpus[0].model, t->gpus[0].sm);
	if (s.nic_count > 0 && s.nic_Gbit == 0)
		return lagom_errprintf(err, EINVAL,
				       "speed of NIC %s unknown: set "
				       "speed_Gbit",
				       t->nics[0].name);
	rc = lagom_hw_from_spec(s.gpu_model, (unsigned)s.gpus_per_node, s.intra,
				(unsigned)s.nic_count, s.nic_Gbit, &hw, err);
	if (rc)
		return rc;
	lagom_hw_apply_facts(
		&hw, &(struct lagom_hw_facts){
			     .nvlinks_per_gpu = positive(s.nvlinks_per_gpu),
			     .nvlink_peers = positive(s.nvlink_peers),
			     .pcie_gen = positive(s.pcie_gen),
			     .pcie_lanes = positive(s.pcie_lanes),
			     .gpus_per_pcie_switch = positive(
				     s.gpus_per_pcie_switch),
			     .gpus_per_nic = positive(s.gpus_per_nic),
			     .nic_rdma = s.nic_rdma,
		     });
	rc = lagom_hw_check(&hw, err);
	if (rc == 0)
		*out = hw;
	return rc;
}
