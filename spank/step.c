/*
 * spank/step.c - the step's placement as slurmstepd sees it: job and step
 * ids, this node's index and name, the step's node list (expanded with
 * Slurm's hostlist functions, exported by slurmstepd), tasks and GPUs per
 * node.  remote.c checks the plan srun sent against the values here that
 * are the same on every node of the step (ids, node list, tasks per node);
 * the GPU count is this node's own and is only reported
 * (doc/consistency.md).  The node list's expansion is srun's too
 * (srun_step.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "spank/lagom.h"
#include "spank/step.h"
#include "placement/placement.h"

/* The longest node list read (a list of irregular names on a big cluster
 * can pass any fixed buffer). */
#define NODELIST_MAX (16u << 20)

void lagom_step_clear_nodes(struct lagom_step *step)
{
	for (size_t i = 0; i < step->node_count; i++)
		free(step->node_names[i]);
	free(step->node_names);
	step->node_names = NULL;
	step->node_count = 0;
}

void lagom_step_clear(struct lagom_step *step)
{
	if (!step)
		return;
	lagom_step_clear_nodes(step);
	memset(step, 0, sizeof(*step));
}

static int step_getenv(spank_t sp, const char *name, char *buf, int len)
{
	return spank_getenv(sp, name, buf, len) == ESPANK_SUCCESS ? 0 : -ENOENT;
}

int lagom_step_expand_nodes(const char *list, struct lagom_step *step,
			    struct lagom_error *err)
{
	struct lagom_nodelist *nl = lagom_nodelist_create(list, err);
	size_t count;

	if (!nl)
		return -EINVAL;
	count = lagom_nodelist_count(nl);
	step->node_names = calloc(count ? count : 1, sizeof(char *));
	if (!step->node_names) {
		lagom_nodelist_destroy(nl);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	for (; step->node_count < count; step->node_count++) {
		char *name = strdup(lagom_nodelist_name(nl, step->node_count));

		if (!name) {
			lagom_nodelist_destroy(nl);
			return lagom_errprintf(err, ENOMEM, "out of memory");
		}
		step->node_names[step->node_count] = name;
	}
	lagom_nodelist_destroy(nl);
	return 0;
}

static int get_ids(spank_t sp, struct lagom_step *step, struct lagom_error *err)
{
	if (spank_get_item(sp, S_JOB_ID, &step->job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step->step_id) !=
		    ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NODEID, &step->node_id) !=
		    ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NNODES, &step->nnodes) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &step->uid) != ESPANK_SUCCESS)
		return lagom_errprintf(err, EIO, "cannot read the job's ids");
	return 0;
}

static unsigned gpus_on_node(spank_t sp)
{
	struct lagom_gpu_list gpus;
	char buf[1024];
	char *end;
	unsigned long n;

	if (step_getenv(sp, "SLURM_GPUS_ON_NODE", buf, sizeof(buf)) == 0) {
		n = strtoul(buf, &end, 10);
		if (end != buf && !*end && n < 4096)
			return (unsigned)n;
	}
	if (step_getenv(sp, "SLURM_STEP_GPUS", buf, sizeof(buf)) == 0 &&
	    lagom_gpu_list_parse(buf, &gpus, NULL) == 0)
		return gpus.count;
	return 0;
}

/* The most tasks any node of the step runs ("4(x2),3" -> 4). */
static int ranks_per_node(const char *spec, unsigned *out,
			  struct lagom_error *err)
{
	struct lagom_tasks_per_node tpn;
	int rc = lagom_tasks_per_node_parse(spec, &tpn, err);

	if (rc < 0)
		return rc;
	*out = tpn.max_tasks;
	lagom_tasks_per_node_release(&tpn);
	return 0;
}

/*
 * The step's node list, however long (a list of irregular names on a big
 * cluster can pass any fixed buffer; falling back to the job's list then
 * would plan for the wrong nodes).  SLURM_NODELIST only when the step's
 * list is absent.  Returns 0 and a string to free in *out, or a negative
 * errno with err filled.
 */
static int step_nodelist(spank_t sp, char **out, struct lagom_error *err)
{
	static const char *const names[] = { "SLURM_STEP_NODELIST",
					     "SLURM_NODELIST" };

	for (size_t i = 0; i < 2; i++) {
		int rc = lagom_step_getenv_alloc(sp, names[i], NODELIST_MAX,
						 out);

		if (rc == -ENOMEM)
			return lagom_errprintf(err, ENOMEM, "out of memory");
		if (rc == 0)
			return 0;
	}
	return lagom_errprintf(err, ENOENT, "SLURM_STEP_NODELIST not set");
}

bool lagom_step_env_has(spank_t sp, const char *name)
{
	char probe[2];
	spank_err_t rc = spank_getenv(sp, name, probe, sizeof(probe));

	return rc == ESPANK_SUCCESS || rc == ESPANK_NOSPACE;
}

bool lagom_step_env_set(spank_t sp, const char *name)
{
	char probe[2];
	spank_err_t rc = spank_getenv(sp, name, probe, sizeof(probe));

	return rc == ESPANK_NOSPACE || (rc == ESPANK_SUCCESS && probe[0]);
}

int lagom_step_getenv_alloc(spank_t sp, const char *name, size_t max,
			    char **out)
{
	for (size_t len = 8192 < max ? 8192 : max;; len *= 4) {
		char *buf;
		spank_err_t rc;

		len = len > max ? max : len;
		buf = malloc(len);
		if (!buf)
			return -ENOMEM;
		rc = spank_getenv(sp, name, buf, (int)len);
		if (rc == ESPANK_SUCCESS) {
			*out = buf;
			return 0;
		}
		free(buf);
		if (rc != ESPANK_NOSPACE)
			return -ENOENT;
		if (len == max)
			return -E2BIG;
	}
}

int lagom_step_read(spank_t sp, struct lagom_step *step,
		    struct lagom_error *err)
{
	char buf[8192];
	char *nodes = NULL;
	int rc;

	memset(step, 0, sizeof(*step));
	rc = get_ids(sp, step, err);
	if (rc < 0)
		return rc;
	if (step_getenv(sp, "SLURMD_NODENAME", step->node_name,
			sizeof(step->node_name)) < 0 &&
	    gethostname(step->node_name, sizeof(step->node_name) - 1) < 0)
		strcpy(step->node_name, "?");
	/* slurmstepd has changed to the job's working directory (srun
	 * --chdir, sbatch -D) before user_init; PWD is srun's directory */
	if (!getcwd(step->cwd, sizeof(step->cwd)))
		step->cwd[0] = '\0';
	rc = step_nodelist(sp, &nodes, err);
	if (rc < 0)
		return rc;
	rc = lagom_step_expand_nodes(nodes, step, err);
	free(nodes);
	if (rc < 0)
		return rc;
	if (step_getenv(sp, "SLURM_STEP_TASKS_PER_NODE", buf, sizeof(buf)) < 0)
		return lagom_errprintf(err, ENOENT,
				       "SLURM_STEP_TASKS_PER_NODE not set");
	rc = ranks_per_node(buf, &step->ranks_per_node, err);
	if (rc < 0)
		return lagom_error_prefix(err, "SLURM_STEP_TASKS_PER_NODE");
	step->gpus_per_node = gpus_on_node(sp);
	return 0;
}
