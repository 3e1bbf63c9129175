/*
 * compat/slurm_compat.h - what changed in Slurm's C API between the
 * releases lagom builds against (22.05 to 26.05), in one place.
 *
 * Every check reads SLURM_VERSION_NUMBER from Slurm's own slurm_version.h
 * (the headers lagom is compiled against; a plugin is rebuilt per release).
 * The rest of lagom calls the lagom_slurm_* wrappers below and tests the
 * named LAGOM_SLURM_* features, never the version itself.  Header only:
 * the SPANK plugin takes the API from the program that loads it (srun,
 * slurmstepd), programs and tests link -lslurm.
 *
 *   release  change                                  here
 *   23.02    srun tells plugins (S_JOB_UID) its --uid  lagom_slurm_srun_uid()
 *            option, SLURM_AUTH_NOBODY: not the user
 *   23.11    hostlist_t is the struct, the API takes   lagom_hostlist_t
 *            hostlist_t *
 *   23.11    slurm_load_topo() returns plugin data     LAGOM_SLURM_TOPO_PRINTED
 *            (tree or block) that libslurm.so cannot   (cli/place_slurm.c asks
 *            unpack (the plugins need libslurmfull)    scontrol instead)
 *   24.05    API calls need slurm_init() first         lagom_slurm_api_init()
 *            ("No hash plugins loaded"; 26.05 crashes)
 *   24.11    slurm_get_errno() removed: errno          lagom_slurm_errno()
 *   24.11    ESLURM_JOB_SETTING_DB_INX removed         lagom_slurm_update_retry()
 *   25.11    job_desc_msg_t.job_id became step_id;     lagom_job_desc_set_job()
 *            slurm_get_job_steps() takes a step id     lagom_slurm_get_job_steps()
 *            pointer, no update_time                   LAGOM_SLURM_STEP_ID_API
 *   26.05    slurm_load_job() takes a slurm_step_id_t  lagom_slurm_load_job()
 *                                                      LAGOM_SLURM_LOAD_JOB_STEP_ID
 *   each     srun's option table and how srun builds   lagom_slurm_srun_opts_
 *            a step's GPU request, read from srun      verified()
 *            itself (spank/srun_step.c) only where
 *            checked
 */
#ifndef LAGOM_COMPAT_SLURM_COMPAT_H
#define LAGOM_COMPAT_SLURM_COMPAT_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#define LAGOM_SLURM_AT_LEAST(major, minor) \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(major, minor, 0))

/* Named features: 1 where the release has them. */
#define LAGOM_SLURM_SRUN_UID_NOBODY LAGOM_SLURM_AT_LEAST(23, 2)
#define LAGOM_SLURM_HOSTLIST_STRUCT LAGOM_SLURM_AT_LEAST(23, 11)
#define LAGOM_SLURM_TOPO_PRINTED LAGOM_SLURM_AT_LEAST(23, 11)
#define LAGOM_SLURM_NEEDS_INIT LAGOM_SLURM_AT_LEAST(24, 5)
#define LAGOM_SLURM_HAS_GET_ERRNO (!LAGOM_SLURM_AT_LEAST(24, 11))
#define LAGOM_SLURM_STEP_ID_API LAGOM_SLURM_AT_LEAST(25, 11)
#define LAGOM_SLURM_LOAD_JOB_STEP_ID LAGOM_SLURM_AT_LEAST(26, 5)
/* srun builds the step's GPU request the 24.11 way (gres/gpu: prefixes,
 * --gres=none alone, tres_per_task from --tres-per-task); checked in the
 * sources of 24.11 and 26.05, whose srun the fast path is proven on */
#define LAGOM_SLURM_SRUN_TRES_PER_TASK LAGOM_SLURM_AT_LEAST(24, 11)
/* --segment (topology/block) and job_desc_msg_t.segment_size */
#define LAGOM_SLURM_HAS_SEGMENT LAGOM_SLURM_AT_LEAST(24, 5)
/* srun --container: slurmstepd writes the container's config.json from the
 * task's final environment, after task_init (container_run(); 22.05 wrote
 * it in setup_container(), before spank_init) */
#define LAGOM_SLURM_OCI_TASK_ENV LAGOM_SLURM_AT_LEAST(23, 2)

/* A hostlist handle: struct hostlist * on every release (22.05 typedefs
 * the pointer as hostlist_t, 23.11 and newer the struct). */
typedef struct hostlist *lagom_hostlist_t;

/* Slurm's "no user" (SLURM_AUTH_NOBODY in its private headers). */
#define LAGOM_SLURM_AUTH_NOBODY 99

/*
 * The step's user in srun (local context), from what S_JOB_UID reported.
 * srun 22.05 reports its user (or root's --uid=).  From 23.02 it reports
 * its --uid option, which srun no longer takes, so always
 * SLURM_AUTH_NOBODY; srun then runs as the step's user itself (slurmctld
 * lets only the job's owner or an administrator start a step in a job).
 */
static inline uid_t lagom_slurm_srun_uid(uid_t reported)
{
#if LAGOM_SLURM_SRUN_UID_NOBODY
	if (reported == LAGOM_SLURM_AUTH_NOBODY)
		return getuid();
#endif
	return reported;
}

/* The error of the last failed libslurm call. */
static inline int lagom_slurm_errno(void)
{
#if LAGOM_SLURM_HAS_GET_ERRNO
	return slurm_get_errno();
#else
	return errno;
#endif
}

static inline const char *lagom_slurm_error_text(void)
{
	return slurm_strerror(lagom_slurm_errno());
}

/* Whether a failed slurm_update_job() asks to be retried (before 24.11
 * slurmctld refused updates until the job had its database index). */
static inline bool lagom_slurm_update_retry(int err)
{
#if LAGOM_SLURM_HAS_GET_ERRNO
	return err == ESLURM_JOB_SETTING_DB_INX;
#else
	(void)err;
	return false;
#endif
}

/* The job an update request names (after slurm_init_job_desc_msg()). */
static inline void lagom_job_desc_set_job(job_desc_msg_t *desc, uint32_t job_id)
{
#if LAGOM_SLURM_STEP_ID_API
	desc->step_id.job_id = job_id;
#else
	desc->job_id = job_id;
#endif
}

static inline int lagom_slurm_load_job(job_info_msg_t **msg, uint32_t job_id,
				       uint16_t show_flags)
{
#if LAGOM_SLURM_LOAD_JOB_STEP_ID
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_load_job(msg, id, show_flags);
#else
	return slurm_load_job(msg, job_id, show_flags);
#endif
}

/* One step's record (step_id a plain step number, not heterogeneous). */
static inline int lagom_slurm_get_job_steps(uint32_t job_id, uint32_t step_id,
					    job_step_info_response_msg_t **resp,
					    uint16_t show_flags)
{
#if LAGOM_SLURM_STEP_ID_API
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	id.step_id = step_id;
	return slurm_get_job_steps(&id, resp, show_flags);
#else
	return slurm_get_job_steps((time_t)0, job_id, step_id, resp,
				   show_flags);
#endif
}

/*
 * Make libslurm's API usable in a program (not in a plugin: srun and
 * slurmstepd have done it).  From 24.05 that is slurm_init(), which reads
 * slurm.conf; when SLURM_CONF names a file it cannot read it retries for
 * 60 s and then exits, so that case is refused here at once.  0, or
 * -errno with *conf the file that cannot be read.
 */
static inline int lagom_slurm_api_init(const char **conf)
{
	const char *path = getenv("SLURM_CONF");

	*conf = path;
	if (path && *path) {
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

		if (fd < 0)
			return -errno;
		close(fd);
	}
#if LAGOM_SLURM_NEEDS_INIT
	slurm_init(NULL);
#endif
	return 0;
}

static inline void lagom_slurm_api_fini(void)
{
#if LAGOM_SLURM_NEEDS_INIT
	slurm_fini();
#endif
}

/*
 * May srun's own option table be read for the step's GPU request
 * (spank/srun_step.c)?  Only on the releases that reading was checked
 * against, on a cluster of each (tests/integration/step_source.sh): 22.05,
 * 24.11 and 26.05; and only on the release lagom was built for (the
 * request rules are compiled in).  major and minor: the running srun's
 * S_SLURM_VERSION_MAJOR and _MINOR.  Elsewhere srun asks slurmctld.
 */
static inline bool lagom_slurm_srun_opts_verified(const char *major,
						  const char *minor)
{
	static const char *const verified[] = { "22.05", "24.11", "26.05" };
	char built[16], running[16];
	int n;

	if (!major || !minor)
		return false;
	n = snprintf(running, sizeof(running), "%s.%s", major, minor);
	if (n < 0 || (size_t)n >= sizeof(running))
		return false;
	snprintf(built, sizeof(built), "%02d.%02d",
		 SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		 SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
	if (strcmp(running, built) != 0)
		return false;
	for (size_t i = 0; i < sizeof(verified) / sizeof(verified[0]); i++)
		if (strcmp(running, verified[i]) == 0)
			return true;
	return false;
}

#endif /* LAGOM_COMPAT_SLURM_COMPAT_H */
