/*
 * tests/workload/test_file.c - the one rule for "this --workload value names
 * a file" and the bounded reader the plugin and the CLI share
 * (workload/file.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"
#include "workload/workload.h"

static char dir[64];

static const char *const doc =
	"{\"lagom_workload\": 1, \"name\": \"w\", \"regions\": [{\"name\": "
	"\"r\", \"kernels\": [{\"time_s\": 0.001}]}]}";

static void put(const char *name, const char *text, size_t pad)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	while (pad--)
		fputc(' ', f);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/lagom-wlfile-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	put("w.json", doc, 0);
	/* Valid JSON, one byte over the bound (trailing blanks). */
	put("big.json", doc, LAGOM_WORKLOAD_FILE_MAX + 1 - strlen(doc));
	return 0;
}

static int teardown(void **state)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/w.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/big.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/fifo.json", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

/* The text decides, never the files that happen to exist. */
static void the_rule(void **state)
{
	assert_true(lagom_workload_is_file("./w.json"));
	assert_true(lagom_workload_is_file("w.json"));
	assert_true(lagom_workload_is_file("/tmp/w"));
	assert_true(lagom_workload_is_file("dir/w"));
	assert_false(lagom_workload_is_file("llama-3.1-8b:tp8,mb4"));
	/* The CLI used to take these as files (".json" anywhere, or an
	 * existing path); the plugin takes them as catalog names. */
	assert_false(lagom_workload_is_file("w.json.bak"));
	assert_false(lagom_workload_is_file(".json"));
	assert_false(lagom_workload_is_file("Makefile"));
	assert_false(lagom_workload_is_file(NULL));
}

static void relative_to_cwd(void **state)
{
	struct lagom_workload *w = NULL;
	struct lagom_error err = { 0 };

	if (lagom_workload_read_path("w.json", dir, &w, &err))
		fail_msg("%s", err.text);
	assert_string_equal(w->name, "w");
	lagom_workload_destroy(w);
}

static void over_the_bound_is_refused(void **state)
{
	char path[128];
	struct lagom_workload *w = NULL;
	struct lagom_error err = { 0 };

	snprintf(path, sizeof(path), "%s/big.json", dir);
	assert_int_equal(lagom_workload_read_file(path, &w, &err), -EINVAL);
	assert_null(w);
	assert_non_null(strstr(err.text, "not a regular file of at most"));
	assert_non_null(strstr(err.text, path));
}

/* A FIFO would block a reader that waits for a writer. */
static void fifo_is_refused(void **state)
{
	char path[128];
	struct lagom_workload *w = NULL;
	struct lagom_error err = { 0 };

	snprintf(path, sizeof(path), "%s/fifo.json", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(lagom_workload_read_path("fifo.json", dir, &w, &err),
			 -EINVAL);
	assert_null(w);
}

static void missing_names_the_path(void **state)
{
	struct lagom_workload *w = NULL;
	struct lagom_error err = { 0 };

	assert_int_equal(lagom_workload_read_path("nope.json", dir, &w, &err),
			 -ENOENT);
	assert_non_null(strstr(err.text, dir));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_rule),
		cmocka_unit_test(relative_to_cwd),
		cmocka_unit_test(over_the_bound_is_refused),
		cmocka_unit_test(fifo_is_refused),
		cmocka_unit_test(missing_names_the_path),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
