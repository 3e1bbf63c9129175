/*
 * tests/planner/test_planner_oom.c - every allocation the planner makes
 * (planner/, search/, model/, profile/, linked statically) fails in turn.
 * Each run must either fail whole with -ENOMEM and no result, or succeed
 * with exactly the plan, id and environment of a run where nothing failed:
 * a node short of memory must never plan differently from the others (NCCL
 * hangs when ranks disagree).  Leaks on the error paths are caught by
 * LeakSanitizer in the sanitizer build.
 *
 * The allocation functions are wrapped at link time (-Wl,--wrap=...):
 * only calls from the statically linked objects go through the wrappers.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"
#include "tests/lib/write_profile.h"
#include "planner/planner.h"
#include "profile/profile.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_asprintf(char **out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Allocations left before the one that fails (-1: none fails). */
static long fail_countdown = -1;
static long alloc_calls;

static int fail_now(void)
{
	alloc_calls++;
	if (fail_countdown < 0)
		return 0;
	return fail_countdown-- == 0;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return fail_now() ? NULL : __real_strndup(s, n);
}

int __wrap_asprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int rc;

	if (fail_now())
		return -1;
	va_start(ap, fmt);
	rc = vasprintf(out, fmt, ap);
	va_end(ap);
	return rc;
}

struct fx {
	char dir[64];
};

static void write_profile(const char *dir, const char *node, const char *gpu,
			  int gpus, int sms, int nvlinks)
{
	lagom_test_write_profile(dir, &(struct lagom_test_profile){
					      .node = node,
					      .gpu = gpu,
					      .gpus = gpus,
					      .sms = sms,
					      .nvlinks = nvlinks,
					      .nics = 4,
					      .nic_Bps = 50e9,
				      });
}

static int setup(void **state)
{
	static struct fx f;

	snprintf(f.dir, sizeof(f.dir), "/tmp/lagom-planner-oom-XXXXXX");
	if (!mkdtemp(f.dir))
		return -1;
	write_profile(f.dir, "n001", "H100-SXM", 8, 132, 18);
	write_profile(f.dir, "n002", "H100-SXM", 8, 132, 18);
	write_profile(f.dir, "a001", "A100-SXM", 4, 108, 12);
	write_profile(f.dir, "a002", "A100-SXM", 4, 108, 12);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	static const char *const nodes[] = { "n001", "n002", "a001", "a002" };
	struct fx *f = *state;
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.json", f->dir, nodes[i]);
		unlink(path);
	}
	rmdir(f->dir);
	return 0;
}

static void assert_same(const struct lagom_planner_result *a,
			const struct lagom_planner_result *b, long n)
{
	size_t i;

	if (strcmp(a->plan_text, b->plan_text) != 0)
		fail_msg("allocation %ld failed, yet a different plan:\n"
			 "# want %s\n# got  %s",
			 n, a->plan_text, b->plan_text);
	assert_string_equal(a->plan_id, b->plan_id);
	assert_string_equal(a->summary, b->summary);
	assert_int_equal(a->env_count, b->env_count);
	for (i = 0; i < a->env_count; i++) {
		assert_string_equal(a->env[i].name, b->env[i].name);
		assert_string_equal(a->env[i].value, b->env[i].value);
	}
}

/* Fail allocation 0, 1, 2, ... until a run no longer reaches the failure. */
static void sweep(const struct fx *f, const char *const *names,
		  const char *workload, unsigned nodes, unsigned gpus)
{
	struct lagom_planner_input in = {
		.profile_dir = f->dir,
		.node_names = names,
		.node_count = nodes,
		.ranks_per_node = gpus,
		.gpus_per_node = gpus,
		.workload_name = workload,
		.tuner_path = "/usr/lib/libnccl-tuner-lagom.so",
		.job_id = 7,
	};
	struct lagom_planner_result *ref = NULL;
	struct lagom_error err = { 0 };
	long n;

	if (lagom_planner_run(&in, &ref, &err) != 0)
		fail_msg("reference run: %s", err.text);
	for (n = 0;; n++) {
		struct lagom_planner_result *r = NULL;
		int rc;

		fail_countdown = n;
		alloc_calls = 0;
		rc = lagom_planner_run(&in, &r, &err);
		fail_countdown = -1;
		if (alloc_calls <= n) { /* nothing failed: done */
			assert_int_equal(rc, 0);
			lagom_planner_result_destroy(r);
			break;
		}
		if (rc == 0) {
			assert_same(ref, r, n);
			lagom_planner_result_destroy(r);
			continue;
		}
		if (rc != -ENOMEM)
			fail_msg("allocation %ld failed: %d (%s), want -ENOMEM",
				 n, rc, err.text);
		assert_null(r);
	}
	lagom_planner_result_destroy(ref);
}

static const char *const h100[] = { "n002", "n001" };
static const char *const a100[] = { "a002", "a001" };

static void fsdp_workload(void **state)
{
	sweep(*state, h100, "llama-3.1-8b:fsdp", 2, 8);
}

static void tensor_parallel_workload(void **state)
{
	sweep(*state, h100, "llama-3.1-8b:tp8,mb4", 2, 8);
}

static void expert_parallel_workload(void **state)
{
	sweep(*state, h100, "deepseek-moe-16b:ep8,mb2", 2, 8);
}

static void single_gpu_fallback(void **state)
{
	sweep(*state, h100, "llama-3.1-8b:fsdp", 1, 1);
}

/*
 * The catalog worst case (no workload, --lagom=auto's default): a failed
 * allocation must not read as "this catalog example does not fit".
 */
static void no_workload(void **state)
{
	sweep(*state, a100, NULL, 2, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fsdp_workload),
		cmocka_unit_test(tensor_parallel_workload),
		cmocka_unit_test(expert_parallel_workload),
		cmocka_unit_test(single_gpu_fallback),
		cmocka_unit_test(no_workload),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
