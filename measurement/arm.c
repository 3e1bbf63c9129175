/*
 * measurement/arm.c - one class's two samples (arm.h).  Pure: no I/O.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measurement/arm.h"

static bool compared(enum lagom_arm arm)
{
	return arm != LAGOM_ARM_UNTUNED;
}

void lagom_arm_class_fill(struct lagom_arm_class *c,
			  const struct lagom_arm_step *s, size_t n,
			  const char *plan)
{
	double pred[LAGOM_STATS_MAX_RUNS];
	size_t i, n_pred = 0;

	memset(c, 0, sizeof(*c));
	c->by_iteration = true;
	for (i = 0; i < n; i++)
		if (compared(s[i].arm) && !(s[i].iteration_s > 0))
			c->by_iteration = false;
	for (i = n; i-- > 0;) {
		double t = c->by_iteration ? s[i].iteration_s : s[i].comm_s;

		if (!compared(s[i].arm) || !(t > 0) ||
		    (plan && s[i].arm == LAGOM_ARM_TUNED &&
		     strcmp(plan, s[i].plan) != 0))
			continue;
		if (!c->plan[0])
			snprintf(c->plan, sizeof(c->plan), "%s", s[i].plan);
		if (s[i].predicted_speedup > 0 && n_pred < LAGOM_STATS_MAX_RUNS)
			pred[n_pred++] = s[i].predicted_speedup;
		if (s[i].arm == LAGOM_ARM_TUNED) {
			c->tuned_gpu_s += s[i].gpu_s;
			if (c->n_tuned < LAGOM_STATS_MAX_RUNS)
				c->tuned_s[c->n_tuned++] = t;
		} else if (c->n_control < LAGOM_STATS_MAX_RUNS) {
			c->n_measure += s[i].arm == LAGOM_ARM_MEASURE;
			c->control_s[c->n_control++] = t;
		}
	}
	c->predicted_speedup = lagom_stats_median(pred, n_pred);
}

void lagom_arm_steps_fn(const struct lagom_arm_step *s, void *ctx)
{
	struct lagom_arm_steps *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct lagom_arm_step *v;

		if (l->max && cap > l->max)
			cap = l->max;
		if (cap <= l->cap) {
			l->full = true;
			return;
		}
		v = realloc(l->v, cap * sizeof(*v));
		if (!v) {
			l->full = l->no_memory = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *s;
}

void lagom_arm_steps_free(struct lagom_arm_steps *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
