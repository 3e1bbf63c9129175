/* Tests of measurement/spool.c: the spool's order (version order of names,
 * at every level), the limits applied per user and said in one line, names
 * escaped in those lines, no link followed, and the user as the owner of
 * the user's directory. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measurement/spool.h"
#include "tests/lib/lagom_test.h"

#define MAX_SEEN 64

struct seen {
	char rec[MAX_SEEN][200];
	uid_t uid[MAX_SEEN];
	size_t n;
	char steps[MAX_SEEN][64];
	size_t n_steps;
	char lines[8][512];
	size_t n_lines;
};

static char root[64];
static int root_fd = -1;

static int on_record(void *ctx, const struct lagom_spool_at *at)
{
	struct seen *s = ctx;

	if (s->n < MAX_SEEN) {
		lagom_spool_where(at, s->rec[s->n], sizeof(s->rec[0]));
		s->uid[s->n++] = at->uid;
	}
	return LAGOM_SPOOL_NEXT;
}

static int on_step(void *ctx, const struct lagom_spool_at *at)
{
	struct seen *s = ctx;

	if (s->n_steps < MAX_SEEN)
		snprintf(s->steps[s->n_steps++], sizeof(s->steps[0]), "%s",
			 at->step);
	return LAGOM_SPOOL_NEXT;
}

static void on_say(void *ctx, const char *line)
{
	struct seen *s = ctx;

	if (s->n_lines < 8)
		snprintf(s->lines[s->n_lines++], sizeof(s->lines[0]), "%s",
			 line);
}

static void make(const char *rel, bool dir)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (dir) {
		assert_int_equal(mkdir(path, 0700), 0);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static void rm_tree(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	assert_int_equal(system(cmd), 0);
}

/* An empty spool again, for the next case. */
static void reset_root(void)
{
	rm_tree(root);
	assert_int_equal(mkdir(root, 0700), 0);
	close(root_fd);
	root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(root_fd >= 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/lagom-spool-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return root_fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	close(root_fd);
	rm_tree(root);
	return 0;
}

static struct lagom_spool_walk walk_of(struct seen *s)
{
	memset(s, 0, sizeof(*s));
	return (struct lagom_spool_walk){ .on_step = on_step,
					  .on_record = on_record,
					  .say = on_say,
					  .ctx = s };
}

/* Version order at every level; dot files, other files, links and FIFOs
 * are no steps or records. */
static void order_by_name(void **state)
{
	static const char *const dirs[] = {
		"alice",     "alice/10.0", "alice/9.0", "alice/9.1", "bob",
		"bob/100.0", ".hidden",	   "bad name",	"alice/.9.2"
	};
	static const char *const files[] = {
		"alice/9.0/task-10.0.rec", "alice/9.0/task-2.0.rec",
		"alice/9.0/task-9.0.rec",  "alice/9.0/.task-1.0.rec",
		"alice/9.0/key",	   "alice/9.0/predicted",
		"alice/10.0/pid-7.rec",	   "alice/9.1/x.rec.tmp",
		"bob/100.0/pid-1.rec",	   "bad name/1.0",
		".hidden/x.rec",
	};
	static const char *const want[] = {
		"alice/9.0/task-2.0.rec",  "alice/9.0/task-9.0.rec",
		"alice/9.0/task-10.0.rec", "alice/10.0/pid-7.rec",
		"bob/100.0/pid-1.rec",
	};
	char path[512];
	struct seen s;
	struct lagom_spool_walk w = walk_of(&s);

	(void)state;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		make(dirs[i], true);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		make(files[i], false);
	snprintf(path, sizeof(path), "%s/alice/9.0", root);
	assert_int_equal(symlinkat(path, root_fd, "bob/8.0"), 0);
	assert_int_equal(mkfifoat(root_fd, "bob/100.0/fifo.rec", 0600), 0);
	assert_int_equal(lagom_spool_walk_root(root_fd, &w), 0);
	/* the FIFO is a record name: listed, and refused when read */
	assert_int_equal(s.n, 6);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(s.rec[i], want[i]);
	assert_string_equal(s.rec[4], "bob/100.0/fifo.rec");
	assert_string_equal(s.rec[5], want[4]);
	/* steps: 9.0 before 9.1 before 10.0; the link 8.0 is none */
	assert_int_equal(s.n_steps, 4);
	assert_string_equal(s.steps[0], "9.0");
	assert_string_equal(s.steps[1], "9.1");
	assert_string_equal(s.steps[2], "10.0");
	assert_string_equal(s.steps[3], "100.0");
	assert_int_equal(s.n_lines, 0);
	assert_true(lagom_spool_cmp("task-9.rec", "task-10.rec") < 0);
	reset_root();
}

/* A user's steps latest first: learn.c's "the latest step with the same
 * key" stops at the first. */
static void latest_first(void **state)
{
	struct seen s;
	struct lagom_spool_walk w = walk_of(&s);
	int fd;

	(void)state;
	make("carol", true);
	make("carol/99.0", true);
	make("carol/100.0", true);
	make("carol/100.1", true);
	w.latest_first = true;
	w.lim.steps_max = 2;
	fd = openat(root_fd, "carol", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(lagom_spool_walk_user(fd, "carol", &w), 0);
	close(fd);
	assert_int_equal(s.n_steps, 2);
	assert_string_equal(s.steps[0], "100.1");
	assert_string_equal(s.steps[1], "100.0");
	assert_int_equal(s.n_lines, 1);
	assert_non_null(strstr(s.lines[0], "user carol: steps: 3 found, the "
					   "last 2 by name read"));
}

/* on_step_open: a step passed over there is never listed (no on_step,
 * no record, no limit said), before its names are known. */
static unsigned opened;

static int skip_marked(void *ctx, const struct lagom_spool_at *at)
{
	(void)ctx;
	assert_int_equal(at->found, 0);
	assert_int_equal(at->kept, 0);
	assert_null(at->name);
	opened++;
	return faccessat(at->step_fd, "skip", F_OK, 0) == 0 ? LAGOM_SPOOL_SKIP
							    : LAGOM_SPOOL_NEXT;
}

static void step_open_passes_over(void **state)
{
	struct seen s;
	struct lagom_spool_walk w = walk_of(&s);
	char name[64];
	int fd;

	(void)state;
	make("erin", true);
	make("erin/1.0", true);
	make("erin/1.0/skip", false);
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "erin/1.0/task-%d.1.rec", i);
		make(name, false);
	}
	make("erin/2.0", true);
	make("erin/2.0/task-0.1.rec", false);
	w.lim.records_max = 2; /* 1.0's 5 would be said, were it listed */
	w.on_step_open = skip_marked;
	opened = 0;
	fd = openat(root_fd, "erin", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(lagom_spool_walk_user(fd, "erin", &w), 0);
	assert_int_equal(opened, 2);
	assert_int_equal(s.n_steps, 1);
	assert_string_equal(s.steps[0], "2.0");
	assert_int_equal(s.n, 1);
	assert_string_equal(s.rec[0], "erin/2.0/task-0.1.rec");
	assert_int_equal(s.n_lines, 0);
	/* one step walked on its own: the same */
	w = walk_of(&s);
	w.on_step_open = skip_marked;
	assert_int_equal(lagom_spool_walk_step(fd, "1.0", getuid(), &w), 0);
	assert_int_equal(s.n_steps + s.n, 0);
	close(fd);
	reset_root();
}

/* One user's many records and steps never push another user's out; each
 * limit reached is one line naming the user. */
static void limits_per_user(void **state)
{
	char rel[128];
	struct seen s;
	struct lagom_spool_walk w = walk_of(&s);

	(void)state;
	make("dave", true);
	make("erin", true);
	for (int st = 1; st <= 3; st++) {
		snprintf(rel, sizeof(rel), "dave/%d.0", st);
		make(rel, true);
		for (int t = 0; t < 4; t++) {
			snprintf(rel, sizeof(rel), "dave/%d.0/task-%d.rec", st,
				 t);
			make(rel, false);
		}
	}
	make("erin/5.0", true);
	make("erin/5.0/task-0.rec", false);
	make("erin/5.0/task-1.rec", false);
	w.lim.records_max = 3;
	w.lim.user_records_max = 5;
	assert_int_equal(lagom_spool_walk_root(root_fd, &w), 0);
	/* dave: 3 of 4 in step 1.0, 2 of step 2.0, then his limit */
	assert_int_equal(s.n, 7);
	assert_string_equal(s.rec[0], "dave/1.0/task-0.rec");
	assert_string_equal(s.rec[4], "dave/2.0/task-1.rec");
	/* erin: all of hers */
	assert_string_equal(s.rec[5], "erin/5.0/task-0.rec");
	assert_string_equal(s.rec[6], "erin/5.0/task-1.rec");
	assert_int_equal(s.n_lines, 3);
	assert_string_equal(s.lines[0], "spool: user dave: records of step "
					"1.0: 4 found, the first 3 by name "
					"read");
	assert_string_equal(s.lines[1], "spool: user dave: records of step "
					"2.0: 4 found, the first 3 by name "
					"read");
	assert_string_equal(s.lines[2], "spool: user dave: more than 5 "
					"records: the rest not read");
	reset_root();
}

/* A record's name reaches a line escaped: no escape sequence, no newline
 * of its own. */
static void names_escaped(void **state)
{
	struct seen s;
	struct lagom_spool_walk w = walk_of(&s);

	(void)state;
	make("frank", true);
	make("frank/1.0", true);
	make("frank/1.0/\x1b]0;owned\a\n.rec", false);
	assert_int_equal(lagom_spool_walk_root(root_fd, &w), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.rec[0], "frank/1.0/\\x1b]0;owned\\x07\\x0a.rec");
	reset_root();
}

/* The user is the owner of the user's directory, and a record there is
 * read only when that user owns it (chown needs root). */
static void owner_is_the_users_directory(void **state)
{
	static char text[LAGOM_REC_MAX_BYTES + 1];
	static struct lagom_rec rec, scratch;
	struct lagom_error err = { 0 };
	struct seen s;
	struct lagom_spool_walk w = walk_of(&s);
	struct lagom_spool_at at = { .user = "gina", .step = "1.0" };

	(void)state;
	if (geteuid() != 0) {
		print_message("# not checked: chown(2) needs root\n");
		return;
	}
	make("gina", true);
	make("gina/1.0", true);
	make("gina/1.0/task-0.rec", false);
	assert_int_equal(fchownat(root_fd, "gina", 4242, 4242, 0), 0);
	assert_int_equal(lagom_spool_walk_root(root_fd, &w), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.uid[0], 4242);
	/* root's file in gina's step: not hers, refused */
	at.uid = 4242;
	at.name = "task-0.rec";
	at.step_fd = openat(root_fd, "gina/1.0", O_RDONLY | O_DIRECTORY);
	assert_true(at.step_fd >= 0);
	assert_int_equal(
		lagom_spool_read_record(&at, text, &rec, &scratch, &err),
		-EPERM);
	assert_string_equal(err.text, "owned by uid 0, not 4242");
	close(at.step_fd);
}

/* What calibrate's operand is, from where its records are. */
static void level_of_a_directory(void **state)
{
	int fd;

	(void)state;
	make("hal", true);
	make("hal/3.0", true);
	make("hal/3.0/task-0.rec", false);
	assert_int_equal(lagom_spool_level(root_fd), LAGOM_SPOOL_LEVEL_ROOT);
	fd = openat(root_fd, "hal", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(lagom_spool_level(fd), LAGOM_SPOOL_LEVEL_USER);
	close(fd);
	fd = openat(root_fd, "hal/3.0", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(lagom_spool_level(fd), LAGOM_SPOOL_LEVEL_STEP);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(order_by_name),
		cmocka_unit_test(latest_first),
		cmocka_unit_test(step_open_passes_over),
		cmocka_unit_test(limits_per_user),
		cmocka_unit_test(names_escaped),
		cmocka_unit_test(owner_is_the_users_directory),
		cmocka_unit_test(level_of_a_directory),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
