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
	char line[1024], safe[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	lagom_escape(line, safe, sizeof(safe));
	logf("lagom: %s", safe);
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

void lagom_log_user(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(slurm_spank_log, fmt, ap);
	va_end(ap);
}

static bool context_is_user_facing(spank_context_t ctx)
{
	return ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR;
}

/*
 * Register the options, then parse plugstack.conf.  The options come first
 * and always: with a bad argument on an "optional" line Slurm ignores the
 * failure below, and --lagom must still be an option srun and sbatch know,
 * or every job that asks for lagom would be refused as unrecognised.  lagom
 * is then inert: one line at load, one for each step that asks for it.
 * srun, sbatch and salloc return -1, which refuses the job only on a
 * "required" line; on the nodes the line is logged and init returns 0, so
 * no node drains over it.
 */
int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	struct lagom_error err = { 0 };
	int rc;

	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
		return 0;
	memset(&lagom_g, 0, sizeof(lagom_g));
	rc = lagom_options_register(sp);
	if (lagom_config_parse(ac, av, &lagom_g.cfg, &err) < 0) {
		snprintf(lagom_g.cfg_error, sizeof(lagom_g.cfg_error),
			 "plugstack.conf: %s", err.text);
		if (context_is_user_facing(ctx))
			lagom_log_error("%s; lagom does nothing until the "
					"line is fixed",
					lagom_g.cfg_error);
		return context_is_user_facing(ctx) ? -1 : 0;
	}
	lagom_g.cfg_ok = true;
	return rc < 0 && context_is_user_facing(ctx) ? -1 : 0;
}

/* An inert lagom (bad plugstack.conf line) tells each step that asks. */
static void tell_inert(spank_t sp, spank_context_t ctx)
{
	enum lagom_mode mode = lagom_g.mode_given ? lagom_g.mode_opt
						  : LAGOM_MODE_OFF;
	uint32_t job = 0, step = 0;

	if (mode == LAGOM_MODE_OFF || lagom_g.opt_invalid)
		return;
	if (context_is_user_facing(ctx)) {
		lagom_log_error("--lagom=%s ignored: %s", lagom_mode_name(mode),
				lagom_g.cfg_error);
		return;
	}
	spank_get_item(sp, S_JOB_ID, &job);
	spank_get_item(sp, S_JOB_STEPID, &step);
	lagom_log_info("job %u.%u: --lagom=%s ignored: %s", job, step,
		       lagom_mode_name(mode), lagom_g.cfg_error);
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	if (!lagom_g.cfg_ok) {
		if (lagom_g.cfg_error[0])
			tell_inert(sp, spank_context());
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
