/*
 * tests/fuzz/fuzz_switchtree.c - libFuzzer target for the topology.conf
 * reader (placement/switchtree.c) and, through it, lagom's node-list checks
 * in front of Slurm's hostlist functions (links -lslurm).  On an accepted
 * file it checks the hops between a few of its nodes.
 * Build and run: make fuzz && tests/fuzz/fuzz_switchtree CORPUS_DIR
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "placement/placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lagom_error err;
	struct lagom_switch_tree *t = lagom_switch_tree_parse(
		(const char *)data, size, &err);
	enum lagom_hops cls;
	unsigned hops;

	if (!t) {
		if (err.text[0] == '\0')
			__builtin_trap();
		return 0;
	}
	if (lagom_switch_tree_switches(t) == 0 ||
	    lagom_switch_tree_levels(t) > LAGOM_SWITCH_MAX_LEVELS)
		__builtin_trap();
	if (lagom_switch_tree_hops(t, "n1", "n2", &cls, &hops, &err) == 0 &&
	    hops > 2 * LAGOM_SWITCH_MAX_LEVELS)
		__builtin_trap();
	lagom_switch_tree_destroy(t);
	return 0;
}
