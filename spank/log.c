/*
 * spank/log.c - the plugin's "lagom: " lines into Slurm's log and the job's
 * stderr: lagom_log_*() for every context, lagom_say() for srun's,
 * lagom_tell() for slurmstepd's; and the hooks' timings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <slurm/spank.h>

#include "spank/lagom.h"

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

/* srun's lines: info when the admin set verbose, else verbose (srun -v). */
void lagom_say(const struct lagom_config *cfg, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (cfg->verbose)
		slurm_info("lagom: %s", line);
	else
		slurm_verbose("lagom: %s", line);
}

/* slurmstepd's lines: the slurmd log, and the job's stderr when to_user. */
void lagom_tell(bool to_user, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	lagom_log_info("%s", line);
	if (to_user)
		lagom_log_user("%s", line);
}

double lagom_ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}
