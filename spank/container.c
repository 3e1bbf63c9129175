/*
 * spank/container.c - Slurm's OCI containers (srun --container=BUNDLE):
 * the whole plan or none, decided in user_init (spank/container.h); and a
 * container plugin's mount namespace (pyxis), checked in each task, which
 * withholds the plan where it cannot look into the container.
 *
 * When the container's environment is written (Slurm's
 * src/slurmd/slurmstepd/container.c):
 *   22.05  setup_container(), called from _step_setup() before spank_init,
 *          copies the launch environment into the bundle's config.json:
 *          nothing a plugin sets in slurmstepd reaches the container (nor
 *          CUDA_VISIBLE_DEVICES, set per task later).  lagom withholds.
 *   23.02+ container_run(), called from exec_task() after task_init
 *          (spank_user_task), writes the task's final environment into
 *          config.json ("overwrite environ with the final step->env"): what
 *          task_init sets reaches the container, unless oci.conf's
 *          EnvExclude drops it.
 * The container sees its own root: the tuner, the profiler and the spool
 * are host paths, reachable only where the bundle bind-mounts them.
 *
 * The bundle is the user's: read as the user (slurmstepd runs user_init
 * with the user's euid, as Slurm reads it), config.json relative to the
 * opened bundle directory, O_NOFOLLOW, O_NONBLOCK, a regular file, at most
 * LAGOM_CONTAINER_CONFIG_MAX bytes.  Nothing read from it reaches a log
 * line or the comment: both are made of fixed words.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <slurm/spank.h>

#include "common/io.h"
#include "compat/slurm_compat.h"
#include "spank/container.h"
#include "spank/remote_int.h"
#include "spank/step.h"

/* The longest bundle path looked at (PATH_MAX). */
#define LAGOM_CONTAINER_PATH_MAX 4096

static const struct {
	const char *comment; /* in the job comment */
	const char *line;    /* in the "lagom:" line */
} cases[] = {
	[LAGOM_CONTAINER_NONE] = { "", "" },
	/* node 0 writes the comment and knows only its own bundle and tasks:
	 * a task elsewhere may still withhold (doc/containers.md) */
	[LAGOM_CONTAINER_APPLIED] = { "plan files mounted (node 0)",
				      "the plan's files are mounted into "
				      "the container: whole plan applied" },
	/* node 0 writes the comment before any task looked into pyxis's
	 * container: it states the rule, not an outcome */
	[LAGOM_CONTAINER_PER_TASK] = { "pyxis, each task keeps the plan only "
				       "if it finds its files",
				       "pyxis runs each task in its container: "
				       "each task keeps the plan only if it "
				       "finds the plan's files there" },
	[LAGOM_CONTAINER_OLD_SLURM] = { "plan withheld (slurm before 23.02)",
					"this Slurm writes the container's "
					"environment before plugins run: "
					"plan withheld" },
	[LAGOM_CONTAINER_BAD_BUNDLE] = { "plan withheld (bundle path)",
					 "the container bundle is no absolute "
					 "path: plan withheld" },
	[LAGOM_CONTAINER_UNREADABLE] = { "plan withheld (config.json "
					 "unreadable)",
					 "cannot read the bundle's "
					 "config.json: plan withheld" },
	[LAGOM_CONTAINER_BAD_CONFIG] = { "plan withheld (config.json "
					 "invalid)",
					 "the bundle's config.json is no OCI "
					 "config: plan withheld" },
	[LAGOM_CONTAINER_TUNER_NAME] = { "plan withheld (tuner not a path)",
					 "tuner= names no absolute path, "
					 "which cannot be checked in a "
					 "container: plan withheld" },
	[LAGOM_CONTAINER_NO_TUNER] = { "plan withheld (tuner not mounted)",
				       "the tuner is not mounted into the "
				       "container: plan withheld" },
	[LAGOM_CONTAINER_NO_PROFILER] = { "plan withheld (profiler not "
					  "mounted)",
					  "the profiler is not mounted into "
					  "the container: plan withheld" },
	[LAGOM_CONTAINER_NO_SPOOL] = { "plan withheld (spool not mounted)",
				       "the measurement spool is not mounted "
				       "into the container: plan withheld" },
	[LAGOM_CONTAINER_NO_ROOT] = { "plan withheld (root unreadable)",
				      "cannot open the bundle's root file "
				      "system (root.path): plan withheld" },
};

/* The bundle's config.json, parsed (to json_decref), or a case why not. */
static enum lagom_container_case read_config(const char *bundle,
					     json_t **config)
{
	struct lagom_read_rule rule = {
		.max_bytes = LAGOM_CONTAINER_CONFIG_MAX
	};
	size_t got = 0;
	char *text = NULL;
	int dfd, rc;

	if (bundle[0] != '/')
		return LAGOM_CONTAINER_BAD_BUNDLE;
	/* the user's own path, followed as Slurm follows it */
	dfd = open(bundle, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (dfd < 0)
		return LAGOM_CONTAINER_UNREADABLE;
	rc = lagom_read_file_alloc_at(dfd, "config.json", &rule, &text, &got,
				      NULL, NULL);
	close(dfd);
	if (rc < 0)
		return LAGOM_CONTAINER_UNREADABLE;
	*config = json_loadb(text, got, JSON_REJECT_DUPLICATES, NULL);
	free(text);
	return *config && json_is_object(*config) ? LAGOM_CONTAINER_APPLIED
						  : LAGOM_CONTAINER_BAD_CONFIG;
}

/* The value the plan sets for name on this node, else NULL. */
static const char *plan_sets(const struct lagom_stepd *sd, const char *name)
{
	for (size_t i = 0; i < sd->n_items; i++)
		if ((sd->items[i].action == LAGOM_ENV_SET ||
		     sd->items[i].action == LAGOM_ENV_OVERRIDE) &&
		    strcmp(sd->items[i].var->name, name) == 0)
			return sd->items[i].var->value;
	return NULL;
}

/*
 * The root file system config.json names (root.path, relative to the
 * bundle as runc takes it), opened as the user: a descriptor, or -1.
 */
static int open_root(const char *bundle, const json_t *config)
{
	const json_t *p = json_object_get(json_object_get(config, "root"),
					  "path");
	int dfd, fd;

	if (!json_is_string(p) || !json_string_value(p)[0])
		return -1;
	dfd = open(bundle, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, json_string_value(p),
		    O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	return fd;
}

/* path shown at its own place in the container: a case */
static enum lagom_container_case shown(const json_t *config, int root_fd,
				       const char *path,
				       enum lagom_container_case missing)
{
	int rc;

	if (root_fd < 0)
		return LAGOM_CONTAINER_NO_ROOT;
	rc = lagom_container_mounted_at(config, root_fd, path);
	if (rc < 0)
		return LAGOM_CONTAINER_BAD_CONFIG;
	return rc ? LAGOM_CONTAINER_APPLIED : missing;
}

/* Every host path the plan sets, mounted in config (a parsed OCI config). */
static enum lagom_container_case check_paths(const struct lagom_stepd *sd,
					     const json_t *config, int root_fd)
{
	const char *tuner = plan_sets(sd, "NCCL_TUNER_PLUGIN");
	enum lagom_container_case c = LAGOM_CONTAINER_APPLIED;

	if (tuner) {
		if (tuner[0] != '/')
			return LAGOM_CONTAINER_TUNER_NAME;
		c = shown(config, root_fd, tuner, LAGOM_CONTAINER_NO_TUNER);
	}
	if (!sd->spool.ready || c != LAGOM_CONTAINER_APPLIED)
		return c;
	if (sd->st->cfg.measure.profiler[0] != '/')
		return LAGOM_CONTAINER_NO_PROFILER;
	c = shown(config, root_fd, sd->st->cfg.measure.profiler,
		  LAGOM_CONTAINER_NO_PROFILER);
	if (c != LAGOM_CONTAINER_APPLIED)
		return c;
	return shown(config, root_fd, sd->spool.dir, LAGOM_CONTAINER_NO_SPOOL);
}

static enum lagom_container_case decide(const struct lagom_stepd *sd,
					const char *bundle)
{
	enum lagom_container_case c;
	json_t *config = NULL;
	int root_fd;

	if (!LAGOM_SLURM_OCI_TASK_ENV)
		return LAGOM_CONTAINER_OLD_SLURM;
	c = read_config(bundle, &config);
	if (c == LAGOM_CONTAINER_APPLIED) {
		root_fd = open_root(bundle, config);
		c = check_paths(sd, config, root_fd);
		if (root_fd >= 0)
			close(root_fd);
	}
	json_decref(config);
	return c;
}

/* ---- a container's mount namespace, entered in task_init (pyxis) ---- */

static const char *ns_path = "/proc/self/ns/mnt";

void lagom_container_set_ns_path(const char *path)
{
	ns_path = path ? path : "/proc/self/ns/mnt";
}

/* slurmstepd's own mount namespace, which its tasks start in. */
static void note_ns(struct lagom_stepd *sd)
{
	struct stat sb;

	sd->container.ns_known = stat(ns_path, &sb) == 0;
	sd->container.ns_dev = sd->container.ns_known ? sb.st_dev : 0;
	sd->container.ns_ino = sd->container.ns_known ? sb.st_ino : 0;
}

/* The task runs in another mount namespace, or cannot tell. */
static bool task_moved(const struct lagom_stepd *sd)
{
	struct stat sb;

	if (!sd->container.ns_known || stat(ns_path, &sb) < 0)
		return true;
	return sb.st_dev != sd->container.ns_dev ||
	       sb.st_ino != sd->container.ns_ino;
}

/* The longest user value an override replaces that is kept to restore. */
#define LAGOM_CONTAINER_SAVED_MAX 65536

/* The user's value of name (to free), or NULL (none, too long, no memory). */
static char *user_value(spank_t sp, const char *name)
{
	char *value = NULL;

	return lagom_step_getenv_alloc(sp, name, LAGOM_CONTAINER_SAVED_MAX,
				       &value) == 0
		       ? value
		       : NULL;
}

void lagom_container_task_forget(struct lagom_stepd *sd)
{
	if (sd->container.saved)
		for (size_t i = 0; i < sd->container.n_saved; i++)
			free(sd->container.saved[i]);
	free(sd->container.saved);
	sd->container.saved = NULL;
	sd->container.n_saved = 0;
	sd->container.set_profiler = false;
	sd->container.set_spool = false;
}

void lagom_container_release(struct lagom_stepd *sd)
{
	lagom_container_task_forget(sd);
	memset(&sd->container, 0, sizeof(sd->container));
}

void lagom_container_task_note(spank_t sp, struct lagom_stepd *sd)
{
	lagom_container_task_forget(sd);
	/* lagom_spank_spool_task_env() sets only what the user did not */
	sd->container.set_profiler = sd->spool.ready &&
				     !lagom_step_env_has(
					     sp, "NCCL_PROFILER_PLUGIN");
	sd->container.set_spool = sd->spool.ready &&
				  !lagom_step_env_has(sp, "LAGOM_MEASURE_DIR");
	sd->container.saved = calloc(sd->n_items ? sd->n_items : 1,
				     sizeof(char *));
	if (!sd->container.saved)
		return; /* taken back, an override leaves no value */
	sd->container.n_saved = sd->n_items;
	for (size_t i = 0; i < sd->n_items; i++)
		if (sd->items[i].action == LAGOM_ENV_OVERRIDE)
			sd->container.saved[i] = user_value(
				sp, sd->items[i].var->name);
}

/* A regular file the user can read, or a directory the user can write. */
static bool reachable(const char *path, bool dir)
{
	struct stat sb;

	if (stat(path, &sb) < 0)
		return false;
	if (dir)
		return S_ISDIR(sb.st_mode) &&
		       faccessat(AT_FDCWD, path, W_OK | X_OK, AT_EACCESS) == 0;
	return S_ISREG(sb.st_mode) &&
	       faccessat(AT_FDCWD, path, R_OK, AT_EACCESS) == 0;
}

/* What the task lacks, in fixed words and the admin's path; NULL if none. */
static const char *task_lacks(const struct lagom_stepd *sd, char *buf,
			      size_t len)
{
	const char *tuner = plan_sets(sd, "NCCL_TUNER_PLUGIN");
	const char *prof = sd->st->cfg.measure.profiler;

	if (tuner && tuner[0] == '/' && !reachable(tuner, false)) {
		snprintf(buf, len, "the tuner %s", tuner);
		return buf;
	}
	if (sd->container.set_profiler && prof[0] == '/' &&
	    !reachable(prof, false)) {
		snprintf(buf, len, "the profiler %s", prof);
		return buf;
	}
	if (sd->container.set_spool && !reachable(sd->spool.dir, true))
		return "the measurement spool";
	return NULL;
}

/* Everything lagom set on this task taken back: the whole plan or none. */
static void take_back(spank_t sp, const struct lagom_stepd *sd)
{
	for (size_t i = 0; i < sd->n_items; i++) {
		const struct lagom_env_item *it = &sd->items[i];

		if (it->action == LAGOM_ENV_OVERRIDE &&
		    i < sd->container.n_saved && sd->container.saved[i])
			spank_setenv(sp, it->var->name, sd->container.saved[i],
				     1);
		else if (it->action == LAGOM_ENV_SET ||
			 it->action == LAGOM_ENV_OVERRIDE)
			spank_unsetenv(sp, it->var->name);
	}
	if (sd->container.set_profiler)
		spank_unsetenv(sp, "NCCL_PROFILER_PLUGIN");
	if (sd->container.set_spool)
		spank_unsetenv(sp, "LAGOM_MEASURE_DIR");
}

/* Why this task withholds (why, fixed words and the admin's path): one
 * line in the log, one on the task's stderr (task_init runs with it). */
static void say_withheld(const struct lagom_stepd *sd, const char *why)
{
	lagom_log_info("job %u.%u on %s: %s: plan withheld on this task",
		       sd->step.job_id, sd->step.step_id, sd->step.node_name,
		       why);
	dprintf(STDERR_FILENO, "lagom: %s: plan withheld on this task\n", why);
}

/* lagom's task_init before pyxis's: the task is not in the container yet */
static const char before_pyxis[] =
	"this task is not in pyxis's container yet, so its files cannot be "
	"checked (lagom's plugstack.conf line must follow pyxis's)";

void lagom_container_task_check(spank_t sp, struct lagom_stepd *sd)
{
	char what[LAGOM_CONTAINER_PATH_MAX + 32];
	char why[LAGOM_CONTAINER_PATH_MAX + 64];
	const char *lacks;

	if (!sd->planned || sd->mode != LAGOM_MODE_AUTO ||
	    lagom_container_withheld(sd))
		return;
	if (!task_moved(sd)) {
		/* no container, or one a plugin after lagom enters */
		if (sd->container.decided != LAGOM_CONTAINER_PER_TASK)
			return;
		take_back(sp, sd);
		say_withheld(sd, before_pyxis);
		return;
	}
	lacks = task_lacks(sd, what, sizeof(what));
	if (!lacks)
		return;
	take_back(sp, sd);
	snprintf(why, sizeof(why), "the container lacks %s", lacks);
	say_withheld(sd, why);
}

/*
 * Did srun take the option --name for this step?  SPANK keeps every
 * plugin's options in one list and spank_option_getopt() finds one by its
 * name alone (Slurm's plugstack.c, _opt_by_name, 22.05 to 26.05), as srun
 * takes it on its command line: pyxis's, where pyxis is loaded.
 */
static bool option_given(spank_t sp, char *name)
{
	static char usage[] = "";
	struct spank_option opt = { .name = name,
				    .usage = usage,
				    .has_arg = 1 };
	char *arg = NULL;

	return spank_option_getopt(sp, &opt, &arg) == ESPANK_SUCCESS;
}

/* The step asks pyxis for a container: its options, or the variables
 * pyxis takes in their place (pyxis's args.c). */
static bool pyxis_asked(spank_t sp)
{
	static char image[] = "container-image", name[] = "container-name";

	return option_given(sp, image) || option_given(sp, name) ||
	       lagom_step_env_set(sp, "PYXIS_CONTAINER_IMAGE") ||
	       lagom_step_env_set(sp, "PYXIS_CONTAINER_NAME");
}

void lagom_container_decide(spank_t sp, struct lagom_stepd *sd)
{
	char bundle[LAGOM_CONTAINER_PATH_MAX];
	char line[256];
	spank_err_t rc;

	note_ns(sd);
	sd->container.decided = LAGOM_CONTAINER_NONE;
	/* srun puts --container's bundle into the step's environment */
	rc = spank_getenv(sp, "SLURM_CONTAINER", bundle, sizeof(bundle));
	if (rc == ESPANK_NOSPACE)
		sd->container.decided = LAGOM_CONTAINER_BAD_BUNDLE;
	else if ((rc != ESPANK_SUCCESS || !bundle[0]) && pyxis_asked(sp))
		sd->container.decided = LAGOM_CONTAINER_PER_TASK;
	else if (rc != ESPANK_SUCCESS || !bundle[0])
		return;
	else
		sd->container.decided = decide(sd, bundle);
	snprintf(line, sizeof(line), "%s%s", cases[sd->container.decided].line,
		 !lagom_container_withheld(sd)
			 ? ""
			 : "; no NCCL variable of the plan is set "
			   "(doc/containers.md)");
	lagom_log_info("job %u.%u on %s: a container step: %s", sd->step.job_id,
		       sd->step.step_id, sd->step.node_name, line);
	if (sd->step.node_id == 0 && (sd->user_verbose || sd->st->cfg.verbose))
		lagom_log_user("job %u.%u: a container step: %s",
			       sd->step.job_id, sd->step.step_id, line);
}

bool lagom_container_withheld(const struct lagom_stepd *sd)
{
	return sd->container.decided > LAGOM_CONTAINER_PER_TASK;
}

size_t lagom_container_comment(const struct lagom_stepd *sd, char *buf,
			       size_t len)
{
	int n;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (sd->container.decided == LAGOM_CONTAINER_NONE)
		return 0;
	n = snprintf(buf, len, " container: %s",
		     cases[sd->container.decided].comment);
	if (n < 0)
		return 0;
	return (size_t)n < len ? (size_t)n : len - 1;
}
