/*
 * tests/plan/test_plan.c - plan/'s decoder on the golden texts:
 * tests/tuner/plans/valid/NAME.plan must decode to exactly NAME.expect (a
 * dump in NCCL's numbering) and encode back to a text that decodes to the
 * same records; every tests/tuner/plans/invalid/NAME.plan must be rejected
 * with a reason (the exact messages: tests/tuner/plan_golden.sh).  Plus the
 * encoder (minor version, id, what it refuses), the bounds and the lookup.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "common/hash.h"
#include "plan/plan.h"

#define FILE_MAX (LAGOM_PLAN_MAX_BYTES + 4096)
#define DUMP_MAX 65536

static size_t read_file(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		fail_msg("cannot open %s", path);
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static void dump(const struct lagom_plan_wire *p, char *out, size_t cap)
{
	size_t len, i;

	len = (size_t)snprintf(
		out, cap,
		"plan format=1.%u version=%s id=%016llx job=%llu "
		"ranks=%llu nodes=%llu entries=%zu\n",
		p->minor, p->lagom_version, (unsigned long long)p->plan_id,
		(unsigned long long)p->job_id, (unsigned long long)p->ranks,
		(unsigned long long)p->nodes, p->ncolls);
	len += (size_t)snprintf(out + len, cap - len,
				"env tuner=%u ctas=%u-%u buffsize=%llu "
				"nthreads=%u algo=%d proto=%d cta_policy=%u\n",
				p->env.tuner, p->env.min_ctas, p->env.max_ctas,
				(unsigned long long)p->env.buffsize_bytes,
				p->env.nthreads, p->env.algo, p->env.proto,
				p->env.cta_policy);
	for (i = 0; i < p->ncolls && len < cap; i++) {
		const struct lagom_plan_wire_coll *e = &p->colls[i];

		len += (size_t)snprintf(
			out + len, cap - len,
			"entry op=%d bytes=%llu..%llu ranks=%llu nodes=%llu "
			"algo=%d proto=%d nchannels=%u chunk=%llu\n",
			e->op, (unsigned long long)e->min_bytes,
			(unsigned long long)e->max_bytes,
			(unsigned long long)e->ranks,
			(unsigned long long)e->nodes, e->algo, e->proto,
			e->nchannels, (unsigned long long)e->chunk_bytes);
	}
}

static int has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s && strcmp(name + n - s, suffix) == 0;
}

/* Calls check(dir, name) for every NAME.plan in plans/sub; returns count. */
static int each_plan(const char *sub,
		     void (*check)(const char *dir, const char *name))
{
	char dir[4096];
	struct dirent *d;
	DIR *dh;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/%s", LAGOM_PLANS_DIR, sub);
	dh = opendir(dir);
	if (!dh)
		fail_msg("cannot open %s", dir);
	while ((d = readdir(dh)) != NULL) {
		if (!has_suffix(d->d_name, ".plan"))
			continue;
		check(dir, d->d_name);
		n++;
	}
	closedir(dh);
	return n;
}

/* Encoded again, p decodes to the same records (keys of a newer minor that
 * the decoder ignored are not written back). */
static void round_trip(const char *name, const struct lagom_plan_wire *p)
{
	static char text[LAGOM_PLAN_MAX_BYTES + 1];
	static struct lagom_plan_wire back;
	struct lagom_error err = { 0 };
	uint64_t id = 0;

	if (lagom_plan_wire_encode(p, text, sizeof(text), &id, &err) != 0)
		fail_msg("%s does not encode: %s", name, err.text);
	if (lagom_plan_wire_decode(text, strlen(text), &back, &err) != 0)
		fail_msg("%s encodes to a text it rejects: %s", name, err.text);
	assert_int_equal(back.plan_id, id);
	assert_string_equal(back.lagom_version, p->lagom_version);
	assert_int_equal(back.job_id, p->job_id);
	assert_memory_equal(&back.env, &p->env, sizeof(p->env));
	assert_int_equal(back.ncolls, p->ncolls);
	assert_memory_equal(back.colls, p->colls,
			    p->ncolls * sizeof(p->colls[0]));
	/* the id is the FNV-1a of the records after the header */
	assert_int_equal(id, lagom_fnv1a64(strchr(text, ';') + 1,
					   strlen(strchr(text, ';') + 1)));
}

static void check_valid(const char *dir, const char *name)
{
	static char text[FILE_MAX], expect[DUMP_MAX], got[DUMP_MAX];
	static struct lagom_plan_wire plan;
	struct lagom_error err = { 0 };
	char path[4096];
	size_t len, elen;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	len = read_file(path, text, sizeof(text));
	if (lagom_plan_wire_decode(text, len, &plan, &err) != 0)
		fail_msg("%s rejected: %s", name, err.text);
	snprintf(path, sizeof(path), "%s/%.*s.expect", dir,
		 (int)(strlen(name) - 5), name);
	elen = read_file(path, expect, sizeof(expect) - 1);
	expect[elen] = '\0';
	dump(&plan, got, sizeof(got));
	if (strcmp(got, expect) != 0)
		fail_msg("%s parsed to\n%sexpected\n%s", name, got, expect);
	round_trip(name, &plan);
}

static void check_invalid(const char *dir, const char *name)
{
	static char text[FILE_MAX];
	static struct lagom_plan_wire plan;
	struct lagom_error err = { 0 };
	char path[4096];
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	len = read_file(path, text, sizeof(text));
	rc = lagom_plan_wire_decode(text, len, &plan, &err);
	if (rc != -EINVAL)
		fail_msg("%s: expected -EINVAL, got %d", name, rc);
	if (err.errnum != EINVAL || err.text[0] == '\0')
		fail_msg("%s: no reason given", name);
	/* env-*.plan are broken only in or around the env record */
	if (strncmp(name, "env-", 4) == 0 && !strstr(err.text, "record 2") &&
	    !strstr(err.text, "record 3"))
		fail_msg("%s: rejected for another reason: %s", name, err.text);
	print_message("# %s: %s\n", name, err.text);
}

static void t_valid_golden(void **state)
{
	assert_true(each_plan("valid", check_valid) >= 5);
}

static void t_invalid_golden(void **state)
{
	assert_true(each_plan("invalid", check_invalid) >= 60);
}

#define HEADER                                                            \
	"lagom-plan 1 0.1.0 3f2a9c0d11e4b7a5 job=1 ranks=16 nodes=2;env " \
	"tuner=1 ctas=1-2 buffsize=0 nthreads=0 algo=any proto=any"
#define ENTRY \
	";coll allreduce 0 99 ranks=16 nodes=2 algo=any proto=any nc=1 chunk=0"

/* n entries; returns the length. */
static size_t make_plan(char *buf, size_t cap, size_t n)
{
	size_t len = (size_t)snprintf(buf, cap, "%s", HEADER), i;

	for (i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s", ENTRY);
	len += (size_t)snprintf(buf + len, cap - len, ";end");
	return len;
}

/* A fully set plan of one record, for the encoder tests. */
static void sample(struct lagom_plan_wire *w)
{
	memset(w, 0, sizeof(*w));
	strcpy(w->lagom_version, "0.1.0");
	w->job_id = 7;
	w->ranks = 16;
	w->nodes = 2;
	w->env = (struct lagom_plan_wire_env){ .tuner = 1,
					       .min_ctas = 4,
					       .max_ctas = 4,
					       .algo = LAGOM_PLAN_ANY,
					       .proto = LAGOM_PLAN_ANY };
	w->ncolls = 1;
	w->colls[0] = (struct lagom_plan_wire_coll){ .op = 4,
						     .min_bytes = 1,
						     .max_bytes = 99,
						     .ranks = 16,
						     .nodes = 2,
						     .algo = 1,
						     .proto = 2,
						     .nchannels = 8 };
}

/* The encoder writes the smallest minor: a knob at its default changes
 * neither the text nor the id of a plan. */
static void t_encode_minor(void **state)
{
	static struct lagom_plan_wire w, back;
	static char text[LAGOM_PLAN_MAX_BYTES + 1];
	uint64_t id0 = 0, id1 = 0;

	sample(&w);
	assert_int_equal(
		lagom_plan_wire_encode(&w, text, sizeof(text), &id0, NULL), 0);
	assert_string_equal(strchr(text, ';'),
			    ";env tuner=1 ctas=4-4 buffsize=0 nthreads=0 "
			    "algo=any proto=any;coll allreduce 1 99 ranks=16 "
			    "nodes=2 algo=ring proto=simple nc=8 chunk=0;end");
	assert_int_equal(strncmp(text, "lagom-plan 1 0.1.0 ", 19), 0);
	w.env.cta_policy = LAGOM_CTA_POLICY_EFFICIENCY;
	assert_int_equal(
		lagom_plan_wire_encode(&w, text, sizeof(text), &id1, NULL), 0);
	assert_int_equal(strncmp(text, "lagom-plan 1.1 0.1.0 ", 21), 0);
	assert_non_null(strstr(text, " proto=any ctapolicy=efficiency;"));
	assert_true(id0 != id1);
	assert_int_equal(
		lagom_plan_wire_decode(text, strlen(text), &back, NULL), 0);
	assert_int_equal(back.minor, 1);
	assert_int_equal(back.env.cta_policy, LAGOM_CTA_POLICY_EFFICIENCY);
	/* lagom_plan_wire_id() is the id the text carries */
	assert_int_equal(lagom_plan_wire_id(&w, &id0, NULL), 0);
	assert_int_equal(id0, back.plan_id);
}

/* Only what a decoder accepts is written; the buffer is "" on failure. */
static void t_encode_refuses(void **state)
{
	static struct lagom_plan_wire w;
	static char text[LAGOM_PLAN_MAX_BYTES + 1];
	struct lagom_error err = { 0 };

	sample(&w);
	w.env.max_ctas = 65;
	w.env.min_ctas = 1;
	assert_int_equal(
		lagom_plan_wire_encode(&w, text, sizeof(text), NULL, &err),
		-EINVAL);
	assert_string_equal(err.text, "record 2: bad ctas=");
	assert_string_equal(text, "");
	sample(&w);
	w.env.cta_policy = LAGOM_CTA_POLICY_COUNT;
	assert_int_equal(
		lagom_plan_wire_encode(&w, text, sizeof(text), NULL, &err),
		-EINVAL);
	assert_string_equal(err.text, "record 2: bad ctapolicy=");
	sample(&w);
	w.colls[0].nodes = 3;
	assert_int_equal(lagom_plan_wire_id(&w, &(uint64_t){ 0 }, &err),
			 -EINVAL);
	assert_string_equal(err.text, "record 3: shape outside 1 <= nodes <= "
				      "ranks within the plan's world");
	sample(&w);
	w.colls[0].op = 6; /* no plan op */
	assert_int_equal(lagom_plan_wire_id(&w, &(uint64_t){ 0 }, &err),
			 -EINVAL);
	sample(&w);
	strcpy(w.lagom_version, "0.1 0");
	assert_int_equal(
		lagom_plan_wire_encode(&w, text, sizeof(text), NULL, &err),
		-EINVAL);
	sample(&w);
	assert_int_equal(lagom_plan_wire_encode(&w, text, 40, NULL, &err),
			 -ENOSPC);
	assert_string_equal(text, "");
}

static void t_bounds(void **state)
{
	static char buf[2 * LAGOM_PLAN_MAX_BYTES];
	static struct lagom_plan_wire plan;
	struct lagom_error err = { 0 };
	size_t len;

	len = make_plan(buf, sizeof(buf), LAGOM_PLAN_MAX_COLLS);
	assert_int_equal(lagom_plan_wire_decode(buf, len, &plan, &err), 0);
	assert_int_equal(plan.ncolls, LAGOM_PLAN_MAX_COLLS);
	len = make_plan(buf, sizeof(buf), LAGOM_PLAN_MAX_COLLS + 1);
	assert_int_equal(lagom_plan_wire_decode(buf, len, &plan, &err), -E2BIG);
	assert_int_equal(err.errnum, E2BIG);
	/* A text over 64 KiB is refused before it is read. */
	len = make_plan(buf, sizeof(buf), 1000);
	assert_true(len > LAGOM_PLAN_MAX_BYTES);
	assert_int_equal(lagom_plan_wire_decode(buf, len, &plan, &err), -E2BIG);
	assert_int_equal(lagom_plan_wire_decode(buf, LAGOM_PLAN_MAX_BYTES + 1,
						&plan, NULL),
			 -E2BIG);
	/* Any prefix of a valid plan is truncated, hence invalid. */
	len = make_plan(buf, sizeof(buf), 3);
	for (size_t cut = 0; cut < len; cut++)
		assert_true(lagom_plan_wire_decode(buf, cut, &plan, NULL) < 0);
	assert_int_equal(lagom_plan_wire_decode(buf, len, &plan, NULL), 0);
}

static void t_find(void **state)
{
	static const char text[] = HEADER
		";coll allreduce 10 20 ranks=16 nodes=2 algo=ring "
		"proto=ll nc=1 chunk=0"
		";coll allreduce 0 100 ranks=16 nodes=2 algo=tree "
		"proto=ll nc=2 chunk=0"
		";coll allreduce 0 100 ranks=8 nodes=1 algo=tree "
		"proto=ll nc=3 chunk=0;end";
	static struct lagom_plan_wire plan;
	const struct lagom_plan_wire_coll *e;

	assert_int_equal(
		lagom_plan_wire_decode(text, strlen(text), &plan, NULL), 0);
	e = lagom_plan_wire_find(plan.colls, plan.ncolls, 4, 10, 16, 2);
	assert_non_null(e);
	assert_int_equal(e->nchannels, 1); /* the first match wins */
	e = lagom_plan_wire_find(plan.colls, plan.ncolls, 4, 20, 16, 2);
	assert_int_equal(e->nchannels, 1); /* bounds are inclusive */
	e = lagom_plan_wire_find(plan.colls, plan.ncolls, 4, 21, 16, 2);
	assert_int_equal(e->nchannels, 2);
	e = lagom_plan_wire_find(plan.colls, plan.ncolls, 4, 5, 8, 1);
	assert_int_equal(e->nchannels, 3);
	assert_null(
		lagom_plan_wire_find(plan.colls, plan.ncolls, 4, 101, 16, 2));
	assert_null(lagom_plan_wire_find(plan.colls, plan.ncolls, 2, 5, 16, 2));
	assert_null(lagom_plan_wire_find(plan.colls, plan.ncolls, 4, 5, 16, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_valid_golden),
		cmocka_unit_test(t_invalid_golden),
		cmocka_unit_test(t_encode_minor),
		cmocka_unit_test(t_encode_refuses),
		cmocka_unit_test(t_bounds),
		cmocka_unit_test(t_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
