/*
 * planner/hops.c - inter-node distance of a step from Slurm's topology.conf
 * (placement/placement.h's switch tree and its span of a step), and, for
 * topology/block, which of the step's nodes share an NVLink domain.
 */
#include "config.h"

#include <errno.h>

#include "planner/planner_int.h"
#include "placement/placement.h"

/*
 * The blocks of topology/block are the NVLink domains (NVL72 racks): the
 * step's domains are priced at the fewest of its nodes in one block it
 * touches, never more than the profile's domain (doc/model.md 2.3).
 */
static int block_domains(const struct lagom_switch_tree *tree,
			 const char *const *names, size_t n,
			 struct lagom_hw *hw, struct lagom_error *err)
{
	unsigned blocks, fewest, most;
	int rc;

	if (!hw || hw->nvl_domain_nodes <= 1 ||
	    !lagom_switch_tree_is_block(tree))
		return 0;
	rc = lagom_switch_tree_fill(tree, names, n, &blocks, &fewest, &most,
				    err);
	if (rc == 0 && fewest < hw->nvl_domain_nodes)
		hw->nvl_domain_nodes = fewest;
	return rc;
}

int planner_step_hops(const char *path, const char *const *names, size_t n,
		      enum lagom_hops *out, struct lagom_hw *hw,
		      struct lagom_error *err)
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
	if (rc == 0)
		rc = block_domains(tree, names, n, hw, err);
	lagom_switch_tree_destroy(tree);
	if (rc)
		return lagom_error_prefix(err, "topology.conf %s", path);
	*out = cls;
	return 0;
}
