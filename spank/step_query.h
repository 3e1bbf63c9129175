/*
 * spank/step_query.h - srun asks slurmctld for the step's record
 * (step_query.c): the one round trip srun makes when its own state cannot
 * tell the step's nodes and GPU request (spank/srun_step.c).
 */
#ifndef LAGOM_SPANK_STEP_QUERY_H
#define LAGOM_SPANK_STEP_QUERY_H

#include <stdint.h>

#include "common/error.h"
#include "spank/srun_parse.h" /* struct lagom_gpu_request */

/*
 * The node list (*nodes, owned: free()) and GPU request (*req, release
 * with lagom_gpu_request_release()) slurmctld keeps for job_id.step_id,
 * from one slurm_get_job_steps() call in a thread (spank/pin.c) that srun
 * waits for at most timeout_ms: a stalled slurmctld does not hold the
 * launch; the thread then finishes on its own and frees what it got.
 * Returns 0; -ETIMEDOUT past the bound; -EIO (slurmctld did not answer),
 * -EINVAL (a heterogeneous step), -ENOENT (no nodes), -EAGAIN (no
 * thread), -ENOMEM; err says which.  *nodes and *req start NULL and empty;
 * the caller frees them whatever the return (on an error they hold what
 * slurmctld sent, or nothing).
 */
int lagom_step_query(uint32_t job_id, uint32_t step_id, unsigned timeout_ms,
		     char **nodes, struct lagom_gpu_request *req,
		     struct lagom_error *err);

#endif /* LAGOM_SPANK_STEP_QUERY_H */
