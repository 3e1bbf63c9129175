/*
 * tests/gpu/contention_model.c - a measured contention curve beside what the
 * model predicts for the same shapes (doc/model.md 4 and 4.1).
 *
 *   contention_model PROFILE [CTAS...]
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
 * With CTAS (each 1..1024, below the GPU's SMs), then the same three for NCCL kernels holding
 * that many CTAs with NCCL's default ring/simple chunk, one "nccl CTAS
 * CHUNK builtin builtin_xcap fitted" line each: the model beside
 * bench/nccl_contention's curve (idle: k CTAs; moving under MPS: 2k).
 * Reads and prints only; changes nothing in the model.
 * Exit status: 0 printed, 1 profile or model error, 2 usage.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "model/model.h"
#include "profile/profile.h"

#define PROBE_BLOCKS 4096 /* (8192 / 128)^2 tiles, as profile/profile_hw.c */
#define PROBE_MEM_BOUND 0.2
#define MAX_NCS 32

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

/* The model's three figures for NC CTAs of chunk CHUNK, into OUT. */
static int model3(const struct lagom_hw *base, const struct lagom_hw *fit,
		  unsigned nc, uint64_t chunk, double out[3])
{
	if (slowdown(base, nc, chunk, 0, &out[0]) ||
	    slowdown(base, nc, chunk, base->gpu.hbm_Bps, &out[1]) ||
	    slowdown(fit, nc, chunk, 0, &out[2]))
		return -1;
	return 0;
}

static int print_points(const struct lagom_profile *p,
			const struct lagom_hw *base, const struct lagom_hw *fit)
{
	const struct lagom_profile_measurements *m = &p->meas;

	printf("ctas chunk_bytes measured builtin builtin_xcap fitted\n");
	for (size_t i = 0; i < m->n_contention; i++) {
		const struct lagom_contention_point *c = &m->contention[i];
		double y[3];

		if (c->ctas <= 0)
			continue;
		if (model3(base, fit, (unsigned)c->ctas, c->chunk_bytes, y))
			return -1;
		printf("%d %llu %.4f %.4f %.4f %.4f\n", c->ctas,
		       (unsigned long long)c->chunk_bytes, c->slowdown, y[0],
		       y[1], y[2]);
	}
	return 0;
}

/* The model for NCCL kernels holding each of the N CTA counts in NCS. */
static int print_nccl(const unsigned *ncs, int n, const struct lagom_hw *base,
		      const struct lagom_hw *fit)
{
	uint64_t chunk = lagom_chunk_default_bytes(LAGOM_ALGO_RING,
						   LAGOM_PROTO_SIMPLE);

	for (int i = 0; i < n; i++) {
		double y[3];

		if (model3(base, fit, ncs[i], chunk, y))
			return -1;
		printf("nccl %u %llu %.4f %.4f %.4f\n", ncs[i],
		       (unsigned long long)chunk, y[0], y[1], y[2]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct lagom_profile *p = NULL;
	struct lagom_error err = { 0 };
	struct lagom_hw fit, base, spec;
	struct lagom_fit_report rep = { 0 };
	unsigned ncs[MAX_NCS];
	int rc = 1;

	for (int i = 2; i < argc; i++) {
		char *end;
		long v = strtol(argv[i], &end, 10);

		if (i - 2 >= MAX_NCS || end == argv[i] || *end != '\0' ||
		    v < 1 || v > 1024)
			argc = 0;
		else
			ncs[i - 2] = (unsigned)v;
	}
	if (argc < 2) {
		fprintf(stderr,
			"usage: contention_model PROFILE [CTAS...] "
			"(at most %d, each 1..1024)\n",
			MAX_NCS);
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
	base.contention_resident = spec.contention_resident;
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
	rc = print_points(p, &base, &fit) ||
			     print_nccl(ncs, argc - 2, &base, &fit)
		     ? 1
		     : 0;
out:
	lagom_profile_destroy(p);
	return rc;
}
