/*
 * cli/plan_int.h - `lagom plan`'s pieces: the step from the options
 * (plan_step.c) and the output (plan_out.c).
 */
#ifndef LAGOM_CLI_CLI_PLAN_H
#define LAGOM_CLI_CLI_PLAN_H

#include "cli/cli.h"
#include "model/model.h"
#include "planner/planner.h"

struct plan_opts {
	enum cli_format format;
	const char *profile, *nodelist, *workload, *tuner, *topology_conf;
	const char *svg;	 /* --svg FILE, or NULL */
	const char *calibration; /* --calibration FILE, or NULL */
	unsigned nodes, gpus_per_node;
	unsigned long long job_id, trusted_uid;
	bool trust;
	bool registered_buffers; /* --registered-buffers */
};

/* The step the options describe. */
struct cli_step {
	bool is_dir;  /* --profile names a directory */
	char **names; /* count node names (owned) */
	size_t count;
	unsigned gpus_per_node; /* resolved: --gpus-per-node or the profile's */
	struct lagom_hw hw;	/* of the first node's profile */
	struct lagom_workload *workload; /* from a FILE (owned), or NULL */
};

/* Fill step from the options: 0, or CLI_USAGE / CLI_FAIL after one line. */
int cli_plan_step(const struct plan_opts *o, struct cli_step *step);
/* Check --workload NAME against the catalog, or read --workload FILE. */
int cli_plan_workload(const struct plan_opts *o, struct cli_step *step);
void cli_step_fini(struct cli_step *step);

int cli_plan_json(const struct lagom_planner_result *res,
		  const struct lagom_planner_input *in);
int cli_plan_text(const struct lagom_planner_result *res);
/* false when a predicted time or speedup of res is not a finite number
 * (a workload whose times overflow a double): an input error. */
bool cli_plan_times_finite(const struct lagom_planner_result *res);

#endif /* LAGOM_CLI_CLI_PLAN_H */
