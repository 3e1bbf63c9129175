/*
 * tests/fuzz/fuzz_plan.c - libFuzzer target for the plan decoder the tuner
 * uses (plan/decode.c).  Besides ASan/UBSan findings it traps when an
 * accepted plan breaks a promise of plan/plan.h, or when the encoder does
 * not write it back to a text that decodes to the same records.
 * Build and run: make fuzz-plan && tests/fuzz/fuzz_plan CORPUS_DIR
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_entry(const struct lagom_plan_wire *p,
			const struct lagom_plan_wire_coll *e)
{
	if (e->min_bytes > e->max_bytes ||
	    e->nchannels > LAGOM_PLAN_MAX_NCHANNELS || e->nodes == 0 ||
	    e->nodes > e->ranks || e->ranks > p->ranks || e->nodes > p->nodes ||
	    e->algo < LAGOM_PLAN_ANY || e->algo > 6 ||
	    e->proto < LAGOM_PLAN_ANY || e->proto > 2 || e->op < 0 || e->op > 8)
		__builtin_trap();
	if (lagom_plan_wire_find(p->colls, p->ncolls, e->op, e->min_bytes,
				 e->ranks, e->nodes) == NULL)
		__builtin_trap();
}

/* Encode the accepted plan, decode the text: the same records. */
static void round_trip(const struct lagom_plan_wire *p)
{
	static char text[LAGOM_PLAN_MAX_BYTES + 1];
	static struct lagom_plan_wire back;

	if (lagom_plan_wire_encode(p, text, sizeof(text), NULL, NULL) != 0 ||
	    lagom_plan_wire_decode(text, strlen(text), &back, NULL) != 0 ||
	    memcmp(&back.env, &p->env, sizeof(p->env)) != 0 ||
	    back.ncolls != p->ncolls ||
	    memcmp(back.colls, p->colls, p->ncolls * sizeof(p->colls[0])) != 0)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lagom_plan_wire plan; /* fuzzer process only */
	struct lagom_error err;
	size_t i;

	if (lagom_plan_wire_decode((const char *)data, size, &plan, &err) !=
	    0) {
		if (memchr(err.text, '\0', sizeof(err.text)) == NULL)
			__builtin_trap();
		return 0;
	}
	if (size > LAGOM_PLAN_MAX_BYTES || plan.ncolls > LAGOM_PLAN_MAX_COLLS ||
	    plan.nodes == 0 || plan.nodes > plan.ranks ||
	    memchr(plan.lagom_version, '\0', LAGOM_PLAN_VERSION_MAX) == NULL)
		__builtin_trap();
	if (plan.env.tuner > 1 ||
	    plan.env.max_ctas > LAGOM_PLAN_MAX_NCHANNELS ||
	    plan.env.min_ctas > plan.env.max_ctas ||
	    (plan.env.max_ctas && !plan.env.min_ctas) ||
	    plan.env.buffsize_bytes > INT64_MAX ||
	    (plan.env.nthreads &&
	     (plan.env.nthreads < LAGOM_PLAN_MIN_NTHREADS ||
	      plan.env.nthreads > LAGOM_PLAN_MAX_NTHREADS ||
	      plan.env.nthreads % 32)) ||
	    plan.env.algo < LAGOM_PLAN_ANY || plan.env.algo > 6 ||
	    plan.env.proto < LAGOM_PLAN_ANY || plan.env.proto > 2 ||
	    plan.env.cta_policy >= LAGOM_CTA_POLICY_COUNT)
		__builtin_trap();
	for (i = 0; i < plan.ncolls; i++)
		check_entry(&plan, &plan.colls[i]);
	round_trip(&plan);
	return 0;
}
