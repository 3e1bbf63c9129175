/*
 * spank/srun_step.h - the step as srun sees it before launch (srun_step.c).
 */
#ifndef LAGOM_SPANK_SRUN_STEP_H
#define LAGOM_SPANK_SRUN_STEP_H

#include <slurm/spank.h>

#include "common/error.h"
#include "spank/carrier.h"
#include "spank/plan.h"
#include "placement/placement.h"

/* slurmctld's TRES request strings of a step (owned; NULL: none). */
struct lagom_gpu_request {
	char *per_node;	  /* --gpus-per-node, --gres=gpu:N */
	char *per_task;	  /* --gpus-per-task */
	char *per_step;	  /* --gpus */
	char *per_socket; /* --gpus-per-socket */
};

void lagom_gpu_request_release(struct lagom_gpu_request *req);

/*
 * The GPU count of a TRES list ("cpu:3,gres:gpu:7", "gres/gpu:a100:4"):
 * 1 and *count when it names gpu, 0 when not (or list NULL), -1 when the
 * gpu entry is malformed.
 */
int lagom_tres_gpus(const char *list, unsigned long *count);

/*
 * GPUs on every node of the step, when the request fixes that number on
 * every node (see srun_step.c); 0 when the step has no GPU.  -EINVAL with
 * the reason when nodes may hold different numbers (then lagom leaves the
 * whole step to NCCL).
 */
int lagom_step_gpus(const struct lagom_gpu_request *req,
		    const struct lagom_tasks_per_node *tpn, unsigned *gpus,
		    struct lagom_error *err);

/*
 * Fill *step (node names owned: lagom_step_clear()) and the step's
 * identity *id in srun's slurm_spank_local_user_init: one slurmctld round
 * trip.  node_id is 0, node_name srun's host, cwd srun's directory.
 * Returns 0 or a negative errno with err filled.
 */
int lagom_srun_step_read(spank_t sp, struct lagom_step *step,
			 struct lagom_carrier_step *id,
			 struct lagom_error *err);

#endif /* LAGOM_SPANK_SRUN_STEP_H */
