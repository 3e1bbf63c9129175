/*
 * planner/correct.c - the measured correction (doc/profiler.md, "Planning
 * from measurements"): an earlier step of the same key ran the same
 * collectives under NCCL, so for each collective class of the workload the
 * planner compares what was measured with what the model predicts for the
 * very configurations NCCL ran there (from the record: algorithm,
 * protocol, nchannels), and multiplies every prediction of that class by
 * measured / model (struct lagom_comm's time_scale), whatever
 * configuration the search then tries.
 *
 * Comparing against the model (not against the measured step's own plan)
 * keeps corrections from compounding: step 3 learning from step 2, which
 * was itself corrected, gets measured / model again, not a factor of a
 * factor.  The result is a pure function of the workload, the hardware
 * and the set of measured classes (sorted here, so their order does not
 * matter): srun computes it once and every node applies the same plan.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/planner.h"
#include "planner/planner_int.h"

#define MATCH_RATIO 2.0 /* measured bytes within a factor of 2 */

static int ucmp(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int measured_cmp(const void *pa, const void *pb)
{
	const struct lagom_planner_measured_class *a = pa, *b = pb;
	int c;

	if ((c = ucmp(a->coll, b->coll)) || (c = ucmp(a->ranks, b->ranks)) ||
	    (c = ucmp(a->nodes, b->nodes)) || (c = ucmp(a->bytes, b->bytes)) ||
	    (c = ucmp(a->config.algo, b->config.algo)) ||
	    (c = ucmp(a->config.proto, b->config.proto)) ||
	    (c = ucmp(a->config.nchannels, b->config.nchannels)) ||
	    (c = ucmp(a->config.nthreads, b->config.nthreads)) ||
	    (c = ucmp(a->config.chunk_bytes, b->config.chunk_bytes)) ||
	    (c = ucmp(a->samples, b->samples)))
		return c;
	return ucmp(a->gpu_ns, b->gpu_ns);
}

static int correction_cmp(const void *pa, const void *pb)
{
	const struct lagom_planner_correction *a = pa, *b = pb;
	int c;

	if ((c = ucmp(a->coll, b->coll)) || (c = ucmp(a->ranks, b->ranks)) ||
	    (c = ucmp(a->nodes, b->nodes)))
		return c;
	return ucmp(a->bytes, b->bytes);
}

static double ratio(uint64_t a, uint64_t b)
{
	return a > b ? (double)a / (double)b : (double)b / (double)a;
}

static bool same_class(const struct lagom_planner_measured_class *m,
		       const struct lagom_region_coll *rc)
{
	return m->coll == rc->coll && m->ranks == rc->comm.ranks &&
	       m->nodes == rc->comm.nodes && m->bytes > 0;
}

/* The measured size closest to the workload's (ties: the smaller), within
 * MATCH_RATIO; 0 when none. */
static uint64_t match_bytes(const struct lagom_planner_measured_class *m,
			    size_t n, const struct lagom_region_coll *rc)
{
	uint64_t best = 0;
	double best_r = 0;

	for (size_t i = 0; i < n; i++) {
		double r;

		if (!same_class(&m[i], rc))
			continue;
		r = ratio(m[i].bytes, rc->bytes);
		if (r > MATCH_RATIO)
			continue;
		/* m is sorted by bytes: the first of equal closeness is the
		 * smaller */
		if (!best || r < best_r) {
			best = m[i].bytes;
			best_r = r;
		}
	}
	return best;
}

/* The correction of one workload class; false when it gets none. */
static bool correct_class(const struct lagom_hw *hw,
			  const struct lagom_planner_measured_class *m,
			  size_t n, const struct lagom_region_coll *rc,
			  struct lagom_planner_correction *out)
{
	uint64_t mb = match_bytes(m, n, rc), samples = 0;
	double gpu_s = 0, model_s = 0, f;
	struct lagom_comm comm = rc->comm;

	comm.time_scale = 0; /* the model as it is */
	for (size_t i = 0; mb && i < n; i++) {
		struct lagom_coll_time t;

		if (!same_class(&m[i], rc) || m[i].bytes != mb ||
		    m[i].samples == 0 ||
		    lagom_coll_predict(hw, &comm, rc->coll, mb, &m[i].config,
				       &t, NULL) != 0)
			continue; /* a configuration the model does not know */
		samples += m[i].samples;
		gpu_s += (double)m[i].gpu_ns * 1e-9;
		model_s += (double)m[i].samples * t.time_s;
	}
	if (samples < LAGOM_CORRECTION_MIN_SAMPLES || !(gpu_s > 0) ||
	    !(model_s > 0))
		return false;
	f = gpu_s / model_s;
	*out = (struct lagom_planner_correction){
		.coll = rc->coll,
		.bytes = rc->bytes,
		.measured_bytes = mb,
		.ranks = rc->comm.ranks,
		.nodes = rc->comm.nodes,
		.samples = samples,
		.measured_s = gpu_s / (double)samples,
		.model_s = model_s / (double)samples,
		.factor = f < LAGOM_TIME_SCALE_MIN   ? LAGOM_TIME_SCALE_MIN
			  : f > LAGOM_TIME_SCALE_MAX ? LAGOM_TIME_SCALE_MAX
						     : f,
		.clamped = f < LAGOM_TIME_SCALE_MIN || f > LAGOM_TIME_SCALE_MAX,
	};
	return true;
}

/* Index of rc's class in seen[0..n), or n. */
static size_t seen_at(const struct lagom_planner_correction *seen, size_t n,
		      const struct lagom_region_coll *rc)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (seen[i].coll == rc->coll && seen[i].bytes == rc->bytes &&
		    seen[i].ranks == rc->comm.ranks &&
		    seen[i].nodes == rc->comm.nodes)
			break;
	return i;
}

int planner_correct(const struct lagom_planner_measured *measured,
		    const struct lagom_hw *hw, struct lagom_workload *w,
		    struct lagom_planner_result *res, struct lagom_error *err)
{
	struct lagom_planner_measured_class *m = NULL;
	struct lagom_planner_correction *seen;
	size_t total = lagom_workload_coll_count(w), nseen = 0, nfound = 0;

	if (!measured || measured->n == 0 || !measured->cls || total == 0)
		return 0;
	m = malloc(measured->n * sizeof(*m));
	seen = calloc(total, sizeof(*seen));
	if (!m || !seen) {
		free(m);
		free(seen);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	memcpy(m, measured->cls, measured->n * sizeof(*m));
	qsort(m, measured->n, sizeof(*m), measured_cmp);
	for (size_t r = 0; r < w->nregions; r++)
		for (size_t c = 0; c < w->regions[r].ncolls; c++) {
			struct lagom_region_coll *rc = &w->regions[r].colls[c];
			size_t at = seen_at(seen, nseen, rc);

			if (at == nseen) {
				if (!correct_class(hw, m, measured->n, rc,
						   &seen[at]))
					seen[at] = (struct
						    lagom_planner_correction){
						.coll = rc->coll,
						.bytes = rc->bytes,
						.ranks = rc->comm.ranks,
						.nodes = rc->comm.nodes,
					}; /* factor 0: none */
				nfound += seen[at].factor > 0;
				nseen++;
			}
			rc->comm.time_scale = seen[at].factor;
		}
	free(m);
	/* keep the corrections only, in class order */
	for (size_t i = 0, k = 0; i < nseen; i++)
		if (seen[i].factor > 0)
			seen[k++] = seen[i];
	if (nfound == 0) {
		free(seen);
		return 0;
	}
	qsort(seen, nfound, sizeof(*seen), correction_cmp);
	res->corrections = seen;
	res->ncorrections = nfound;
	snprintf(res->corrected_from, sizeof(res->corrected_from), "%s",
		 measured->from);
	return 0;
}
