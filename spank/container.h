/*
 * spank/container.h - a step that runs in Slurm's own OCI container
 * (srun --container=BUNDLE): it gets the whole plan or none.
 *
 * slurmstepd decides once per node, in user_init (as the user), from what
 * every node of the step sees alike: the release lagom was built for, the
 * bundle path srun sent (SLURM_CONTAINER) and the bundle's config.json.
 * The plan is applied in the container only where every host path it sets
 * (NCCL_TUNER_PLUGIN, NCCL_PROFILER_PLUGIN, LAGOM_MEASURE_DIR) is mounted
 * at the same path by an identity bind mount of the bundle; otherwise no
 * variable of the plan is set (doc/containers.md).
 */
#ifndef LAGOM_SPANK_CONTAINER_H
#define LAGOM_SPANK_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>

#include <slurm/spank.h>

struct lagom_stepd;

/* What lagom did for the step's container (lagom_stepd.container). */
enum lagom_container_case {
	LAGOM_CONTAINER_NONE = 0, /* no container: nothing changes */
	LAGOM_CONTAINER_APPLIED,  /* the whole plan */
	/* pyxis moves each task into its container after user_init: each
	 * task keeps or withholds the plan (lagom_container_task_check) */
	LAGOM_CONTAINER_PER_TASK,
	/* withheld, with why: */
	LAGOM_CONTAINER_OLD_SLURM,   /* env fixed before plugins run */
	LAGOM_CONTAINER_BAD_BUNDLE,  /* bundle path not absolute/too long */
	LAGOM_CONTAINER_UNREADABLE,  /* config.json not readable */
	LAGOM_CONTAINER_BAD_CONFIG,  /* config.json not an OCI config */
	LAGOM_CONTAINER_TUNER_NAME,  /* tuner= is a name, not a path */
	LAGOM_CONTAINER_NO_TUNER,    /* the tuner is not mounted */
	LAGOM_CONTAINER_NO_PROFILER, /* the profiler is not mounted */
	LAGOM_CONTAINER_NO_SPOOL,    /* the spool is not mounted */
	LAGOM_CONTAINER_NO_ROOT,     /* root.path cannot be opened */
};

/* The largest config.json read (bytes); a larger one is not read. */
#define LAGOM_CONTAINER_CONFIG_MAX (1024 * 1024)

/*
 * user_init, after the plan was checked: decide sd->container.decided for this
 * step and say it in one "lagom:" line (the job's stderr from node 0 with
 * srun -v).  Never fails.
 */
void lagom_container_decide(spank_t sp, struct lagom_stepd *sd);

/* True when the step runs in a container that gets none of the plan
 * (decided for the whole step on this node, in user_init). */
bool lagom_container_withheld(const struct lagom_stepd *sd);

/*
 * " container: plan files mounted (node 0)" (what node 0 knows: its
 * bundle mounts them, its tasks get the plan; never a claim about other
 * nodes' tasks), " container: plan withheld (WHY)", or for a pyxis step
 * " container: pyxis, each task keeps the plan only if it finds its files"
 * (node 0 writes the comment before any task has looked: it promises
 * only the rule), from fixed words only, into buf (len bytes); "" for a
 * step without container.  Returns the length written.
 */
size_t lagom_container_comment(const struct lagom_stepd *sd, char *buf,
			       size_t len);

/* The most mounts, and links per path, judged (runc follows 255 links). */
#define LAGOM_CONTAINER_MOUNTS_MAX 1024
#define LAGOM_CONTAINER_LINKS_MAX 255

/*
 * Does the container of the OCI config (a parsed config.json, borrowed)
 * show the host path at the same place, as runc 1.1 makes its mounts
 * (spank/container_mounts.c)?  Destinations cleaned, a relative one taken
 * from the container's "/", links followed inside the root file system
 * root_fd (opened by the caller, never outside it) and below bind mounts
 * in their host sources, the last mount covering the path deciding: it
 * must be a bind mount whose source, resolved on the host, is the path's
 * own.  root_fd -1: no link is read (pure).  1 yes; 0 no (also past
 * LAGOM_CONTAINER_MOUNTS_MAX mounts or LAGOM_CONTAINER_LINKS_MAX links, or
 * a link that cannot be read); -EINVAL when config is no OCI config.
 * Reads links with the caller's credentials (user_init: the user's).
 */
struct json_t;
int lagom_container_mounted_at(const struct json_t *config, int root_fd,
			       const char *path);
/* The same from config.json's text (json, len bytes). */
int lagom_container_mounts_path_at(int root_fd, const char *json, size_t len,
				   const char *path);
/* Pure: lagom_container_mounts_path_at(-1, ...). */
int lagom_container_mounts_path(const char *json, size_t len, const char *path);

/*
 * A container plugin that moves each task into the container's mount
 * namespace in its task_init (pyxis with enroot; doc/containers.md): lagom
 * sets the plan in task_init_privileged, before every plugin's task_init,
 * and its own task_init (listed after the container plugin's) checks, in
 * the task's namespace, that the plan's host paths are there.
 *
 * lagom_container_decide() also notes slurmstepd's mount namespace, and
 * whether the step asks pyxis for a container (srun's --container-image
 * or --container-name, or pyxis's PYXIS_CONTAINER_IMAGE or
 * PYXIS_CONTAINER_NAME in the step's environment): then
 * sd->container.decided is LAGOM_CONTAINER_PER_TASK, and a task still in
 * slurmstepd's mount namespace at lagom's task_init (lagom's
 * plugstack.conf line before pyxis's: the container cannot be looked
 * into yet) withholds the plan too.
 * lagom_container_task_note(): task_init_privileged, before the plan is
 * set: what lagom is about to set on this task, and the user's values an
 * override replaces.  lagom_container_task_check(): task_init, as the user:
 * where the task's mount namespace is not slurmstepd's (or cannot be read)
 * and the tuner, the profiler or the spool is missing, every variable
 * lagom set on this task is taken back (the user's own values return) and
 * one "lagom:" line goes to the task's stderr and the log.
 * lagom_container_task_forget() frees what _note() kept;
 * lagom_container_release() (the step's exit) that and the whole of
 * container.c's part of the state.
 */
void lagom_container_task_note(spank_t sp, struct lagom_stepd *sd);
void lagom_container_task_check(spank_t sp, struct lagom_stepd *sd);
void lagom_container_task_forget(struct lagom_stepd *sd);
void lagom_container_release(struct lagom_stepd *sd);
/* The file that names a process's mount namespace, "/proc/self/ns/mnt";
 * the unit tests point it at files of their own (NULL: the default). */
void lagom_container_set_ns_path(const char *path);

#endif /* LAGOM_SPANK_CONTAINER_H */
