/*
 * spank/step.h - a job step's placement (step.c): read in slurmstepd, and
 * the node list's expansion srun shares (srun_step.c).
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
/*
 * The value of name in the job's environment (spank_getenv), however long
 * up to max bytes with its NUL: the buffer starts at 8 KiB and grows four
 * times at a time.  0 and a new string in *out (to free); -ENOENT unset,
 * -E2BIG longer than max, -ENOMEM.
 */
int lagom_step_getenv_alloc(spank_t sp, const char *name, size_t max,
			    char **out);

int lagom_step_read(spank_t sp, struct lagom_step *step,
		    struct lagom_error *err);

/*
 * Expand the node list list (Slurm's hostlist syntax, behind placement's
 * strict name check) into step->node_names (owned, step->node_count of
 * them; lagom_step_clear()).  0, -EINVAL or -ENOMEM with err filled; on
 * failure step may hold a partial list.
 */
int lagom_step_expand_nodes(const char *list, struct lagom_step *step,
			    struct lagom_error *err);

#endif /* LAGOM_SPANK_STEP_H */
