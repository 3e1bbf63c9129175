/*
 * common/io.h - whole reads and writes on a file descriptor: the retry on
 * EINTR and on short transfers, written once.  libc only: the NCCL plugins
 * (profiler, tuner) compile it in.
 */
#ifndef LAGOM_COMMON_IO_H
#define LAGOM_COMMON_IO_H

#include <stddef.h>

/* Write all len bytes of buf to fd, again after EINTR and short writes: 0,
 * or -errno with errno set (EIO when write(2) wrote nothing). */
int lagom_write_all(int fd, const void *buf, size_t len);

/* Read into buf until cap bytes or the end of the file, again after EINTR;
 * *got (never NULL) is what was read, also on error: 0, or -errno. */
int lagom_read_all(int fd, void *buf, size_t cap, size_t *got);

#endif /* LAGOM_COMMON_IO_H */
