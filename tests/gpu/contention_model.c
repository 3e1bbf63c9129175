/*
 * tests/gpu/contention_model.c - a measured contention curve beside what the
 * model predicts for the same shapes (doc/model.md 4 and 4.1).
 *
 *   contention_model PROFILE
 *
 * For each point of PROFILE's measured curve (lagom-prolog's probe: an
 * 8192^3 BF16 GEMM beside NC resident CTAs that stream chunk-sized pieces)
 * it prints the measured slowdown and the model's, with the probe kernel as
 * lagom_profile_fit_contention() sees it (4096 blocks, one per SM,
 * memory-bound share 0.2):
 *   builtin       the built-in coefficients, no HBM-traffic term (x = 0)
 *   builtin_xcap  the same with the traffic term at its cap (the most the
 *                 hold kernel's unmeasured traffic could add)
 *   fitted        the coefficients lagom_profile_to_hw() fits to the curve
 *                 (what plans on this node use), x = 0
 * and first one line on the fit ("fit ok ..." or "fit refused: ...").
 * Reads and prints only; changes nothing in the model.
 * Exit status: 0 printed, 1 profile or model error, 2 usage.
 */
#include "config.h"

#include <stdio.h>

#include "model/model.h"
#include "profile/profile.h"

#define PROBE_BLOCKS 4096 /* (8192 / 128)^2 tiles, as profile/profile_hw.c */
#define PROBE_MEM_BOUND 0.2

static int slowdown(const struct lagom_hw *hw, unsigned nc, uint64_t chunk,
		    double mem_Bps, double *out)
{
	const struct lagom_kernel k = { .time_s = 1.0,
					.grid_blocks = PROBE_BLOCKS,
					.blocks_per_sm = 1,
					.mem_bound = PROBE_MEM_BOUND };
	struct lagom_error err = { 0 };

	if (lagom_compute_time_rate(hw, &k, nc, chunk, mem_Bps, out, &err)) {
		fprintf(stderr, "contention_model: %s\n", err.text);
		return -1;
	}
	return 0;
}

static int print_points(const struct lagom_profile *p,
			const struct lagom_hw *base, const struct lagom_hw *fit)
{
	const struct lagom_profile_measurements *m = &p->meas;

	printf("ctas chunk_bytes measured builtin builtin_xcap fitted\n");
	for (size_t i = 0; i < m->n_contention; i++) {
		const struct lagom_contention_point *c = &m->contention[i];
		double b, bx, f;

		if (c->ctas <= 0)
			continue;
		if (slowdown(base, (unsigned)c->ctas, c->chunk_bytes, 0, &b) ||
		    slowdown(base, (unsigned)c->ctas, c->chunk_bytes,
			     base->gpu.hbm_Bps, &bx) ||
		    slowdown(fit, (unsigned)c->ctas, c->chunk_bytes, 0, &f))
			return -1;
		printf("%d %llu %.4f %.4f %.4f %.4f\n", c->ctas,
		       (unsigned long long)c->chunk_bytes, c->slowdown, b, bx,
		       f);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct lagom_profile *p = NULL;
	struct lagom_error err = { 0 };
	struct lagom_hw fit, base, spec;
	struct lagom_fit_report rep = { 0 };
	int rc = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: contention_model PROFILE\n");
		return 2;
	}
	if (lagom_profile_read_file(argv[1], NULL, &p, &err) ||
	    lagom_profile_to_hw(p, &fit, &err) ||
	    lagom_hw_from_spec(p->hw.gpu_model, 1, LAGOM_INTRA_PCIE, 0, 0,
			       &spec, &err)) {
		fprintf(stderr, "contention_model: %s\n", err.text);
		goto out;
	}
	/* The profile's node with the built-in contention coefficients. */
	base = fit;
	base.contention_sm = spec.contention_sm;
	base.contention_l2 = spec.contention_l2;
	base.contention_l2_cap = spec.contention_l2_cap;
	base.contention_l2_knee = spec.contention_l2_knee;
	{
		struct lagom_hw tmp = base;

		if (lagom_profile_fit_contention(p, &tmp, &rep, &err))
			printf("fit refused: %s\n", err.text);
		else
			printf("fit ok sm=%.4f l2=%.4f cap=%.3f cap_fitted=%d "
			       "at_bound=%d rms_rel=%.4f max_abs=%.4f\n",
			       rep.contention_sm, rep.contention_l2,
			       rep.contention_l2_cap, rep.cap_fitted,
			       rep.at_bound, rep.rms_rel, rep.max_abs);
	}
	printf("builtin sm=%.4f l2=%.4f knee=%.3f cap=%.3f rate=%.3f "
	       "rate_cap=%.3f l2_bytes=%llu sms=%u\n",
	       base.contention_sm, base.contention_l2, base.contention_l2_knee,
	       base.contention_l2_cap, base.contention_rate,
	       base.contention_rate_cap, (unsigned long long)base.gpu.l2_bytes,
	       base.gpu.sm_count);
	rc = print_points(p, &base, &fit) ? 1 : 0;
out:
	lagom_profile_destroy(p);
	return rc;
}
