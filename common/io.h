/*
 * common/io.h - whole reads and writes on a file descriptor: the retry on
 * EINTR and on short transfers, written once; and the guarded opens every
 * lagom process uses in a directory a user may write.  libc only: the NCCL
 * plugins (profiler, tuner) compile it in.
 */
#ifndef LAGOM_COMMON_IO_H
#define LAGOM_COMMON_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Write all len bytes of buf to fd, again after EINTR and short writes: 0,
 * or -errno with errno set (EIO when write(2) wrote nothing). */
int lagom_write_all(int fd, const void *buf, size_t len);

/* Read into buf until cap bytes or the end of the file, again after EINTR;
 * *got (never NULL) is what was read, also on error: 0, or -errno. */
int lagom_read_all(int fd, void *buf, size_t cap, size_t *got);

/*
 * Guarded opens: for any name in a directory a user may write (a spool, a
 * step directory), opened by root, by slurmstepd or by the user inside
 * slurmstepd.  Always relative to a directory descriptor the caller has
 * checked; the open adds O_NOFOLLOW (a link is refused, -ELOOP),
 * O_NONBLOCK (a FIFO or a device never blocks the open: a FIFO opened for
 * writing with no reader is -ENXIO), O_NOCTTY and O_CLOEXEC, and the type
 * is checked on the open descriptor: a regular file, or a directory when
 * flags hold O_DIRECTORY (anything else: -EINVAL, descriptor closed).  No
 * call waits on anything a user controls: each returns after a bounded
 * number of system calls on a local file system.
 */

/* Open dfd/name as above; st (may be NULL) gets the descriptor's fstat.  A
 * descriptor, or -errno. */
int lagom_open_at(int dfd, const char *name, int flags, mode_t mode,
		  struct stat *st);

/* A new regular file in dfd, "<prefix>.<pid>.<n>" (at most 100 tries of n;
 * O_CREAT | O_EXCL, so never a name that exists, whatever it is), opened
 * for writing with mode; its name into name (len bytes).  A descriptor, or
 * -errno. */
int lagom_create_temp_at(int dfd, const char *prefix, mode_t mode, char *name,
			 size_t len);

/* Replace dfd/final with a regular file holding buf (len bytes) whose mode
 * is exactly mode (the umask does not apply), so that a reader sees the old
 * file or the whole new one: lagom_write_temp_at() then
 * lagom_commit_temp_at().  The one atomic writer of lagom's files; 0, or
 * -errno (the temporary file removed). */
int lagom_replace_at(int dfd, const char *final, const void *buf, size_t len,
		     mode_t mode, bool durable);

/* Its two halves, for a caller that checks the new file before it takes
 * the name (the CLI reads back what it wrote).  First a fresh temporary
 * file ".<final>.<pid>.<n>" as lagom_create_temp_at() makes, its name into
 * tmp (tmp_len bytes), holding buf, mode set, fsync'd when durable, closed:
 * 0, or -errno with nothing left behind. */
int lagom_write_temp_at(int dfd, const char *final, const void *buf, size_t len,
			mode_t mode, bool durable, char *tmp, size_t tmp_len);
/* Then dfd/tmp renamed over dfd/final, the directory fsync'd when durable:
 * 0, or -errno (tmp removed when the rename failed). */
int lagom_commit_temp_at(int dfd, const char *tmp, const char *final,
			 bool durable);

#endif /* LAGOM_COMMON_IO_H */
