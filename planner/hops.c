/*
 * planner/hops.c - inter-node distance of a step from Slurm's topology.conf
 * (placement/placement.h's switch tree and its span of a step).
 */
#include "config.h"

#include <errno.h>

#include "planner/planner_int.h"
#include "placement/placement.h"

int planner_step_hops(const char *path, const char *const *names, size_t n,
		      enum lagom_hops *out, struct lagom_error *err)
{
	struct lagom_switch_tree *tree;
	enum lagom_hops cls;
	unsigned switch_hops, leaves;
	int rc;

	if (!path || n < 2) {
		*out = n < 2 ? LAGOM_HOPS_SAME_NODE : LAGOM_HOPS_SAME_LEAF;
		return 0;
	}
	tree = lagom_switch_tree_load(path, err);
	if (!tree)
		return lagom_error_prefix(err, "topology.conf %s", path);
	rc = lagom_switch_tree_span(tree, names, n, &cls, &switch_hops, &leaves,
				    err);
	lagom_switch_tree_destroy(tree);
	if (rc)
		return lagom_error_prefix(err, "topology.conf %s", path);
	*out = cls;
	return 0;
}
