/*
 * search/search.h - lagom's plan: the priority-based search over the cost
 * model (lagom-method.md section 3), its baselines, its wire form (the
 * records of the LAGOM_PLAN text, which plan/ writes: doc/plan-format.md)
 * and the environment derived from it.  doc/search.md
 * describes the search as implemented.
 *
 * Pure core: no I/O, environment, clock or randomness.  The plan is a pure
 * function of its inputs: every node computes byte-identical text.
 *
 * Errors: functions return 0 or a negative errno (-EINVAL bad input,
 * -ENOMEM, -ENOSPC buffer too small, or the model's error) and fill err
 * (may be NULL) with one line.  Nothing is written to out-parameters on
 * failure.
 */
#ifndef LAGOM_SEARCH_SEARCH_H
#define LAGOM_SEARCH_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/hash.h"
#include "model/model.h"
#include "plan/plan.h" /* the text's format: LAGOM_PLAN_MAX_COLLS, ... */

#define LAGOM_PLAN_MAX_MOVES 64 /* trajectory kept for explaining */
/* The longest plan text (plan/plan.h's bound, for the planner's buffer). */
#define LAGOM_PLAN_TEXT_MAX LAGOM_PLAN_MAX_BYTES

/* One collective class: calls of coll with min_bytes <= size <= max_bytes
 * on a communicator of exactly ranks ranks over nodes nodes. */
struct lagom_plan_coll {
	enum lagom_coll coll;
	uint64_t min_bytes, max_bytes;
	uint64_t bytes; /* the size the workload names (inside the range) */
	struct lagom_comm comm;
	struct lagom_coll_config config; /* chunk_bytes, nthreads: 0 =
					  * from the global env values */
	bool keep;			 /* leave NCCL's choice (any/any/0/0) */
	unsigned calls;			 /* calls per iteration */
	double time_s;			 /* predicted per call, chosen config */
	double nccl_time_s; /* predicted per call, NCCL's defaults */
	/*
	 * The deviation gates (doc/search.md "Deviate only when it pays"):
	 * floored: the channels were raised to NCCL's own count (a table
	 * profile, a class on the critical path under NCCL's defaults);
	 * held_back: keep is set because the predicted iteration gain of
	 * this class (gain, a fraction) is below gain_needed, the model's
	 * known error on it (lagom_model_error()) times its share of NCCL's
	 * iteration.  gain and gain_needed are set for every tuned class.
	 */
	bool floored;
	bool held_back;
	double gain;
	double gain_needed;
};

/* Global values: NCCL accepts one of each per process. */
struct lagom_plan_env_values {
	unsigned min_ctas, max_ctas; /* NCCL_MIN/MAX_CTAS with the tuner
				      * plugin (per-call nchannels) */
	unsigned env_max_ctas; /* without it: cap for every collective, 0 =
				 * leave NCCL alone */
	uint64_t env_buffsize_bytes; /* without it: NCCL_BUFFSIZE, 0 = 4 MiB */
	/* without it: NCCL_CTA_POLICY (enum lagom_cta_policy); NCCL ignores
	 * the policy when a tuner plugin is loaded */
	unsigned env_cta_policy;
	uint64_t buffsize_bytes; /* NCCL_BUFFSIZE; 0 = NCCL's 4 MiB */
	unsigned nthreads;	 /* NCCL_NTHREADS; 0 = NCCL's default */
};

enum lagom_search_move_kind {
	LAGOM_MOVE_MIN,	   /* all at minimum resources */
	LAGOM_MOVE_MAX,	   /* all at maximum resources */
	LAGOM_MOVE_GREEDY, /* a priority step (smallest H) */
	LAGOM_MOVE_REFINE, /* an accepted local-refinement move */
};

/* One move of the search for the chosen global values. */
struct lagom_search_move {
	enum lagom_search_move_kind kind;
	unsigned coll;			       /* index into plan->colls */
	unsigned from_nchannels, to_nchannels; /* channels before and after */
	double h;	      /* H = compute added / comm saved (GREEDY) */
	double x_s, y_s, z_s; /* the component's X, Y, Z after the move */
};

/*
 * A plan.  Owned by the caller of lagom_search_plan(); free with
 * lagom_search_plan_destroy().  Plain data: may be copied with memcpy.
 */
struct lagom_plan {
	unsigned ranks, nodes; /* the step's world */
	bool no_workload;      /* chosen across the catalog */
	bool tensor_parallel;  /* workload has TP dependencies */
	char workload[LAGOM_NAME_MAX];
	size_t ncolls;
	struct lagom_plan_coll colls[LAGOM_PLAN_MAX_COLLS];
	struct lagom_plan_env_values env;

	/* Predicted iteration times (no workload: the worst ratio over the
	 * catalog, times are of the worst workload). */
	double lagom_s;		  /* with the tuner plugin */
	double lagom_env_only_s;  /* environment only, no tuner */
	double nccl_s;		  /* NCCL's defaults */
	double comm_only_s;	  /* communication-only tuner */
	bool comm_only_adopted;	  /* the communication-only tuner's plan
				   * was predicted faster and is the plan */
	double speedup_nccl;	  /* nccl_s / lagom_s */
	double speedup_comm_only; /* comm_only_s / lagom_s */

	/* Search statistics and trajectory. */
	unsigned long evals;	  /* region evaluations, all searches */
	unsigned long cand_total; /* sum |R_j| over the searches */
	size_t nmoves;
	unsigned moves_total;
	struct lagom_search_move moves[LAGOM_PLAN_MAX_MOVES];

	/* The id (LAGOM_PLAN_ID) is not a field: it depends on how the plan
	 * is applied (tuner or not), see lagom_search_wire(). */
};

struct lagom_search_opts {
	unsigned refine_budget; /* extra evaluations per search; 0 = 32 */
	unsigned max_nchannels; /* top of the channel grid; 0 = 64 */
	double min_gain; /* a plan leaves NCCL's defaults only when predicted
			  * this much faster (fraction); 0 = 0.005 */
	/*
	 * The NCCL the step runs, as NCCL_VERSION_CODE (2.28.9 = 22809); 0 =
	 * unknown.  Knobs an NCCL release added are candidates only from
	 * that release on: NCCL_CTA_POLICY from 2.28 (doc/search.md).
	 */
	unsigned nccl_version;
	/*
	 * The application registers its collective buffers with NCCL
	 * (ncclCommRegister, a registering allocator or CUDA-graph capture
	 * with NCCL_GRAPH_REGISTER): NCCL_CTA_POLICY=efficiency acts only on
	 * registered buffers, so it is a candidate only when this is set.
	 */
	bool registered_buffers;
	/*
	 * The application's collective buffers are symmetric-registered
	 * windows (ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC):
	 * NCCL_CTA_POLICY=zero (copy-engine collectives, NCCL 2.28+) is then
	 * a candidate of the environment-only plan (doc/search.md).  Its
	 * model is not fitted (lagom_ce_time_s()): off unless a site says so.
	 */
	bool symmetric_buffers;
	/* Skip the deviation gates (tests and the CLI's --no-gate only). */
	bool no_gate;
};

/* The first NCCL_VERSION_CODE whose NCCL_CTA_POLICY lagom models (2.28.0:
 * the variable exists since 2.27; its 2.28 behaviour is the one modelled). */
#define LAGOM_NCCL_CTA_POLICY_SINCE 22800

/*
 * Plan a step: nodes x gpus_per_node ranks (gpus_per_node 0 =
 * hw->gpus_per_node).  w NULL: lagom_search_no_workload().  opts NULL:
 * defaults.  *out is new; free with lagom_search_plan_destroy().
 */
int lagom_search_plan(const struct lagom_hw *hw, const struct lagom_workload *w,
		      unsigned nodes, unsigned gpus_per_node,
		      const struct lagom_search_opts *opts,
		      struct lagom_plan **out, struct lagom_error *err);

/*
 * The step's workload for a caller that changes it before
 * lagom_search_plan() (the planner, the policy): a copy of w the caller
 * owns (NULL when out of memory; free with lagom_workload_destroy()), and
 * the hops every multi-node collective of w crosses (the placement's
 * farthest distance; single-node collectives keep theirs).
 */
struct lagom_workload *lagom_search_workload_copy(
	const struct lagom_workload *w);
void lagom_search_workload_hops(struct lagom_workload *w, enum lagom_hops hops);

/*
 * No workload: the global values (channel cap, buffer size) whose worst
 * predicted slowdown against NCCL's defaults over every example workload
 * of the catalog (lagom_workload_examples()) is smallest; NCCL's defaults
 * when nothing is faster everywhere.  The plan has no coll records.
 */
int lagom_search_no_workload(const struct lagom_hw *hw, unsigned nodes,
			     unsigned gpus_per_node,
			     const struct lagom_search_opts *opts,
			     struct lagom_plan **out, struct lagom_error *err);

/* NULL does nothing. */
void lagom_search_plan_destroy(struct lagom_plan *plan);

#define LAGOM_ENV_TP_OVERLAP 0x1u /* set CUDA_DEVICE_MAX_CONNECTIONS=1 */
#define LAGOM_ENV_PIN_IMPL 0x2u	  /* NCCL_ALGO/PROTO when all classes agree */

struct lagom_apply_opts {
	const char *tuner_path; /* NULL: no tuner plugin, environment only */
	const char *plan_text;	/* LAGOM_PLAN value (text or "@path");
				 * lagom_search_env() needs it when
				 * tuner_path is set */
	unsigned flags;
};

/*
 * The process-wide values lagom sets with a plan (lagom-spank(8);
 * every rank must agree on them, doc/consistency.md), as
 * the plan's `env` record holds them (struct lagom_plan_wire_env,
 * plan/plan.h): lagom_search_env() turns them into variables and the record
 * writes them, so LAGOM_PLAN_ID covers them.  0 / LAGOM_PLAN_ANY: lagom does
 * not set that variable.
 *
 * plan applied with opts (NULL: no tuner plugin).  Only opts->tuner_path
 * (set or NULL) and opts->flags matter.  With a tuner and a plan that tunes
 * some class: the plan's env values (min_ctas, max_ctas, buffsize_bytes,
 * nthreads; NCCL_ALGO/PROTO with LAGOM_ENV_PIN_IMPL when every class
 * agrees); otherwise the environment-only values (NCCL_MIN_CTAS=1,
 * NCCL_MAX_CTAS=env_max_ctas, env_buffsize_bytes, env_cta_policy).  -EINVAL
 * for an invalid plan.  Whether the values fit the format is plan/'s to
 * say when the wire form is encoded.
 */
int lagom_search_globals(const struct lagom_plan *plan,
			 const struct lagom_apply_opts *opts,
			 struct lagom_plan_wire_env *out,
			 struct lagom_error *err);

/*
 * The plan applied with opts as the LAGOM_PLAN text holds it: the `env`
 * record from lagom_search_globals(plan, opts), the coll records, job_id
 * in the header.  The one conversion of a plan to its wire form: plan/
 * writes the text and its id from it (lagom_plan_wire_encode(), which
 * also returns the id, the LAGOM_PLAN_ID of the plan applied with opts).
 * *out is new; free() it.  -EINVAL for an invalid plan or more than
 * LAGOM_PLAN_MAX_COLLS records, -ENOMEM.
 */
int lagom_search_wire(const struct lagom_plan *plan,
		      const struct lagom_apply_opts *opts, uint64_t job_id,
		      struct lagom_plan_wire **out, struct lagom_error *err);

/* Every variable lagom_search_env() may set, in its order, and their
 * names: the one list of them (a node accepts only these from srun,
 * spank/carrier_trust.c). */
enum lagom_search_var {
	LAGOM_VAR_NCCL_MIN_CTAS,
	LAGOM_VAR_NCCL_MAX_CTAS,
	LAGOM_VAR_NCCL_BUFFSIZE,
	LAGOM_VAR_NCCL_NTHREADS,
	LAGOM_VAR_NCCL_ALGO,
	LAGOM_VAR_NCCL_PROTO,
	LAGOM_VAR_NCCL_CTA_POLICY,
	LAGOM_VAR_NCCL_TUNER_PLUGIN,
	LAGOM_VAR_LAGOM_PLAN,
	LAGOM_VAR_TORCH_NCCL_HIGH_PRIORITY,
	LAGOM_VAR_CUDA_DEVICE_MAX_CONNECTIONS,
	LAGOM_VAR_LAGOM_PLAN_ID,
	LAGOM_VAR_LAGOM_PREDICTED_SPEEDUP,
	LAGOM_VAR_COUNT
};
extern const char *const lagom_search_var_names[LAGOM_VAR_COUNT];

/*
 * The variables to inject, in a fixed order (lagom-spank(8)):
 * NCCL_MIN_CTAS, NCCL_MAX_CTAS, NCCL_BUFFSIZE, NCCL_NTHREADS, NCCL_ALGO,
 * NCCL_PROTO, NCCL_CTA_POLICY (those g sets), NCCL_TUNER_PLUGIN + LAGOM_PLAN
 * (g->tuner: tuner_path and plan_text of opts), TORCH_NCCL_HIGH_PRIORITY=1,
 * CUDA_DEVICE_MAX_CONNECTIONS=1 (tensor parallel), LAGOM_PLAN_ID (plan_id,
 * 16 hex digits), LAGOM_PREDICTED_SPEEDUP.  g and plan_id are those of the
 * plan's wire form with the same opts (lagom_search_wire()'s env record;
 * lagom_plan_wire_encode()'s id, lagom_plan_format_id()).  A plan equal to
 * NCCL's defaults sets no NCCL_* variable.  *vars is new: free every name
 * and value, then the array.  -EINVAL (a tuner without plan_text, a missing
 * argument), -ENOMEM.
 */
int lagom_search_env(const struct lagom_plan *plan,
		     const struct lagom_plan_wire_env *g,
		     const struct lagom_apply_opts *opts, const char *plan_id,
		     struct lagom_env_var **vars, size_t *count,
		     struct lagom_error *err);

/* ---- Pieces exposed for tests, benchmarks and the CLI. ---- */

/* Outcome of one search over one small workload. */
struct lagom_search_stats {
	double time_s;		  /* predicted iteration time found */
	unsigned long evals;	  /* region evaluations */
	unsigned long cand_total; /* sum |R_j| */
	double cand_product;	  /* prod |R_j| */
	unsigned cases[3]; /* searches per endpoint case: minimum hides the
			    * communication, communication bound, balance */
};

/*
 * Search the per-class channel counts of w with the global values fixed
 * (buffsize_bytes 0 = 4 MiB): greedy (exhaustive false) or every
 * combination (exhaustive true; -ERANGE above max_evals).  For checking the
 * search against the optimum.
 */
int lagom_search_compare(const struct lagom_hw *hw,
			 const struct lagom_workload *w,
			 const struct lagom_search_opts *opts,
			 uint64_t buffsize_bytes, bool exhaustive,
			 unsigned long max_evals,
			 struct lagom_search_stats *stats,
			 struct lagom_error *err);

#endif /* LAGOM_SEARCH_SEARCH_H */
