/*
 * search/search_int.h - shared by the files of search/ (private).
 *
 * A workload seen by the search: its collectives grouped into classes
 * (coll, bytes, ranks, nodes) — one plan record each, so one configuration
 * each — and its regions grouped into components (regions linked by a
 * shared class), which are searched independently.
 */
#ifndef LAGOM_SEARCH_INTERNAL_H
#define LAGOM_SEARCH_INTERNAL_H

#include "model/model.h"
#include "model/model_fast.h"
#include "search/engine_int.h"
#include "search/search.h"

#define SEARCH_NCHANNELS_GRID_MAX 16
#define SEARCH_DEFAULT_REFINE 32
#define SEARCH_DEFAULT_MIN_GAIN 0.005
#define SEARCH_IMPLS (LAGOM_ALGO_COUNT * LAGOM_PROTO_COUNT)

struct sclass {
	enum lagom_coll coll;
	uint64_t bytes;
	struct lagom_comm comm; /* of its first occurrence */
	unsigned calls;		/* occurrences x region repeats */
	unsigned comp;		/* component */
	uint32_t impl_mask;	/* bit a * LAGOM_PROTO_COUNT + q: allowed */
};

struct sproblem {
	const struct lagom_hw *hw;
	const struct lagom_workload *w;
	struct lagom_error *err;
	unsigned refine_budget;
	double min_gain;	 /* see lagom_search_opts */
	unsigned nccl_version;	 /* see lagom_search_opts */
	bool registered_buffers; /* see lagom_search_opts */
	bool symmetric_buffers;	 /* see lagom_search_opts */
	bool no_gate;		 /* see lagom_search_opts */
	unsigned nchannels_grid[SEARCH_NCHANNELS_GRID_MAX];
	unsigned n_nchannels;

	size_t nclass;
	struct sclass *cls;
	size_t nocc;		/* collectives over all regions */
	unsigned *occ_class;	/* per occurrence */
	size_t *region_first;	/* per region: first occurrence */
	unsigned *region_order; /* regions in canonical order */
	unsigned *region_comp;
	unsigned ncomp;
	/*
	 * Every input the model checks (hardware, each collective's
	 * communicator and size, each region) passed its check once at
	 * sproblem_init(): the search then calls the model's unchecked entry
	 * points (lagom_*_nocheck(), model/model.h), which compute the same values.  When
	 * false, the checked API is used and reports the error.
	 */
	bool valid;
	bool *occ_class_comm; /* per occurrence: its comm is its class's */

	/* Global values of the current search. */
	uint64_t buffsize_bytes; /* 0 = 4 MiB */
	unsigned nthreads;

	/* Per class, per channel-grid index: the fastest implementation there. */
	struct lagom_coll_config *table_cfg; /* nclass * n_nchannels */
	double *table_x;	       /* nclass * n_nchannels, per iteration */
	double *table_x1;	       /* nclass * n_nchannels, per call */
	double *table_cost;	       /* nclass * n_nchannels */
	struct lagom_coll_config *cfg; /* nocc: configuration to eval */
	/* Collective times that no global value changes (LL, LL128), per
	 * class, channel-grid index and implementation; < 0 = not yet predicted. */
	double *xcache;

	/* Result of the last search: channel-grid index per class. */
	unsigned *choice;
};

int sproblem_init(struct sproblem *p, const struct lagom_hw *hw,
		  const struct lagom_workload *w,
		  const struct lagom_search_opts *opts,
		  struct lagom_error *err);
void sproblem_fini(struct sproblem *p);

/* The chunk that NCCL_BUFFSIZE gives this implementation, clamped to the
 * message (0 = NCCL's default buffer). */
uint64_t search_chunk_bytes(uint64_t buffsize_bytes, enum lagom_algo algo,
			    enum lagom_proto proto, uint64_t bytes);

/*
 * Search every component with p->buffsize_bytes and p->nthreads; leaves
 * the choice in p->choice and p->cfg, the iteration time in *time_s.
 * exhaustive: every combination (-ERANGE above max_evals per component).
 * trace (may be NULL) receives the steps, mapped to class indices.
 */
int sproblem_search(struct sproblem *p, bool exhaustive,
		    unsigned long max_evals, double *time_s,
		    struct lagom_search_stats *stats, struct lagom_plan *trace);

/* Iteration time with p->cfg (all occurrences). */
int sproblem_iteration(struct sproblem *p, double *time_s);
/* The same, given class_x (NULL: none): per class, the time per call of the
 * configuration its occurrences have in p->cfg (lagom_coll_time_s_nocheck()). */
int sproblem_iteration_x(struct sproblem *p, const double *class_x,
			 double *time_s);

/* Time per call of class j with configuration c (lagom_coll_predict()). */
int sproblem_coll_time(struct sproblem *p, size_t j,
		       const struct lagom_coll_config *c, double *x_s);
/*
 * Region r (index into p->w->regions) with its collectives at
 * p->cfg[region_first[r]...]; coll_time_s: their durations when known
 * (lagom_coll_time_s_nocheck() of those configurations), else NULL.
 */
int sproblem_region(struct sproblem *p, unsigned r, const double *coll_time_s,
		    struct lagom_region_time *rt);

/* Fill p->cfg from per-class configurations (nclass entries). */
void sproblem_apply(struct sproblem *p, const struct lagom_coll_config *cls);

/* The environment-only plan over NCCL's defaults def: the channel cap,
 * buffer size and CTA policy of lowest predicted time (NCCL's defaults
 * unless min_gain faster), written to plan->env and *t_out. */
int search_env_only(struct sproblem *p, const struct lagom_coll_config *def,
		    struct lagom_plan_env_values *env, double *t_out);

/* NCCL_CTA_POLICY=efficiency is a candidate: the NCCL has it (2.28+) and
 * the application registers its buffers (search/ctapolicy.c). */
bool search_cta_policy_candidate(const struct sproblem *p);
/*
 * The configuration NCCL gives class j under NCCL_CTA_POLICY=efficiency
 * (no tuner plugin, NCCL_MAX_CTAS=cap, 0 = none), from its configuration
 * base without the policy and NCCL_BUFFSIZE buffsize_bytes (0 = 4 MiB);
 * false when the policy leaves the class alone.
 */
bool search_cta_efficiency(const struct sproblem *p, size_t j, unsigned cap,
			   uint64_t buffsize_bytes,
			   const struct lagom_coll_config *base,
			   struct lagom_coll_config *out);
/* NCCL_CTA_POLICY=zero is a candidate (NCCL 2.28+, symmetric buffers),
 * and class j runs on the copy engines under it, taking *x_s per call
 * and no SM (search/ctapolicy.c). */
bool search_ce_candidate(const struct sproblem *p);
bool search_ce_class(const struct sproblem *p, size_t j, double *x_s);
/* Turn the plan into NCCL's defaults (never slower by its own prediction). */
void search_keep_nccl(struct lagom_plan *plan);
/* 0 when the plan encodes with and without the tuner plugin (its values
 * are in the ranges doc/plan-format.md allows), else -EINVAL / -ENOSPC. */
int search_check_encodable(const struct lagom_plan *plan,
			   struct lagom_error *err);

/*
 * The deviation gates (search/deviate.c, doc/search.md): on a table
 * profile (hw->ch_Bps 0), a tuned class on the critical path under NCCL's
 * defaults def gets at least NCCL's channels (floored); then each tuned
 * class is kept at NCCL's choice (held back) unless its gain over NCCL's
 * choice stays positive with its time off by the model's known error
 * (lagom_model_error()) either way.  Updates plan->colls and
 * plan->lagom_s; 0 or the model's error.  Skipped with opts->no_gate.
 */
int search_deviation_gates(struct sproblem *p, struct lagom_plan *plan,
			   const struct lagom_coll_config *def);
/* The plan (its records and process-wide values) is still faster than
 * NCCL's defaults def by min_gain when every class's time is off by the
 * model's known error, both ways together (*pays; true with no_gate). */
int search_plan_pays(struct sproblem *p, const struct lagom_plan *plan,
		     const struct lagom_coll_config *def, bool *pays);
/* The same for configurations c taking x per call (per class; a
 * copy-engine class has no channel count, only its time). */
int search_times_pay(struct sproblem *p, const struct lagom_coll_config *c,
		     const double *x, const struct lagom_coll_config *def,
		     bool *pays);

#endif /* LAGOM_SEARCH_INTERNAL_H */
