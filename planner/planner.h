/*
 * planner/planner.h - one call from a step's layout to its NCCL plan.
 *
 * The SPANK plugin (spank/) and the command-line tool (cli/) both call
 * lagom_planner_run(), so a plan shown by `lagom plan` is the plan a job
 * step gets.  The planner:
 *
 *   1. loads the profile of every node of the step (profile_dir/<node>.json,
 *      through profile/'s reader and its trust rules) and turns them into one
 *      struct lagom_hw: when the nodes differ it takes, field by field, the
 *      weakest value, so every node computes the same hardware view;
 *   2. adds inter-node hops from topology.conf (when given; else one switch);
 *   3. takes the workload (the caller's struct, else the catalog name, else
 *      none: the search then plans for the catalog's worst case);
 *   4. runs the priority search (search/), encodes the plan
 *      (doc/plan-format.md) and builds the environment, a one-line summary for
 *      the job comment and a multi-line explanation.
 *
 * Determinism: the result is a pure function of the input struct and the
 * contents of the profile files (and topology.conf).  The order of
 * node_names does not matter (the planner sorts a copy); nothing node-local
 * (hwloc, clock, environment, this node's name) enters the plan.  node_name
 * is used only in error messages.  The plugin runs it once per step, in
 * srun, and hands the result to every node (doc/consistency.md); the CLI's
 * `lagom plan` computes the same bytes from the same inputs.
 *
 * Errors: lagom_planner_run() returns 0, or a negative errno with one line in
 * err (no "lagom:" prefix):
 *   -EINVAL  bad input (no nodes, a node twice, ranks_per_node 0, more
 *            GPUs than the profiles list, an unknown workload name), a
 *            profile that does not validate or names an unknown GPU;
 *   -ENOENT  a node's profile is missing; topology.conf is given but
 *            missing, or does not name one of the step's nodes;
 *   -EPERM   a profile failed the trust checks;
 *   other negative errnos from profile/'s reader and search/;
 *   -ENOMEM  out of memory.
 * On error *out is left untouched.  The plugin fails open on any error.
 *
 * Thread safety: no globals; concurrent calls with distinct results are safe.
 *
 * Linking: libplanner.la libsearch.la libprofile.la libplacement.la
 * libmodel.la libcommon.la $(JANSSON_LIBS) -lm.  libplacement calls Slurm's
 * hostlist functions (for topology.conf): the SPANK host provides them,
 * programs and tests add -lslurm.
 */
#ifndef LAGOM_PLANNER_PLANNER_H
#define LAGOM_PLANNER_PLANNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "model/model.h" /* enum lagom_hops */
#include "plan/plan.h"	 /* struct lagom_env_var */

struct lagom_workload; /* model/model.h */
struct lagom_hw;       /* model/model.h */
struct lagom_plan;     /* search/search.h */

/* Upper bounds the planner accepts (the CLI reports larger values as usage
 * errors). */
#define LAGOM_PLANNER_MAX_NODES 65536
#define LAGOM_PLANNER_MAX_RANKS_PER_NODE 1024

/*
 * What an earlier measured step showed for one collective class (spank/
 * learn.c reads it, in srun, from the user's records: doc/profiler.md):
 * the operation, the plan's byte count (allgather and reducescatter: the
 * whole buffer, as nccl-tests counts it), the communicator's ranks and
 * nodes, the configuration NCCL ran (algorithm, protocol, nchannels;
 * threads and chunk 0 = NCCL's) and the GPU time of its timed calls.
 */
struct lagom_planner_measured_class {
	enum lagom_coll coll;
	uint64_t bytes;
	unsigned ranks;
	unsigned nodes;
	struct lagom_coll_config config;
	uint64_t samples; /* timed calls */
	uint64_t gpu_ns;  /* their GPU time, summed */
};

struct lagom_planner_measured {
	char from[72]; /* the measured step, "JOB.STEP" */
	const struct lagom_planner_measured_class *cls;
	size_t n;
};

/* Why the planner fell back to NCCL's defaults: the only words after
 * "fallback=" in a summary (a node checks them, spank/carrier.h). */
#define LAGOM_PLANNER_FALLBACK_ONE_GPU "a single GPU: no collective to tune"
#define LAGOM_PLANNER_FALLBACK_UNPRICED                                   \
	"no catalog workload can be priced on this hardware (lagom plan " \
	"--workload NAME says why)"

/* A class needs this many timed calls before it corrects the model. */
#define LAGOM_CORRECTION_MIN_SAMPLES 10

/*
 * One correction the planner applied: every collective of the workload's
 * class (coll, bytes, ranks, nodes) had its predicted time multiplied by
 * factor = measured_s / model_s (over the matched measured class, with
 * the configurations NCCL ran), clamped to [LAGOM_TIME_SCALE_MIN,
 * LAGOM_TIME_SCALE_MAX].
 */
struct lagom_planner_correction {
	enum lagom_coll coll;
	uint64_t bytes;		 /* the workload's */
	uint64_t measured_bytes; /* the measured class's (within 2x) */
	unsigned ranks;
	unsigned nodes;
	uint64_t samples;
	double measured_s; /* mean GPU time per call */
	double model_s;	   /* the model's time per call, same configs */
	double factor;	   /* applied */
	bool clamped;
};

struct lagom_planner_input {
	/* Directory holding <node>.json profiles and the cluster digest
	 * (borrowed). */
	const char *profile_dir;
	/*
	 * Instead of profile_dir: one profile file used for every node (the CLI's
	 * `lagom plan --profile FILE`).  NULL in the plugin.  Borrowed.
	 */
	const char *profile_path;
	/* Trust: when enforce_trust, the profile directory and files must be
	 * owned by root or trusted_uid and not writable by group or others. */
	bool enforce_trust;
	uid_t trusted_uid;
	/* This node's name, for messages only (borrowed, may be NULL). */
	const char *node_name;
	/* The step's nodes, already expanded from the hostlist (borrowed). */
	const char *const *node_names;
	size_t node_count;
	/*
	 * Tasks and GPUs per node of the step; gpus_per_node 0 = all the
	 * profiles list.  lagom plans one NCCL rank per GPU: fewer tasks than
	 * GPUs (a launcher such as torchrun starts the ranks) is fine, more
	 * tasks than GPUs is -EINVAL.
	 */
	unsigned ranks_per_node;
	unsigned gpus_per_node;
	/* Slurm topology.conf for inter-node hops, or NULL (one switch). */
	const char *topology_conf;
	/* Catalog workload name, or NULL.  Ignored when workload is set. */
	const char *workload_name;
	/* Workload already read by the caller (borrowed, never changed), or
	 * NULL. */
	const struct lagom_workload *workload;
	/* Absolute path of libnccl-tuner-lagom.so, or NULL: then no
	 * NCCL_TUNER_PLUGIN and no LAGOM_PLAN in the environment. */
	const char *tuner_path;
	/* Slurm job id (0 outside Slurm). */
	uint64_t job_id;
	/*
	 * An earlier measured step of the same key (borrowed), or NULL: each
	 * class of the workload with a measured counterpart (same operation,
	 * ranks and nodes, bytes within a factor of 2, at least
	 * LAGOM_CORRECTION_MIN_SAMPLES timed calls, a configuration the model
	 * knows) gets the correction measured / model.  The order of cls does
	 * not matter.  Nothing happens without a workload.
	 */
	const struct lagom_planner_measured *measured;
	/*
	 * The step's NCCL as NCCL_VERSION_CODE, and whether the application
	 * registers its buffers: knobs of newer NCCL releases
	 * (NCCL_CTA_POLICY) are candidates only when both say so
	 * (lagom_search_opts, doc/search.md).  nccl_version 0: the oldest
	 * NCCL the step's profiles recorded (provenance.nccl_version; unknown
	 * when one of them has none: then never); registered_buffers comes
	 * only from the user's statement (srun --lagom-registered-buffers,
	 * lagom plan --registered-buffers).
	 */
	unsigned nccl_version;
	bool registered_buffers;
	/*
	 * The site's network calibration (doc/calibration-format.md): a
	 * file the user names (the CLI's --calibration; an error when it
	 * cannot be read), or NULL: LAGOM_CALIBRATION_FILE of profile_dir
	 * when there is one, read under the profiles' trust rules (one that
	 * is refused costs a notice and the built-in constants).  Borrowed.
	 */
	const char *calibration_path;
};

struct lagom_planner_result {
	/* The plan as search/ returned it (owned). */
	struct lagom_plan *plan;
	/* The hardware planned for: the weakest of the step's nodes (owned). */
	struct lagom_hw *hw;
	/* Plan text per doc/plan-format.md, NUL-terminated (owned). */
	char *plan_text;
	/* 16 lowercase hex digits, the LAGOM_PLAN_ID value. */
	char plan_id[17];
	/* Variables to set, in a fixed order (owned).  Includes the NCCL knobs,
	 * LAGOM_PLAN_ID, LAGOM_PREDICTED_SPEEDUP, and NCCL_TUNER_PLUGIN and
	 * LAGOM_PLAN when a tuner_path was given.  The caller decides which
	 * ones to skip (the user wins).  Names and values owned too. */
	struct lagom_env_var *env;
	size_t env_count;
	/* One line, no newline, for the job comment: lagom version, plan id,
	 * workload, chosen channels/chunk/algo, predicted speedup (owned). */
	char *summary;
	/* Several lines, each ending in '\n': why this plan (owned). */
	char *explanation;
	/* Workload name the plan was made for ("catalog-worst-case" when
	 * none was given) (owned). */
	char *workload_name;
	/* Predicted time of one iteration, seconds: with the plan, with NCCL's
	 * defaults, with the communication-only tuner. */
	double predicted_time_s;
	double nccl_default_time_s;
	double comm_only_time_s;
	/* nccl_default_time_s / predicted_time_s (1.0 when unknown). */
	double predicted_speedup;
	/* The step's shape as planned. */
	unsigned nodes;
	unsigned ranks_per_node;
	unsigned gpus_per_node;
	/*
	 * true when the planner applied the documented safe default instead of
	 * a searched plan (e.g. a single rank: no collective to tune), with the
	 * reason in fallback_reason (owned; NULL when false).  The safe default
	 * is a plan with no coll records (NCCL left alone) and sets only
	 * LAGOM_PLAN_ID and LAGOM_PREDICTED_SPEEDUP=1.00.
	 */
	bool fell_back;
	char *fallback_reason;
	/* The corrections applied from input->measured, sorted by class
	 * (owned; NULL when none), and the step they came from. */
	struct lagom_planner_correction *corrections;
	size_t ncorrections;
	char corrected_from[72];
	/* A cluster digest that was there but refused (untrusted, malformed,
	 * too large): one line for the log, the plan was made from each
	 * node's profile instead (owned; NULL when none). */
	char *notice;
	/* Nodes whose hardware came from the cluster digest (the others'
	 * from their profiles); srun -v says it. */
	size_t digest_nodes;
	/* The NCCL version (NCCL_VERSION_CODE, 0 = unknown) and buffer
	 * registration the plan was searched for (the gates of
	 * NCCL_CTA_POLICY). */
	unsigned nccl_version;
	bool registered_buffers;
	/* "calibrated from N classes of M runs, DATE" when the plan used a
	 * site calibration, else "". */
	char calibrated[96];
};

/*
 * Everything a plan depends on besides the workload, gathered once per step
 * by whoever plans (srun, doc/consistency.md): the one place that reads
 * files.  A new input (measured data, a cluster digest) is added here, so
 * that it is read once per step and enters every rank's plan alike.
 */
struct lagom_planner_inputs {
	struct lagom_hw *hw;	/* weakest of the step's nodes (owned) */
	enum lagom_hops hops;	/* farthest distance between them */
	unsigned gpus_per_node; /* GPUs per node planned for */
	size_t digest_nodes;	/* nodes whose hardware the digest gave */
	char *notice;		/* as the result's notice (owned) */
	unsigned nccl_version;	/* oldest NCCL of the nodes' profiles, 0 */
	char calibrated[96];	/* as the result's; hw carries the values */
};

/*
 * Read the hardware of in's nodes, topology.conf, and check the step's
 * shape.  The profile directory is walked once; the cluster digest
 * (profile/digest.h, one file) gives every node whose profile is unchanged
 * since the digest was written (one fstatat each), the others' profiles
 * are read (one open each).  *out is filled; free
 * it with lagom_planner_inputs_release().  Errors as lagom_planner_run().
 */
int lagom_planner_gather(const struct lagom_planner_input *in,
			 struct lagom_planner_inputs *out,
			 struct lagom_error *err);
void lagom_planner_inputs_release(struct lagom_planner_inputs *inputs);

/*
 * Plan a step.  On success *out is a new result the caller frees with
 * lagom_planner_result_destroy().  See the top of this file for errors.
 */
int lagom_planner_run(const struct lagom_planner_input *in,
		      struct lagom_planner_result **out,
		      struct lagom_error *err);

/* Free a result and everything it owns.  NULL does nothing. */
void lagom_planner_result_destroy(struct lagom_planner_result *res);

/*
 * The hardware the planner derives from one profile file: the built-in GPU
 * table for the profile's GPU model, overridden by what the profile
 * measured.  `lagom predict --profile` uses it, so predictions and plans
 * see the same hardware.  enforce_trust/trusted_uid as in the input struct.
 * Errors as lagom_planner_run(); *out untouched on error.
 */
int lagom_planner_profile_hw(const char *path, bool enforce_trust,
			     uid_t trusted_uid, struct lagom_hw *out,
			     struct lagom_error *err);

#endif /* LAGOM_PLANNER_PLANNER_H */
