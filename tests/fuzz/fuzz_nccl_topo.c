/*
 * tests/fuzz/fuzz_nccl_topo.c - libFuzzer target for the NCCL topology file
 * reader (topology/nccl_topo.c).  Besides ASan/UBSan findings it traps when
 * an accepted file breaks a promise of topology/topology.h.
 * Build and run: make fuzz && tests/fuzz/fuzz_nccl_topo CORPUS_DIR
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "topology/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_pcie(const struct lagom_node_topo *t,
		       const struct lagom_topo_pcie *p)
{
	if (p->pcie_depth < 0 || p->pcie_depth > LAGOM_TOPO_PCIE_DEPTH)
		__builtin_trap();
	for (int i = 0; i < p->pcie_depth; i++)
		if (p->pcie_path[i] < 0 || p->pcie_path[i] >= t->npcisw)
			__builtin_trap();
}

static void check(const struct lagom_node_topo *t)
{
	if (t->gpus_per_node < 0 || t->gpus_per_node > LAGOM_TOPO_MAX_GPUS ||
	    t->nnics < 0 || t->nnics > LAGOM_TOPO_MAX_NICS ||
	    t->npcisw > LAGOM_TOPO_MAX_PCISW)
		__builtin_trap();
	for (int g = 0; g < t->gpus_per_node; g++) {
		check_pcie(t, &t->gpus[g].pcie);
		if (t->nnics < 64 && (t->gpus[g].nic_mask >> t->nnics) != 0)
			__builtin_trap();
		if (t->nnics > 0 && t->gpus[g].nic_mask == 0)
			__builtin_trap();
		if (t->nvlink_links[g][g] != 0)
			__builtin_trap();
	}
	for (int n = 0; n < t->nnics; n++)
		check_pcie(t, &t->nics[n].pcie);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lagom_node_topo *t = malloc(sizeof(*t));
	struct lagom_error err;

	if (!t)
		return 0;
	if (lagom_topo_parse_nccl((const char *)data, size, t, &err) == 0)
		check(t);
	else if (err.text[0] == '\0')
		__builtin_trap();
	free(t);
	return 0;
}
