/*
 * planner/planner.c - lagom_planner_run(): profiles -> hardware -> workload
 * -> search -> plan text, environment and report.  See planner.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/planner.h"
#include "planner/planner_int.h"
#include "planner/report_int.h"
#include "search/search.h"
#include "catalog/catalog.h"

#define PLANNER_ENV_MAX 32

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int check_input(const struct lagom_planner_input *in,
		       struct lagom_error *err)
{
	size_t i;

	if (!in->node_names || in->node_count == 0)
		return lagom_errprintf(err, EINVAL, "the step has no nodes");
	if (in->node_count > LAGOM_PLANNER_MAX_NODES)
		return lagom_errprintf(err, EINVAL,
				       "%zu nodes: more than lagom plans for "
				       "(%d)",
				       in->node_count, LAGOM_PLANNER_MAX_NODES);
	if (in->ranks_per_node == 0 ||
	    in->ranks_per_node > LAGOM_PLANNER_MAX_RANKS_PER_NODE)
		return lagom_errprintf(
			err, EINVAL, "ranks per node must be 1..%d, got %u",
			LAGOM_PLANNER_MAX_RANKS_PER_NODE, in->ranks_per_node);
	for (i = 0; i < in->node_count; i++)
		if (!in->node_names[i] || !in->node_names[i][0])
			return lagom_errprintf(err, EINVAL,
					       "node name %zu is empty", i);
	return 0;
}

/* A sorted copy of the node names, so their order cannot change the plan. */
static int sorted_nodes(const struct lagom_planner_input *in, const char ***out,
			struct lagom_error *err)
{
	const char **names = malloc(in->node_count * sizeof(*names));
	size_t i;

	if (!names)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	memcpy(names, in->node_names, in->node_count * sizeof(*names));
	/* Slurm's host lists are sorted, and with zero-padded numbers
	 * ("gpu0009", "gpu0010") in strcmp's order too: one pass finds
	 * that, and then no name is there twice either */
	for (i = 1; i < in->node_count; i++)
		if (strcmp(names[i - 1], names[i]) >= 0)
			break;
	if (i < in->node_count) {
		qsort(names, in->node_count, sizeof(*names), cmp_names);
		for (i = 1; i < in->node_count; i++)
			if (strcmp(names[i - 1], names[i]) == 0) {
				int rc = lagom_errprintf(
					err, EINVAL, "node %s is listed twice",
					names[i]);

				free(names);
				return rc;
			}
	}
	*out = names;
	return 0;
}

/* The site's network calibration onto the step's hardware: the file the
 * caller named, else the profile directory's (rep). */
static int step_calibration(const struct lagom_planner_input *in,
			    struct planner_load_report *rep,
			    struct lagom_planner_inputs *g,
			    struct lagom_error *err)
{
	if (in->calibration_path) {
		int rc = lagom_calibration_read_file(in->calibration_path,
						     &rep->calibration, err);
		if (rc)
			return rc;
		rep->calibrated = true;
	}
	if (!rep->calibrated)
		return 0;
	lagom_hw_apply_calib(g->hw, &rep->calibration.calib);
	lagom_calibration_line(&rep->calibration, g->calibrated,
			       sizeof(g->calibrated));
	return 0;
}

/* The weakest hardware of the step's nodes (planner/hw.c). */
static int step_hardware(const struct lagom_planner_input *in,
			 struct lagom_planner_inputs *g,
			 struct lagom_error *err)
{
	struct planner_load_report rep = { 0 };
	const char **names = NULL;
	int rc;

	if ((rc = sorted_nodes(in, &names, err)))
		return rc;
	rc = planner_load_weakest_hw(in->profile_dir, in->profile_path,
				     in->enforce_trust, in->trusted_uid, names,
				     in->node_count, g->hw, &rep, err);
	if (rc == 0)
		rc = planner_step_hops(in->topology_conf, names, in->node_count,
				       &g->hops, g->hw, err);
	if (rc == 0)
		rc = step_calibration(in, &rep, g, err);
	g->digest_nodes = rep.from_digest;
	g->nccl_version = rep.nccl_version;
	if (rc == 0 && rep.notice[0] && !(g->notice = strdup(rep.notice)))
		rc = lagom_errprintf(err, ENOMEM, "out of memory");
	free(names);
	return rc;
}

/* GPUs per node to plan for: the step's, at most the profile's. */
static int step_gpus(const struct lagom_planner_input *in,
		     const struct lagom_hw *hw, unsigned *gpus,
		     struct lagom_error *err)
{
	unsigned g = in->gpus_per_node ? in->gpus_per_node : hw->gpus_per_node;

	if (g > hw->gpus_per_node)
		return lagom_errprintf(err, EINVAL,
				       "the step uses %u GPUs per node but "
				       "the profiles list %u",
				       g, hw->gpus_per_node);
	if (in->ranks_per_node > g && g > 0)
		return lagom_errprintf(err, EINVAL,
				       "%u tasks per node share %u GPUs: lagom "
				       "plans for one rank per GPU",
				       in->ranks_per_node, g);
	*gpus = g;
	return 0;
}

static int make_plan(const struct lagom_planner_input *in,
		     const struct lagom_hw *hw, enum lagom_hops hops,
		     unsigned gpus, struct lagom_planner_result *res,
		     struct lagom_error *err)
{
	struct lagom_plan **plan = &res->plan;
	struct lagom_workload *w = NULL;
	unsigned nodes = (unsigned)in->node_count;
	const struct lagom_search_opts opts = {
		.nccl_version = res->nccl_version,
		.registered_buffers = res->registered_buffers,
	};
	int rc;

	if (in->workload) {
		/* a copy the planner may change (the caller's is borrowed) */
		w = lagom_search_workload_copy(in->workload);
		if (!w)
			return lagom_errprintf(err, ENOMEM, "out of memory");
	} else if (in->workload_name) {
		rc = lagom_workload_from_name(in->workload_name, hw, nodes,
					      gpus, &w, err);
		if (rc)
			return lagom_error_prefix(err, "workload '%s'",
						  in->workload_name);
	}
	if (w && in->topology_conf) /* inter-node hops from topology.conf */
		lagom_search_workload_hops(w, hops);
	if (w && (rc = planner_correct(in->measured, hw, w, res, err)) != 0) {
		lagom_workload_destroy(w);
		return rc;
	}
	if (w)
		rc = lagom_search_plan(hw, w, nodes, gpus, &opts, plan, err);
	else
		rc = lagom_search_no_workload(hw, nodes, gpus, &opts, plan,
					      err);
	lagom_workload_destroy(w);
	return rc;
}

int lagom_planner_gather(const struct lagom_planner_input *in,
			 struct lagom_planner_inputs *out,
			 struct lagom_error *err)
{
	struct lagom_planner_inputs g = { .hops = LAGOM_HOPS_SAME_LEAF };
	int rc;

	if (!in || !out)
		return lagom_errprintf(err, EINVAL, "no input");
	if (!(g.hw = malloc(sizeof(*g.hw))))
		return lagom_errprintf(err, ENOMEM, "out of memory");
	if ((rc = check_input(in, err)) || (rc = step_hardware(in, &g, err)) ||
	    (rc = step_gpus(in, g.hw, &g.gpus_per_node, err))) {
		lagom_planner_inputs_release(&g);
		return rc;
	}
	*out = g;
	return 0;
}

void lagom_planner_inputs_release(struct lagom_planner_inputs *inputs)
{
	if (!inputs)
		return;
	free(inputs->hw);
	inputs->hw = NULL;
	free(inputs->notice);
	inputs->notice = NULL;
}

int lagom_planner_run(const struct lagom_planner_input *in,
		      struct lagom_planner_result **out,
		      struct lagom_error *err)
{
	struct lagom_planner_result *res;
	struct lagom_planner_inputs g;
	unsigned gpus;
	int rc;

	if (!out)
		return lagom_errprintf(err, EINVAL, "no input");
	if ((rc = lagom_planner_gather(in, &g, err)))
		return rc;
	gpus = g.gpus_per_node;
	res = calloc(1, sizeof(*res));
	if (!res) {
		lagom_planner_inputs_release(&g);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	res->hw = g.hw; /* the result owns the hardware view from here */
	res->notice = g.notice;
	res->digest_nodes = g.digest_nodes;
	memcpy(res->calibrated, g.calibrated, sizeof(res->calibrated));
	res->nccl_version = in->nccl_version ? in->nccl_version
					     : g.nccl_version;
	res->registered_buffers = in->registered_buffers;
	res->nodes = (unsigned)in->node_count;
	res->gpus_per_node = gpus;
	res->ranks_per_node = gpus;
	if (res->nodes * gpus == 1)
		rc = planner_fallback(in, res, LAGOM_PLANNER_FALLBACK_ONE_GPU,
				      err);
	else if ((rc = make_plan(in, res->hw, g.hops, gpus, res, err)) == 0 &&
		 res->plan->no_workload && !(res->plan->nccl_s > 0)) {
		/* every catalog workload was refused for this hardware */
		lagom_search_plan_destroy(res->plan);
		res->plan = NULL;
		rc = planner_fallback(in, res, LAGOM_PLANNER_FALLBACK_UNPRICED,
				      err);
	} else if (rc == 0)
		rc = planner_finish(in, res->hw, res, err);
	if (rc) {
		lagom_planner_result_destroy(res);
		return rc;
	}
	*out = res;
	return 0;
}

void lagom_planner_result_destroy(struct lagom_planner_result *res)
{
	size_t i;

	if (!res)
		return;
	lagom_search_plan_destroy(res->plan);
	free(res->hw);
	free(res->plan_text);
	for (i = 0; i < res->env_count; i++) {
		free(res->env[i].name);
		free(res->env[i].value);
	}
	free(res->env);
	free(res->summary);
	free(res->explanation);
	free(res->workload_name);
	free(res->fallback_reason);
	free(res->corrections);
	free(res->notice);
	free(res);
}

int lagom_planner_profile_hw(const char *path, bool enforce_trust,
			     uid_t trusted_uid, struct lagom_hw *out,
			     struct lagom_error *err)
{
	static const char *const one[] = { "profile" };
	size_t nhws;

	if (!path || !out)
		return lagom_errprintf(err, EINVAL, "no profile path");
	return planner_load_hw(NULL, path, enforce_trust, trusted_uid, one, 1,
			       out, &nhws, NULL, err);
}
