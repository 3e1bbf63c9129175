/*
 * plan/encode.c - writes the LAGOM_PLAN text (doc/plan-format.md) and its
 * id, without the printf family.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/hash.h"
#include "plan/wire_int.h"

void plan_put_s(struct plan_out *o, const char *s)
{
	size_t n = strlen(s);

	if (o->overflow || n >= o->len - o->pos) {
		o->overflow = true;
		return;
	}
	if (o->buf)
		memcpy(o->buf + o->pos, s, n + 1);
	else
		o->hash = lagom_fnv1a64_update(o->hash, s, n);
	o->pos += n;
}

char *lagom_plan_format_u64(uint64_t v, char buf[LAGOM_PLAN_U64_MAX_CHARS])
{
	char tmp[LAGOM_PLAN_U64_MAX_CHARS];
	size_t i = sizeof(tmp) - 1;

	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf, tmp + i, sizeof(tmp) - i);
	return buf;
}

char *lagom_plan_format_id(uint64_t id, char buf[17])
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 15; i >= 0; i--, id >>= 4)
		buf[i] = hex[id & 15];
	buf[16] = '\0';
	return buf;
}

void plan_put_u(struct plan_out *o, uint64_t v)
{
	char tmp[LAGOM_PLAN_U64_MAX_CHARS];

	plan_put_s(o, lagom_plan_format_u64(v, tmp));
}

void plan_put_x16(struct plan_out *o, uint64_t v)
{
	char tmp[17];

	plan_put_s(o, lagom_plan_format_id(v, tmp));
}

/* The keys written: every minor-0 key, a later one only when set. */
static bool key_written(const struct plan_env_key *k,
			const struct lagom_plan_wire_env *e)
{
	return k->minor == 0 || k->set(e);
}

/* The smallest minor that expresses w: the newest of its written keys. */
static unsigned plan_minor(const struct lagom_plan_wire *w)
{
	unsigned minor = 0;

	for (size_t i = 0; i < plan_env_nkeys; i++)
		if (key_written(&plan_env_keys[i], &w->env) &&
		    plan_env_keys[i].minor > minor)
			minor = plan_env_keys[i].minor;
	return minor;
}

static int check_plan(const struct lagom_plan_wire *w, struct lagom_error *err)
{
	if (!w)
		return lagom_errprintf(err, EINVAL, "no plan");
	if (w->nodes == 0 || w->nodes > w->ranks)
		return lagom_errprintf(err, EINVAL,
				       "record 1: need 1 <= nodes <= ranks");
	if (w->ncolls > LAGOM_PLAN_MAX_COLLS)
		return lagom_errprintf(err, EINVAL,
				       "%zu coll records, at most %d",
				       w->ncolls, LAGOM_PLAN_MAX_COLLS);
	for (size_t i = 0; i < plan_env_nkeys; i++)
		if (!plan_env_keys[i].valid(&w->env))
			return lagom_errprintf(err, EINVAL, "record 2: bad %s=",
					       plan_env_keys[i].key);
	for (size_t j = 0; j < w->ncolls; j++) {
		int rc = plan_check_coll(w, &w->colls[j], j + 3, err);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static void put_env(struct plan_out *o, const struct lagom_plan_wire_env *e)
{
	plan_put_s(o, "env");
	for (size_t i = 0; i < plan_env_nkeys; i++) {
		const struct plan_env_key *k = &plan_env_keys[i];

		if (!key_written(k, e))
			continue;
		plan_put_s(o, " ");
		plan_put_s(o, k->key);
		plan_put_s(o, "=");
		k->put(o, e);
	}
	plan_put_s(o, ";");
}

static void put_name(struct plan_out *o, const char *key, int i,
		     const char *const *names)
{
	plan_put_s(o, key);
	plan_put_s(o, i == LAGOM_PLAN_ANY ? "any" : names[i]);
}

/* The records after the header: "env ...;coll ...;...;end". */
static void put_records(struct plan_out *o, const struct lagom_plan_wire *w)
{
	put_env(o, &w->env);
	for (size_t j = 0; j < w->ncolls; j++) {
		const struct lagom_plan_wire_coll *c = &w->colls[j];

		plan_put_s(o, "coll ");
		plan_put_s(o, lagom_plan_op_name(c->op));
		plan_put_s(o, " ");
		plan_put_u(o, c->min_bytes);
		plan_put_s(o, " ");
		plan_put_u(o, c->max_bytes);
		plan_put_s(o, " ranks=");
		plan_put_u(o, c->ranks);
		plan_put_s(o, " nodes=");
		plan_put_u(o, c->nodes);
		put_name(o, " algo=", c->algo, lagom_nccl_algo_names);
		put_name(o, " proto=", c->proto, lagom_nccl_proto_names);
		plan_put_s(o, " nc=");
		plan_put_u(o, c->nchannels);
		plan_put_s(o, " chunk=");
		plan_put_u(o, c->chunk_bytes);
		plan_put_s(o, ";");
	}
	plan_put_s(o, "end");
}

int lagom_plan_wire_id(const struct lagom_plan_wire *w, uint64_t *id,
		       struct lagom_error *err)
{
	struct plan_out o = { .len = LAGOM_PLAN_MAX_BYTES,
			      .hash = LAGOM_FNV1A64_INIT };
	int rc = check_plan(w, err);

	if (rc < 0)
		return rc;
	if (!id)
		return lagom_errprintf(err, EINVAL, "no output");
	put_records(&o, w);
	if (o.overflow)
		return lagom_errprintf(err, ENOSPC, "plan text over %d bytes",
				       LAGOM_PLAN_MAX_BYTES);
	*id = o.hash;
	return 0;
}

int lagom_plan_wire_encode(const struct lagom_plan_wire *w, char *buf,
			   size_t len, uint64_t *id, struct lagom_error *err)
{
	struct plan_out o = { .buf = buf,
			      .len = len < LAGOM_PLAN_MAX_BYTES + 1
					     ? len
					     : LAGOM_PLAN_MAX_BYTES + 1 };
	uint64_t h = 0;
	unsigned minor;
	int rc;

	if (!buf || len == 0)
		return lagom_errprintf(err, EINVAL, "no buffer");
	buf[0] = '\0';
	if ((rc = lagom_plan_wire_id(w, &h, err)) < 0)
		return rc;
	if (!plan_version_valid(
		    w->lagom_version,
		    strnlen(w->lagom_version, LAGOM_PLAN_VERSION_MAX)))
		return lagom_errprintf(err, EINVAL,
				       "record 1: bad lagom version");
	plan_put_s(&o, "lagom-plan 1");
	if ((minor = plan_minor(w)) > 0) {
		plan_put_s(&o, ".");
		plan_put_u(&o, minor);
	}
	plan_put_s(&o, " ");
	plan_put_s(&o, w->lagom_version);
	plan_put_s(&o, " ");
	plan_put_x16(&o, h);
	plan_put_s(&o, " job=");
	plan_put_u(&o, w->job_id);
	plan_put_s(&o, " ranks=");
	plan_put_u(&o, w->ranks);
	plan_put_s(&o, " nodes=");
	plan_put_u(&o, w->nodes);
	plan_put_s(&o, ";");
	put_records(&o, w);
	if (o.overflow) {
		buf[0] = '\0';
		return lagom_errprintf(
			err, ENOSPC, "plan text does not fit %zu bytes", o.len);
	}
	if (id)
		*id = h;
	return 0;
}
