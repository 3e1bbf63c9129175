/*
 * spank/lagom.c - lagom's SPANK entry points and nothing else: one switch
 * on the context per callback, the real work in options.c (plugstack.conf,
 * options), local.c (srun, sbatch, salloc) and remote.c (slurmstepd).  The
 * only file with SPANK_PLUGIN(), and the home of the shared state lagom_g.
 *
 * Return values: -1 is failure (Slurm 22.05's slurmstepd ignores positive
 * ESPANK codes).  Only srun/sbatch/salloc ever fail, and only for a bad
 * --lagom value or a broken plugstack.conf line; on the nodes lagom fails
 * open: one "lagom:" line in the log and an untouched environment.
 */
#include <slurm/spank.h>

#include "spank/local_int.h"
#include "spank/remote_int.h"

SPANK_PLUGIN(lagom, 1)

/* The state every context shares (spank/lagom.h). */
struct lagom_state lagom_g;

/* srun, sbatch, salloc and slurmstepd: options and plugstack.conf. */
int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
		return 0;
	return lagom_state_init(sp, ctx, ac, av);
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	if (!lagom_g.cfg_ok) {
		lagom_tell_inert(sp, spank_context());
		return 0;
	}
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
		return lagom_local_init_post_opt(sp, &lagom_g);
	case S_CTX_REMOTE:
		return lagom_remote_init_post_opt(sp, &lagom_g);
	default:
		return 0;
	}
}

/* srun, after the step exists and before it launches: plan once. */
int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	if (spank_context() != S_CTX_LOCAL)
		return 0;
	if (!lagom_g.cfg_ok) {
		lagom_local_drop_inherited(); /* no plan travels, ever */
		return 0;
	}
	return lagom_local_user_init(sp, &lagom_g);
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	if (!lagom_g.cfg_ok) {
		lagom_remote_drop_carried(sp);
		return 0;
	}
	return lagom_remote_user_init(sp, &lagom_g);
}

/* Each task, as root, before any plugin's task_init: the plan's variables
 * (a container plugin's task_init, and its hooks, see them). */
int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	if (!lagom_g.cfg_ok || spank_context() != S_CTX_REMOTE)
		return 0;
	return lagom_remote_task_init_privileged(sp, &lagom_g);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	if (!lagom_g.cfg_ok || spank_context() != S_CTX_REMOTE)
		return 0;
	return lagom_remote_task_init(sp, &lagom_g);
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	if (!lagom_g.cfg_ok || spank_context() != S_CTX_REMOTE)
		return 0;
	return lagom_remote_task_post_fork(sp, &lagom_g);
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	if (!lagom_g.cfg_ok || spank_context() != S_CTX_REMOTE)
		return 0;
	return lagom_remote_task_exit(sp, &lagom_g);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	if (spank_context() == S_CTX_REMOTE)
		lagom_remote_exit(sp, &lagom_g);
	return 0;
}
