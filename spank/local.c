/*
 * spank/local.c - srun (local) and sbatch/salloc (allocator) contexts.
 *
 * The option callbacks have already refused bad values here.  What is left
 * is to pass the admin's default on: nothing, since every slurmstepd reads
 * plugstack.conf itself.  The plan is not computed here: the nodes compute
 * it (the same bytes on each), with the profiles only they can read, and a
 * workload file is read there with the user's privileges.  The job comment
 * is written by node 0 of the step, where the plan is known.
 */
#include <slurm/spank.h>

#include "spank/lagom.h"

int lagom_local_init_post_opt(spank_t sp, struct lagom_state *st)
{
	if (st->cfg.verbose && st->workload_given &&
	    lagom_effective_mode(st) == LAGOM_MODE_OFF)
		lagom_log_info(
			"--lagom-workload=%s has no effect with lagom off",
			st->workload);
	return 0;
}
