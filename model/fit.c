/*
 * model/fit.c - fitting the model's global-contention coefficients (method
 * section 1, mechanism 2; doc/model.md section 4.1) to a measured contention
 * curve.  The wave / SM-share factor W(NC) is the model's own; only
 * 1 + m * gamma(NC, C) is fitted, by box-bounded least squares on the
 * measured slowdowns.  Deterministic: no randomness, a fixed number of steps.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_int.h"

#define GOLDEN_STEPS 48
#define PROBE_MEM_BOUND_DEFAULT 0.2
#define L2_FALLBACK_BYTES (8.0 * MIB) /* as compute.c, for l2_bytes 0 */
/* Evidence needed to place a cap inside the data: the drop in squared error
 * over the residual variance (an F test of one added parameter). */
#define CAP_F_MIN 4.0

/* One point as the fit sees it: slowdown s, model wave factor w,
 * w * m (wm), the SM regressor p = w m NC / S and x = NC C / L2. */
struct obs {
	double s, w, wm, p, x;
};

struct fit {
	struct obs *o;
	size_t n;
	size_t ninf; /* points with NC > 0 */
	double x_max;
	double scale; /* sum of s^2, for "negligible" squared errors */
};

/* Normal-equation sums for (s - w) = a * p + b * q, q = wm * min(x, cap). */
struct sums {
	double pp, pq, qq, py, qy;
};

struct sol {
	double a, b, sse;
	bool bound; /* on an edge of the box */
};

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void sums_at(const struct fit *f, double cap, struct sums *m)
{
	*m = (struct sums){ 0 };
	for (size_t i = 0; i < f->n; i++) {
		const struct obs *o = &f->o[i];
		double q = o->wm * fmin(o->x, cap), y = o->s - o->w;

		m->pp += o->p * o->p;
		m->pq += o->p * q;
		m->qq += q * q;
		m->py += o->p * y;
		m->qy += q * y;
	}
}

static double predict(const struct obs *o, double cap, double a, double b)
{
	return o->w + a * o->p + b * o->wm * fmin(o->x, cap);
}

static double sse_direct(const struct fit *f, double cap, double a, double b)
{
	double sse = 0;

	for (size_t i = 0; i < f->n; i++) {
		double r = f->o[i].s - predict(&f->o[i], cap, a, b);
		sse += r * r;
	}
	return sse;
}

/* Squared error of (a, b) from the sums, without yy (same argmin). */
static double sse_rel(const struct sums *m, double a, double b)
{
	return -2 * a * m->py - 2 * b * m->qy + a * a * m->pp +
	       2 * a * b * m->pq + b * b * m->qq;
}

static void consider(const struct sums *m, double a, double b, struct sol *best)
{
	double e = sse_rel(m, a, b);

	if (e < best->sse)
		*best = (struct sol){ a, b, e, true };
}

/*
 * Least squares in two unknowns bounded to [0, SM_MAX] x [0, L2_MAX]: the
 * interior optimum when it lies in the box, else the best point of the four
 * edges (the objective is convex, so this is the exact bounded optimum).
 * sse is relative (without the constant term); callers recompute it.
 */
static struct sol solve_box(const struct sums *m)
{
	struct sol best = { 0, 0, INFINITY, true };
	double det = m->pp * m->qq - m->pq * m->pq;

	if (m->pp > 0 && m->qq > 0 && det > 1e-12 * m->pp * m->qq) {
		double a = (m->py * m->qq - m->qy * m->pq) / det;
		double b = (m->qy * m->pp - m->py * m->pq) / det;

		if (a >= 0 && a <= LAGOM_FIT_SM_MAX && b >= 0 &&
		    b <= LAGOM_FIT_L2_MAX)
			return (struct sol){ a, b, sse_rel(m, a, b), false };
	}
	for (int e = 0; e < 2; e++) {
		double a = e ? LAGOM_FIT_SM_MAX : 0, b;

		b = m->qq > 0 ? clampd((m->qy - a * m->pq) / m->qq, 0,
				       LAGOM_FIT_L2_MAX)
			      : 0;
		consider(m, a, b, &best);
		b = e ? LAGOM_FIT_L2_MAX : 0;
		a = m->pp > 0 ? clampd((m->py - b * m->pq) / m->pp, 0,
				       LAGOM_FIT_SM_MAX)
			      : 0;
		consider(m, a, b, &best);
	}
	return best;
}

/* Best (a, b) for a given cap, with its squared error. */
static struct sol solve_at(const struct fit *f, double cap)
{
	struct sums m;
	struct sol s;

	sums_at(f, cap, &m);
	s = solve_box(&m);
	s.sse = sse_direct(f, cap, s.a, s.b);
	return s;
}

static void keep_best(const struct fit *f, double cap, double *best_cap,
		      double *best_sse)
{
	double e = solve_at(f, cap).sse;

	if (e < *best_sse) {
		*best_sse = e;
		*best_cap = cap;
	}
}

/* Golden-section search of the cap on [lo, hi] (between two breakpoints the
 * squared error is smooth in the cap). */
static void golden(const struct fit *f, double lo, double hi, double *best_cap,
		   double *best_sse)
{
	const double r = 0.6180339887498949;
	double c1 = hi - r * (hi - lo), c2 = lo + r * (hi - lo);
	double e1 = solve_at(f, c1).sse, e2 = solve_at(f, c2).sse;

	keep_best(f, lo, best_cap, best_sse);
	keep_best(f, hi, best_cap, best_sse);
	for (int i = 0; i < GOLDEN_STEPS; i++) {
		if (e1 <= e2) {
			hi = c2;
			c2 = c1;
			e2 = e1;
			c1 = hi - r * (hi - lo);
			e1 = solve_at(f, c1).sse;
		} else {
			lo = c1;
			c1 = c2;
			e1 = e2;
			c2 = lo + r * (hi - lo);
			e2 = solve_at(f, c2).sse;
		}
	}
	keep_best(f, c1, best_cap, best_sse);
	keep_best(f, c2, best_cap, best_sse);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The cap is fitted only when points reach past it: search every interval
 * between the points' NC * C / L2 values below the largest, and accept the
 * best cap when it lowers the squared error clearly (CAP_F_MIN) compared
 * with no cap inside the data.  Returns the cap, or INFINITY for none.
 */
static double search_cap(const struct fit *f, double *xs)
{
	double best_cap = INFINITY, best_sse = INFINITY, lo = LAGOM_FIT_CAP_MIN;
	double free_sse = solve_at(f, INFINITY).sse;
	size_t k = 0;

	if (f->ninf < 4 || f->x_max <= LAGOM_FIT_CAP_MIN)
		return INFINITY;
	for (size_t i = 0; i < f->n; i++)
		if (f->o[i].p > 0)
			xs[k++] = f->o[i].x;
	qsort(xs, k, sizeof(*xs), cmp_double);
	for (size_t i = 0; i < k; i++) {
		double hi = fmin(xs[i], f->x_max);

		if (hi <= lo)
			continue;
		golden(f, lo, hi, &best_cap, &best_sse);
		lo = hi;
	}
	if (!isfinite(best_cap) || best_cap >= f->x_max)
		return INFINITY;
	if (free_sse - best_sse <=
	    CAP_F_MIN * best_sse / (double)(f->ninf - 3) + 1e-14 * f->scale)
		return INFINITY;
	return best_cap;
}

static int check_point(const struct lagom_fit_point *pt, size_t i,
		       const struct lagom_hw *hw, struct lagom_error *err)
{
	if (pt->nchannels > LAGOM_NCHANNELS_MAX ||
	    pt->nchannels >= hw->gpu.sm_count)
		return lagom_errprintf(err, EINVAL,
				       "point %zu: %u channels: must be "
				       "0..%d and below the %u SMs",
				       i, pt->nchannels, LAGOM_NCHANNELS_MAX,
				       hw->gpu.sm_count);
	if (pt->chunk_bytes == 0)
		return lagom_errprintf(err, EINVAL, "point %zu: chunk of 0 B",
				       i);
	if (!isfinite(pt->slowdown) || pt->slowdown < 1 - LAGOM_FIT_NOISE)
		return lagom_errprintf(err, EINVAL,
				       "point %zu: slowdown %g is not a "
				       "slowdown (below %g or not finite)",
				       i, pt->slowdown, 1 - LAGOM_FIT_NOISE);
	return 0;
}

/* Points -> observations, with W(NC) from the model (contention off). */
static int observe(const struct lagom_fit_point *pts,
		   const struct lagom_kernel *probe, const struct lagom_hw *hw,
		   struct fit *f, struct lagom_error *err)
{
	struct lagom_hw flat = *hw;
	double l2 = hw->gpu.l2_bytes ? (double)hw->gpu.l2_bytes
				     : L2_FALLBACK_BYTES;

	flat.contention_sm = 0;
	flat.contention_l2 = 0;
	flat.contention_l2_knee = 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct lagom_fit_point *pt = &pts[i];
		struct obs *o = &f->o[i];
		double t;
		int rc = check_point(pt, i, hw, err);

		if (rc == 0)
			rc = lagom_compute_time(&flat, probe, pt->nchannels,
						pt->chunk_bytes, &t, err);
		if (rc)
			return rc;
		o->s = pt->slowdown;
		o->w = t / probe->time_s;
		o->wm = o->w * probe->mem_bound;
		o->p = o->wm * pt->nchannels / hw->gpu.sm_count;
		o->x = pt->nchannels * (double)pt->chunk_bytes / l2;
		f->ninf += pt->nchannels > 0;
		f->x_max = fmax(f->x_max, o->x);
		f->scale += o->s * o->s;
	}
	return 0;
}

static int check_args(const struct lagom_fit_point *pts, size_t n,
		      const struct lagom_kernel *probe,
		      const struct lagom_hw *hw, struct lagom_error *err)
{
	int rc = lagom_hw_check(hw, err);

	if (rc == 0)
		rc = lagom_kernel_check(probe, err);
	if (rc)
		return lagom_error_prefix(err, "contention fit");
	if (!(probe->mem_bound > 0))
		return lagom_errprintf(err, EINVAL,
				       "contention fit: the probe kernel's "
				       "mem_bound must be > 0");
	if (!pts || n == 0 || n > LAGOM_FIT_MAX_POINTS)
		return lagom_errprintf(err, EINVAL,
				       "contention fit: %zu points (need "
				       "1..%d)",
				       pts ? n : 0, LAGOM_FIT_MAX_POINTS);
	return 0;
}

/* Refuse points that cannot fix the two coefficients. */
static int check_identifiable(const struct fit *f, struct lagom_error *err)
{
	struct sums m;

	if (f->ninf < 2)
		return lagom_errprintf(err, EINVAL,
				       "contention fit: %zu points with "
				       "channels > 0, need 2 or more",
				       f->ninf);
	sums_at(f, INFINITY, &m);
	if (!(m.pp * m.qq - m.pq * m.pq > 1e-9 * m.pp * m.qq))
		return lagom_errprintf(err, EINVAL,
				       "contention fit: the points cannot tell "
				       "the per-channel and per-chunk-byte "
				       "coefficients apart (measure 2 or more "
				       "chunk sizes)");
	return 0;
}

static void residuals(const struct fit *f, double cap, const struct sol *s,
		      struct lagom_fit_report *rep)
{
	double sum = 0;

	rep->max_abs = 0;
	for (size_t i = 0; i < f->n; i++) {
		double r = f->o[i].s - predict(&f->o[i], cap, s->a, s->b);

		sum += (r / f->o[i].s) * (r / f->o[i].s);
		rep->max_abs = fmax(rep->max_abs, fabs(r));
	}
	rep->rms_rel = sqrt(sum / (double)f->n);
}

/* Cap, coefficients and report, from validated observations. */
static int fit_all(struct fit *f, double prior_cap, double *xs,
		   struct lagom_fit_report *rep, struct lagom_error *err)
{
	double cap = search_cap(f, xs);
	struct sol s;

	rep->cap_fitted = isfinite(cap);
	if (!rep->cap_fitted)
		cap = fmax(prior_cap, f->x_max);
	rep->at_bound = cap < LAGOM_FIT_CAP_MIN || cap > LAGOM_FIT_CAP_MAX;
	cap = clampd(cap, LAGOM_FIT_CAP_MIN, LAGOM_FIT_CAP_MAX);
	s = solve_at(f, cap);
	rep->at_bound = rep->at_bound || s.bound;
	rep->npoints = f->n;
	rep->ninformative = f->ninf;
	rep->contention_sm = s.a;
	rep->contention_l2 = s.b;
	rep->contention_l2_cap = cap;
	residuals(f, cap, &s, rep);
	if (!(rep->rms_rel <= LAGOM_FIT_MAX_RMS))
		return lagom_errprintf(err, EINVAL,
				       "contention fit: the model's formula "
				       "does not describe these points (rms "
				       "residual %.1f %% > %.0f %%)",
				       100 * rep->rms_rel,
				       100 * LAGOM_FIT_MAX_RMS);
	return 0;
}

int lagom_contention_fit(const struct lagom_fit_point *pts, size_t n,
			 const struct lagom_kernel *probe, struct lagom_hw *hw,
			 struct lagom_fit_report *rep, struct lagom_error *err)
{
	const struct lagom_kernel def = {
		.time_s = 1.0, .mem_bound = PROBE_MEM_BOUND_DEFAULT
	};
	struct lagom_fit_report r = { 0 };
	struct fit f = { .n = n };
	double *xs;
	int rc;

	if (!probe)
		probe = &def;
	rc = check_args(pts, n, probe, hw, err);
	if (rc)
		return rc;
	f.o = calloc(n, sizeof(*f.o));
	xs = calloc(n, sizeof(*xs));
	if (!f.o || !xs) {
		rc = lagom_errprintf(err, ENOMEM, "contention fit: no memory");
		goto out;
	}
	rc = observe(pts, probe, hw, &f, err);
	if (rc) {
		lagom_error_prefix(err, "contention fit");
		goto out;
	}
	rc = check_identifiable(&f, err);
	if (rc == 0)
		rc = fit_all(&f, hw->contention_l2_cap, xs, &r, err);
	if (rc == 0) {
		hw->contention_sm = r.contention_sm;
		hw->contention_l2 = r.contention_l2;
		hw->contention_l2_cap = r.contention_l2_cap;
		/* the measured curve is gamma itself: no built-in knee, and
		 * no traffic gate (the probe streams its chunks) */
		hw->contention_l2_knee = 0;
		hw->contention_l2_x0 = 0;
		hw->contention_l2_x1 = 0;
		if (rep)
			*rep = r;
	}
out:
	free(f.o);
	free(xs);
	return rc;
}
