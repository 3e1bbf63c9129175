/*
 * cli/plan_svg.c - `lagom plan --svg FILE`: the planner's result as a
 * picture (cli/svg_int.h, lagom(1)).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "catalog/catalog.h"
#include "cli/svg_int.h"
#include "planner/planner.h"
#include "search/search.h"

static int draw(const char *path, const struct lagom_planner_result *res,
		const struct lagom_workload *w)
{
	struct lagom_error err = { 0 };
	struct cli_curve *curves = NULL;
	char title[160], subtitle[320];
	struct cli_svg_doc doc = { .title = title, .subtitle = subtitle };
	const struct lagom_plan *p = res->plan;
	int rc;

	snprintf(title, sizeof(title), "lagom %s plan %s", PACKAGE_VERSION,
		 res->plan_id);
	snprintf(subtitle, sizeof(subtitle),
		 "workload %s on %u node%s x %u %s; predicted iteration "
		 "%.4g ms (NCCL's defaults %.4g ms, speedup %.2fx)",
		 res->workload_name, res->nodes, res->nodes == 1 ? "" : "s",
		 res->gpus_per_node, res->hw->gpu.name,
		 res->predicted_time_s * 1e3, res->nccl_default_time_s * 1e3,
		 res->predicted_speedup);
	if (res->fell_back)
		doc.note = "safe default: the plan leaves NCCL alone, nothing "
			   "to compare";
	else if (!w || !p->ncolls)
		doc.note = "no workload given: the plan is one setting for the "
			   "whole catalog, without per-class choices "
			   "(use --workload)";
	if (!res->fell_back && w && p->ncolls) {
		if (cli_plan_curves(res->hw, w, p, &curves, &doc.ncurves, &err))
			return cli_fail(CLI_FAIL, "plan --svg: %s", err.text);
		doc.curves = curves;
		doc.more = p->ncolls - doc.ncurves;
	}
	rc = cli_svg_write(path, &doc);
	free(curves);
	return rc;
}

int cli_plan_svg(const char *path, const struct lagom_planner_result *res,
		 const struct lagom_workload *w, const char *name)
{
	struct lagom_workload *built = NULL;
	struct lagom_error err = { 0 };
	int rc;

	if (!w && name && !res->fell_back) {
		if (lagom_workload_from_name(name, res->hw, res->nodes,
					     res->gpus_per_node, &built, &err))
			return cli_fail(CLI_FAIL, "plan --svg: %s", err.text);
		w = built;
	}
	rc = draw(path, res, w);
	lagom_workload_destroy(built);
	return rc;
}
