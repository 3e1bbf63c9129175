/*
 * spank/step_query.c - srun's one call to slurmctld for the step's record
 * (its node list and GPU request), bounded in time (spank/step_query.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat/slurm_compat.h"
#include "spank/lagom.h"
#include "spank/step_query.h"

/* The step's record from slurmctld: node list and GPU request.  SHOW_LOCAL
 * skips the federation lookup slurm_get_job_steps() makes first otherwise
 * (a second round trip): the step is on srun's cluster, or on the one -M
 * named, which libslurm asks then. */
static int fetch_step(uint32_t job_id, uint32_t step_id, char **nodes,
		      struct lagom_gpu_request *req, struct lagom_error *err)
{
	job_step_info_response_msg_t *resp = NULL;
	job_step_info_t *s;
	int rc = 0;

	if (lagom_slurm_get_job_steps(job_id, step_id, &resp,
				      SHOW_ALL | SHOW_LOCAL) != 0 ||
	    !resp)
		return lagom_errprintf(err, EIO,
				       "cannot read step %u.%u from slurmctld",
				       job_id, step_id);
	if (resp->job_step_count != 1) {
		rc = lagom_errprintf(err, EINVAL,
				     "a heterogeneous step (%u components): "
				     "left to NCCL",
				     resp->job_step_count);
		goto out;
	}
	s = &resp->job_steps[0];
	if (s->step_id.step_het_comp != NO_VAL) {
		rc = lagom_errprintf(err, EINVAL,
				     "a heterogeneous step: left "
				     "to NCCL");
		goto out;
	}
	*nodes = s->nodes ? strdup(s->nodes) : NULL;
	req->per_node = s->tres_per_node ? strdup(s->tres_per_node) : NULL;
	req->per_task = s->tres_per_task ? strdup(s->tres_per_task) : NULL;
	req->per_step = s->tres_per_step ? strdup(s->tres_per_step) : NULL;
	req->per_socket = s->tres_per_socket ? strdup(s->tres_per_socket)
					     : NULL;
	if (!*nodes)
		rc = lagom_errprintf(err, ENOENT, "step %u.%u has no nodes",
				     job_id, step_id);
out:
	slurm_free_job_step_info_response_msg(resp);
	return rc;
}

/*
 * fetch_step() in a thread that srun waits for at most timeout_ms
 * (lagom_bounded_*, pin.c): a stalled slurmctld must not hold the launch.
 * When the time is up the thread is left to finish on its own and frees
 * what it got.
 */
struct step_rpc {
	uint32_t job_id, step_id;
	int rc;
	char *nodes;
	struct lagom_gpu_request req;
	struct lagom_error err;
};

static void step_rpc_free(void *arg)
{
	struct step_rpc *r = arg;

	free(r->nodes);
	lagom_gpu_request_release(&r->req);
	free(r);
}

static void step_rpc_run(void *arg)
{
	struct step_rpc *r = arg;

	r->rc = fetch_step(r->job_id, r->step_id, &r->nodes, &r->req, &r->err);
}

int lagom_step_query(uint32_t job_id, uint32_t step_id, unsigned timeout_ms,
		     char **nodes, struct lagom_gpu_request *req,
		     struct lagom_error *err)
{
	struct step_rpc *r = calloc(1, sizeof(*r));
	struct lagom_bounded *b;
	int rc;

	if (!r)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	r->job_id = job_id;
	r->step_id = step_id;
	if (!(b = lagom_bounded_start(step_rpc_run, step_rpc_free, r))) {
		step_rpc_free(r);
		return lagom_errprintf(err, EAGAIN, "cannot start a thread");
	}
	if (lagom_bounded_wait(b, timeout_ms) < 0)
		return lagom_errprintf(err, ETIMEDOUT,
				       "slurmctld did not answer within %.1f s "
				       "(the step's nodes and GPUs)",
				       timeout_ms / 1000.0);
	rc = r->rc;
	if (rc < 0)
		*err = r->err;
	*nodes = r->nodes;
	*req = r->req;
	r->nodes = NULL;
	memset(&r->req, 0, sizeof(r->req));
	step_rpc_free(r);
	return rc;
}
