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

#include "common/error.h"

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

/*
 * The owner/mode rule of everything lagom trusts (profiles, the digest, a
 * calibration, the directories holding them: doc/admin.md, "Trust"):
 * owned by root or trusted_uid (0: root only), and not writable by group
 * or others, unless sticky_ok and the sticky bit is set (an ancestor
 * directory, as /tmp).  what, name and role (may be "") name it in err:
 * "WHAT NAMEROLE is owned by uid U, not root".  0, or -EPERM.
 */
int lagom_trust_check(const struct stat *st, uid_t trusted_uid, bool sticky_ok,
		      const char *what, const char *name, const char *role,
		      struct lagom_error *err);

/*
 * The one bounded read of a whole regular file.  Whose file it may be:
 *   LAGOM_OWNER_ANY      anyone's (what the invoker itself names, read
 *                        with the invoker's rights);
 *   LAGOM_OWNER_UID      exactly uid's (a user's spool, read for them);
 *   LAGOM_OWNER_TRUSTED  lagom_trust_check(uid): root's or uid's, not
 *                        writable by group or others.
 */
enum lagom_owner_rule {
	LAGOM_OWNER_ANY,
	LAGOM_OWNER_UID,
	LAGOM_OWNER_TRUSTED,
};

struct lagom_read_rule {
	size_t max_bytes; /* larger: -EFBIG, nothing kept */
	enum lagom_owner_rule owner;
	uid_t uid;   /* for LAGOM_OWNER_UID, _TRUSTED */
	bool follow; /* follow a symbolic link (only for a path
				     * the invoker named, with its rights) */
};

/*
 * Read dfd/name (dfd: a directory descriptor, or AT_FDCWD) whole into buf
 * (rule->max_bytes + 1 bytes; not NUL-terminated), its length into *len;
 * st (may be NULL) gets the descriptor's fstat.  openat(2) relative to dfd
 * with O_NOFOLLOW (unless rule->follow), O_NONBLOCK (a FIFO never blocks),
 * O_NOCTTY and O_CLOEXEC; the type, owner and size checked with fstat on
 * the open descriptor, then read to the end again after EINTR and short
 * reads, and refused when it grew past the bound meanwhile.  0, or -errno
 * with err saying why in words without the name (the caller adds where):
 * -ENOENT (none), -ELOOP "a symbolic link" (-EPERM under
 * LAGOM_OWNER_TRUSTED), -EINVAL "not a regular file" (-EPERM under
 * _TRUSTED), -EPERM the owner or mode, -EFBIG "N bytes, over the M byte
 * limit".  Nothing is written to buf's caller-visible length on failure.
 */
int lagom_read_file_at(int dfd, const char *name,
		       const struct lagom_read_rule *rule, char *buf,
		       size_t *len, struct stat *st, struct lagom_error *err);

/* The same into a new buffer (*buf, free(3) it; NUL-terminated, not
 * counted in *len) that grows with what is there, so a small file under
 * a large bound stays small.  -ENOMEM when it cannot be had. */
int lagom_read_file_alloc_at(int dfd, const char *name,
			     const struct lagom_read_rule *rule, char **buf,
			     size_t *len, struct stat *st,
			     struct lagom_error *err);

#endif /* LAGOM_COMMON_IO_H */
