/*
 * prolog/hwinfo.c - the profile's hardware section for this node: CPU from
 * /proc/cpuinfo, GPUs, links and NICs from topology/ (hwloc), SM count and
 * memory from the built-in GPU table.  Nothing here runs on a GPU, so the
 * result (and its fingerprint) is cheap to recompute on every prolog run.
 */
#include "config.h"

#include <errno.h>
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

static int pcie_gen_of(double GTps)
{
	static const double rate[] = { 2.5, 5, 8, 16, 32, 64 };

	for (int i = 0; i < 6; i++)
		if (GTps > rate[i] * 0.9 && GTps < rate[i] * 1.1)
			return i + 1;
	return 0;
}

static enum lagom_profile_intra intra_of(const struct lagom_node_topo *t)
{
	if (t->ngpus < 2)
		return LAGOM_PROFILE_INTRA_NONE;
	if (t->nnvswitches > 0 || t->gpus[0].nvswitch_bw_Bps > 0)
		return LAGOM_PROFILE_INTRA_NVSWITCH;
	if (t->has_nvlink)
		return LAGOM_PROFILE_INTRA_NVLINK;
	return LAGOM_PROFILE_INTRA_PCIE;
}

/* GPU 0 stands for all: lagom assumes a node's GPUs are alike. */
static void gpu_info(const struct lagom_node_topo *t,
		     struct lagom_profile_hw *hw)
{
	const struct lagom_topo_gpu *g = &t->gpus[0];
	const struct lagom_gpu_spec *spec;
	int links = g->nvswitch_links, peers = 0, shared = 0;

	hw->gpu_count = t->ngpus;
	hw->intra = intra_of(t);
	if (t->ngpus == 0)
		return;
	snprintf(hw->gpu_model, sizeof(hw->gpu_model), "%s", g->model);
	spec = lagom_gpu_lookup(g->model);
	if (spec != NULL) {
		hw->gpu_sm_count = (int)spec->sm_count;
		hw->gpu_memory_bytes = spec->mem_bytes;
	}
	for (int j = 1; j < t->ngpus; j++) {
		if (t->nvlink_bw_Bps[0][j] > 0)
			peers++;
		if (g->nvswitch_links == 0)
			links += t->nvlink_links[0][j];
		if (g->pcie.pcie_depth > 0 && t->gpus[j].pcie.pcie_depth > 0 &&
		    t->gpus[j].pcie.pcie_path[0] == g->pcie.pcie_path[0])
			shared++;
	}
	if (hw->intra >= LAGOM_PROFILE_INTRA_NVLINK) {
		if (links == 0 && spec != NULL)
			links = (int)spec->nvlink_links;
		hw->nvlinks_per_gpu = links;
		hw->nvlink_peers = hw->intra == LAGOM_PROFILE_INTRA_NVLINK
					   ? peers
					   : t->ngpus - 1;
	}
	hw->pcie_gen = pcie_gen_of(g->pcie.pcie_GTps);
	hw->pcie_lanes = g->pcie.pcie_width;
	hw->gpus_per_pcie_switch = g->pcie.pcie_depth > 0 ? shared + 1 : 0;
}

/* NICs NCCL would use: the RDMA ones when there are any, else Ethernet. */
static void nic_info(const struct lagom_node_topo *t,
		     struct lagom_profile_hw *hw)
{
	int rdma = 0;

	for (int n = 0; n < t->nnics; n++)
		rdma += t->nics[n].kind != LAGOM_NIC_ETHERNET;
	hw->nic_rdma = rdma > 0;
	for (int n = 0; n < t->nnics; n++) {
		const struct lagom_topo_nic *nic = &t->nics[n];
		double bw = (double)nic->speed_Mbps * 1e6 / 8;
		int per;

		if (rdma > 0 && nic->kind == LAGOM_NIC_ETHERNET)
			continue;
		hw->nic_count++;
		if (bw > hw->nic_link_bw_Bps)
			hw->nic_link_bw_Bps = bw;
		per = lagom_topo_gpus_per_nic(t, n);
		if (t->ngpus > 0 && per > hw->gpus_per_nic)
			hw->gpus_per_nic = per;
	}
}

int prolog_hwinfo(struct lagom_profile_hw *hw, struct lagom_error *err)
{
	struct lagom_node_topo *t = calloc(1, sizeof(*t));
	int rc;

	memset(hw, 0, sizeof(*hw));
	cpu_info(hw);
	if (t == NULL)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	rc = lagom_topo_load_hwloc(NULL, t, err);
	if (rc == 0)
		prolog_hw_from_topo(t, hw);
	free(t);
	return rc;
}

void prolog_hw_from_topo(const struct lagom_node_topo *t,
			 struct lagom_profile_hw *hw)
{
	hw->numa_nodes = t->nnuma;
	gpu_info(t, hw);
	nic_info(t, hw);
}
