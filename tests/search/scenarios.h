/*
 * tests/search/scenarios.h - seeded random overlap regions for checking the
 * search engine against the exhaustive optimum, independent of the cost
 * model's calibration.  A small self-contained timeline: one compute kernel
 * of B blocks on S SMs (wave quantisation and a contention term), a chain
 * of collectives with ready times whose time falls with channels.
 */
#ifndef LAGOM_TESTS_SEARCH_SCENARIOS_H
#define LAGOM_TESTS_SEARCH_SCENARIOS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "search/engine_int.h"

#define SC_MAX_COLLS 4
#define SC_MAX_CAND 16

struct sc_coll {
	double ready_s, lat_s, bytes, bw_per_ch_Bps;
	unsigned sat_ch; /* channels beyond which bandwidth stops rising */
	unsigned n_cand;
	unsigned nc[SC_MAX_CAND];
	double x_s[SC_MAX_CAND], cost_s[SC_MAX_CAND];
};

struct sc_region {
	unsigned sms, blocks;
	double work_s; /* compute alone */
	double gamma;  /* contention per channel */
	unsigned n;
	struct sc_coll c[SC_MAX_COLLS];
};

/* splitmix64: the tests' own deterministic generator. */
static inline uint64_t sc_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline double sc_unit(uint64_t *s)
{
	return (double)(sc_next(s) >> 11) / 9007199254740992.0;
}

static inline unsigned sc_range(uint64_t *s, unsigned lo, unsigned hi)
{
	return lo + (unsigned)(sc_next(s) % (hi - lo + 1));
}

/* Compute speed (fraction of alone) beside nc resident channels. */
static inline double sc_rate(const struct sc_region *r, unsigned nc)
{
	double w0, w1;

	if (nc == 0)
		return 1;
	w0 = ceil((double)r->blocks / r->sms);
	w1 = ceil((double)r->blocks / (r->sms - nc));
	return w0 / (w1 * (1 + r->gamma * nc));
}

static inline double sc_coll_time(const struct sc_coll *c, unsigned nc)
{
	unsigned eff = nc < c->sat_ch ? nc : c->sat_ch;

	return c->lat_s + c->bytes / (c->bw_per_ch_Bps * eff);
}

/* The region timeline: compute progresses at the rate of the collective
 * resident at the time. */
static inline int sc_eval(void *ctx, const unsigned *choice,
			  struct lse_eval *out)
{
	const struct sc_region *r = ctx;
	double t = 0, done = 0, x_end = 0;
	double y = -1;

	for (unsigned j = 0; j < r->n; j++) {
		const struct sc_coll *c = &r->c[j];
		double start = c->ready_s > x_end ? c->ready_s : x_end;
		double dur = c->x_s[choice[j]];
		double rate = sc_rate(r, c->nc[choice[j]]);

		if (y < 0 && start > t) { /* compute alone until start */
			double need = (r->work_s - done);
			if (need <= start - t) {
				y = t + need;
			} else {
				done += start - t;
			}
		}
		t = start;
		if (y < 0) {
			double need = (r->work_s - done) / rate;
			if (need <= dur) {
				y = t + need;
			} else {
				done += dur * rate;
			}
		}
		t = x_end = start + dur;
	}
	if (y < 0)
		y = t + (r->work_s - done);
	*out = (struct lse_eval){ .x_s = x_end,
				  .y_s = y,
				  .z_s = x_end > y ? x_end : y,
				  .hidden = x_end <= y,
				  .exposed = x_end >= y };
	return 0;
}

static inline void sc_make(struct sc_region *r, uint64_t *s, unsigned n_max,
			   unsigned cand_max)
{
	static const unsigned ncs[] = { 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48 };

	memset(r, 0, sizeof(*r));
	r->sms = sc_range(s, 0, 1) ? 84 : 132;
	r->blocks = sc_range(s, 1, 6) * r->sms -
		    sc_range(s, 0, 1) * sc_range(s, 0, r->sms / 2);
	r->work_s = 1e-3 * (0.2 + 4 * sc_unit(s));
	r->gamma = 0.002 + 0.01 * sc_unit(s);
	r->n = sc_range(s, 1, n_max);
	for (unsigned j = 0; j < r->n; j++) {
		struct sc_coll *c = &r->c[j];
		unsigned first = sc_range(s, 0, 3);

		c->ready_s = j ? r->c[j - 1].ready_s +
					     r->work_s * sc_unit(s) / r->n
			       : 0;
		c->lat_s = 1e-5 * (1 + 4 * sc_unit(s));
		c->bw_per_ch_Bps = 2e9 * (0.5 + sc_unit(s));
		c->bytes = c->bw_per_ch_Bps * r->work_s *
			   (1 + 12 * sc_unit(s)) / r->n;
		c->sat_ch = sc_range(s, 4, 32);
		c->n_cand = sc_range(s, 3, cand_max);
		for (unsigned i = 0; i < c->n_cand; i++) {
			unsigned nc = ncs[(first + i) % 11];
			double rate = sc_rate(r, nc);
			double x;

			c->nc[i] = nc;
			x = c->x_s[i] = sc_coll_time(c, nc);
			if (x > r->work_s)
				x = r->work_s;
			c->cost_s[i] = x * (1 / rate - 1) * rate;
		}
	}
}

static inline void sc_colls(const struct sc_region *r, struct lse_coll *out)
{
	for (unsigned j = 0; j < r->n; j++)
		out[j] = (struct lse_coll){ .n_cand = r->c[j].n_cand,
					    .x_s = r->c[j].x_s,
					    .cost_s = r->c[j].cost_s };
}

/* Results of comparing the search with the optimum on count scenarios. */
struct sc_summary {
	unsigned count, within_1pct;
	double worst_ratio; /* greedy Z / optimal Z */
	double mean_evals, mean_sum_r, mean_prod_r;
	unsigned max_excess; /* max over scenarios of evals - sum |R_j| */
	unsigned by_case[3]; /* scenarios per endpoint case */
};

static inline int sc_compare(uint64_t seed, unsigned count, unsigned n_max,
			     unsigned cand_max, unsigned refine,
			     struct sc_summary *sum)
{
	uint64_t s = seed;

	memset(sum, 0, sizeof(*sum));
	sum->worst_ratio = 1;
	for (unsigned k = 0; k < count; k++) {
		struct sc_region r;
		struct lse_coll colls[SC_MAX_COLLS];
		unsigned ch_g[SC_MAX_COLLS], ch_x[SC_MAX_COLLS], sr = 0;
		double pr = 1, ratio;
		struct lse_result rg, rx;
		struct lse_opts o = { .refine_budget = refine };
		int rc;

		sc_make(&r, &s, n_max, cand_max);
		sc_colls(&r, colls);
		rc = lse_search(colls, r.n, sc_eval, &r, &o, ch_g, &rg);
		if (rc == 0)
			rc = lse_exhaustive(colls, r.n, sc_eval, &r, 1000000,
					    ch_x, &rx);
		if (rc < 0)
			return rc;
		for (unsigned j = 0; j < r.n; j++) {
			sr += colls[j].n_cand;
			pr *= colls[j].n_cand;
		}
		ratio = rg.best.z_s / rx.best.z_s;
		sum->count++;
		sum->by_case[rg.endpoint_case]++;
		sum->within_1pct += ratio <= 1.01;
		if (ratio > sum->worst_ratio)
			sum->worst_ratio = ratio;
		sum->mean_evals += rg.evals;
		sum->mean_sum_r += sr;
		sum->mean_prod_r += pr;
		if (rg.evals > sr && rg.evals - sr > sum->max_excess)
			sum->max_excess = rg.evals - sr;
	}
	sum->mean_evals /= count;
	sum->mean_sum_r /= count;
	sum->mean_prod_r /= count;
	return 0;
}

#endif /* LAGOM_TESTS_SEARCH_SCENARIOS_H */
