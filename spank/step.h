/*
 * spank/step.h - a job step as the plugin sees it (struct lagom_step) and
 * its placement (step.c): read in slurmstepd, and the node list's
 * expansion srun shares (srun_step.c, which fills the same struct in srun).
 */
#ifndef LAGOM_SPANK_STEP_H
#define LAGOM_SPANK_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <slurm/spank.h>

#include "common/error.h"

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
 * The value of name in the job's environment (spank_getenv), however long
 * up to max bytes with its NUL: the buffer starts at 8 KiB and grows four
 * times at a time.  0 and a new string in *out (to free); -ENOENT unset,
 * -E2BIG longer than max, -ENOMEM.
 */
int lagom_step_getenv_alloc(spank_t sp, const char *name, size_t max,
			    char **out);

/* Whether name is in the job's environment (spank_getenv), empty or not:
 * lagom_step_env_has(); with a value that is not empty:
 * lagom_step_env_set().  Neither copies more than one byte of it. */
bool lagom_step_env_has(spank_t sp, const char *name);
bool lagom_step_env_set(spank_t sp, const char *name);

/*
 * Fill *step from spank_get_item and the step's environment (remote
 * context only).  Returns 0 or a negative errno with err filled; on failure
 * *step may hold a partial node list: free it with lagom_step_clear().
 */
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
