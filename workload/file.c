/*
 * workload/file.c - which --workload values name a file, and the bounded
 * reader the plugin and the CLI share (see workload/workload.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "workload/workload.h"

bool lagom_workload_is_file(const char *arg)
{
	size_t n;

	if (!arg)
		return false;
	n = strlen(arg);
	return strchr(arg, '/') || (n > 5 && strcmp(arg + n - 5, ".json") == 0);
}

/* The whole file, NUL-terminated, or NULL with err. */
static char *slurp(int fd, const char *path, struct lagom_error *err)
{
	struct stat st;
	char *text;
	size_t got = 0;
	int rc;

	if (fstat(fd, &st) < 0) {
		lagom_errprintf(err, errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > LAGOM_WORKLOAD_FILE_MAX) {
		lagom_errprintf(err, EINVAL,
				"%s: not a regular file of at most %d bytes",
				path, LAGOM_WORKLOAD_FILE_MAX);
		return NULL;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		lagom_errprintf(err, ENOMEM, "out of memory");
		return NULL;
	}
	/* Bounded by the size fstat saw: a file growing meanwhile is cut. */
	rc = lagom_read_all(fd, text, (size_t)st.st_size, &got);
	if (rc < 0) {
		lagom_errprintf(err, -rc, "%s: %s", path, strerror(-rc));
		free(text);
		return NULL;
	}
	text[got] = '\0';
	return text;
}

int lagom_workload_read_path(const char *path, const char *cwd,
			     struct lagom_workload **out,
			     struct lagom_error *err)
{
	char full[PATH_MAX];
	char *text;
	int fd, rc;

	if (!path || !path[0] || !out)
		return lagom_errprintf(err, EINVAL, "missing argument");
	if (path[0] != '/' && cwd && cwd[0])
		rc = snprintf(full, sizeof(full), "%s/%s", cwd, path);
	else
		rc = snprintf(full, sizeof(full), "%s", path);
	if (rc < 0 || (size_t)rc >= sizeof(full))
		return lagom_errprintf(err, ENAMETOOLONG, "path too long");
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return lagom_errprintf(err, errno, "%s: %s", full,
				       strerror(errno));
	text = slurp(fd, full, err);
	close(fd);
	if (!text)
		return -(err && err->errnum ? err->errnum : EIO);
	rc = lagom_workload_read_string(text, out, err);
	free(text);
	if (rc)
		lagom_error_prefix(err, "%s", full);
	return rc;
}

int lagom_workload_read_file(const char *path, struct lagom_workload **out,
			     struct lagom_error *err)
{
	return lagom_workload_read_path(path, NULL, out, err);
}
