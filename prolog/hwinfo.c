/*
 * prolog/hwinfo.c - the profile's hardware section for this node: CPU from
 * /proc/cpuinfo, GPUs, links and NICs from topology/ (hwloc), in the
 * profile's terms.  Only what the node shows goes into the file: the spec
 * table's values (SM count, memory, rates) are the planner's to add, at
 * plan time (profile/profile_hw.c), so a corrected table takes effect
 * without re-measuring.  Nothing here runs on a GPU, so the result (and
 * its fingerprint) is cheap to recompute on every prolog run.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "prolog/prolog.h"
#include "topology/topology.h"

#define MAX_CORES 8192

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* "model name", and physical cores as distinct (physical id, core id). */
static void cpu_info(struct lagom_profile_hw *hw)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];
	long pkg = 0, ncores = 0;
	long *seen = calloc(MAX_CORES, sizeof(*seen));

	if (f != NULL && seen != NULL) {
		while (fgets(line, sizeof(line), f)) {
			char *v = strchr(line, ':');

			if (v == NULL)
				continue;
			v += 1 + (v[1] == ' ');
			trim(v);
			if (!hw->cpu_model[0] &&
			    !strncmp(line, "model name", 10))
				snprintf(hw->cpu_model, sizeof(hw->cpu_model),
					 "%s", v);
			else if (!strncmp(line, "physical id", 11))
				pkg = strtol(v, NULL, 10);
			else if (!strncmp(line, "core id", 7)) {
				long key = pkg * 65536 + strtol(v, NULL, 10);
				long i;

				for (i = 0; i < ncores && seen[i] != key; i++)
					;
				if (i == ncores && ncores < MAX_CORES)
					seen[ncores++] = key;
			}
		}
	}
	if (f != NULL)
		fclose(f);
	free(seen);
	hw->cpu_cores = ncores > 0 ? (int)ncores
				   : (int)sysconf(_SC_NPROCESSORS_ONLN);
}

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
		     struct lagom_profile_hw *s, struct lagom_error *err)
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

/* The source says nothing of NVLink: "unknown" (DEFAULT), the planner
 * takes the GPU's usual fabric. */
static enum lagom_intra intra_of(const struct lagom_node_topo *t)
{
	if (t->gpus_per_node < 2)
		return LAGOM_INTRA_PCIE;
	if (!t->nvlink_known)
		return LAGOM_INTRA_DEFAULT;
	if (any_nvswitch(t))
		return LAGOM_INTRA_NVSWITCH;
	return t->has_nvlink ? LAGOM_INTRA_NVLINK : LAGOM_INTRA_PCIE;
}

/*
 * NVLink links per GPU (from bandwidth over the spec's per-link rate, else
 * from link counts; 0 when the source shows neither: the planner takes the
 * table's) and peers, most over the GPUs.
 */
static void nvlink_fabric(const struct lagom_node_topo *t,
			  const struct lagom_gpu_spec *spec,
			  struct lagom_profile_hw *s)
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
			struct lagom_profile_hw *s)
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
		       struct lagom_profile_hw *s)
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
		if (nic->speed_Bps > 0 && (s->nic_link_bw_Bps == 0 ||
					   nic->speed_Bps < s->nic_link_bw_Bps))
			s->nic_link_bw_Bps = nic->speed_Bps;
		if (t->gpus_per_node > 0 && per > s->gpus_per_nic)
			s->gpus_per_nic = per;
	}
}

int prolog_hwinfo(struct lagom_profile_hw *hw, struct lagom_error *err)
{
	struct lagom_node_topo *t = calloc(1, sizeof(*t));
	int rc;

	memset(hw, 0, sizeof(*hw));
	hw->intra = LAGOM_INTRA_NONE; /* until topology/ shows GPUs */
	cpu_info(hw);
	if (t == NULL)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	rc = lagom_topo_load_hwloc(NULL, t, err);
	if (rc == 0)
		rc = prolog_hw_from_topo(t, hw, err);
	free(t);
	return rc;
}

int prolog_hw_from_topo(const struct lagom_node_topo *t,
			struct lagom_profile_hw *hw, struct lagom_error *err)
{
	const struct lagom_gpu_spec *spec;
	int rc;

	hw->numa_nodes = t->nnuma;
	hw->gpu_model[0] = '\0';
	hw->gpu_count = t->gpus_per_node;
	hw->nvlinks_per_gpu = hw->nvlink_peers = 0;
	hw->pcie_gen = hw->pcie_lanes = hw->gpus_per_pcie_switch = 0;
	hw->nic_count = hw->nic_rdma = hw->gpus_per_nic = 0;
	hw->nic_link_bw_Bps = 0;
	rc = gpu_model(t, hw, err);
	spec = rc == 0 ? lagom_gpu_lookup(hw->gpu_model) : NULL;
	hw->intra = intra_of(t);
	if (hw->intra != LAGOM_INTRA_PCIE)
		nvlink_fabric(t, spec, hw);
	if (t->gpus_per_node < 2)
		hw->intra = LAGOM_INTRA_NONE;
	pcie_fabric(t, hw);
	nic_fabric(t, hw);
	return rc;
}
