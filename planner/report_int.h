/*
 * planner/report_int.h - private to planner/: from a plan to the result's text
 * (plan text, environment, summary, explanation) and the safe default.
 */
#ifndef LAGOM_PLANNER_REPORT_H
#define LAGOM_PLANNER_REPORT_H

#include "common/error.h"
#include "planner/planner.h"

struct lagom_hw;

/* Fill res from res->plan: plan text, id, environment, times, summary and
 * explanation.  0 or a negative errno. */
int planner_finish(const struct lagom_planner_input *in,
		   const struct lagom_hw *hw, struct lagom_planner_result *res,
		   struct lagom_error *err);

/* The multi-line explanation into *out (new string, caller frees). */
int planner_explain(const struct lagom_planner_input *in,
		    const struct lagom_hw *hw,
		    const struct lagom_planner_result *res, char **out);

/* The documented safe default: an empty plan (no coll records), only
 * LAGOM_PLAN_ID and LAGOM_PREDICTED_SPEEDUP=1.00 in the environment. */
int planner_fallback(const struct lagom_planner_input *in,
		     struct lagom_planner_result *res, const char *reason,
		     struct lagom_error *err);

#endif /* LAGOM_PLANNER_REPORT_H */
