/*
 * search/engine.c - priority-based resource search over one overlap region
 * (lagom-method.md section 3), and the exhaustive reference.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "search/engine_int.h"

struct ladder {
	unsigned *idx; /* candidate indices, cost ascending, x descending */
	unsigned len;
};

struct walk {
	const struct lse_coll *colls;
	unsigned n;
	struct ladder *lad;
	unsigned *pos;	    /* current ladder position per collective */
	unsigned *best_pos; /* best vector seen, ladder positions */
	unsigned *choice;   /* scratch: candidate indices */
	lse_eval_fn eval;
	void *ctx;
	const struct lse_opts *opts;
	struct lse_result *res;
	struct lse_eval cur;
};

static int cand_before(const struct lse_coll *c, unsigned a, unsigned b)
{
	if (lse_less(c->cost_s[a], c->cost_s[b]))
		return 1;
	if (lse_less(c->cost_s[b], c->cost_s[a]))
		return 0;
	if (lse_less(c->x_s[a], c->x_s[b]))
		return 1;
	if (lse_less(c->x_s[b], c->x_s[a]))
		return 0;
	return a < b;
}

/*
 * The ladder of one collective: candidates by added computation, keeping
 * only those that are strictly faster than every cheaper one (the Pareto
 * front of (cost, x)).  A dominated candidate costs more computation for no
 * communication gain, so no priority step would ever choose it.
 */
static void build_ladder(const struct lse_coll *c, unsigned *idx, unsigned *len)
{
	unsigned i, j, n = 0;

	for (i = 0; i < c->n_cand; i++) {
		for (j = i; j > 0 && cand_before(c, i, idx[j - 1]); j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	for (i = 0; i < c->n_cand; i++)
		if (n == 0 || lse_less(c->x_s[idx[i]], c->x_s[idx[n - 1]]))
			idx[n++] = idx[i];
	*len = n;
}

static void trace_move(struct walk *w, enum lse_move_kind kind, unsigned j,
		       unsigned from, unsigned to, double h)
{
	struct lse_result *r = w->res;

	r->moves_total++;
	if (!w->opts || !w->opts->trace || r->trace_count >= w->opts->trace_max)
		return;
	w->opts->trace[r->trace_count++] = (struct lse_move){
		.kind = kind,
		.coll = j,
		.from = from,
		.to = to,
		.h = h,
		.eval = w->cur,
	};
}

/*
 * Is a better than b?  Lower Z; at equal Z (relative 1e-9) lower Y: the
 * same region time with less computation lost means fewer resources taken
 * for nothing (e.g. channels beyond the network's bandwidth).
 */
static int eval_better(const struct lse_eval *a, const struct lse_eval *b)
{
	if (lse_less(a->z_s, b->z_s))
		return 1;
	return !lse_less(b->z_s, a->z_s) && lse_less(a->y_s, b->y_s);
}

/* Evaluate the vector pos; updates cur and, when better, best. */
static int eval_pos(struct walk *w, const unsigned *pos)
{
	unsigned j;
	int rc;

	for (j = 0; j < w->n; j++)
		w->choice[j] = w->lad[j].idx[pos[j]];
	rc = w->eval(w->ctx, w->choice, &w->cur);
	if (rc < 0)
		return rc;
	w->res->evals++;
	if (w->res->evals == 1 || eval_better(&w->cur, &w->res->best)) {
		w->res->best = w->cur;
		memcpy(w->best_pos, pos, w->n * sizeof(*pos));
	}
	return 0;
}

/*
 * The priority of moving collective j on from ladder position p: the
 * smallest H = (cost added) / (x saved) over the later positions (the step
 * of the lower convex hull).  Returns 0 and fills *to, *h; -1 at the top.
 */
static int next_step(const struct walk *w, unsigned j, unsigned *to, double *h)
{
	const struct lse_coll *c = &w->colls[j];
	const struct ladder *l = &w->lad[j];
	unsigned p = w->pos[j], q;
	double best = 0;
	int found = -1;

	for (q = p + 1; q < l->len; q++) {
		double dy = c->cost_s[l->idx[q]] - c->cost_s[l->idx[p]];
		double dx = c->x_s[l->idx[p]] - c->x_s[l->idx[q]];
		double hq = dy / dx;

		if (found < 0 || lse_less(hq, best)) {
			best = hq;
			*to = q;
			found = 0;
		}
	}
	*h = best;
	return found;
}

/* Priority steps from the minimum until X <= Y or nothing is left. */
static int greedy(struct walk *w, unsigned budget)
{
	while (w->res->evals < budget && !w->cur.hidden) {
		unsigned j, bj = 0, to = 0, bto = 0;
		double h, bh = 0;
		int any = 0, rc;

		for (j = 0; j < w->n; j++) {
			if (next_step(w, j, &to, &h) < 0)
				continue;
			if (!any || lse_less(h, bh)) {
				bh = h;
				bj = j;
				bto = to;
				any = 1;
			}
		}
		if (!any)
			break;
		unsigned from = w->lad[bj].idx[w->pos[bj]];
		w->pos[bj] = bto;
		rc = eval_pos(w, w->pos);
		if (rc < 0)
			return rc;
		trace_move(w, LSE_MOVE_GREEDY, bj, from, w->lad[bj].idx[bto],
			   bh);
	}
	return 0;
}

/* Try best_pos with collective j moved by dj and k by dk (k may be n:
 * none).  Returns 1 when it improved on the best, 0 when not or out of
 * range or budget, or a negative error. */
static int try_move(struct walk *w, unsigned j, int dj, unsigned k, int dk,
		    unsigned budget)
{
	unsigned pj = w->best_pos[j];
	struct lse_eval before = w->res->best;
	int rc;

	if ((dj < 0 && pj == 0) || (dj > 0 && pj + 1 >= w->lad[j].len))
		return 0;
	if (k < w->n && ((dk < 0 && w->best_pos[k] == 0) ||
			 (dk > 0 && w->best_pos[k] + 1 >= w->lad[k].len)))
		return 0;
	if (w->res->evals >= budget)
		return 0;
	memcpy(w->pos, w->best_pos, w->n * sizeof(*w->pos));
	w->pos[j] = pj + dj;
	if (k < w->n)
		w->pos[k] += dk;
	if ((rc = eval_pos(w, w->pos)) < 0)
		return rc;
	if (!eval_better(&w->res->best, &before))
		return 0;
	trace_move(w, LSE_MOVE_REFINE, j, w->lad[j].idx[pj],
		   w->lad[j].idx[pj + dj], 0);
	return 1;
}

/*
 * Local refinement around the best vector, first improvement taken: one
 * collective one ladder position up or down; when none helps, an exchange
 * (one collective up, another down: resources moved along the chain).
 * Repeats until a full round brings nothing or the budget is spent.  It
 * catches the greedy's overshoot at the balance point and the timeline
 * coupling that per-collective priorities miss.
 */
static int refine(struct walk *w, unsigned budget)
{
	int improved = 1, rc = 0;

	while (improved && w->res->evals < budget) {
		improved = 0;
		for (unsigned j = 0; j < w->n && !improved; j++)
			for (int d = -1; d <= 1 && !improved; d += 2)
				if ((rc = try_move(w, j, d, w->n, 0, budget)) !=
				    0)
					improved = 1;
		for (unsigned j = 0; j < w->n && !improved; j++)
			for (unsigned k = 0; k < w->n && !improved; k++)
				if (k != j && (rc = try_move(w, j, 1, k, -1,
							     budget)) != 0)
					improved = 1;
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int endpoints_and_walk(struct walk *w)
{
	unsigned j, base, budget;
	struct lse_eval emin;
	int rc;

	base = 2;
	for (j = 0; j < w->n; j++)
		base += w->lad[j].len - 1;
	budget = base + (w->opts ? w->opts->refine_budget : 0);

	memset(w->pos, 0, w->n * sizeof(*w->pos));
	if ((rc = eval_pos(w, w->pos)) < 0)
		return rc;
	emin = w->cur;
	trace_move(w, LSE_MOVE_MIN, 0, 0, 0, 0);
	if (emin.hidden) {
		w->res->endpoint_case = LSE_CASE_MIN_HIDDEN;
		return refine(w, 1 + (w->opts ? w->opts->refine_budget : 0));
	}
	for (j = 0; j < w->n; j++)
		w->pos[j] = w->lad[j].len - 1;
	if ((rc = eval_pos(w, w->pos)) < 0)
		return rc;
	trace_move(w, LSE_MOVE_MAX, 0, 0, 0, 0);
	if (w->cur.exposed) {
		w->res->endpoint_case = LSE_CASE_COMM_BOUND;
	} else {
		w->res->endpoint_case = LSE_CASE_BALANCE;
		memset(w->pos, 0, w->n * sizeof(*w->pos));
		w->cur = emin;
		if ((rc = greedy(w, base)) < 0)
			return rc;
	}
	return refine(w, budget);
}

static int check_colls(const struct lse_coll *colls, unsigned n)
{
	if (!colls || n == 0)
		return -EINVAL;
	for (unsigned j = 0; j < n; j++)
		if (colls[j].n_cand == 0 || !colls[j].x_s || !colls[j].cost_s)
			return -EINVAL;
	return 0;
}

int lse_search(const struct lse_coll *colls, unsigned n, lse_eval_fn eval,
	       void *ctx, const struct lse_opts *opts, unsigned *choice,
	       struct lse_result *res)
{
	struct lse_result r = { 0 };
	struct walk w = { .colls = colls,
			  .n = n,
			  .eval = eval,
			  .ctx = ctx,
			  .opts = opts,
			  .res = &r };
	unsigned j, total = 0, *idx;
	int rc;

	if (check_colls(colls, n) < 0 || !eval || !choice || !res)
		return -EINVAL;
	for (j = 0; j < n; j++)
		total += colls[j].n_cand;
	w.lad = calloc(n, sizeof(*w.lad));
	idx = calloc(total + 3 * (size_t)n, sizeof(*idx));
	if (!w.lad || !idx) {
		rc = -ENOMEM;
		goto out_free;
	}
	w.pos = idx + total;
	w.best_pos = w.pos + n;
	w.choice = w.best_pos + n;
	for (j = 0, total = 0; j < n; j++) {
		w.lad[j].idx = idx + total;
		build_ladder(&colls[j], w.lad[j].idx, &w.lad[j].len);
		total += colls[j].n_cand;
	}
	rc = endpoints_and_walk(&w);
	if (rc == 0) {
		for (j = 0; j < n; j++)
			choice[j] = w.lad[j].idx[w.best_pos[j]];
		*res = r;
	}
out_free:
	free(idx);
	free(w.lad);
	return rc;
}

int lse_exhaustive(const struct lse_coll *colls, unsigned n, lse_eval_fn eval,
		   void *ctx, unsigned long max_evals, unsigned *choice,
		   struct lse_result *res)
{
	struct lse_result r = { .endpoint_case = LSE_CASE_BALANCE };
	unsigned long prod = 1;
	unsigned *cur, *best, j;
	struct lse_eval e;
	int rc = 0;

	if (check_colls(colls, n) < 0 || !eval || !choice || !res)
		return -EINVAL;
	for (j = 0; j < n; j++) {
		prod *= colls[j].n_cand;
		if (prod > max_evals)
			return -ERANGE;
	}
	cur = calloc(2 * (size_t)n, sizeof(*cur));
	if (!cur)
		return -ENOMEM;
	best = cur + n;
	for (;;) {
		if ((rc = eval(ctx, cur, &e)) < 0)
			break;
		if (r.evals++ == 0 || eval_better(&e, &r.best)) {
			r.best = e;
			memcpy(best, cur, n * sizeof(*cur));
		}
		for (j = n; j-- > 0;) {
			if (++cur[j] < colls[j].n_cand)
				break;
			cur[j] = 0;
		}
		if (j == (unsigned)-1)
			break;
	}
	if (rc == 0) {
		memcpy(choice, best, n * sizeof(*cur));
		*res = r;
	}
	free(cur);
	return rc;
}
