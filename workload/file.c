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

/* The whole file, NUL-terminated (common/io.h's reader, following a
 * path the user named, with the user's rights), or NULL with err. */
static char *slurp(const char *path, struct lagom_error *err)
{
	struct lagom_read_rule rule = { .max_bytes = LAGOM_WORKLOAD_FILE_MAX,
					.follow = true };
	size_t len = 0;
	char *text = NULL;
	int rc = lagom_read_file_alloc_at(AT_FDCWD, path, &rule, &text, &len,
					  NULL, err);

	if (rc == -EINVAL || rc == -EFBIG)
		lagom_errprintf(err, EINVAL,
				"%s: not a regular file of at most %d bytes",
				path, LAGOM_WORKLOAD_FILE_MAX);
	else if (rc < 0)
		lagom_error_prefix(err, "%s", path);
	return rc < 0 ? NULL : text;
}

int lagom_workload_read_path(const char *path, const char *cwd,
			     struct lagom_workload **out,
			     struct lagom_error *err)
{
	char full[PATH_MAX];
	char *text;
	int rc;

	if (!path || !path[0] || !out)
		return lagom_errprintf(err, EINVAL, "missing argument");
	if (path[0] != '/' && cwd && cwd[0])
		rc = snprintf(full, sizeof(full), "%s/%s", cwd, path);
	else
		rc = snprintf(full, sizeof(full), "%s", path);
	if (rc < 0 || (size_t)rc >= sizeof(full))
		return lagom_errprintf(err, ENAMETOOLONG, "path too long");
	text = slurp(full, err);
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
