/*
 * common/io.c - whole reads and writes, guarded opens (common/io.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
