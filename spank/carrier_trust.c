/*
 * spank/carrier_trust.c - what a node takes from a step plan text it cannot
 * trust (spank/carrier.h "Trust", doc/consistency.md "Trust"): the
 * variables lagom sets (search/search.h's list), with values of their
 * kind, and a job comment composed from the summary's fields that pass
 * the comment's own checks (planner/comment_text.h).  Pure.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "common/nccl_names.h"
#include "common/text.h"
#include "planner/comment_text.h"
#include "search/search.h"
#include "spank/carrier.h"

static bool in_names(const char *v, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return true;
	return false;
}

enum var_kind {
	VAR_UINT = 1, /* 0: a variable this table does not know */
	VAR_ALGO,
	VAR_PROTO,
	VAR_ONE,
	VAR_TUNER,
	VAR_PLAN,
	VAR_PLAN_ID,
	VAR_SPEEDUP,
};

/* The value each variable the planner sets may have (its names:
 * search/search.h). */
static const enum var_kind var_kinds[LAGOM_VAR_COUNT] = {
	[LAGOM_VAR_NCCL_MIN_CTAS] = VAR_UINT,
	[LAGOM_VAR_NCCL_MAX_CTAS] = VAR_UINT,
	[LAGOM_VAR_NCCL_BUFFSIZE] = VAR_UINT,
	[LAGOM_VAR_NCCL_NTHREADS] = VAR_UINT,
	[LAGOM_VAR_NCCL_ALGO] = VAR_ALGO,
	[LAGOM_VAR_NCCL_PROTO] = VAR_PROTO,
	[LAGOM_VAR_NCCL_CTA_POLICY] = VAR_UINT,
	[LAGOM_VAR_NCCL_TUNER_PLUGIN] = VAR_TUNER,
	[LAGOM_VAR_LAGOM_PLAN] = VAR_PLAN,
	[LAGOM_VAR_TORCH_NCCL_HIGH_PRIORITY] = VAR_ONE,
	[LAGOM_VAR_CUDA_DEVICE_MAX_CONNECTIONS] = VAR_ONE,
	[LAGOM_VAR_LAGOM_PLAN_ID] = VAR_PLAN_ID,
	[LAGOM_VAR_LAGOM_PREDICTED_SPEEDUP] = VAR_SPEEDUP,
};

static bool value_ok(enum var_kind kind, const char *v,
		     const struct lagom_carrier *c, const char *tuner)
{
	switch (kind) {
	case VAR_UINT:
		return lagom_text_is_uint(v, 19);
	case VAR_ALGO:
		return in_names(v, lagom_nccl_algo_names, LAGOM_NCCL_NUM_ALGOS);
	case VAR_PROTO:
		return in_names(v, lagom_nccl_proto_names,
				LAGOM_NCCL_NUM_PROTOS);
	case VAR_ONE:
		return strcmp(v, "1") == 0;
	case VAR_TUNER:
		return tuner && tuner[0] && strcmp(v, tuner) == 0;
	case VAR_PLAN:
		return strncmp(v, "lagom-plan ", 11) == 0;
	case VAR_PLAN_ID:
		return strcmp(v, c->plan_id) == 0;
	case VAR_SPEEDUP:
		return lagom_text_is_hundredths(v, "");
	}
	return false;
}

int lagom_carrier_vet(const struct lagom_carrier *c, const char *tuner,
		      struct lagom_error *err)
{
	bool seen[LAGOM_VAR_COUNT] = { false };

	for (size_t i = 0; i < c->nvars; i++) {
		size_t k;

		for (k = 0; k < LAGOM_VAR_COUNT; k++)
			if (strcmp(c->vars[i].name,
				   lagom_search_var_names[k]) == 0)
				break;
		if (k == LAGOM_VAR_COUNT || !var_kinds[k])
			return lagom_errprintf(err, EPERM,
					       "variable %zu is not one lagom "
					       "sets",
					       i + 1);
		if (seen[k])
			return lagom_errprintf(err, EPERM, "%s given twice",
					       lagom_search_var_names[k]);
		seen[k] = true;
		if (!value_ok(var_kinds[k], c->vars[i].value, c, tuner))
			return lagom_errprintf(
				err, EPERM, "%s: %s", lagom_search_var_names[k],
				var_kinds[k] == VAR_TUNER
					? "not the tuner= of this node's "
					  "plugstack.conf"
					: "not a value lagom sets");
	}
	if (seen[LAGOM_VAR_NCCL_TUNER_PLUGIN] != seen[LAGOM_VAR_LAGOM_PLAN])
		return lagom_errprintf(err, EPERM,
				       "NCCL_TUNER_PLUGIN and "
				       "LAGOM_PLAN come together");
	return 0;
}

/* The comment, from the summary's fields that pass planner/comment_text.c's
 * checks: never the text itself. */
size_t lagom_carrier_comment(const struct lagom_carrier *c, char *out,
			     size_t len)
{
	struct lagom_comment_text fields;
	size_t n;

	lagom_comment_text_read(c->summary, &fields);
	n = lagom_comment_text_write(&fields, c->plan_id, out, len);
	return n < len ? n : len - 1;
}
