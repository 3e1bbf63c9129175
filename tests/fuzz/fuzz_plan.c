/*
 * tests/fuzz/fuzz_plan.c - libFuzzer target for the tuner's plan reader
 * (tuner/plan_read.c).  Besides ASan/UBSan findings it traps when an
 * accepted plan breaks a promise of tuner/plan_read.h.
 * Build and run: make fuzz-plan && tests/fuzz/fuzz_plan CORPUS_DIR
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tuner/plan_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_entry(const struct tuner_plan *p,
			const struct tuner_plan_entry *e)
{
	if (e->min_bytes > e->max_bytes || e->nc > TUNER_PLAN_MAX_NC ||
	    e->nodes == 0 || e->nodes > e->ranks || e->ranks > p->ranks ||
	    e->nodes > p->nodes || e->algo < TUNER_PLAN_ANY || e->algo > 6 ||
	    e->proto < TUNER_PLAN_ANY || e->proto > 2 || e->func < 0 ||
	    e->func > 8)
		__builtin_trap();
	if (tuner_plan_find(p->entries, p->n_entries, e->func, e->min_bytes,
			    e->ranks, e->nodes) == NULL)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tuner_plan plan; /* fuzzer process only */
	struct lagom_error err;
	size_t i;

	if (tuner_plan_parse((const char *)data, size, &plan, &err) != 0) {
		if (memchr(err.text, '\0', sizeof(err.text)) == NULL)
			__builtin_trap();
		return 0;
	}
	if (size > TUNER_PLAN_MAX_BYTES ||
	    plan.n_entries > TUNER_PLAN_MAX_ENTRIES || plan.nodes == 0 ||
	    plan.nodes > plan.ranks ||
	    memchr(plan.lagom_version, '\0', TUNER_PLAN_VERSION_MAX) == NULL)
		__builtin_trap();
	if (plan.env.tuner > 1 || plan.env.max_ctas > TUNER_PLAN_MAX_NC ||
	    plan.env.min_ctas > plan.env.max_ctas ||
	    (plan.env.max_ctas && !plan.env.min_ctas) ||
	    plan.env.buffsize_bytes > INT64_MAX ||
	    (plan.env.nthreads &&
	     (plan.env.nthreads < TUNER_PLAN_MIN_NTHREADS ||
	      plan.env.nthreads > TUNER_PLAN_MAX_NTHREADS ||
	      plan.env.nthreads % 32)) ||
	    plan.env.algo < TUNER_PLAN_ANY || plan.env.algo > 6 ||
	    plan.env.proto < TUNER_PLAN_ANY || plan.env.proto > 2)
		__builtin_trap();
	for (i = 0; i < plan.n_entries; i++)
		check_entry(&plan, &plan.entries[i]);
	return 0;
}
