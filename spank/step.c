/*
 * spank/step.c - the step's placement as slurmstepd sees it: job and step
 * ids, this node's index and name, the step's node list (expanded with
 * Slurm's hostlist functions, exported by slurmstepd), tasks and GPUs per
 * node.  Every value that enters the plan is the same on every node of the
 * step, so every node computes the same plan.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "spank/lagom.h"
#include "spank/step.h"

void lagom_step_clear(struct lagom_step *step)
{
	if (!step)
		return;
	for (size_t i = 0; i < step->node_count; i++)
		free(step->node_names[i]);
	free(step->node_names);
	memset(step, 0, sizeof(*step));
}

/* Largest count in a Slurm tasks-per-node string such as "4(x2),3". */
int lagom_tasks_per_node_max(const char *spec, unsigned *out)
{
	unsigned best = 0;
	const char *p = spec;

	if (!spec || !*spec)
		return -EINVAL;
	while (*p) {
		char *end;
		unsigned long n = strtoul(p, &end, 10);

		if (end == p || n == 0 || n > 1u << 20)
			return -EINVAL;
		if (n > best)
			best = (unsigned)n;
		p = end;
		if (*p == '(') {
			p = strchr(p, ')');
			if (!p)
				return -EINVAL;
			p++;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	*out = best;
	return 0;
}

/* Number of entries in a comma-separated list ("0,1,3" -> 3; "" -> 0). */
unsigned lagom_list_count(const char *list)
{
	unsigned n = 0;

	if (!list || !*list)
		return 0;
	for (n = 1; *list; list++)
		n += *list == ',';
	return n;
}

static int step_getenv(spank_t sp, const char *name, char *buf, int len)
{
	return spank_getenv(sp, name, buf, len) == ESPANK_SUCCESS ? 0 : -ENOENT;
}

static int expand_nodes(const char *list, struct lagom_step *step,
			struct lagom_error *err)
{
	hostlist_t hl = slurm_hostlist_create(list);
	int count;
	char *host;

	if (!hl)
		return lagom_errprintf(err, EINVAL, "bad node list '%s'", list);
	count = slurm_hostlist_count(hl);
	step->node_names = calloc(count > 0 ? (size_t)count : 1,
				  sizeof(char *));
	if (!step->node_names) {
		slurm_hostlist_destroy(hl);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	while ((host = slurm_hostlist_shift(hl)) &&
	       step->node_count < (size_t)count) {
		step->node_names[step->node_count] = strdup(host);
		free(host);
		if (!step->node_names[step->node_count]) {
			slurm_hostlist_destroy(hl);
			return lagom_errprintf(err, ENOMEM, "out of memory");
		}
		step->node_count++;
	}
	slurm_hostlist_destroy(hl);
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
	char buf[1024];
	char *end;
	unsigned long n;

	if (step_getenv(sp, "SLURM_GPUS_ON_NODE", buf, sizeof(buf)) == 0) {
		n = strtoul(buf, &end, 10);
		if (end != buf && !*end && n < 4096)
			return (unsigned)n;
	}
	if (step_getenv(sp, "SLURM_STEP_GPUS", buf, sizeof(buf)) == 0)
		return lagom_list_count(buf);
	return 0;
}

int lagom_step_read(spank_t sp, struct lagom_step *step,
		    struct lagom_error *err)
{
	char buf[8192];
	int rc;

	memset(step, 0, sizeof(*step));
	rc = get_ids(sp, step, err);
	if (rc < 0)
		return rc;
	if (step_getenv(sp, "SLURMD_NODENAME", step->node_name,
			sizeof(step->node_name)) < 0 &&
	    gethostname(step->node_name, sizeof(step->node_name) - 1) < 0)
		strcpy(step->node_name, "?");
	if (step_getenv(sp, "PWD", step->cwd, sizeof(step->cwd)) < 0 &&
	    step_getenv(sp, "SLURM_SUBMIT_DIR", step->cwd, sizeof(step->cwd)) <
		    0)
		step->cwd[0] = '\0';
	if (step_getenv(sp, "SLURM_STEP_NODELIST", buf, sizeof(buf)) < 0 &&
	    step_getenv(sp, "SLURM_NODELIST", buf, sizeof(buf)) < 0)
		return lagom_errprintf(err, ENOENT,
				       "SLURM_STEP_NODELIST not set");
	rc = expand_nodes(buf, step, err);
	if (rc < 0)
		return rc;
	if (step_getenv(sp, "SLURM_STEP_TASKS_PER_NODE", buf, sizeof(buf)) <
		    0 ||
	    lagom_tasks_per_node_max(buf, &step->ranks_per_node) < 0)
		return lagom_errprintf(err, EINVAL,
				       "cannot read SLURM_STEP_TASKS_PER_NODE");
	step->gpus_per_node = gpus_on_node(sp);
	return 0;
}
