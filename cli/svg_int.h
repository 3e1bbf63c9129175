/*
 * cli/svg_int.h - the plan as a picture: `lagom plan --svg FILE`.
 *
 * For each collective class of a plan (one LAGOM_PLAN coll record), the
 * predicted time of the overlap regions that class runs in, per iteration,
 * against the channels (CTAs) given to that class, everything else as
 * planned: the computation stream (y), the communication stream (x) and the
 * region as a whole (z = max(x, y) + serial).  Marked: NCCL's default
 * channel count with the time of those regions when NCCL chooses for every
 * collective, and lagom's choice.  Measured points (`lagom runs --svg`) may
 * be added to a panel.
 *
 * cli_plan_curves() computes (the model only, no I/O); cli_svg_write()
 * draws a plain SVG 1.1 file (no script, no external reference) and
 * replaces path atomically.
 */
#ifndef LAGOM_CLI_CLI_SVG_H
#define LAGOM_CLI_CLI_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "model/model.h"

struct lagom_plan; /* search/search.h */

#define CLI_CURVE_NC_MAX LAGOM_NCHANNELS_MAX
#define CLI_SVG_MAX_PANELS 16 /* classes drawn; the rest are counted */

/* One channel count of a curve; ok false where the model refuses it
 * (an algorithm that needs more channels, a chunk that does not fit). */
struct cli_curve_point {
	bool ok;
	double comp_s, comm_s, region_s; /* per iteration */
};

struct cli_curve {
	size_t class_index; /* into plan->colls */
	enum lagom_coll coll;
	uint64_t bytes;
	unsigned ranks, nodes, calls;
	enum lagom_algo algo; /* of the swept configuration */
	enum lagom_proto proto;
	bool keep;	 /* the plan leaves this class to NCCL */
	unsigned nc_max; /* points[0 .. nc_max-1] are nc 1 .. nc_max */
	struct cli_curve_point points[CLI_CURVE_NC_MAX];
	unsigned lagom_nc; /* lagom's choice (NCCL's when keep) */
	double lagom_region_s;
	unsigned nccl_nc;     /* NCCL's default channels for this class */
	double nccl_region_s; /* the same regions, NCCL's defaults everywhere */
};

/* A measured point for a panel (lagom runs --svg). */
struct cli_svg_measured {
	size_t class_index;
	unsigned nchannels;
	double region_s;
};

/*
 * One curve per coll record of plan (at most CLI_SVG_MAX_PANELS; *count
 * says how many), for workload w on hw.  *out is new (free()).  A plan
 * without coll records gives *count 0.  Errors: -ENOMEM; -EINVAL when a
 * class of the plan occurs in no region of w (not the workload planned).
 */
int cli_plan_curves(const struct lagom_hw *hw, const struct lagom_workload *w,
		    const struct lagom_plan *plan, struct cli_curve **out,
		    size_t *count, struct lagom_error *err);

struct cli_svg_doc {
	const char *title;    /* first line, e.g. "lagom 0.1.0 plan <id>" */
	const char *subtitle; /* second line (may be NULL) */
	const char *note;     /* drawn when there are no curves (may be NULL) */
	const struct cli_curve *curves;
	size_t ncurves;
	size_t more;				 /* classes not drawn */
	const struct cli_svg_measured *measured; /* may be NULL */
	size_t nmeasured;
};

/* Write the picture to path (through a temporary file in the same folder,
 * renamed over path).  CLI_OK, or CLI_FAIL after one "lagom:" line. */
int cli_svg_write(const char *path, const struct cli_svg_doc *doc);

struct lagom_planner_result; /* planner/planner.h */

/*
 * `lagom plan --svg PATH` (cli/plan_svg.c): the picture of res, for the
 * workload the plan was made for: w (read from a file), else the catalog
 * entry name built as the planner built it, else none (the picture then
 * says the plan holds no per-class choice).  path "-" is standard output.
 * CLI_OK, or CLI_FAIL after one "lagom:" line.
 */
int cli_plan_svg(const char *path, const struct lagom_planner_result *res,
		 const struct lagom_workload *w, const char *name);

#endif /* LAGOM_CLI_CLI_SVG_H */
