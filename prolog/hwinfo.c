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

/* The topology's summary (topology/) in the profile's terms. */
static void hw_from_summary(const struct lagom_topo_summary *s,
			    struct lagom_profile_hw *hw)
{
	const struct lagom_gpu_spec *spec = lagom_gpu_lookup(s->gpu_model);

	snprintf(hw->gpu_model, sizeof(hw->gpu_model), "%s", s->gpu_model);
	hw->gpu_count = s->gpus_per_node;
	if (spec != NULL && s->gpus_per_node > 0) {
		hw->gpu_sm_count = (int)spec->sm_count;
		hw->gpu_memory_bytes = spec->mem_bytes;
	}
	hw->intra = s->gpus_per_node < 2 ? LAGOM_INTRA_NONE : s->intra;
	if (hw->intra == LAGOM_INTRA_NVLINK ||
	    hw->intra == LAGOM_INTRA_NVSWITCH) {
		hw->nvlinks_per_gpu = s->nvlinks_per_gpu;
		hw->nvlink_peers = s->nvlink_peers;
	}
	hw->pcie_gen = s->pcie_gen;
	hw->pcie_lanes = s->pcie_lanes;
	hw->gpus_per_pcie_switch = s->gpus_per_pcie_switch;
	hw->nic_count = s->nic_count;
	hw->nic_rdma = s->nic_rdma;
	hw->gpus_per_nic = s->gpus_per_nic;
	hw->nic_link_bw_Bps = s->nic_Gbit * 1e9 / 8;
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
	struct lagom_topo_summary s;
	int rc = lagom_topo_summarize(t, &s, err);

	hw->numa_nodes = t->nnuma;
	hw_from_summary(&s, hw);
	return rc;
}
