/*
 * spank/srun_step.c - the step as srun sees it in slurm_spank_local_user_init
 * (doc/consistency.md): job and step ids, node and task counts from
 * spank_get_item; tasks per node from srun's own SLURM_TASKS_PER_NODE,
 * checked against the counts; the step's working directory from srun's
 * command line; the step's node list and its GPU request from srun itself
 * where srun's own state tells them exactly (srun_knows_step() below), else
 * from slurmctld (spank/step_query.c, which srun waits for at most
 * LAGOM_SRUN_STEP_WAIT_MS).  What it reads is parsed by the pure
 * spank/srun_parse.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <fcntl.h>
#include <time.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "compat/slurm_compat.h"
#include "spank/lagom.h"
#include "spank/srun_step.h"
#include "spank/step_query.h"
#include "spank/step.h"
#include "placement/placement.h"

/* srun's version, against the releases its option table was checked on
 * (compat/slurm_compat.h). */
static bool srun_opts_verified(spank_t sp)
{
	const char *major = NULL, *minor = NULL;

	return spank_get_item(sp, S_SLURM_VERSION_MAJOR, &major) ==
		       ESPANK_SUCCESS &&
	       spank_get_item(sp, S_SLURM_VERSION_MINOR, &minor) ==
		       ESPANK_SUCCESS &&
	       lagom_slurm_srun_opts_verified(major, minor);
}

/* dl_iterate_phdr() visits the program itself first: is addr inside one
 * of its loaded segments? */
struct in_program {
	const void *addr;
	bool first, inside;
};

static int in_program_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct in_program *q = arg;
	uintptr_t a = (uintptr_t)q->addr;

	(void)size;
	if (!q->first)
		return 1; /* only the program itself */
	q->first = false;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = (uintptr_t)info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && a >= lo && a - lo < ph->p_memsz)
			q->inside = true;
	}
	return 1;
}

/* A symbol srun itself defines, not one of the same name from a library
 * or another plugin (that would not be a slurm_opt_t). */
static bool defined_by_srun(const void *addr)
{
	struct in_program q = { .addr = addr, .first = true };

	dl_iterate_phdr(in_program_cb, &q);
	return q.inside;
}

typedef char *(*lagom_option_get_fn)(void *opt, const char *name);
typedef void (*lagom_xfree_fn)(void **item);

/*
 * srun's own GPU options, read through Slurm's option table: srun's global
 * slurm_opt_t `opt` and libslurm's slurm_option_get(), both exported to the
 * plugins srun loads.  1 with *req filled, 0 when srun's state cannot tell
 * (another Slurm release, a symbol missing, a heterogeneous step, a step
 * that leaves its GPUs to the job's request), -ENOMEM.
 */
static int srun_gpu_opts(spank_t sp, struct lagom_gpu_request *req,
			 struct lagom_error *err)
{
	static const char *const names[] = { "gres",
					     "gpus",
					     "gpus-per-node",
					     "gpus-per-task",
					     "gpus-per-socket",
					     LAGOM_SLURM_SRUN_TRES_PER_TASK
						     ? "tres-per-task"
						     : "gpus-per-task" };
	char *v[sizeof(names) / sizeof(names[0])] = { NULL };
	struct lagom_srun_gpu_opts o;
	lagom_option_get_fn get;
	lagom_xfree_fn xfree_fn;
	void *opt, **opt_list;
	int rc;

	if (!srun_opts_verified(sp))
		return 0;
	opt = dlsym(RTLD_DEFAULT, "opt");
	opt_list = dlsym(RTLD_DEFAULT, "opt_list");
	*(void **)&get = dlsym(RTLD_DEFAULT, "slurm_option_get");
	*(void **)&xfree_fn = dlsym(RTLD_DEFAULT, "slurm_xfree");
	/* srun keeps a list of options only for a heterogeneous step */
	if (!opt || !opt_list || !get || !xfree_fn || !defined_by_srun(opt) ||
	    !defined_by_srun(opt_list) || *opt_list)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		v[i] = get(opt, names[i]);
	o = (struct lagom_srun_gpu_opts){
		.gres = v[0],
		.gpus = v[1],
		.gpus_per_node = v[2],
		.gpus_per_task = v[3],
		.gpus_per_socket = v[4],
		.step_gres_env = getenv("SLURM_STEP_GRES"),
		.slurm24 = LAGOM_SLURM_SRUN_TRES_PER_TASK,
		.tres_per_task = v[5],
	};
	rc = lagom_srun_gpu_request(&o, req, err);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (v[i])
			xfree_fn((void **)&v[i]);
	return rc;
}

/* At most this much of srun's command line is read. */
#define CMDLINE_MAX (256 * 1024)

/* srun's own argv (/proc/self/cmdline): *buf holds the words. */
static int read_cmdline(char **buf, char ***words, int *count,
			struct lagom_error *err)
{
	size_t len = 0, n = 0;
	ssize_t got;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	*buf = fd < 0 ? NULL : malloc(CMDLINE_MAX + 1);
	*words = NULL;
	if (!*buf) {
		if (fd >= 0)
			close(fd);
		return lagom_errprintf(err, EIO,
				       "cannot read srun's command line");
	}
	while (len < CMDLINE_MAX &&
	       (got = read(fd, *buf + len, CMDLINE_MAX - len)) > 0)
		len += (size_t)got;
	close(fd);
	if (len == 0 || len >= CMDLINE_MAX || (*buf)[len - 1] != '\0')
		return lagom_errprintf(err, E2BIG,
				       "cannot read srun's command line");
	for (size_t i = 0; i < len; i++)
		n += (*buf)[i] == '\0';
	*words = calloc(n + 1, sizeof(char *));
	if (!*words)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (size_t i = 0, w = 0; i < len; i += strlen(*buf + i) + 1)
		(*words)[w++] = *buf + i;
	*count = (int)n;
	return 0;
}

/* The step's working directory: srun's -D/--chdir, else
 * SLURM_WORKING_DIR, else SLURM_REMOTE_CWD, else srun's. */
static int step_cwd(spank_t sp, struct lagom_step *step,
		    struct lagom_error *err)
{
	char here[sizeof(step->cwd)], *buf = NULL, **words = NULL;
	char **command = NULL;
	int command_argc = 0, count = 0, rc;

	if (spank_get_item(sp, S_JOB_ARGV, &command_argc, &command) !=
	    ESPANK_SUCCESS)
		return lagom_errprintf(err, EIO, "cannot read the step's argv");
	if (!getcwd(here, sizeof(here)))
		return lagom_errprintf(err, errno,
				       "cannot read srun's "
				       "directory");
	rc = read_cmdline(&buf, &words, &count, err);
	if (rc == 0)
		rc = lagom_srun_chdir(count, words, command_argc,
				      getenv("SLURM_REMOTE_CWD"),
				      getenv("SLURM_WORKING_DIR"), here,
				      step->cwd, sizeof(step->cwd), err);
	free(words);
	free(buf);
	return rc;
}

static int get_ids(spank_t sp, struct lagom_step *step,
		   struct lagom_carrier_step *id, struct lagom_error *err)
{
	if (spank_get_item(sp, S_JOB_ID, &step->job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step->step_id) !=
		    ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NNODES, &step->nnodes) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &id->ntasks) !=
		    ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &step->uid) != ESPANK_SUCCESS)
		return lagom_errprintf(err, EIO, "cannot read the step's ids");
	/* 23.02+: Slurm's "nobody", srun's own user meant (learn.c) */
	step->uid = lagom_slurm_srun_uid(step->uid);
	id->job_id = step->job_id;
	id->step_id = step->step_id;
	id->nnodes = step->nnodes;
	return 0;
}

/* Tasks per node from srun's SLURM_TASKS_PER_NODE (the step's), which
 * must add up to the counts Slurm gave the plugin. */
static int tasks_per_node(struct lagom_step *step,
			  struct lagom_carrier_step *id,
			  struct lagom_tasks_per_node *tpn,
			  struct lagom_error *err)
{
	const char *s = getenv("SLURM_TASKS_PER_NODE");

	if (!s || strlen(s) >= sizeof(id->tpn))
		return lagom_errprintf(err, ENOENT,
				       "SLURM_TASKS_PER_NODE not set");
	if (lagom_tasks_per_node_parse(s, tpn, err) < 0)
		return lagom_error_prefix(err, "SLURM_TASKS_PER_NODE");
	if (tpn->nodes != id->nnodes || tpn->tasks != id->ntasks)
		return lagom_errprintf(err, EINVAL,
				       "SLURM_TASKS_PER_NODE=%s does not match "
				       "%u tasks on %u nodes",
				       s, id->ntasks, id->nnodes);
	strcpy(id->tpn, s);
	step->ranks_per_node = tpn->max_tasks;
	return 0;
}

/*
 * The step's nodes and GPU request from srun itself: 1 when srun's state
 * tells them exactly, 0 when only slurmctld can.  The nodes come from
 * SLURM_NODELIST, which srun sets in its own environment (setup_env()) to
 * its allocation's list before this hook: the step's list only when the
 * step has as many nodes as the allocation (srun -N2 in an allocation of 3
 * does not).  Every node checks the node list against its own
 * SLURM_STEP_NODELIST, so a wrong guess can only leave the whole step
 * untuned (carrier.c), never split it.
 */
static int srun_knows_step(spank_t sp, struct lagom_step *step,
			   struct lagom_gpu_request *req,
			   struct lagom_error *err)
{
	const char *list = getenv("SLURM_NODELIST");
	int rc;

	if (!list || (rc = srun_gpu_opts(sp, req, err)) <= 0)
		return list ? rc : 0;
	if (lagom_step_expand_nodes(list, step, err) < 0 ||
	    step->node_count != step->nnodes) {
		lagom_step_clear_nodes(step);
		lagom_gpu_request_release(req);
		lagom_error_clear(err);
		return 0;
	}
	return 1;
}

int lagom_srun_step_read(spank_t sp, unsigned timeout_ms, bool query_always,
			 struct lagom_step *step, struct lagom_carrier_step *id,
			 double *slurmctld_ms, struct lagom_error *err)
{
	struct lagom_tasks_per_node tpn = { 0 };
	struct lagom_gpu_request req = { 0 };
	struct timespec t0;
	char *nodes = NULL;
	int rc;

	memset(step, 0, sizeof(*step));
	memset(id, 0, sizeof(*id));
	*slurmctld_ms = -1;
	if ((rc = get_ids(sp, step, id, err)) < 0)
		return rc;
	if (gethostname(step->node_name, sizeof(step->node_name) - 1) < 0)
		strcpy(step->node_name, "srun");
	if (step_cwd(sp, step, err) < 0) {
		/* only a relative workload file needs it (srun_planner.c) */
		step->cwd[0] = '\0';
		lagom_error_clear(err);
	}
	if ((rc = tasks_per_node(step, id, &tpn, err)) < 0)
		goto out;
	rc = query_always ? 0 : srun_knows_step(sp, step, &req, err);
	if (rc < 0)
		goto out;
	if (rc == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if ((rc = lagom_step_query(id->job_id, id->step_id, timeout_ms,
					   &nodes, &req, err)) < 0 ||
		    (rc = lagom_step_expand_nodes(nodes, step, err)) < 0)
			goto out;
		*slurmctld_ms = lagom_ms_since(&t0);
	}
	if ((rc = lagom_step_gpus(&req, &tpn, &step->gpus_per_node, err)) < 0)
		goto out;
	if (step->node_count != id->nnodes) {
		rc = lagom_errprintf(err, EINVAL,
				     "slurmctld lists %zu nodes for a step of "
				     "%u",
				     step->node_count, id->nnodes);
		goto out;
	}
	id->nodes_hash = lagom_nodes_hash((const char *const *)step->node_names,
					  step->node_count);
out:
	free(nodes);
	lagom_gpu_request_release(&req);
	lagom_tasks_per_node_release(&tpn);
	return rc;
}
