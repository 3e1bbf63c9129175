/*
 * common/io.c - whole reads and writes, guarded opens (common/io.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"

#define GUARD_FLAGS (O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
#define TEMP_TRIES 100

int lagom_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EIO;
		if (n <= 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int lagom_read_all(int fd, void *buf, size_t cap, size_t *got)
{
	char *p = buf;

	*got = 0;
	while (*got < cap) {
		ssize_t n = read(fd, p + *got, cap - *got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

int lagom_open_at(int dfd, const char *name, int flags, mode_t mode,
		  struct stat *st)
{
	struct stat own;
	bool dir = (flags & O_DIRECTORY) != 0;
	int fd = openat(dfd, name, flags | GUARD_FLAGS, mode);

	if (!st)
		st = &own;
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int lagom_create_temp_at(int dfd, const char *prefix, mode_t mode, char *name,
			 size_t len)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (int attempt = 0; attempt < TEMP_TRIES; attempt++) {
		int fd;

		if ((size_t)snprintf(name, len, "%s.%ld.%ld", prefix,
				     (long)getpid(),
				     (long)ts.tv_nsec + attempt) >= len)
			return -ENAMETOOLONG;
		fd = lagom_open_at(dfd, name,
				   O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, mode,
				   NULL);
		if (fd != -EEXIST)
			return fd;
	}
	return -EEXIST;
}

int lagom_write_temp_at(int dfd, const char *final, const void *buf, size_t len,
			mode_t mode, bool durable, char *tmp, size_t tmp_len)
{
	char prefix[256];
	int fd, rc;

	if ((size_t)snprintf(prefix, sizeof(prefix), ".%s", final) >=
	    sizeof(prefix))
		return -ENAMETOOLONG;
	fd = lagom_create_temp_at(dfd, prefix, mode, tmp, tmp_len);
	if (fd < 0)
		return fd;
	rc = lagom_write_all(fd, buf, len);
	if (rc == 0 && fchmod(fd, mode) != 0)
		rc = -errno;
	if (rc == 0 && durable && fsync(fd) != 0)
		rc = -errno;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0)
		unlinkat(dfd, tmp, 0);
	return rc;
}

int lagom_commit_temp_at(int dfd, const char *tmp, const char *final,
			 bool durable)
{
	if (renameat(dfd, tmp, dfd, final) != 0) {
		int rc = -errno;

		unlinkat(dfd, tmp, 0);
		return rc;
	}
	if (durable && fsync(dfd) != 0)
		return -errno;
	return 0;
}

int lagom_replace_at(int dfd, const char *final, const void *buf, size_t len,
		     mode_t mode, bool durable)
{
	char tmp[300];
	int rc = lagom_write_temp_at(dfd, final, buf, len, mode, durable, tmp,
				     sizeof(tmp));

	return rc ? rc : lagom_commit_temp_at(dfd, tmp, final, durable);
}

int lagom_trust_check(const struct stat *st, uid_t trusted_uid, bool sticky_ok,
		      const char *what, const char *name, const char *role,
		      struct lagom_error *err)
{
	if (st->st_uid != 0 && st->st_uid != trusted_uid)
		return lagom_errprintf(
			err, EPERM, "%s %s%s is owned by uid %u, not root%s",
			what, name, role, (unsigned)st->st_uid,
			trusted_uid ? " or the trusted uid" : "");
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(sticky_ok && (st->st_mode & S_ISVTX)))
		return lagom_errprintf(
			err, EPERM,
			"%s %s%s is writable by group or others%s (mode %04o)",
			what, name, role,
			sticky_ok ? " without the sticky bit" : "",
			(unsigned)(st->st_mode & 07777));
	return 0;
}

/* dfd/name opened and checked under rule: a descriptor, or -errno. */
static int open_checked(int dfd, const char *name,
			const struct lagom_read_rule *rule, struct stat *st,
			struct lagom_error *err)
{
	bool trusted = rule->owner == LAGOM_OWNER_TRUSTED;
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
		    (rule->follow ? 0 : O_NOFOLLOW);
	int fd = openat(dfd, name, flags), rc;

	if (fd < 0) {
		if (errno == ELOOP && !rule->follow)
			return lagom_errprintf(err, trusted ? EPERM : ELOOP,
					       "a symbolic link");
		return lagom_errprintf(err, errno, "%s", strerror(errno));
	}
	if (fstat(fd, st) != 0) {
		rc = lagom_errprintf(err, errno, "%s", strerror(errno));
		goto close_fd;
	}
	if (!S_ISREG(st->st_mode)) {
		rc = lagom_errprintf(err, trusted ? EPERM : EINVAL,
				     "not a regular file");
		goto close_fd;
	}
	if (rule->owner == LAGOM_OWNER_UID && st->st_uid != rule->uid) {
		rc = lagom_errprintf(err, EPERM, "owned by uid %u, not %u",
				     (unsigned)st->st_uid, (unsigned)rule->uid);
		goto close_fd;
	}
	if (trusted && (rc = lagom_trust_check(st, rule->uid, false, "file",
					       name, "", err)) < 0)
		goto close_fd;
	if (st->st_size > (off_t)rule->max_bytes) {
		rc = lagom_errprintf(err, EFBIG,
				     "%lld bytes, over the %zu byte limit",
				     (long long)st->st_size, rule->max_bytes);
		goto close_fd;
	}
	return fd;
close_fd:
	close(fd);
	return rc;
}

/* Up to cap bytes into *buf (size bytes; grown up to cap when grow). */
static int read_to_end(int fd, char **buf, size_t size, size_t cap, bool grow,
		       size_t *got, struct lagom_error *err)
{
	*got = 0;
	while (*got < cap) {
		ssize_t n;

		if (*got == size) {
			size_t bigger = size * 2 < cap ? size * 2 : cap;
			char *nb = grow ? realloc(*buf, bigger) : NULL;

			if (!nb)
				return lagom_errprintf(err, ENOMEM,
						       "out of memory");
			*buf = nb;
			size = bigger;
		}
		n = read(fd, *buf + *got, size - *got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return lagom_errprintf(err, errno, "read: %s",
					       strerror(errno));
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

static int read_file(int dfd, const char *name,
		     const struct lagom_read_rule *rule, char **buf, bool grow,
		     size_t *len, struct stat *st, struct lagom_error *err)
{
	const size_t cap = rule->max_bytes + 1;
	struct stat own;
	size_t size = cap, got = 0;
	int fd, rc;

	if (!st)
		st = &own;
	fd = open_checked(dfd, name, rule, st, err);
	if (fd < 0)
		return fd;
	if (grow) {
		size = st->st_size > 0 ? (size_t)st->st_size + 2 : 4096;
		size = size < 4096 ? 4096 : size;
		size = size > cap ? cap : size;
		*buf = malloc(size);
		if (!*buf) {
			close(fd);
			return lagom_errprintf(err, ENOMEM, "out of memory");
		}
	}
	rc = read_to_end(fd, buf, size, cap, grow, &got, err);
	close(fd);
	if (rc == 0 && got > rule->max_bytes)
		rc = lagom_errprintf(err, EFBIG, "over the %zu byte limit",
				     rule->max_bytes);
	if (rc == 0)
		*len = got;
	return rc;
}

int lagom_read_file_at(int dfd, const char *name,
		       const struct lagom_read_rule *rule, char *buf,
		       size_t *len, struct stat *st, struct lagom_error *err)
{
	return read_file(dfd, name, rule, &buf, false, len, st, err);
}

int lagom_read_file_alloc_at(int dfd, const char *name,
			     const struct lagom_read_rule *rule, char **buf,
			     size_t *len, struct stat *st,
			     struct lagom_error *err)
{
	char *b = NULL;
	size_t got = 0;
	int rc = read_file(dfd, name, rule, &b, true, &got, st, err);

	if (rc == 0) {
		char *nb = realloc(b, got + 1);

		if (!nb) {
			free(b);
			return lagom_errprintf(err, ENOMEM, "out of memory");
		}
		b = nb;
		b[got] = '\0';
		*buf = b;
		*len = got;
		return 0;
	}
	free(b);
	return rc;
}
