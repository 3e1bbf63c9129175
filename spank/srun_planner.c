/*
 * spank/srun_planner.c - srun's one call into the planner
 * (planner/planner.h).
 *
 * Runs in srun (slurm_spank_local_user_init, spank/local.c), the user's
 * own process: a workload file named by the user is opened with the
 * user's privileges, never as root.  Profiles are read from the admin's
 * directory under the planner's trust rules (owned by root or slurm_user,
 * not writable by group or others).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spank/srun_planner.h"
#include "workload/workload.h"

/* Root plus the admin's slurm_user= (a name was resolved at load, log.c;
 * looked up here only for a cfg that did not come through it). */
static int trusted_uid(const struct lagom_config *cfg, uid_t *uid,
		       struct lagom_error *err)
{
	struct passwd pw, *found = NULL;
	char buf[4096];

	*uid = 0;
	if (!cfg->slurm_user[0])
		return 0;
	if (cfg->slurm_uid_valid) {
		*uid = (uid_t)cfg->slurm_uid;
		return 0;
	}
	if (getpwnam_r(cfg->slurm_user, &pw, buf, sizeof(buf), &found) != 0 ||
	    !found)
		return lagom_errprintf(
			err, ENOENT,
			"plugstack.conf: slurm_user=%s: no such user",
			cfg->slurm_user);
	*uid = found->pw_uid;
	return 0;
}

/* topology.conf: the admin's path, else next to slurm.conf if present. */
static const char *topology_path(const struct lagom_config *cfg, char *buf,
				 size_t len)
{
	const char *conf = getenv("SLURM_CONF");
	const char *slash;

	if (cfg->topology_none)
		return NULL;
	if (cfg->topology_conf[0])
		return cfg->topology_conf;
	if (conf && (slash = strrchr(conf, '/')))
		snprintf(buf, len, "%.*s/topology.conf", (int)(slash - conf),
			 conf);
	else
		snprintf(buf, len, "/etc/slurm/topology.conf");
	return access(buf, R_OK) == 0 ? buf : NULL;
}

static int base_input(const struct lagom_config *cfg,
		      const struct lagom_step *step,
		      struct lagom_planner_input *in, char *topo, size_t len,
		      struct lagom_error *err)
{
	int rc = trusted_uid(cfg, &in->trusted_uid, err);

	if (rc < 0)
		return rc;
	in->profile_dir = cfg->profile_dir;
	in->enforce_trust = true;
	in->node_name = step->node_name;
	in->node_names = (const char *const *)step->node_names;
	in->node_count = step->node_count;
	in->ranks_per_node = step->ranks_per_node;
	in->gpus_per_node = step->gpus_per_node;
	in->topology_conf = topology_path(cfg, topo, len);
	in->tuner_path = cfg->tuner[0] && access(cfg->tuner, R_OK) == 0
				 ? cfg->tuner
				 : NULL;
	in->job_id = step->job_id;
	in->registered_buffers = step->registered_buffers;
	return 0;
}

/* The plan of the step, corrected by measured (NULL allowed). */
static int plan_with(const struct lagom_config *cfg,
		     const struct lagom_step *step, const char *workload,
		     const struct lagom_workload *given,
		     const struct lagom_planner_measured *measured,
		     struct lagom_planner_result **out, struct lagom_error *err)
{
	struct lagom_planner_input in = { 0 };
	char topo[1024];
	struct lagom_workload *owned = NULL;
	int rc = base_input(cfg, step, &in, topo, sizeof(topo), err);

	if (rc < 0)
		return rc;
	in.measured = measured;
	if (given) {
		in.workload = given;
		return lagom_planner_run(&in, out, err);
	}
	if (lagom_workload_is_file(workload)) {
		if (workload[0] != '/' && !step->cwd[0])
			return lagom_errprintf(err, ENOENT,
					       "workload file %s: cannot tell "
					       "the step's working directory "
					       "(give an absolute path)",
					       workload);
		/* As the user: srun runs as the job's owner. */
		rc = lagom_workload_read_path(workload, step->cwd, &owned, err);
		if (rc < 0)
			return lagom_error_prefix(err, "workload file");
		in.workload = owned;
		rc = lagom_planner_run(&in, out, err);
		lagom_workload_destroy(owned);
		return rc;
	}
	in.workload_name = workload;
	return lagom_planner_run(&in, out, err);
}

int lagom_srun_plan_learned(const struct lagom_config *cfg,
			    const struct lagom_step *step, const char *workload,
			    const struct lagom_learned *learned,
			    struct lagom_planner_result **out,
			    struct lagom_error *err)
{
	return plan_with(cfg, step, workload, learned->workload,
			 &learned->measured, out, err);
}

int lagom_srun_plan(const struct lagom_config *cfg,
		    const struct lagom_step *step, const char *workload,
		    struct lagom_planner_result **out, struct lagom_error *err)
{
	return plan_with(cfg, step, workload, NULL, NULL, out, err);
}
