/*
 * tests/tuner/test_plan_read.c - the tuner's plan reader on golden texts:
 * tests/tuner/plans/valid/NAME.plan must parse to exactly NAME.expect (a
 * dump in NCCL's numbering), every tests/tuner/plans/invalid/NAME.plan must
 * be rejected with a reason; plus the size and count bounds and the lookup.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "tuner/plan_read.h"

#define FILE_MAX (TUNER_PLAN_MAX_BYTES + 4096)
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

static void dump(const struct tuner_plan *p, char *out, size_t cap)
{
	size_t len, i;

	len = (size_t)snprintf(out, cap,
			       "plan version=%s id=%016llx job=%llu "
			       "ranks=%llu nodes=%llu entries=%zu\n",
			       p->lagom_version, (unsigned long long)p->plan_id,
			       (unsigned long long)p->job_id,
			       (unsigned long long)p->ranks,
			       (unsigned long long)p->nodes, p->n_entries);
	len += (size_t)snprintf(out + len, cap - len,
				"env tuner=%u ctas=%u-%u buffsize=%llu "
				"nthreads=%u algo=%d proto=%d\n",
				p->env.tuner, p->env.min_ctas, p->env.max_ctas,
				(unsigned long long)p->env.buffsize_bytes,
				p->env.nthreads, p->env.algo, p->env.proto);
	for (i = 0; i < p->n_entries && len < cap; i++) {
		const struct tuner_plan_entry *e = &p->entries[i];

		len += (size_t)snprintf(
			out + len, cap - len,
			"entry func=%d bytes=%llu..%llu ranks=%llu nodes=%llu "
			"algo=%d proto=%d nc=%u chunk=%llu\n",
			e->func, (unsigned long long)e->min_bytes,
			(unsigned long long)e->max_bytes,
			(unsigned long long)e->ranks,
			(unsigned long long)e->nodes, e->algo, e->proto, e->nc,
			(unsigned long long)e->chunk_bytes);
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

	snprintf(dir, sizeof(dir), "%s/%s", TUNER_PLANS_DIR, sub);
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

static void check_valid(const char *dir, const char *name)
{
	static char text[FILE_MAX], expect[DUMP_MAX], got[DUMP_MAX];
	static struct tuner_plan plan;
	struct lagom_error err = { 0 };
	char path[4096];
	size_t len, elen;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	len = read_file(path, text, sizeof(text));
	if (tuner_plan_parse(text, len, &plan, &err) != 0)
		fail_msg("%s rejected: %s", name, err.text);
	snprintf(path, sizeof(path), "%s/%.*s.expect", dir,
		 (int)(strlen(name) - 5), name);
	elen = read_file(path, expect, sizeof(expect) - 1);
	expect[elen] = '\0';
	dump(&plan, got, sizeof(got));
	if (strcmp(got, expect) != 0)
		fail_msg("%s parsed to\n%sexpected\n%s", name, got, expect);
}

static void check_invalid(const char *dir, const char *name)
{
	static char text[FILE_MAX];
	static struct tuner_plan plan;
	struct lagom_error err = { 0 };
	char path[4096];
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	len = read_file(path, text, sizeof(text));
	rc = tuner_plan_parse(text, len, &plan, &err);
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

static void t_bounds(void **state)
{
	static char buf[2 * TUNER_PLAN_MAX_BYTES];
	static struct tuner_plan plan;
	struct lagom_error err = { 0 };
	size_t len;

	len = make_plan(buf, sizeof(buf), TUNER_PLAN_MAX_ENTRIES);
	assert_int_equal(tuner_plan_parse(buf, len, &plan, &err), 0);
	assert_int_equal(plan.n_entries, TUNER_PLAN_MAX_ENTRIES);
	len = make_plan(buf, sizeof(buf), TUNER_PLAN_MAX_ENTRIES + 1);
	assert_int_equal(tuner_plan_parse(buf, len, &plan, &err), -E2BIG);
	assert_int_equal(err.errnum, E2BIG);
	/* A text over 64 KiB is refused before it is read. */
	len = make_plan(buf, sizeof(buf), 1000);
	assert_true(len > TUNER_PLAN_MAX_BYTES);
	assert_int_equal(tuner_plan_parse(buf, len, &plan, &err), -E2BIG);
	assert_int_equal(
		tuner_plan_parse(buf, TUNER_PLAN_MAX_BYTES + 1, &plan, NULL),
		-E2BIG);
	/* Any prefix of a valid plan is truncated, hence invalid. */
	len = make_plan(buf, sizeof(buf), 3);
	for (size_t cut = 0; cut < len; cut++)
		assert_true(tuner_plan_parse(buf, cut, &plan, NULL) < 0);
	assert_int_equal(tuner_plan_parse(buf, len, &plan, NULL), 0);
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
	static struct tuner_plan plan;
	const struct tuner_plan_entry *e;

	assert_int_equal(tuner_plan_parse(text, strlen(text), &plan, NULL), 0);
	e = tuner_plan_find(plan.entries, plan.n_entries, 4, 10, 16, 2);
	assert_non_null(e);
	assert_int_equal(e->nc, 1); /* the first match wins */
	e = tuner_plan_find(plan.entries, plan.n_entries, 4, 20, 16, 2);
	assert_int_equal(e->nc, 1); /* bounds are inclusive */
	e = tuner_plan_find(plan.entries, plan.n_entries, 4, 21, 16, 2);
	assert_int_equal(e->nc, 2);
	e = tuner_plan_find(plan.entries, plan.n_entries, 4, 5, 8, 1);
	assert_int_equal(e->nc, 3);
	assert_null(
		tuner_plan_find(plan.entries, plan.n_entries, 4, 101, 16, 2));
	assert_null(tuner_plan_find(plan.entries, plan.n_entries, 2, 5, 16, 2));
	assert_null(tuner_plan_find(plan.entries, plan.n_entries, 4, 5, 16, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_valid_golden),
		cmocka_unit_test(t_invalid_golden),
		cmocka_unit_test(t_bounds),
		cmocka_unit_test(t_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
