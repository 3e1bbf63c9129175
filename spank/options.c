/*
 * spank/options.c - --lagom=auto|off|explain, --lagom-workload=NAME|FILE and
 * --lagom-registered-buffers.
 *
 * Registered with spank_option_register() from slurm_spank_init, the only
 * way the options reach sbatch and salloc.  The callbacks validate and store
 * the value in the state struct; on Slurm 22.05 they run twice in the remote
 * context (launch message, then environment), so storing is idempotent and
 * the last value wins (srun applies environment values before the command
 * line's).  A bad value fails with -1 and one line in srun, sbatch and
 * salloc (srun adds "Invalid --lagom argument").  In slurmstepd (remote)
 * a bad value, which only a hand-made _SLURM_SPANK_OPTION_lagom_* variable
 * can bring there, is logged and turns lagom off for the step: -1 there
 * would fail the step's option processing, and for a batch step drain the
 * node.
 *
 * Also the shared state's setup from plugstack.conf (slurm_spank_init) and
 * the notice of an inert lagom.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include <slurm/spank.h>

#include "spank/lagom.h"

enum {
	OPT_MODE = 1,
	OPT_WORKLOAD = 2,
	OPT_REGISTERED = 3
};

static struct spank_option lagom_opts[] = {
	{ "lagom", "MODE",
	  "[lagom] tune NCCL for this step: auto (set the plan's environment; "
	  "auto,nocontrol: never a control step), explain (report the plan, "
	  "set nothing), measure (NCCL's defaults, measured) or off",
	  1, OPT_MODE, lagom_option_mode_cb },
	{ "lagom-workload", "NAME|FILE",
	  "[lagom] the workload to tune for: a catalog name such as "
	  "phi-2:fsdp, or a JSON file (read as you)",
	  1, OPT_WORKLOAD, lagom_option_workload_cb },
	{ "lagom-registered-buffers", NULL,
	  "[lagom] the application registers its NCCL buffers: with NCCL "
	  "2.28 or newer on every node, NCCL_CTA_POLICY becomes a candidate",
	  0, OPT_REGISTERED, lagom_option_registered_cb },
};

int lagom_options_register(spank_t sp)
{
	for (size_t i = 0; i < sizeof(lagom_opts) / sizeof(lagom_opts[0]);
	     i++) {
		spank_err_t rc = spank_option_register(sp, &lagom_opts[i]);

		if (rc != ESPANK_SUCCESS) {
			lagom_log_error("cannot register --%s: %s",
					lagom_opts[i].name, spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

/* A bad value in slurmstepd: lagom stays off for this step, the step runs. */
static int refuse_remote(const char *option, const char *value)
{
	lagom_g.opt_invalid = true;
	lagom_log_info("%s%s%.64s: bad value; lagom is off for this step",
		       option, value ? "=" : "", value ? value : "");
	return 0;
}

/* "auto,nocontrol": auto, and not a control (doc/report.md). */
static int mode_words(const char *optarg, enum lagom_mode *mode,
		      bool *nocontrol)
{
	static const char suffix[] = ",nocontrol";
	char word[16];
	size_t n = optarg ? strlen(optarg) : 0;

	*nocontrol = n > sizeof(suffix) - 1 &&
		     strcmp(optarg + n - (sizeof(suffix) - 1), suffix) == 0;
	if (!*nocontrol)
		return lagom_mode_parse(optarg, mode);
	n -= sizeof(suffix) - 1;
	if (n >= sizeof(word))
		return -EINVAL;
	memcpy(word, optarg, n);
	word[n] = '\0';
	if (lagom_mode_parse(word, mode) < 0 || *mode != LAGOM_MODE_AUTO)
		return -EINVAL;
	return 0;
}

int lagom_option_mode_cb(int val, const char *optarg, int remote)
{
	enum lagom_mode mode;
	bool nocontrol;

	if (mode_words(optarg, &mode, &nocontrol) < 0) {
		if (remote)
			return refuse_remote("--lagom", optarg);
		lagom_log_error("--lagom=%s: expected auto, auto,nocontrol, "
				"measure, off or explain",
				optarg ? optarg : "");
		return -1;
	}
	lagom_g.mode_given = true;
	lagom_g.mode_opt = mode;
	lagom_g.nocontrol = nocontrol;
	return 0;
}

int lagom_workload_arg_check(const char *value, struct lagom_error *err)
{
	size_t n;

	if (!value || !*value)
		return lagom_errprintf(err, EINVAL,
				       "--lagom-workload needs a NAME or FILE");
	n = strlen(value);
	if (n >= LAGOM_WORKLOAD_ARG_MAX)
		return lagom_errprintf(
			err, ENAMETOOLONG,
			"--lagom-workload: value too long (%zu bytes, max %d)",
			n, LAGOM_WORKLOAD_ARG_MAX - 1);
	for (const unsigned char *p = (const unsigned char *)value; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return lagom_errprintf(
				err, EINVAL,
				"--lagom-workload: control character in value");
	return 0;
}

int lagom_option_workload_cb(int val, const char *optarg, int remote)
{
	struct lagom_error err = { 0 };

	if (lagom_workload_arg_check(optarg, &err) < 0) {
		if (remote)
			return refuse_remote("--lagom-workload", NULL);
		lagom_log_error("%s", err.text);
		return -1;
	}
	strcpy(lagom_g.workload, optarg);
	lagom_g.workload_given = true;
	return 0;
}

int lagom_option_registered_cb(int val, const char *optarg, int remote)
{
	(void)val;
	(void)optarg;
	(void)remote;
	lagom_g.registered_buffers = true;
	return 0;
}

enum lagom_mode lagom_effective_mode(const struct lagom_state *st)
{
	if (st->opt_invalid)
		return LAGOM_MODE_OFF;
	return st->mode_given ? st->mode_opt : st->cfg.default_mode;
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
