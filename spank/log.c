/*
 * spank/log.c - the plugin's state and its log lines: the one global
 * (struct lagom_state lagom_g), its setup from plugstack.conf in
 * slurm_spank_init, the notice of an inert lagom, and the "lagom: " lines
 * into Slurm's log and the job's stderr.  lagom.c only dispatches.
 */
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <slurm/spank.h>

#include "spank/lagom.h"

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

bool lagom_context_is_user_facing(spank_context_t ctx)
{
	return ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR;
}

/* slurm_user=NAME: its uid, looked up once at load (a number is one). */
static int resolve_slurm_user(struct lagom_config *cfg, struct lagom_error *err)
{
	struct passwd pw, *found = NULL;
	char buf[4096];
	int rc;

	if (!cfg->slurm_user[0] || cfg->slurm_uid_valid)
		return 0;
	rc = getpwnam_r(cfg->slurm_user, &pw, buf, sizeof(buf), &found);
	if (rc != 0)
		return lagom_errprintf(err, rc,
				       "slurm_user=%s: cannot look "
				       "it up (errno %d)",
				       cfg->slurm_user, rc);
	if (!found)
		return lagom_errprintf(err, ENOENT,
				       "slurm_user=%s: no such user",
				       cfg->slurm_user);
	cfg->slurm_uid_valid = true;
	cfg->slurm_uid = (unsigned int)found->pw_uid;
	return 0;
}

/*
 * Register the options, then parse plugstack.conf.  The options come first
 * and always: with a bad argument on an "optional" line Slurm ignores the
 * failure below, and --lagom must still be an option srun and sbatch know,
 * or every job that asks for lagom would be refused as unrecognised.  lagom
 * is then inert: one line at load, one for each step that asks for it.
 * srun, sbatch and salloc return -1, which refuses the job only on a
 * "required" line; on the nodes the line is logged and init returns 0, so
 * no node drains over it.  A slurm_user= name that names no user on this
 * host is such a bad value, found here (at load), not per step.
 */
int lagom_state_init(spank_t sp, spank_context_t ctx, int ac, char **av)
{
	struct lagom_error err = { 0 };
	int rc;

	memset(&lagom_g, 0, sizeof(lagom_g));
	rc = lagom_options_register(sp);
	if (lagom_config_parse(ac, av, &lagom_g.cfg, &err) < 0 ||
	    resolve_slurm_user(&lagom_g.cfg, &err) < 0) {
		snprintf(lagom_g.cfg_error, sizeof(lagom_g.cfg_error),
			 "plugstack.conf: %s", err.text);
		if (lagom_context_is_user_facing(ctx))
			lagom_log_error("%s; lagom does nothing until the "
					"line is fixed",
					lagom_g.cfg_error);
		return lagom_context_is_user_facing(ctx) ? -1 : 0;
	}
	lagom_g.cfg_ok = true;
	return rc < 0 && lagom_context_is_user_facing(ctx) ? -1 : 0;
}

void lagom_tell_inert(spank_t sp, spank_context_t ctx)
{
	enum lagom_mode mode = lagom_g.mode_given ? lagom_g.mode_opt
						  : LAGOM_MODE_OFF;
	uint32_t job = 0, step = 0;

	if (!lagom_g.cfg_error[0] || mode == LAGOM_MODE_OFF ||
	    lagom_g.opt_invalid)
		return;
	if (lagom_context_is_user_facing(ctx)) {
		lagom_log_error("--lagom=%s ignored: %s", lagom_mode_name(mode),
				lagom_g.cfg_error);
		return;
	}
	spank_get_item(sp, S_JOB_ID, &job);
	spank_get_item(sp, S_JOB_STEPID, &step);
	lagom_log_info("job %u.%u: --lagom=%s ignored: %s", job, step,
		       lagom_mode_name(mode), lagom_g.cfg_error);
}

double lagom_ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}
