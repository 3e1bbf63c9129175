/*
 * spank/lagom.c - lagom's SPANK entry points: one switch on the context per
 * callback, the real work in local.c (srun, sbatch, salloc) and remote.c
 * (slurmstepd).  The only file with SPANK_PLUGIN() and the only global.
 *
 * Return values: -1 is failure (Slurm 22.05's slurmstepd ignores positive
 * ESPANK codes).  Only srun/sbatch/salloc ever fail, and only for a bad
 * --lagom value or a broken plugstack.conf line; on the nodes lagom fails
 * open: one "lagom:" line in the log and an untouched environment.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <slurm/spank.h>

#include "spank/lagom.h"

SPANK_PLUGIN(lagom, 1)

struct lagom_state lagom_g;

static void log_line(void (*logf)(const char *, ...), const char *fmt,
		     va_list ap) __attribute__((format(printf, 2, 0)));
static void log_line(void (*logf)(const char *, ...), const char *fmt,
		     va_list ap)
{
	char line[512];

	vsnprintf(line, sizeof(line), fmt, ap);
	logf("lagom: %s", line);
}

void lagom_log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(slurm_info, fmt, ap);
	va_end(ap);
}

void lagom_log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(slurm_error, fmt, ap);
	va_end(ap);
}

static bool context_is_user_facing(spank_context_t ctx)
{
	return ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR;
}

/*
 * Parse plugstack.conf and register the options.  A bad argument refuses
 * the job at submission (srun/sbatch/salloc print the line); on the nodes
 * it is logged and lagom stays off, so no node drains over it.
 */
int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	struct lagom_error err = { 0 };

	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
		return 0;
	memset(&lagom_g, 0, sizeof(lagom_g));
	if (lagom_config_parse(ac, av, &lagom_g.cfg, &err) < 0) {
		lagom_log_error("plugstack.conf: %s", err.text);
		return context_is_user_facing(ctx) ? -1 : 0;
	}
	lagom_g.cfg_ok = true;
	if (lagom_options_register(sp) < 0)
		return context_is_user_facing(ctx) ? -1 : 0;
	return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	if (!lagom_g.cfg_ok)
		return 0;
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
	if (!lagom_g.cfg_ok || spank_context() != S_CTX_LOCAL)
		return 0;
	return lagom_local_user_init(sp, &lagom_g);
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	if (!lagom_g.cfg_ok || spank_context() != S_CTX_REMOTE)
		return 0;
	return lagom_remote_user_init(sp, &lagom_g);
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
