/*
 * profile/profile_io.c - reading profiles under the trust policy, and the
 * atomic writer.  See profile.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/trusted_dir.h"
#include "profile/profile.h"
#include "profile/profile_int.h"

#define OPEN_DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)

/* Trust: owned by root or the configured uid, not writable by group/others. */
static int check_owner_mode(const struct stat *st, const struct lagom_trust *t,
			    const char *what, const char *name,
			    struct lagom_error *err)
{
	if (st->st_uid != 0 && st->st_uid != t->owner_uid)
		return lagom_errprintf(
			err, EPERM, "%s %s is owned by uid %u, not root%s",
			what, name, (unsigned)st->st_uid,
			t->owner_uid ? " or the trusted uid" : "");
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return lagom_errprintf(
			err, EPERM,
			"%s %s is writable by group or others (mode %04o)",
			what, name, (unsigned)(st->st_mode & 07777));
	return 0;
}

/* The trusted directory dir: common/trusted_dir.h's walk, as given, from
 * "/" (no link followed anywhere, every ancestor checked). */
static int open_trusted_dir(const char *dir, const struct lagom_trust *t,
			    struct lagom_error *err)
{
	return lagom_trusted_dir_open(dir, t->owner_uid, "profile directory",
				      err);
}

/* Open base in the directory dfd: with trust, never through a symlink, and
 * the file checked with fstat on the opened descriptor; without, a regular
 * file wherever a link leads. */
static int open_at(int dfd, const char *base, const struct lagom_trust *t,
		   struct lagom_error *err)
{
	struct stat st;
	int fd, rc;

	fd = openat(dfd, base,
		    O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
			    (t ? O_NOFOLLOW : 0));
	if (fd < 0)
		return errno == ELOOP && t
			       ? lagom_errprintf(err, EPERM, "%s is a symlink",
						 base)
			       : lagom_errprintf(err, errno, "%s",
						 strerror(errno));
	if (fstat(fd, &st) < 0) {
		rc = lagom_errprintf(err, errno, "%s", strerror(errno));
		goto close_file;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = lagom_errprintf(err, t ? EPERM : EINVAL,
				     "not a regular file");
		goto close_file;
	}
	if (t && (rc = check_owner_mode(&st, t, "file", base, err)) < 0)
		goto close_file;
	return fd;
close_file:
	close(fd);
	return rc;
}

/* Open base relative to the trusted directory dir, never through a symlink,
 * and check both with fstat on the opened descriptors. */
static int open_trusted(const char *dir, const char *base,
			const struct lagom_trust *t, struct lagom_error *err)
{
	int dfd, fd;

	dfd = open_trusted_dir(dir, t, err);
	if (dfd < 0)
		return dfd;
	fd = open_at(dfd, base, t, err);
	close(dfd);
	return fd;
}

static int open_relaxed(const char *path, struct lagom_error *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return lagom_errprintf(err, errno, "%s", strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return lagom_errprintf(err, EINVAL, "not a regular file");
	}
	return fd;
}

/* Read at most max bytes; one byte more is -EFBIG.  The buffer grows with
 * what is there, so a small file under a large limit stays small. */
static int read_limited(int fd, size_t max, char **buf, size_t *len,
			struct lagom_error *err)
{
	const size_t cap = max + 1;
	struct stat st;
	size_t got = 0, size;
	char *b;

	if (fstat(fd, &st) == 0 && st.st_size > (off_t)max)
		return lagom_errprintf(err, EFBIG,
				       "%lld bytes, over the %zu byte limit",
				       (long long)st.st_size, max);
	size = st.st_size > 0 && (size_t)st.st_size < max
		       ? (size_t)st.st_size + 2
		       : cap;
	size = size < 4096 && cap > 4096 ? 4096 : size;
	b = malloc(size);
	if (b == NULL)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	while (got < cap) {
		ssize_t n;

		if (got == size) { /* grew while we read: up to the cap */
			size_t bigger = size * 2 < cap ? size * 2 : cap;
			char *nb = realloc(b, bigger);

			if (nb == NULL) {
				free(b);
				return lagom_errprintf(err, ENOMEM,
						       "out of memory");
			}
			b = nb;
			size = bigger;
		}
		n = read(fd, b + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(b);
			return lagom_errprintf(err, e, "read: %s", strerror(e));
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > max) {
		free(b);
		return lagom_errprintf(err, EFBIG, "over the %zu byte limit",
				       max);
	}
	*buf = b;
	*len = got;
	return 0;
}

/* Split path into its directory ("." when none) and last component. */
static int split_path(const char *path, char *dir, size_t size,
		      const char **base)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL) {
		snprintf(dir, size, ".");
		*base = path;
	} else if ((size_t)(slash - path) + 2 > size) {
		return -1;
	} else {
		size_t n = slash == path ? 1 : (size_t)(slash - path);

		memcpy(dir, path, n);
		dir[n] = '\0';
		*base = slash + 1;
	}
	return (*base)[0] == '\0' ? -1 : 0;
}

int lagom_profile_read_file(const char *path, const struct lagom_trust *trust,
			    struct lagom_profile **out, struct lagom_error *err)
{
	char dir[PATH_MAX];
	const char *base;
	char *buf = NULL;
	size_t len = 0;
	int fd, rc;

	if (split_path(path, dir, sizeof(dir), &base) < 0)
		return lagom_errprintf(err, EINVAL,
				       "profile %s: not a file path", path);
	fd = trust ? open_trusted(dir, base, trust, err)
		   : open_relaxed(path, err);
	if (fd < 0)
		return lagom_error_prefix(err, "profile %s", path);
	rc = read_limited(fd, LAGOM_PROFILE_MAX_BYTES, &buf, &len, err);
	close(fd);
	if (rc == 0) {
		rc = lagom_profile_from_buffer(buf, len, out, err);
		free(buf);
	}
	if (rc < 0)
		return lagom_error_prefix(err, "profile %s", path);
	return 0;
}

int lagom_profile_dir_open(const char *dir, const struct lagom_trust *trust,
			   struct lagom_error *err)
{
	int fd;

	if (trust)
		return open_trusted_dir(dir, trust, err);
	fd = open(dir, OPEN_DIR_FLAGS);
	if (fd < 0)
		return lagom_errprintf(err, errno, "directory %s: %s", dir,
				       strerror(errno));
	return fd;
}

int lagom_profile_read_at(int dfd, const char *base,
			  const struct lagom_trust *trust, size_t max,
			  char **buf, size_t *len, struct stat *st,
			  struct lagom_error *err)
{
	int fd = open_at(dfd, base, trust, err);
	int rc;

	if (fd < 0)
		return fd;
	rc = st && fstat(fd, st) < 0
		     ? lagom_errprintf(err, errno, "%s", strerror(errno))
		     : read_limited(fd, max, buf, len, err);
	close(fd);
	return rc;
}

int lagom_profile_load_node_at(int dfd, const char *dir, const char *node,
			       const struct lagom_trust *trust,
			       struct lagom_profile **out, struct stat *st,
			       struct lagom_error *err)
{
	char base[LAGOM_PROFILE_NAME_MAX + 8];
	struct lagom_profile *p = NULL;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (!lagom_profile_node_name_ok(node))
		return lagom_errprintf(err, EINVAL,
				       "\"%s\" is not a valid node name", node);
	snprintf(base, sizeof(base), "%s.json", node);
	rc = lagom_profile_read_at(dfd, base, trust, LAGOM_PROFILE_MAX_BYTES,
				   &buf, &len, st, err);
	if (rc == 0) {
		rc = lagom_profile_from_buffer(buf, len, &p, err);
		free(buf);
	}
	if (rc < 0)
		return lagom_error_prefix(err, "profile %s/%s", dir, base);
	if (strcmp(p->node, node) != 0) {
		rc = lagom_errprintf(err, EINVAL,
				     "profile %s/%s: written for node \"%s\"",
				     dir, base, p->node);
		lagom_profile_destroy(p);
		return rc;
	}
	*out = p;
	return 0;
}

int lagom_profile_load_node(const char *dir, const char *node,
			    const struct lagom_trust *trust,
			    struct lagom_profile **out, struct lagom_error *err)
{
	int dfd, rc;

	if (!lagom_profile_node_name_ok(node))
		return lagom_errprintf(err, EINVAL,
				       "\"%s\" is not a valid node name", node);
	if (strlen(dir) + strlen(node) + 6 >= PATH_MAX)
		return lagom_errprintf(err, ENAMETOOLONG,
				       "profile directory name too long");
	dfd = lagom_profile_dir_open(dir, trust, err);
	if (dfd < 0)
		return lagom_error_prefix(err, "profile %s/%s.json", dir, node);
	rc = lagom_profile_load_node_at(dfd, dir, node, trust, out, NULL, err);
	close(dfd);
	return rc;
}

int lagom_profile_trust_stat(const struct stat *st,
			     const struct lagom_trust *trust, const char *base,
			     struct lagom_error *err)
{
	if (!S_ISREG(st->st_mode))
		return lagom_errprintf(err, EPERM, "%s: not a regular file",
				       base);
	return trust ? check_owner_mode(st, trust, "file", base, err) : 0;
}
