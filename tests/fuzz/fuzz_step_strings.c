/*
 * tests/fuzz/fuzz_step_strings.c - libFuzzer target for the pure step
 * string parsers of placement/tasks.c: tasks per node, GPU lists,
 * SLURM_TOPOLOGY_ADDR pairs and the shape built from them.  The input's
 * first byte picks the parser; the rest is the string (NUL-terminated copy).
 * Build and run: make fuzz && tests/fuzz/fuzz_step_strings CORPUS_DIR
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "placement/placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void tasks(const char *s)
{
	struct lagom_tasks_per_node t;
	struct lagom_step_shape shape;
	uint64_t sum = 0;

	if (lagom_tasks_per_node_parse(s, &t, NULL) != 0)
		return;
	for (size_t g = 0; g < t.ngroups; g++)
		sum += (uint64_t)t.groups[g].tasks * t.groups[g].nodes;
	if (sum != t.tasks || t.nodes == 0 ||
	    t.nodes > LAGOM_PLACEMENT_MAX_NODES || t.min_tasks > t.max_tasks ||
	    lagom_tasks_per_node_at(&t, t.nodes - 1) == 0 ||
	    lagom_tasks_per_node_at(&t, t.nodes) != 0)
		__builtin_trap();
	if (lagom_step_shape(&t, 8, 8, &shape, NULL) == 0 &&
	    shape.ranks != t.tasks * 8)
		__builtin_trap();
	lagom_tasks_per_node_release(&t);
}

static void gpus(const char *s)
{
	struct lagom_gpu_list l;

	if (lagom_gpu_list_parse(s, &l, NULL) == 0 &&
	    l.count > LAGOM_PLACEMENT_MAX_GPUS)
		__builtin_trap();
}

static void addr(const char *s)
{
	const char *bar = strchr(s, '|');
	char a[512];
	enum lagom_hops cls;
	unsigned hops;

	if (!bar || (size_t)(bar - s) >= sizeof(a))
		return;
	memcpy(a, s, (size_t)(bar - s));
	a[bar - s] = '\0';
	if (lagom_topology_addr_hops(a, bar + 1, &cls, &hops, NULL) == 0 &&
	    (cls >= LAGOM_HOPS_COUNT ||
	     (cls == LAGOM_HOPS_SAME_NODE) != (hops == 0)))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 3) {
	case 0:
		tasks(s);
		break;
	case 1:
		gpus(s);
		break;
	default:
		addr(s);
	}
	free(s);
	return 0;
}
