/*
 * cli/cmd_plan.c - `lagom plan`: run the planner the SPANK plugin runs and
 * show the plan: environment, per-collective choices, predicted iteration
 * time against NCCL's defaults and the communication-only tuner, and the
 * search trajectory.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/hw_int.h"
#include "cli/plan_int.h"
#include "cli/svg_int.h"
#include "search/search.h"

static const char plan_usage[] =
	"Usage: lagom plan --profile FILE|DIR --nodes N [OPTIONS]\n"
	"\n"
	"Compute the plan lagom's SPANK plugin would compute for a step, with\n"
	"the same code, and show it.\n"
	"\n"
	"Options:\n"
	"  --profile FILE|DIR    one profile for every node, or the profile\n"
	"                        directory (NODE.json per node)\n"
	"  --nodes N             nodes of the step (1-65536)\n"
	"  --nodelist HOSTLIST   with DIR: the step's nodes (default: the\n"
	"                        first N profiles of DIR by name)\n"
	"  --gpus-per-node G     GPUs per node used by the step (default: all)\n"
	"  --workload NAME|FILE  catalog name (see 'lagom workloads') or a\n"
	"                        JSON workload file; default: the setting\n"
	"                        whose worst case over the catalog is best\n"
	"  --tuner PATH|none     NCCL tuner plugin to set (default "
	"libnccl-tuner-lagom.so)\n"
	"  --topology-conf PATH  Slurm topology.conf (tree or block) for\n"
	"                        inter-node hops and NVLink domains\n"
	"  --calibration FILE    the site's network calibration (lagom\n"
	"                        calibrate); default: DIR's, when there is one\n"
	"  --job-id ID           job id written into the plan (default 0)\n"
	"  --no-trust            with DIR: skip the ownership checks\n"
	"  --trusted-uid UID     with DIR: owner trusted besides root\n"
	"  --registered-buffers  the application registers its NCCL buffers\n"
	"                        (srun --lagom-registered-buffers): with NCCL\n"
	"                        2.28+ in every profile, NCCL_CTA_POLICY is a\n"
	"                        candidate\n"
	"  --format text|json    output format (default text)\n"
	"  --svg FILE            also draw the plan as an SVG picture\n"
	"                        (FILE '-': the picture alone on stdout)\n"
	"  -h, --help            this help\n";

enum {
	OPT_PROFILE = 0x300,
	OPT_NODES,
	OPT_NODELIST,
	OPT_GPUS,
	OPT_WORKLOAD,
	OPT_TUNER,
	OPT_TOPO,
	OPT_CALIBRATION,
	OPT_JOB,
	OPT_NOTRUST,
	OPT_UID,
	OPT_FORMAT,
	OPT_SVG,
	OPT_REGISTERED,
};

static int plan_number(struct plan_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_NODES:
		return cli_parse_unsigned("--nodes", arg, 1,
					  LAGOM_PLANNER_MAX_NODES, &o->nodes);
	case OPT_GPUS:
		return cli_parse_unsigned("--gpus-per-node", arg, 1, 64,
					  &o->gpus_per_node);
	case OPT_JOB:
		return cli_parse_uint("--job-id", arg, 0, UINT32_MAX,
				      &o->job_id);
	default:
		return cli_parse_uint("--trusted-uid", arg, 0, UINT32_MAX - 1,
				      &o->trusted_uid);
	}
}

static int plan_opt(void *ctx, int c, const char *arg)
{
	struct plan_opts *o = ctx;

	switch (c) {
	case OPT_PROFILE:
		o->profile = arg;
		return 0;
	case OPT_NODELIST:
		o->nodelist = arg;
		return 0;
	case OPT_WORKLOAD:
		o->workload = arg;
		return 0;
	case OPT_TUNER:
		o->tuner = strcmp(arg, "none") == 0 ? NULL : arg;
		return 0;
	case OPT_TOPO:
		o->topology_conf = arg;
		return 0;
	case OPT_CALIBRATION:
		o->calibration = arg;
		return cli_require_file("--calibration", arg);
	case OPT_NOTRUST:
		o->trust = false;
		return 0;
	case OPT_REGISTERED:
		o->registered_buffers = true;
		return 0;
	case OPT_FORMAT:
		return cli_parse_format(arg, &o->format);
	case OPT_SVG:
		o->svg = arg;
		return 0;
	default:
		return plan_number(o, c, arg);
	}
}

static int parse_plan(int argc, char **argv, struct plan_opts *o)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "nodes", required_argument, NULL, OPT_NODES },
		{ "nodelist", required_argument, NULL, OPT_NODELIST },
		{ "gpus-per-node", required_argument, NULL, OPT_GPUS },
		{ "workload", required_argument, NULL, OPT_WORKLOAD },
		{ "tuner", required_argument, NULL, OPT_TUNER },
		{ "topology-conf", required_argument, NULL, OPT_TOPO },
		{ "calibration", required_argument, NULL, OPT_CALIBRATION },
		{ "job-id", required_argument, NULL, OPT_JOB },
		{ "no-trust", no_argument, NULL, OPT_NOTRUST },
		{ "trusted-uid", required_argument, NULL, OPT_UID },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "registered-buffers", no_argument, NULL, OPT_REGISTERED },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt(argc, argv, "plan", "+h", longopts, plan_usage,
			    plan_opt, o);

	if (rc || (rc = cli_no_operand("plan", argc, argv)))
		return rc;
	if (!o->profile || (!o->nodes && !o->nodelist))
		return cli_fail(CLI_USAGE,
				"plan: --profile and --nodes are required "
				"(try 'lagom plan --help')");
	return 0;
}

int cli_cmd_plan(int argc, char **argv)
{
	struct plan_opts o = { .format = CLI_TEXT,
			       .trust = true,
			       .tuner = "libnccl-tuner-lagom.so" };
	struct lagom_planner_input in = { 0 };
	struct lagom_planner_result *res = NULL;
	struct lagom_error err = { 0 };
	struct cli_step step = { 0 };
	int rc = parse_plan(argc, argv, &o);

	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = cli_plan_step(&o, &step)) ||
	    (rc = cli_plan_workload(&o, &step)))
		goto out;
	in.profile_dir = step.is_dir ? o.profile : NULL;
	in.profile_path = step.is_dir ? NULL : o.profile;
	in.enforce_trust = step.is_dir && o.trust;
	in.trusted_uid = (uid_t)o.trusted_uid;
	in.node_names = (const char *const *)step.names;
	in.node_count = step.count;
	in.ranks_per_node = step.gpus_per_node;
	in.gpus_per_node = step.gpus_per_node;
	in.topology_conf = o.topology_conf;
	in.calibration_path = o.calibration;
	in.workload_name = step.workload ? NULL : o.workload;
	in.workload = step.workload;
	in.tuner_path = o.tuner;
	in.job_id = o.job_id;
	in.registered_buffers = o.registered_buffers;
	if (lagom_planner_run(&in, &res, &err) != 0) {
		rc = cli_fail(CLI_FAIL, "plan: %s", err.text);
		goto out;
	}
	if (res->notice) /* a refused digest or calibration, as srun says */
		fprintf(stderr, "lagom: plan: %s\n", res->notice);
	if (!cli_plan_times_finite(res)) {
		rc = cli_fail(CLI_FAIL,
			      "plan: workload %s: its times overflow (a "
			      "predicted time is not a finite number)",
			      o.workload ? o.workload : "(catalog worst case)");
		goto out;
	}
	if (o.svg && (rc = cli_plan_svg(o.svg, res, step.workload, o.workload)))
		goto out;
	if (o.svg && strcmp(o.svg, "-") == 0)
		goto out;
	rc = o.format == CLI_JSON ? cli_plan_json(res, &in)
				  : cli_plan_text(res);
out:
	lagom_planner_result_destroy(res);
	cli_step_fini(&step);
	return rc;
}
