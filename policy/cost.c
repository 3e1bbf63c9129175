/*
 * policy/cost.c - the cost of spreading a job over the spine and the
 * decision it implies (policy/policy.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "policy/policy.h"
#include "search/search.h"

int lagom_policy_params_check(const struct lagom_policy_params *p,
			      struct lagom_error *err)
{
	if (!p)
		return lagom_errprintf(err, EINVAL, "no policy parameters");
	if (!isfinite(p->run_s) || p->run_s <= 0 || p->run_s > 1e9)
		return lagom_errprintf(err, EINVAL,
				       "run length must be 0 < s <= 1e9");
	if (!isfinite(p->max_wait_s) || p->max_wait_s < 0 ||
	    p->max_wait_s > 1e9)
		return lagom_errprintf(err, EINVAL,
				       "maximum wait must be 0 <= s <= 1e9");
	if (!isfinite(p->min_loss) || p->min_loss < 0 || p->min_loss >= 10)
		return lagom_errprintf(err, EINVAL,
				       "minimum loss must be 0 <= x < 10");
	if (!isfinite(p->spine_taper) || p->spine_taper < 1 ||
	    p->spine_taper > 64)
		return lagom_errprintf(err, EINVAL,
				       "spine taper must be 1 <= x <= 64");
	return 0;
}

/* lagom's predicted iteration time with the plan made for this placement. */
static int planned_time(const struct lagom_hw *hw,
			const struct lagom_workload *w, enum lagom_hops hops,
			unsigned nodes, unsigned gpus, double *time_s,
			struct lagom_error *err)
{
	struct lagom_workload *c = lagom_search_workload_copy(w);
	struct lagom_plan *plan = NULL;
	int rc;

	if (!c)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	lagom_search_workload_hops(c, hops);
	rc = lagom_search_plan(hw, c, nodes, gpus, NULL, &plan, err);
	if (rc == 0) {
		*time_s = plan->lagom_s;
		lagom_search_plan_destroy(plan);
	}
	lagom_workload_destroy(c);
	return rc;
}

/*
 * Spine model: crossing the spine adds the model's spine latency to every
 * network hop (hops = SPINE), and on a tapered (oversubscribed) spine a
 * node's traffic gets 1/taper of its NIC bandwidth.
 */
int lagom_placement_cost(const struct lagom_hw *hw,
			 const struct lagom_workload *w, unsigned nodes,
			 unsigned gpus_per_node, double spine_taper,
			 struct lagom_placement_cost *out,
			 struct lagom_error *err)
{
	struct lagom_hw spread_hw;
	double leaf_s = 0, spread_s = 0;
	int rc;

	if (!hw || !w || !out)
		return lagom_errprintf(err, EINVAL, "no hardware or workload");
	if (nodes < 2 || nodes > LAGOM_POLICY_MAX_NODES)
		return lagom_errprintf(err, EINVAL,
				       "nodes must be 2..%d, got %u",
				       LAGOM_POLICY_MAX_NODES, nodes);
	if (!isfinite(spine_taper) || spine_taper < 1 || spine_taper > 64)
		return lagom_errprintf(err, EINVAL,
				       "spine taper must be 1 <= x <= 64");
	spread_hw = *hw;
	spread_hw.nic_Bps = hw->nic_Bps / spine_taper;
	rc = planned_time(hw, w, LAGOM_HOPS_SAME_LEAF, nodes, gpus_per_node,
			  &leaf_s, err);
	if (rc == 0)
		rc = planned_time(&spread_hw, w, LAGOM_HOPS_SPINE, nodes,
				  gpus_per_node, &spread_s, err);
	if (rc)
		return rc;
	if (!(leaf_s > 0) || !isfinite(spread_s))
		return lagom_errprintf(err, EINVAL,
				       "the model predicts no iteration time");
	out->leaf_s = leaf_s;
	out->spread_s = spread_s;
	out->loss = spread_s / leaf_s - 1.0;
	return 0;
}

const char *lagom_policy_reason_name(enum lagom_policy_reason r)
{
	switch (r) {
	case LAGOM_POLICY_PACK:
		return "pack";
	case LAGOM_POLICY_INSENSITIVE:
		return "insensitive";
	case LAGOM_POLICY_WIDER:
		return "wider-than-leaf";
	}
	return "?";
}

void lagom_policy_decide(const struct lagom_policy_params *p, unsigned nodes,
			 unsigned leaf_nodes,
			 const struct lagom_placement_cost *cost,
			 double run_s_override,
			 struct lagom_policy_decision *out)
{
	double run_s = run_s_override > 0 ? run_s_override : p->run_s;
	double wait_s;

	*out = (struct lagom_policy_decision){
		.switches = 0, .wait_s = 0, .reason = LAGOM_POLICY_INSENSITIVE
	};
	if (nodes > leaf_nodes) {
		out->reason = LAGOM_POLICY_WIDER;
		return;
	}
	if (!(cost->loss >= p->min_loss) || cost->loss <= 0)
		return;
	wait_s = fmin(cost->loss * run_s, p->max_wait_s);
	out->reason = LAGOM_POLICY_PACK;
	out->switches = 1;
	out->wait_s = wait_s < 1 ? 1 : (unsigned)floor(wait_s + 1e-6);
}
