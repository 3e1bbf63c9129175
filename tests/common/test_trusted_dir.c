/*
 * Tests of common/trusted_dir.c: the walk to a trusted directory follows
 * no link anywhere on the path (a link in an ancestor is refused even when
 * it leads to a trusted directory: the issue #25 bypass), checks every
 * ancestor (sticky ones may be writable) and the directory itself.
 * Runs as any user: the caller's uid is the trusted one.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/trusted_dir.h"
#include "tests/lib/lagom_test.h"

struct fx {
	char top[64];
	char path[256];
};

/* top/a/b/dir, all 0755 */
static int setup(void **state)
{
	static struct fx f;
	char p[256];

	snprintf(f.top, sizeof(f.top), "/tmp/lagom-trust-XXXXXX");
	if (!mkdtemp(f.top) || chmod(f.top, 0755) != 0)
		return -1;
	snprintf(p, sizeof(p), "%s/a", f.top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a/b", f.top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a/b/dir", f.top);
	mkdir(p, 0755);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	static const char *const rm[] = { "a/b/dir", "a/b", "s/dir",
					  "s",	     "a",   NULL };
	char p[256];

	for (const char *const *r = rm; *r; r++) {
		snprintf(p, sizeof(p), "%s/%s", f->top, *r);
		if (rmdir(p) != 0)
			unlink(p);
	}
	snprintf(p, sizeof(p), "%s/link", f->top);
	unlink(p);
	rmdir(f->top);
	return 0;
}

/* The walk's result for top/rel: 0 when opened (the descriptor checked),
 * else the negative errno; the message in text. */
static int walk(const struct fx *f, const char *rel, char *text)
{
	struct lagom_error err = { 0 };
	char p[256];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", f->top, rel);
	fd = lagom_trusted_dir_open(p, getuid(), "test directory", &err);
	snprintf(text, LAGOM_ERROR_TEXT_MAX, "%s", err.text);
	if (fd < 0)
		return fd;
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	return 0;
}

static void plain_path_opens(void **state)
{
	char text[LAGOM_ERROR_TEXT_MAX];

	assert_int_equal(walk(*state, "a/b/dir", text), 0);
	assert_int_equal(walk(*state, "a//./b/dir/", text), 0);
}

/* A link in an ancestor, leading to a directory that passes every check:
 * refused, naming the link (realpath() first would never see it). */
static void link_in_an_ancestor_is_refused(void **state)
{
	struct fx *f = *state;
	char text[LAGOM_ERROR_TEXT_MAX], p[256], target[256];

	snprintf(p, sizeof(p), "%s/link", f->top);
	snprintf(target, sizeof(target), "%s/a", f->top);
	assert_int_equal(symlink(target, p), 0);
	assert_int_equal(walk(f, "link/b/dir", text), -EPERM);
	assert_non_null(strstr(text, "/link is a symbolic link"));
	assert_non_null(strstr(text, "test directory"));
	unlink(p);
	snprintf(target, sizeof(target), "%s/a/b/dir", f->top);
	assert_int_equal(symlink(target, p), 0);
	assert_int_equal(walk(f, "link", text), -EPERM);
	unlink(p);
}

static void ancestors_and_self_are_checked(void **state)
{
	struct fx *f = *state;
	char text[LAGOM_ERROR_TEXT_MAX], p[256];

	snprintf(p, sizeof(p), "%s/a", f->top);
	assert_int_equal(chmod(p, 0775), 0);
	assert_int_equal(walk(f, "a/b/dir", text), -EPERM);
	assert_non_null(strstr(text, "(holding the test directory) is "
				     "writable by group or others without "
				     "the sticky bit (mode 0775)"));
	assert_int_equal(chmod(p, 01777), 0); /* as /tmp */
	assert_int_equal(walk(f, "a/b/dir", text), 0);
	assert_int_equal(chmod(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/a/b/dir", f->top);
	assert_int_equal(chmod(p, 01777), 0); /* itself: never writable */
	assert_int_equal(walk(f, "a/b/dir", text), -EPERM);
	assert_non_null(strstr(text, "dir is writable by group or others"));
	assert_int_equal(chmod(p, 0755), 0);
	if (getuid() == 0) { /* another owner needs root to make */
		snprintf(p, sizeof(p), "%s/a/b", f->top);
		assert_int_equal(chown(p, 65534, 65534), 0);
		assert_int_equal(walk(f, "a/b/dir", text), -EPERM);
		assert_non_null(
			strstr(text, "is owned by uid 65534, not root"));
		assert_int_equal(chown(p, 0, 0), 0);
	}
}

static void dotdot_files_and_missing(void **state)
{
	struct fx *f = *state;
	char text[LAGOM_ERROR_TEXT_MAX], p[256];

	/* ".." takes the component before it away, as written: the link is
	 * never looked at, and what is opened is top/a/b/dir, checked */
	snprintf(p, sizeof(p), "%s/link", f->top);
	assert_int_equal(symlink("/", p), 0);
	assert_int_equal(walk(f, "a/b/../b/dir", text), 0);
	assert_int_equal(walk(f, "link/../a/b/dir", text), 0);
	assert_int_equal(walk(f, "a/b/dir/../../../link/a/b/dir", text),
			 -EPERM);
	unlink(p);
	assert_int_equal(walk(f, "a/b/nothing", text), -ENOENT);
	snprintf(p, sizeof(p), "%s/a/b/file", f->top);
	assert_int_equal(mkfifo(p, 0600), 0); /* opened O_PATH: no wait */
	assert_int_equal(walk(f, "a/b/file", text), -ENOTDIR);
	unlink(p);
}

/* A relative path is walked from "/" through the current directory. */
static void relative_path_is_walked_from_root(void **state)
{
	struct fx *f = *state;
	char text[LAGOM_ERROR_TEXT_MAX], cwd[4096], p[256];
	struct lagom_error err = { 0 };
	int fd;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(f->top), 0);
	fd = lagom_trusted_dir_open("a/b/dir", getuid(), "x", &err);
	assert_true(fd >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/a", f->top);
	assert_int_equal(chmod(p, 0777), 0);
	assert_true(lagom_trusted_dir_open("a/b/dir", getuid(), "x", &err) < 0);
	assert_int_equal(chmod(p, 0755), 0);
	assert_int_equal(chdir(cwd), 0);
	(void)text;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_path_opens),
		cmocka_unit_test(link_in_an_ancestor_is_refused),
		cmocka_unit_test(ancestors_and_self_are_checked),
		cmocka_unit_test(dotdot_files_and_missing),
		cmocka_unit_test(relative_path_is_walked_from_root),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
