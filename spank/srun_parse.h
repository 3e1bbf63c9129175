/*
 * spank/srun_parse.h - what srun is asked, read from text alone
 * (srun_parse.c): the GPU count of a TRES list, the GPUs per node a
 * request fixes, the request slurmctld keeps for srun's GPU options, and
 * the step's working directory from srun's command line.  Pure: no Slurm,
 * no environment, no I/O (tests/spank/test_srun_parse links it with
 * placement/ and common/ only, no Slurm);
 * srun_step.c reads srun's state and hands it here.
 */
#ifndef LAGOM_SPANK_SRUN_PARSE_H
#define LAGOM_SPANK_SRUN_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "placement/placement.h" /* struct lagom_tasks_per_node */

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
 * every node (see srun_parse.c); 0 when the step has no GPU.  -EINVAL with
 * the reason when nodes may hold different numbers (then lagom leaves the
 * whole step to NCCL).
 */
int lagom_step_gpus(const struct lagom_gpu_request *req,
		    const struct lagom_tasks_per_node *tpn, unsigned *gpus,
		    struct lagom_error *err);

/* srun's own GPU options (Slurm's option table; NULL: not given). */
struct lagom_srun_gpu_opts {
	const char *gres; /* --gres, with Slurm's "gres:" prefix */
	const char *gpus; /* --gpus, -G */
	const char *gpus_per_node;
	const char *gpus_per_task;
	const char *gpus_per_socket;
	const char *step_gres_env; /* SLURM_STEP_GRES (used without --gres) */
	/* srun 24.11 and newer (slurm24 set): "gres/gpu:" prefixes, --gres=none
	 * sent alone, and the step's tres_per_task is srun's --tres-per-task
	 * (which holds --gpus-per-task), sent as is */
	bool slurm24;
	const char *tres_per_task;
};

/*
 * The GPU request slurmctld keeps for a step srun 22.05 (or, with
 * slurm24, 24.11 and 26.05) creates with these
 * options (srun_parse.c): 1 with *req filled (all NULL when the step has no
 * GRES), 0 when the options name no GRES, so that slurmctld gives the step
 * the job's request instead (only slurmctld can tell it), -ENOMEM.
 */
int lagom_srun_gpu_request(const struct lagom_srun_gpu_opts *o,
			   struct lagom_gpu_request *req,
			   struct lagom_error *err);

/*
 * The working directory of the step srun launches, into out: the last
 * -D/--chdir (or a prefix of --chdir getopt accepts) among srun's options,
 * else working_dir (SLURM_WORKING_DIR, NULL when unset), else remote_cwd
 * (SLURM_REMOTE_CWD, NULL when unset), else cwd (srun's directory): srun
 * 22.05's precedence, where the later variable of its environment table
 * wins.  A relative value is taken against cwd, as srun does.
 * argv is srun's command line, whose last command_argc words are the
 * step's command (S_JOB_ARGV).  Returns 0 or a negative errno.
 */
int lagom_srun_chdir(int argc, char *const argv[], int command_argc,
		     const char *remote_cwd, const char *working_dir,
		     const char *cwd, char *out, size_t size,
		     struct lagom_error *err);

#endif /* LAGOM_SPANK_SRUN_PARSE_H */
