/*
 * policy/place.c - the placement options of `lagom place` from the leaves'
 * node counts (policy/policy.h).
 */
#include "config.h"

#include <errno.h>

#include "policy/policy.h"

const char *lagom_place_kind_name(enum lagom_place_kind k)
{
	switch (k) {
	case LAGOM_PLACE_PACK_NOW:
		return "pack-now";
	case LAGOM_PLACE_WAIT_LEAF:
		return "wait-for-leaf";
	case LAGOM_PLACE_SPREAD_NOW:
		return "spread-now";
	case LAGOM_PLACE_SPREAD_LATER:
		return "spread-later";
	case LAGOM_PLACE_KIND_COUNT:
		break;
	}
	return "?";
}

/* Best fit now: the leaf with the fewest idle nodes that still hold the
 * job (ties: the first); -1 when none. */
static int best_fit_leaf(unsigned nodes, const struct lagom_place_leaf *l,
			 size_t n)
{
	int best = -1;

	for (size_t i = 0; i < n; i++)
		if (l[i].idle >= nodes &&
		    (best < 0 || l[i].idle < l[best].idle))
			best = (int)i;
	return best;
}

/* The leaf to wait for: enough usable nodes, most idle now (ties: the
 * first); -1 when none. */
static int wait_leaf(unsigned nodes, const struct lagom_place_leaf *l, size_t n)
{
	int best = -1;

	for (size_t i = 0; i < n; i++)
		if (l[i].usable >= nodes &&
		    (best < 0 || l[i].idle > l[best].idle))
			best = (int)i;
	return best;
}

static enum lagom_place_kind pick_best(const struct lagom_place_option *o,
				       const struct lagom_policy_decision *d)
{
	int k;

	if (o[LAGOM_PLACE_PACK_NOW].possible)
		return LAGOM_PLACE_PACK_NOW;
	if (d->reason == LAGOM_POLICY_PACK && o[LAGOM_PLACE_WAIT_LEAF].possible)
		return LAGOM_PLACE_WAIT_LEAF;
	if (o[LAGOM_PLACE_SPREAD_NOW].possible)
		return LAGOM_PLACE_SPREAD_NOW;
	for (k = 0; k < LAGOM_PLACE_KIND_COUNT; k++)
		if (o[k].possible)
			return (enum lagom_place_kind)k;
	return LAGOM_PLACE_KIND_COUNT;
}

int lagom_place_options(unsigned nodes, const struct lagom_place_leaf *leaves,
			size_t nleaves, const struct lagom_placement_cost *cost,
			const struct lagom_policy_decision *decision,
			unsigned max_wait_s, struct lagom_place_option *out,
			enum lagom_place_kind *best, struct lagom_error *err)
{
	unsigned long long idle = 0, usable = 0;
	int fit, wait;

	if (!cost || !decision || !out || !best || (nleaves && !leaves))
		return lagom_errprintf(err, EINVAL, "no leaves or cost");
	if (nodes == 0)
		return lagom_errprintf(err, EINVAL, "nodes must be > 0");
	for (size_t i = 0; i < nleaves; i++) {
		if (leaves[i].idle > leaves[i].usable)
			return lagom_errprintf(
				err, EINVAL,
				"leaf %zu: more idle than usable "
				"nodes",
				i);
		idle += leaves[i].idle;
		usable += leaves[i].usable;
	}
	fit = best_fit_leaf(nodes, leaves, nleaves);
	wait = wait_leaf(nodes, leaves, nleaves);
	for (int k = 0; k < LAGOM_PLACE_KIND_COUNT; k++)
		out[k] = (struct lagom_place_option){
			.kind = (enum lagom_place_kind)k, .leaf = -1
		};
	out[LAGOM_PLACE_PACK_NOW].possible = fit >= 0;
	out[LAGOM_PLACE_PACK_NOW].leaf = fit;
	out[LAGOM_PLACE_PACK_NOW].switches = 1;
	out[LAGOM_PLACE_PACK_NOW].iter_s = cost->leaf_s;
	/* Waiting is an option only when a leaf is not free now. */
	out[LAGOM_PLACE_WAIT_LEAF].possible = fit < 0 && wait >= 0;
	out[LAGOM_PLACE_WAIT_LEAF].leaf = wait;
	out[LAGOM_PLACE_WAIT_LEAF].switches = 1;
	out[LAGOM_PLACE_WAIT_LEAF].wait_s = decision->reason ==
							    LAGOM_POLICY_PACK
						    ? decision->wait_s
						    : max_wait_s;
	out[LAGOM_PLACE_WAIT_LEAF].iter_s = cost->leaf_s;
	/* Spreading: enough nodes, but under no single leaf. */
	out[LAGOM_PLACE_SPREAD_NOW].possible = fit < 0 && idle >= nodes;
	out[LAGOM_PLACE_SPREAD_NOW].iter_s = cost->spread_s;
	out[LAGOM_PLACE_SPREAD_LATER].possible = idle < nodes &&
						 usable >= nodes && wait < 0;
	out[LAGOM_PLACE_SPREAD_LATER].iter_s = cost->spread_s;
	*best = pick_best(out, decision);
	return 0;
}
