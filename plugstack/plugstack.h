/*
 * plugstack/plugstack.h - the admin's plugstack.conf arguments for lagom.
 *
 * An admin writes one line in plugstack.conf:
 *
 *	required /usr/lib/x86_64-linux-gnu/slurm-wlm/lagom.so \
 *		profile_dir=/var/lib/lagom default=off comment=yes
 *
 * and Slurm hands the words after the path to every SPANK callback as
 * (argc, argv).  lagom_config_parse() turns them into a struct lagom_config.
 * It is a pure function (no I/O, no environment, no allocation) so the SPANK
 * plugin, lagom-prolog and the command-line tool read the same line the same
 * way.
 *
 * Arguments (key=value, no spaces: plugstack.conf has no quoting):
 *
 *	default=off|auto|explain  mode when the user gives no --lagom  [off]
 *	profile_dir=DIR           trusted node profiles   [/var/lib/lagom]
 *	tuner=PATH                NCCL tuner plugin set as NCCL_TUNER_PLUGIN
 *	                          [LAGOM_CONFIG_DEFAULT_TUNER, see below];
 *	                          tuner=none sets no tuner plugin
 *	comment=yes|no|admin      write the sacct line to the job's Comment
 *	                          (yes), AdminComment (admin) or not at all [yes]
 *	forbid=VAR[,VAR...]       variables lagom must never set (repeatable)
 *	override=VAR[,VAR...]     variables lagom sets even over the user's
 *	                          value (repeatable)
 *	topology_conf=PATH|none   Slurm topology.conf [next to slurm.conf];
 *	                          none: plan as if all nodes hang off one switch
 *	slurm_user=NAME|UID       owner trusted for profiles besides root
 *	calibration_user=NAME|UID the calibration account: `lagom calibrate`
 *	                          trusts its records (doc/calibration-run.md)
 *	verbose[=N]               log more (plain "verbose" means 1)
 *	measure_dir=, measure=, measure_max_steps=, measure_max_mb=,
 *	profiler=                 the measurement loop (plugstack/measure.h)
 *
 * An unknown key, a bad value or a malformed variable name is an error that
 * names the offending argument.  A variable both forbidden and overridden is
 * an error too: the admin must say which one they mean.
 */
#ifndef LAGOM_PLUGSTACK_PLUGSTACK_H
#define LAGOM_PLUGSTACK_PLUGSTACK_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "plugstack/measure.h"

#define LAGOM_CONFIG_PATH_MAX 1024
#define LAGOM_CONFIG_NAME_MAX 64 /* a variable name, with its NUL */
#define LAGOM_CONFIG_VARS_MAX 32 /* entries in forbid= or override= */

#ifndef LAGOM_CONFIG_DEFAULT_PROFILE_DIR
#define LAGOM_CONFIG_DEFAULT_PROFILE_DIR "/var/lib/lagom"
#endif
#ifndef LAGOM_CONFIG_DEFAULT_TUNER
#define LAGOM_CONFIG_DEFAULT_TUNER "libnccl-tuner-lagom.so"
#endif

enum lagom_mode {
	LAGOM_MODE_OFF = 0, /* do nothing */
	LAGOM_MODE_AUTO,    /* compute the plan and set the environment */
	LAGOM_MODE_EXPLAIN, /* compute and report the plan, set nothing */
	LAGOM_MODE_MEASURE, /* plan, set none of it, measure (doc/report.md) */
	LAGOM_MODE_CONTROL, /* the same, as srun's control pick: never typed */
	LAGOM_MODE_REVERT, /* the same, the class measured slower: never typed */
};

enum lagom_comment {
	LAGOM_COMMENT_NO = 0,
	LAGOM_COMMENT_YES,   /* the job's Comment (sacct -o Comment) */
	LAGOM_COMMENT_ADMIN, /* the job's AdminComment (needs root) */
};

struct lagom_varlist {
	size_t n;
	char name[LAGOM_CONFIG_VARS_MAX][LAGOM_CONFIG_NAME_MAX];
};

struct lagom_config {
	enum lagom_mode default_mode;
	char profile_dir[LAGOM_CONFIG_PATH_MAX];
	char tuner[LAGOM_CONFIG_PATH_MAX];	   /* "" = set no tuner */
	char topology_conf[LAGOM_CONFIG_PATH_MAX]; /* "" = next to slurm.conf */
	bool topology_none; /* topology_conf=none: no switch tree at all */
	enum lagom_comment comment;
	struct lagom_varlist forbid;
	struct lagom_varlist override;
	/*
	 * The account trusted for profiles besides root, as written:
	 * "" when not given.  slurm_uid_valid says it was a number (then
	 * slurm_uid holds it); a name is looked up by the caller (getpwnam_r),
	 * which is I/O and so not done here.
	 */
	char slurm_user[LAGOM_CONFIG_NAME_MAX];
	bool slurm_uid_valid;
	unsigned int slurm_uid;
	/* calibration_user=, as written ("" when not given): read by
	 * `lagom calibrate --plugstack`, which looks the name up */
	char calibration_user[LAGOM_CONFIG_NAME_MAX];
	int verbose;
	/* step_query=always: srun asks slurmctld for every step's nodes and
	 * GPUs, even when its own options tell them (srun_step.c) */
	bool step_query_always;
	struct lagom_measure_config measure;
};

/* Fill *cfg with the defaults listed above.  Always succeeds. */
void lagom_config_defaults(struct lagom_config *cfg);

/*
 * Parse plugstack.conf arguments.  argv holds argc words (argv may be NULL
 * when argc is 0).  On success writes *out (defaults plus the arguments) and
 * returns 0.  On failure returns -EINVAL (unknown key, bad value, bad variable
 * name, forbid/override conflict) or -ERANGE (a value too long, or more than
 * LAGOM_CONFIG_VARS_MAX variables); err names the argument; *out is not
 * touched.
 */
int lagom_config_parse(int argc, char *const argv[], struct lagom_config *out,
		       struct lagom_error *err);

/*
 * Parse a mode word ("off", "auto", "explain", "measure", case-sensitive,
 * as typed after --lagom=).  Returns 0 and writes *mode, or -EINVAL.
 */
int lagom_mode_parse(const char *word, enum lagom_mode *mode);

/* "off", "auto", "explain", "measure", "control" or "revert" (a static
 * string; "?" for a bad value). */
const char *lagom_mode_name(enum lagom_mode mode);

/* true when name is in list (exact match). */
bool lagom_varlist_has(const struct lagom_varlist *list, const char *name);

/* true when name is a valid environment variable name: [A-Za-z_][A-Za-z0-9_]* */
bool lagom_config_valid_var_name(const char *name);

#endif /* LAGOM_PLUGSTACK_PLUGSTACK_H */
