/*
 * measurement/stats.c - the control arm's statistics (stats.h).  Pure: no
 * I/O, no environment, no clock; libm and malloc only.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measurement/stats.h"

#define Z_975 1.959963984540054

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double lagom_stats_median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char *lagom_verdict_name(enum lagom_verdict v)
{
	switch (v) {
	case LAGOM_VERDICT_NONE:
		return "none";
	case LAGOM_VERDICT_GAIN:
		return "gain";
	case LAGOM_VERDICT_LOSS:
		return "loss";
	default:
		return "too-few";
	}
}

/*
 * The null distribution of the Mann-Whitney U (pairs with x > y) for
 * samples of n and m, m <= n, by the recurrence on the largest of the
 * n + m observations: it is an x with probability n / (n + m) and then
 * beats all m y's, else a y and beats nothing.  Row by row in n, two rows
 * of m + 1 arrays.  Returns the n*m + 1 probabilities (caller frees).
 */
static double *mw_pmf(size_t n, size_t m)
{
	size_t *off = calloc(m + 2, sizeof(*off));
	double *prev = NULL, *cur = NULL, *out = NULL, *swap;
	size_t a, b, u, total;

	if (!off)
		return NULL;
	for (b = 0; b <= m; b++)
		off[b + 1] = off[b] + n * b + 1;
	total = off[m + 1];
	prev = calloc(total, sizeof(*prev));
	cur = calloc(total, sizeof(*cur));
	out = calloc(n * m + 1, sizeof(*out));
	if (!prev || !cur || !out)
		goto fail;
	for (b = 0; b <= m; b++)
		prev[off[b]] = 1; /* n' = 0: U = 0 */
	for (a = 1; a <= n; a++) {
		memset(cur, 0, total * sizeof(*cur));
		cur[off[0]] = 1;
		for (b = 1; b <= m; b++) {
			double px = (double)a / (double)(a + b);

			for (u = 0; u <= a * b; u++) {
				double p = 0;

				if (u >= b && u - b <= (a - 1) * b)
					p += px * prev[off[b] + u - b];
				if (u <= a * (b - 1))
					p += (1 - px) * cur[off[b - 1] + u];
				cur[off[b] + u] = p;
			}
		}
		swap = prev;
		prev = cur;
		cur = swap;
	}
	memcpy(out, prev + off[m], (n * m + 1) * sizeof(*out));
	free(prev);
	free(cur);
	free(off);
	return out;
fail:
	free(prev);
	free(cur);
	free(out);
	free(off);
	return NULL;
}

double lagom_stats_mw_cdf(size_t n, size_t m, size_t u)
{
	double *pmf, sum = 0;
	size_t i;

	if (n * m > LAGOM_STATS_EXACT_MAX)
		return -1;
	if (u >= n * m)
		return 1;
	pmf = n >= m ? mw_pmf(n, m) : mw_pmf(m, n);
	if (!pmf)
		return -1;
	for (i = 0; i <= u; i++)
		sum += pmf[i];
	free(pmf);
	return sum;
}

/*
 * The interval's rank k (1-based: [D(k), D(nm + 1 - k)] of the sorted
 * differences) and its confidence: exact, the largest k with
 * P(U <= k - 1) <= 2.5 %; else the normal approximation.  0 when no k
 * gives 95 %, -ENOMEM.
 */
static long interval_rank(size_t n, size_t m, double *level, bool *exact)
{
	double nm = (double)n * (double)m, cdf = 0, *pmf;
	long k = 0;
	size_t u;

	*exact = n * m <= LAGOM_STATS_EXACT_MAX;
	if (!*exact) {
		k = (long)floor(nm / 2 -
				Z_975 * sqrt(nm * (double)(n + m + 1) / 12));
		*level = 0.95;
		return k < 1 ? 0 : k;
	}
	pmf = n >= m ? mw_pmf(n, m) : mw_pmf(m, n);
	if (!pmf)
		return -ENOMEM;
	*level = 0;
	for (u = 0; u < n * m; u++) {
		if (cdf + pmf[u] > 0.025)
			break;
		cdf += pmf[u];
		k = (long)u + 1;
		*level = 1 - 2 * cdf;
	}
	free(pmf);
	return k;
}

static int check_times(const double *t, size_t n)
{
	size_t i;

	if (n > LAGOM_STATS_MAX_RUNS)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(t[i]) || t[i] <= 0)
			return -EINVAL;
	return 0;
}

static double median_of(const double *t, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(*c)), med;

	if (!c)
		return -1;
	memcpy(c, t, n * sizeof(*c));
	med = lagom_stats_median(c, n);
	free(c);
	return med;
}

/* Every log(control) - log(tuned), sorted (caller frees). */
static double *log_differences(const double *tuned_s, size_t n_t,
			       const double *control_s, size_t n_c)
{
	double *d = malloc(n_t * n_c * sizeof(*d));
	size_t i, j;

	if (!d)
		return NULL;
	for (i = 0; i < n_c; i++)
		for (j = 0; j < n_t; j++)
			d[i * n_t + j] = log(control_s[i]) - log(tuned_s[j]);
	qsort(d, n_t * n_c, sizeof(*d), cmp_double);
	return d;
}

static enum lagom_verdict verdict_of(double lo, double hi)
{
	if (lo > 1)
		return LAGOM_VERDICT_GAIN;
	if (hi < 1)
		return LAGOM_VERDICT_LOSS;
	return LAGOM_VERDICT_NONE;
}

int lagom_speedup_estimate(const double *tuned_s, size_t n_tuned,
			   const double *control_s, size_t n_control,
			   struct lagom_speedup *out)
{
	struct lagom_speedup s = { .n_tuned = n_tuned, .n_control = n_control };
	size_t nm = n_tuned * n_control;
	double *d;
	long k;

	if (check_times(tuned_s, n_tuned) || check_times(control_s, n_control))
		return -EINVAL;
	s.median_tuned_s = median_of(tuned_s, n_tuned);
	s.median_control_s = median_of(control_s, n_control);
	if (s.median_tuned_s < 0 || s.median_control_s < 0)
		return -ENOMEM;
	if (nm == 0) {
		*out = s;
		return 0;
	}
	d = log_differences(tuned_s, n_tuned, control_s, n_control);
	if (!d)
		return -ENOMEM;
	s.speedup = exp(nm % 2 ? d[nm / 2] : (d[nm / 2 - 1] + d[nm / 2]) / 2);
	k = interval_rank(n_tuned, n_control, &s.level, &s.exact);
	if (k < 0) {
		free(d);
		return (int)k;
	}
	if (k > 0) {
		s.lo = exp(d[k - 1]);
		s.hi = exp(d[nm - (size_t)k]);
		s.verdict = verdict_of(s.lo, s.hi);
	} else {
		s.level = 0;
	}
	free(d);
	*out = s;
	return 0;
}

static uint64_t splitmix64_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

bool lagom_control_pick(uint32_t job_id, uint32_t step_id, double share)
{
	uint64_t z = ((uint64_t)job_id << 32 | step_id) + 0x9e3779b97f4a7c15ULL;

	if (!(share > 0))
		return false;
	if (share >= 1)
		return true;
	return (double)(splitmix64_mix(z) >> 11) * 0x1.0p-53 < share;
}

double lagom_stats_uniform(uint64_t *state)
{
	*state += 0x9e3779b97f4a7c15ULL;
	return (double)(splitmix64_mix(*state) >> 11) * 0x1.0p-53;
}
