/*
 * common/io.c - whole reads and writes (common/io.h).
 */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "common/io.h"

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
