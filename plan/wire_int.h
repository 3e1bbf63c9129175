/*
 * plan/wire_int.h - shared by the files of plan/ (private): the text
 * writer, the env key table that both the encoder and the decoder follow,
 * and the value rules.
 */
#ifndef LAGOM_PLAN_WIRE_INT_H
#define LAGOM_PLAN_WIRE_INT_H

#include <stdbool.h>

#include "plan/plan.h"

/* Where encoded text goes: buf, or (buf NULL) only its hash and length. */
struct plan_out {
	char *buf;
	size_t len, pos;
	bool overflow;
	uint64_t hash; /* FNV-1a of the text so far when buf is NULL */
};

void plan_put_s(struct plan_out *o, const char *s);
void plan_put_u(struct plan_out *o, uint64_t v);
void plan_put_x16(struct plan_out *o, uint64_t v);

/*
 * One key of the env record.  The table (plan_env_keys) is the one place a
 * new process-wide knob is described: its key, the format minor that added
 * it, how its value is read, checked and written.  Keys of minor 0 are
 * required and always written; later keys are optional (absent = not set)
 * and written only when set().
 */
struct plan_env_key {
	const char *key;
	unsigned minor;
	/* value text (n bytes) -> e; 0 or -1 */
	int (*parse)(const char *v, size_t n, struct lagom_plan_wire_env *e);
	/* the value's range (doc/plan-format.md); true when valid */
	bool (*valid)(const struct lagom_plan_wire_env *e);
	void (*put)(struct plan_out *o, const struct lagom_plan_wire_env *e);
	/* minor > 0 only: true when the value is not the default */
	bool (*set)(const struct lagom_plan_wire_env *e);
};

extern const struct plan_env_key plan_env_keys[];
extern const size_t plan_env_nkeys;

/* "key" and "key" of n bytes are the same token. */
bool plan_tok_eq(const char *s, size_t n, const char *lit);
/* Index of the token in names[0..count), or -1. */
int plan_name_index(const char *s, size_t n, const char *const *names,
		    size_t count);

/* The lagom version of the header: 1..31 bytes of [0-9A-Za-z.+~_-]. */
bool plan_version_valid(const char *s, size_t n);

/* The checks one coll record must pass within w (record: its number). */
int plan_check_coll(const struct lagom_plan_wire *w,
		    const struct lagom_plan_wire_coll *c, size_t record,
		    struct lagom_error *err);

#endif /* LAGOM_PLAN_WIRE_INT_H */
