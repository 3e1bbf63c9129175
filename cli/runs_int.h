/*
 * cli/runs_int.h - `lagom runs` internals shared by cmd_runs.c and
 * runs_predicted.c.
 */
#ifndef LAGOM_CLI_CLI_RUNS_H
#define LAGOM_CLI_CLI_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "measurement/record.h"

/* One measured class of a step, summed over its tasks. */
struct agg {
	char comm[LAGOM_REC_NAME_MAX + 1];
	struct lagom_rec_class k; /* sums over tasks */
	uint32_t ranks, nodes;
	unsigned tasks;
	double predicted_us; /* < 0: unknown */
};

/*
 * Fill agg[].predicted_us from the step directory step_fd's "predicted"
 * (where names it in messages, escaped), the per-class predictions the
 * SPANK plugin left next to the records (doc/profiler.md), when it
 * exists, is owned by uid, parses strictly and names plan_id.  Silent when
 * there is none; one "lagom: " line when it is refused.
 * arm (8 bytes) gets its arm line ("control", "measure"; "" when none,
 * doc/report.md) and arm_plan (24 bytes) the plan it names.
 */
void cli_runs_predicted(int step_fd, const char *where, long uid,
			const char *plan_id, struct agg *agg, size_t n_agg,
			char *arm, char *arm_plan);

#endif /* LAGOM_CLI_CLI_RUNS_H */
