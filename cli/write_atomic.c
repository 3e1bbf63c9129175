/*
 * cli/write_atomic.c - replace a file so that a reader sees the old one or
 * the whole new one (cli/cli.h): the policy, --svg pictures, synthesized
 * profiles and imported workloads.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
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

int cli_write_atomic(const char *what, const char *path, const void *data,
		     size_t len, unsigned mode,
		     int (*check)(const char *tmp, void *ctx), void *ctx)
{
	char *dcopy = strdup(path), *bcopy = strdup(path), *full = NULL;
	const char *dir = NULL, *base = NULL;
	char tmp[PATH_MAX];
	int dfd = -1, rc;

	if (!dcopy || !bcopy) {
		rc = cli_fail(CLI_FAIL, "out of memory");
		goto out;
	}
	dir = dirname(dcopy);
	base = basename(bcopy);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = dfd < 0 ? -errno
		     : lagom_write_temp_at(dfd, base, data, len,
					   file_mode(mode), true, tmp,
					   sizeof(tmp));
	if (rc) {
		rc = fail(what, path, -rc);
		goto out;
	}
	if (check) {
		if (asprintf(&full, "%s/%s", dir, tmp) < 0) {
			full = NULL;
			rc = cli_fail(CLI_FAIL, "out of memory");
		} else {
			rc = check(full, ctx);
		}
		if (rc != CLI_OK) {
			unlinkat(dfd, tmp, 0);
			goto out;
		}
	}
	rc = lagom_commit_temp_at(dfd, tmp, base, true);
	rc = rc ? fail(what, path, -rc) : CLI_OK;
out:
	if (dfd >= 0)
		close(dfd);
	free(full);
	free(dcopy);
	free(bcopy);
	return rc;
}
