/*
 * Fail every allocation in turn (jansson's through json_set_alloc_funcs,
 * profile/'s own through -Wl,--wrap=malloc,calloc,free): each run must end
 * in -ENOMEM (or succeed once no allocation fails), leak nothing and not
 * crash.  Mallocs and frees are counted to find leaks.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "profile/profile.h"
#include "tests/lib/lagom_test.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void __real_free(void *ptr);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void __wrap_free(void *ptr);

/* Test-only state: the allocator hooks take no context argument. */
static struct {
	int armed;
	long calls;
	long fail_at;
	long live;
} counter;

static int should_fail(void)
{
	if (!counter.armed)
		return 0;
	counter.calls++;
	return counter.calls == counter.fail_at;
}

void *__wrap_malloc(size_t size)
{
	void *p = should_fail() ? NULL : __real_malloc(size);

	if (p != NULL && counter.armed)
		counter.live++;
	return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p = should_fail() ? NULL : __real_calloc(n, size);

	if (p != NULL && counter.armed)
		counter.live++;
	return p;
}

void __wrap_free(void *ptr)
{
	if (ptr != NULL && counter.armed)
		counter.live--;
	__real_free(ptr);
}

static void *json_counting_malloc(size_t size)
{
	return __wrap_malloc(size);
}

static void json_counting_free(void *ptr)
{
	__wrap_free(ptr);
}

struct op_state {
	char dir[64];
	char path[PATH_MAX];
	char *text;
	struct lagom_profile *profile;
};

typedef int (*op_fn)(struct op_state *s, struct lagom_profile **out);

static int op_parse(struct op_state *s, struct lagom_profile **out)
{
	return lagom_profile_from_buffer(s->text, strlen(s->text), out, NULL);
}

static int op_read_trusted(struct op_state *s, struct lagom_profile **out)
{
	struct lagom_trust trust = { .owner_uid = geteuid() };

	return lagom_profile_read_file(s->path, &trust, out, NULL);
}

static int op_to_string(struct op_state *s, struct lagom_profile **out)
{
	char *text = NULL;
	int rc = lagom_profile_to_string(s->profile, &text, NULL);

	free(text);
	return rc;
}

static int op_write(struct op_state *s, struct lagom_profile **out)
{
	return lagom_profile_write_atomic(s->dir, s->profile, NULL);
}

/*
 * Run op with allocation 1, 2, ... failing until it needs no more.  jansson
 * 2.14 reports some allocation failures inside its lexer as syntax errors,
 * so -EINVAL is accepted too; those are counted in *as_einval.
 */
static long fail_each(struct op_state *s, op_fn op, long *as_einval)
{
	long n;

	for (n = 1;; n++) {
		struct lagom_profile *out = NULL;
		int rc;

		counter = (typeof(counter)){ .armed = 1, .fail_at = n };
		rc = op(s, &out);
		lagom_profile_destroy(out);
		counter.armed = 0;
		if (counter.calls < n) {
			assert_int_equal(rc, 0);
			assert_int_equal(counter.live, 0);
			return n - 1;
		}
		if (rc != -ENOMEM && rc != -EINVAL)
			fail_msg("allocation %ld failed: rc %d, not -ENOMEM", n,
				 rc);
		if (rc == -EINVAL)
			(*as_einval)++;
		assert_null(out);
		if (counter.live != 0)
			fail_msg("allocation %ld failed: %ld blocks leaked", n,
				 counter.live);
	}
}

static int setup(void **state)
{
	static struct op_state s;
	struct lagom_profile *p = lagom_profile_create("gpu001");
	FILE *f;

	json_set_alloc_funcs(json_counting_malloc, json_counting_free);
	snprintf(s.dir, sizeof(s.dir), "/tmp/lagom-alloc-XXXXXX");
	if (p == NULL || mkdtemp(s.dir) == NULL)
		return -1;
	p->meas.hbm_bw_Bps = (struct lagom_quantity){ 2e12,
						      LAGOM_SOURCE_MEASURED };
	p->meas.busbw_source = LAGOM_SOURCE_MEASURED;
	p->meas.busbw_nranks = 2;
	p->meas.n_busbw = 3;
	for (int i = 0; i < 3; i++)
		p->meas.busbw[i] = (struct lagom_busbw_point){
			LAGOM_COLL_ALLREDUCE, 1 + i, 65536, 1 << 20, 1e10
		};
	if (lagom_profile_to_string(p, &s.text, NULL) < 0)
		return -1;
	snprintf(s.path, sizeof(s.path), "%s/gpu001.json", s.dir);
	f = fopen(s.path, "w");
	if (f == NULL || fputs(s.text, f) < 0 || fclose(f) != 0)
		return -1;
	s.profile = p;
	*state = &s;
	return 0;
}

static int teardown(void **state)
{
	struct op_state *s = *state;

	unlink(s->path);
	rmdir(s->dir);
	free(s->text);
	lagom_profile_destroy(s->profile);
	return 0;
}

static void parse_survives_every_failure(void **state)
{
	long einval = 0;

	assert_true(fail_each(*state, op_parse, &einval) > 20);
}

static void trusted_read_survives_every_failure(void **state)
{
	long einval = 0;

	assert_true(fail_each(*state, op_read_trusted, &einval) > 20);
}

/* The writer's side has no parser to blur the error: always -ENOMEM. */
static void serialise_survives_every_failure(void **state)
{
	long einval = 0;

	assert_true(fail_each(*state, op_to_string, &einval) > 20);
	assert_int_equal(einval, 0);
}

static void write_survives_every_failure(void **state)
{
	struct op_state *s = *state;
	struct lagom_profile *q = NULL;

	long einval = 0;

	assert_true(fail_each(s, op_write, &einval) > 20);
	assert_int_equal(einval, 0);
	assert_int_equal(
		lagom_profile_load_node(s->dir, "gpu001", NULL, &q, NULL), 0);
	lagom_profile_destroy(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_survives_every_failure),
		cmocka_unit_test(trusted_read_survives_every_failure),
		cmocka_unit_test(serialise_survives_every_failure),
		cmocka_unit_test(write_survives_every_failure),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
