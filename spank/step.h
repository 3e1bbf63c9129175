/*
 * spank/step.h - read a job step's placement in slurmstepd (step.c).
 */
#ifndef LAGOM_SPANK_STEP_H
#define LAGOM_SPANK_STEP_H

#include <slurm/spank.h>

#include "common/error.h"
#include "spank/plan.h"

/*
 * Fill *step from spank_get_item and the step's environment (remote
 * context only).  Returns 0 or a negative errno with err filled; on failure
 * *step may hold a partial node list: free it with lagom_step_clear().
 */
int lagom_step_read(spank_t sp, struct lagom_step *step,
		    struct lagom_error *err);

/* Largest count in a Slurm tasks-per-node string ("4(x2),3" -> 4).
 * Returns 0, or -EINVAL for a malformed string (*out untouched). */
int lagom_tasks_per_node_max(const char *spec, unsigned *out);

/* Entries of a comma-separated list ("0,1,3" -> 3, "" or NULL -> 0). */
unsigned lagom_list_count(const char *list);

#endif /* LAGOM_SPANK_STEP_H */
