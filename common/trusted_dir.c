/*
 * common/trusted_dir.c - the checked walk to a trusted directory
 * (common/trusted_dir.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/trusted_dir.h"

#define WALK_FLAGS (O_PATH | O_NOFOLLOW | O_CLOEXEC)

/* A directory above the trusted one: may be group/other-writable only
 * when sticky. */
static int check_ancestor(const struct stat *st, uid_t trusted_uid,
			  const char *name, const char *what,
			  struct lagom_error *err)
{
	char role[64];

	snprintf(role, sizeof(role), " (holding the %s)", what);
	return lagom_trust_check(st, trusted_uid, true, "directory", name, role,
				 err);
}

static int check_self(const struct stat *st, uid_t trusted_uid,
		      const char *name, struct lagom_error *err)
{
	return lagom_trust_check(st, trusted_uid, false, "directory", name, "",
				 err);
}

/* Drop ".", empty components and "..", which removes the component before
 * it, in place: "/a/./b//../c" -> "/a/c" ("/" stays "/").  Lexical, and
 * the same as the kernel's resolution here, since no component of the
 * result may be a link. */
static void normalize(char *path)
{
	char *in = path, *out = path, *comp;
	size_t n;

	while (*in) {
		while (*in == '/')
			in++;
		comp = in;
		n = strcspn(in, "/");
		in += n;
		if (n == 0 || (n == 1 && comp[0] == '.'))
			continue;
		if (n == 2 && comp[0] == '.' && comp[1] == '.') {
			while (out > path && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		memmove(out, comp, n);
		out += n;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

/* The path to walk: path itself when absolute, else the current
 * directory's name joined with it; normalized. */
static int absolute(const char *path, char *out, size_t len,
		    struct lagom_error *err)
{
	size_t n;

	if (path[0] == '/') {
		n = (size_t)snprintf(out, len, "%s", path);
	} else {
		if (!getcwd(out, len))
			return lagom_errprintf(err, errno,
					       "directory %s: the current "
					       "directory: %s",
					       path, strerror(errno));
		n = strlen(out);
		n += (size_t)snprintf(out + n, len - n, "/%s", path);
	}
	if (n >= len)
		return lagom_errprintf(err, ENAMETOOLONG,
				       "directory %s: path too long", path);
	normalize(out);
	return 0;
}

/* The next component of *p (normalized: no ".", "..", empty ones),
 * NUL-terminated in place; NULL at the end. */
static char *next_component(char **p)
{
	char *c;

	while (**p == '/')
		(*p)++;
	if (!**p)
		return NULL;
	c = *p;
	*p += strcspn(*p, "/");
	if (**p)
		*(*p)++ = '\0';
	return c;
}

/* Open comp in fd without following it: an O_PATH descriptor of a
 * directory, its stat in st, or a negative errno. */
static int step_into(int fd, const char *comp, const char *walked,
		     const char *what, struct stat *st, struct lagom_error *err)
{
	int next = openat(fd, comp, WALK_FLAGS);

	if (next < 0 || fstat(next, st) < 0) {
		int e = errno;

		if (next >= 0)
			close(next);
		return lagom_errprintf(err, e, "directory %s: %s", walked,
				       strerror(e));
	}
	if (S_ISDIR(st->st_mode))
		return next;
	close(next);
	if (S_ISLNK(st->st_mode))
		return lagom_errprintf(err, EPERM,
				       "%s is a symbolic link: the path to the "
				       "%s may hold none (name the directory "
				       "it leads to)",
				       walked, what);
	return lagom_errprintf(err, ENOTDIR, "%s: not a directory", walked);
}

int lagom_trusted_dir_open(const char *path, uid_t trusted_uid,
			   const char *what, struct lagom_error *err)
{
	char full[PATH_MAX], walked[PATH_MAX] = "";
	char *p = full, *comp;
	struct stat st;
	int fd, rc;

	if ((rc = absolute(path, full, sizeof(full), err)) < 0)
		return rc;
	fd = open("/", WALK_FLAGS | O_DIRECTORY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = lagom_errprintf(err, errno, "/: %s", strerror(errno));
		goto close_fd;
	}
	while ((comp = next_component(&p)) != NULL) {
		int next;

		rc = check_ancestor(&st, trusted_uid, walked[0] ? walked : "/",
				    what, err);
		if (rc < 0)
			goto close_fd;
		snprintf(walked + strlen(walked),
			 sizeof(walked) - strlen(walked), "/%s", comp);
		next = step_into(fd, comp, walked, what, &st, err);
		if (next < 0) {
			rc = next;
			goto close_fd;
		}
		close(fd);
		fd = next;
	}
	if ((rc = check_self(&st, trusted_uid, path, err)) < 0)
		goto close_fd;
	/* the checked directory itself, opened for reading through the
	 * checked O_PATH descriptor (no name looked up again) */
	rc = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (rc < 0)
		rc = lagom_errprintf(err, errno, "directory %s: %s", path,
				     strerror(errno));
close_fd:
	if (fd >= 0)
		close(fd);
	return rc;
}
