/*
 * planner/hops.c - inter-node distance of a step from Slurm's topology.conf
 * (placement/placement.h's switch tree).
 */
#include "config.h"

#include <errno.h>

#include "planner/planner_int.h"
#include "placement/placement.h"

/*
 * In a tree, two nodes are under one leaf or meet above the leaves: the
 * step crosses the spine exactly when some node is under another leaf than
 * the first one (names are sorted, so every node finds the same answer).
 */
int planner_step_hops(const char *path, const char *const *names, size_t n,
		      enum lagom_hops *out, struct lagom_error *err)
{
	struct lagom_switch_tree *tree;
	enum lagom_hops worst = LAGOM_HOPS_SAME_NODE, cls;
	unsigned sw;
	size_t i;
	int rc = 0;

	if (n > 1)
		worst = LAGOM_HOPS_SAME_LEAF;
	if (!path || n < 2) {
		*out = worst;
		return 0;
	}
	tree = lagom_switch_tree_load(path, err);
	if (!tree)
		return lagom_error_prefix(err, "topology.conf %s", path);
	for (i = 1; i < n && worst != LAGOM_HOPS_SPINE; i++) {
		rc = lagom_switch_tree_hops(tree, names[0], names[i], &cls, &sw,
					    err);
		if (rc) {
			lagom_error_prefix(err, "topology.conf %s", path);
			break;
		}
		if (cls > worst)
			worst = cls;
	}
	lagom_switch_tree_destroy(tree);
	if (rc == 0)
		*out = worst;
	return rc;
}
