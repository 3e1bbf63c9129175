/*
 * search/engine_int.h - the model-agnostic core of lagom's resource search
 * (private to search/; tests may include it).
 *
 * One overlap region: n collectives on a communication stream beside the
 * computation.  Collective j has |R_j| candidate resource settings (indices
 * 0 .. n_cand - 1).  The caller supplies, per candidate, the collective's own
 * time x_j(r) and the computation time it adds when it runs alone beside the
 * computation, cost_j(r) (both from the cost model, one collective
 * prediction each), and a region evaluator that returns X, Y, Z of a whole
 * choice vector (one "model evaluation").
 *
 * lse_search() implements lagom-method.md section 3 (endpoint cases, then
 * the smallest H = added computation / saved communication first, keep the
 * best Z seen) plus a bounded local refinement; doc/search.md says why.
 * lse_exhaustive() tries all prod |R_j| vectors.
 *
 * Everything is deterministic: fixed iteration order, ties go to the lower
 * index.  Pure: no I/O.  Errors: -EINVAL (bad input), -ENOMEM, or whatever
 * the evaluator returns (negative errno), passed through.
 */
#ifndef LAGOM_SEARCH_ENGINE_H
#define LAGOM_SEARCH_ENGINE_H

#include <stddef.h>

struct lse_eval {
	double x_s;  /* communication time of the region (X) */
	double y_s;  /* computation time under contention (Y) */
	double z_s;  /* region time, max(X, Y) or the model's refinement */
	int hidden;  /* every region: X <= Y (minimum case, greedy stop) */
	int exposed; /* every region: X >= Y (communication bound) */
};

/* Evaluate the region with collective j at candidate choice[j]. */
typedef int (*lse_eval_fn)(void *ctx, const unsigned *choice,
			   struct lse_eval *out);

struct lse_coll {
	unsigned n_cand;      /* |R_j| >= 1 */
	const double *x_s;    /* n_cand entries: collective time */
	const double *cost_s; /* n_cand entries: computation time added */
};

enum lse_move_kind {
	LSE_MOVE_MIN = 0, /* all collectives at their minimum resources */
	LSE_MOVE_MAX,	  /* all at their maximum */
	LSE_MOVE_GREEDY,  /* one priority step (smallest H) */
	LSE_MOVE_REFINE,  /* an accepted local-refinement move */
};

struct lse_move {
	enum lse_move_kind kind;
	unsigned coll;	      /* collective moved (GREEDY, REFINE) */
	unsigned from, to;    /* candidate indices */
	double h;	      /* priority of the move (GREEDY), else 0 */
	struct lse_eval eval; /* region after the move */
};

/* Which endpoint case of the method applied. */
enum lse_case {
	LSE_CASE_MIN_HIDDEN = 0, /* X_min <= Y_min: minimum resources */
	LSE_CASE_COMM_BOUND,	 /* X_max >= Y_max: communication bound */
	LSE_CASE_BALANCE,	 /* in between: priority steps */
};

struct lse_opts {
	unsigned refine_budget; /* extra evaluations for local refinement */
	struct lse_move *trace; /* optional: moves are written here */
	unsigned trace_max;
};

struct lse_result {
	struct lse_eval best;
	enum lse_case endpoint_case;
	unsigned evals;	      /* region evaluations made */
	unsigned trace_count; /* moves written (<= trace_max) */
	unsigned moves_total; /* moves taken (may exceed trace_max) */
};

/*
 * Search; choice (n entries, caller's) receives the best vector.  Region
 * evaluations <= 2 + sum_j (|R_j| - 1) + opts->refine_budget.
 */
int lse_search(const struct lse_coll *colls, unsigned n, lse_eval_fn eval,
	       void *ctx, const struct lse_opts *opts, unsigned *choice,
	       struct lse_result *res);

/*
 * All prod |R_j| vectors in lexicographic order; the first minimum of Z
 * wins.  -ERANGE when the product exceeds max_evals.
 */
int lse_exhaustive(const struct lse_coll *colls, unsigned n, lse_eval_fn eval,
		   void *ctx, unsigned long max_evals, unsigned *choice,
		   struct lse_result *res);

/*
 * a < b by a relative margin (1e-9): choices must not flip on last-bit
 * differences of libm between CPUs, or nodes could disagree.
 */
static inline int lse_less(double a, double b)
{
	return a < b - 1e-9 * (b < 0 ? -b : b);
}

#endif /* LAGOM_SEARCH_ENGINE_H */
