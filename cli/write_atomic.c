/*
 * cli/write_atomic.c - replace a file so that a reader sees the old one or
 * the whole new one (cli/cli.h): the policy, --svg pictures, synthesized
 * profiles and imported workloads.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/io.h"

static int fail(const char *what, const char *path, int err)
{
	if (what)
		return cli_fail(CLI_FAIL, "%s %s: %s", what, path,
				strerror(err));
	return cli_fail(CLI_FAIL, "%s: %s", path, strerror(err));
}

/* Mode 0: what open(2) would give, 0666 less the umask. */
static mode_t file_mode(unsigned mode)
{
	mode_t mask;

	if (mode)
		return (mode_t)mode;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/* Write, set the mode, fsync, close: 0, or -1 with errno. */
static int fill(int fd, const void *data, size_t len, mode_t mode)
{
	int rc = lagom_write_all(fd, data, len) || fchmod(fd, mode) ||
		 fsync(fd);
	int saved = errno;

	if (close(fd) != 0 && !rc)
		return -1;
	errno = saved;
	return rc ? -1 : 0;
}

int cli_write_atomic(const char *what, const char *path, const void *data,
		     size_t len, unsigned mode,
		     int (*check)(const char *tmp, void *ctx), void *ctx)
{
	char *dcopy = strdup(path), *bcopy = strdup(path), *tmp = NULL;
	const char *dir = NULL;
	int fd, dfd, rc = CLI_FAIL;

	if (dcopy && bcopy) {
		dir = dirname(dcopy);
		if (asprintf(&tmp, "%s/.%s.XXXXXX", dir, basename(bcopy)) < 0)
			tmp = NULL;
	}
	if (!tmp) {
		rc = cli_fail(CLI_FAIL, "out of memory");
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = fail(what, path, errno);
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if (fill(fd, data, len, file_mode(mode)) != 0) {
		rc = fail(what, path, errno);
		goto out;
	}
	if (check && (rc = check(tmp, ctx)) != CLI_OK)
		goto out;
	if (rename(tmp, path) != 0) {
		rc = fail(what, path, errno);
		goto out;
	}
	free(tmp);
	tmp = NULL;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	rc = CLI_OK;
out:
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(dcopy);
	free(bcopy);
	return rc;
}
