/*
 * spank/plan.h - the plugin's view of a job step and its one call into the
 * planner (planner/planner.h).  plan.c is the only file that calls the
 * planner or reads a user's workload file, so the unit tests of the
 * callbacks replace it with a stub.
 */
#ifndef LAGOM_SPANK_PLAN_H
#define LAGOM_SPANK_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "plugstack/plugstack.h"
#include "planner/planner.h"

#define LAGOM_NODE_NAME_MAX 64

/* A job step as seen from one of its nodes (filled by step.c). */
struct lagom_step {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t node_id; /* this node's index in the step, 0..nnodes-1 */
	uint32_t nnodes;
	uid_t uid; /* the job's owner */
	char node_name[LAGOM_NODE_NAME_MAX];
	char **node_names; /* expanded step node list (owned) */
	size_t node_count;
	unsigned ranks_per_node; /* tasks per node (largest when uneven) */
	unsigned gpus_per_node;	 /* 0: no GPU in the step */
	char cwd[1024];		 /* the job's working directory, or "" */
	/* the user said the application registers its buffers with NCCL
	 * (--lagom-registered-buffers): NCCL_CTA_POLICY's second gate */
	bool registered_buffers;
};

/* Free what a struct lagom_step owns and zero it (NULL allowed). */
void lagom_step_clear(struct lagom_step *step);
/* Free the node names only; the ids and counts stay. */
void lagom_step_clear_nodes(struct lagom_step *step);

/*
 * Compute the plan of a step.  workload is the --lagom-workload value or
 * NULL: a value containing '/' or ending in ".json" is a file, read here
 * with the caller's privileges (relative paths against step->cwd); anything
 * else is a catalog name.  On success *out is a planner result to free with
 * lagom_planner_result_destroy().  Returns 0 or a negative errno with err
 * filled (the caller fails open).
 */
int lagom_spank_plan(const struct lagom_config *cfg,
		     const struct lagom_step *step, const char *workload,
		     struct lagom_planner_result **out,
		     struct lagom_error *err);

/*
 * What srun learned from an earlier measured step of the same key
 * (spank/learn.c): the workload of its measured iteration (NULL when the
 * user named a workload) and its measured collective classes, from which
 * the planner corrects the model (planner.h, struct
 * lagom_planner_measured).  Free with lagom_learned_destroy().
 */
struct lagom_workload;
struct lagom_learned {
	struct lagom_workload *workload;	/* owned, or NULL */
	struct lagom_planner_measured measured; /* cls owned */
};
void lagom_learned_destroy(struct lagom_learned *learned);

/* The same with what was learned (borrowed): its workload, when it has
 * one, instead of workload, and its measured classes. */
int lagom_spank_plan_learned(const struct lagom_config *cfg,
			     const struct lagom_step *step,
			     const char *workload,
			     const struct lagom_learned *learned,
			     struct lagom_planner_result **out,
			     struct lagom_error *err);

#endif /* LAGOM_SPANK_PLAN_H */
