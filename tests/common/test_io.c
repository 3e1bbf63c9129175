/* Tests of common/io.c: whole writes and reads through a pipe. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/io.h"
#include "tests/lib/lagom_test.h"

#define BIG (256 * 1024) /* four times a pipe's buffer: short transfers */

/* A child writes BIG bytes in one call; the parent reads them in one. */
static void write_all_and_read_all_move_every_byte(void **state)
{
	char *out = malloc(BIG), *in = malloc(BIG + 1);
	int fds[2], status;
	size_t got = 0;
	pid_t pid;

	assert_non_null(out);
	assert_non_null(in);
	for (size_t i = 0; i < BIG; i++)
		out[i] = (char)(i * 7);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		_exit(lagom_write_all(fds[1], out, BIG) == 0 ? 0 : 1);
	}
	close(fds[1]);
	/* cap above what comes: stops at the end of the file */
	assert_int_equal(lagom_read_all(fds[0], in, BIG + 1, &got), 0);
	close(fds[0]);
	assert_int_equal(got, BIG);
	assert_memory_equal(in, out, BIG);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(out);
	free(in);
}

static void read_all_stops_at_cap(void **state)
{
	char in[4];
	int fds[2];
	size_t got = 99;

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(lagom_write_all(fds[1], "abcdef", 6), 0);
	assert_int_equal(lagom_read_all(fds[0], in, sizeof(in), &got), 0);
	assert_int_equal(got, 4);
	assert_memory_equal(in, "abcd", 4);
	close(fds[0]);
	close(fds[1]);
}

static void errors_are_negative_errno(void **state)
{
	char in[4];
	int fds[2];
	size_t got = 99;

	assert_int_equal(lagom_read_all(-1, in, sizeof(in), &got), -EBADF);
	assert_int_equal(got, 0);
	assert_int_equal(lagom_write_all(-1, "x", 1), -EBADF);
	assert_int_equal(errno, EBADF);
	/* no reader left */
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	assert_int_equal(lagom_write_all(fds[1], "x", 1), -EPIPE);
	close(fds[1]);
	/* nothing to write: nothing is written, no error */
	assert_int_equal(lagom_write_all(-1, "", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(write_all_and_read_all_move_every_byte),
		cmocka_unit_test(read_all_stops_at_cap),
		cmocka_unit_test(errors_are_negative_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
