/*
 * measurement/stats.h - the statistics of lagom's control arm (doc/report.md):
 * which steps are controls, and how much faster the tuned steps of a class
 * ran than its control steps, with a 95 % interval.  Pure: no I/O, no
 * environment, no clock, no rand(); the same inputs give the same answer on
 * every node and in every re-analysis.
 *
 * The speedup is control time over tuned time (> 1: lagom's plan is
 * faster).  Its estimate is the Hodges-Lehmann shift of the log-times
 * (the median of every log(control) - log(tuned) difference), exponentiated;
 * its interval is the distribution-free one that inverts the Mann-Whitney
 * test (Hollander & Wolfe, ch. 4): exact from U's null distribution when
 * n x m <= LAGOM_STATS_EXACT_MAX, else its normal approximation.  It holds
 * for any continuous distribution of the times (skewed, heavy-tailed) and
 * any sample size: under "no difference" the interval excludes 1 with
 * probability at most 5 %.
 */
#ifndef LAGOM_MEASUREMENT_STATS_H
#define LAGOM_MEASUREMENT_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs per arm the estimate uses at most (the caller keeps the latest). */
#define LAGOM_STATS_MAX_RUNS 512
/* Largest n x m with the exact Mann-Whitney distribution. */
#define LAGOM_STATS_EXACT_MAX 2500

enum lagom_verdict {
	LAGOM_VERDICT_TOO_FEW = 0, /* no 95 % interval from so few runs */
	LAGOM_VERDICT_NONE,	   /* the interval holds 1: no difference */
	LAGOM_VERDICT_GAIN,	   /* the interval lies above 1 */
	LAGOM_VERDICT_LOSS,	   /* the interval lies below 1 */
};

struct lagom_speedup {
	size_t n_tuned, n_control;
	double median_tuned_s, median_control_s; /* 0 when that arm is empty */
	double speedup; /* Hodges-Lehmann, control / tuned; 0: none */
	double lo, hi;	/* the 95 % interval; 0, 0 when too few */
	double level;	/* the interval's exact confidence (>= 0.95) */
	bool exact;	/* from U's exact distribution */
	enum lagom_verdict verdict;
};

/*
 * The speedup of tuned against control from each arm's run times (seconds,
 * each > 0 and finite; at most LAGOM_STATS_MAX_RUNS per arm).  0, or
 * -EINVAL (a time <= 0 or not finite, too many runs), -ENOMEM.  *out is
 * written only on success; an arm with no runs gives TOO_FEW.
 */
int lagom_speedup_estimate(const double *tuned_s, size_t n_tuned,
			   const double *control_s, size_t n_control,
			   struct lagom_speedup *out);

/* The median of v[0..n) (v is sorted in place); 0 when n is 0. */
double lagom_stats_median(double *v, size_t n);

/* "too-few", "none", "gain", "loss". */
const char *lagom_verdict_name(enum lagom_verdict v);

/*
 * P(U <= u) for the Mann-Whitney U of samples of n and m under the null
 * hypothesis (no ties), exactly; n x m <= LAGOM_STATS_EXACT_MAX, else -1.
 */
double lagom_stats_mw_cdf(size_t n, size_t m, size_t u);

/*
 * Whether step (job_id, step_id) runs as a control, for a share of steps in
 * [0, 1]: a fixed hash (SplitMix64's finaliser) of the two ids, as a
 * fraction of 2^64, below share.  Every node and every re-analysis agree.
 */
bool lagom_control_pick(uint32_t job_id, uint32_t step_id, double share);

/*
 * A fixed-seed generator for tests and the report's synthetic checks
 * (SplitMix64): the next value of *state in [0, 1).
 */
double lagom_stats_uniform(uint64_t *state);

#endif /* LAGOM_MEASUREMENT_STATS_H */
