/*
 * common/trusted_dir.h - open a directory that only root (and one trusted
 * uid) may have chosen: the profile directory (profiles, the cluster
 * digest) and the measurement spool (measure_dir).
 *
 * The path is walked as given, one component at a time from "/" (a
 * relative path from the current directory, as getcwd(3) names it; ".."
 * removes the component before it, as written), each with
 * openat(O_PATH | O_NOFOLLOW) on the descriptor of the one before, and
 * checked with fstat on the descriptor just opened:
 *   - no component is a symbolic link;
 *   - every ancestor is a directory owned by root or trusted_uid and not
 *     writable by group or others, unless it has the sticky bit (as /tmp
 *     has, and as sshd's StrictModes allows): whoever may rename an entry
 *     of an ancestor could put another directory in the place of the one
 *     that follows;
 *   - the directory itself is owned by root or trusted_uid and not
 *     writable by group or others, sticky or not.
 * Nothing on the way is followed, so a link planted anywhere (even one
 * that leads to a root-owned directory) is refused, not resolved.
 *
 * Linking: libcommon.la.
 */
#ifndef LAGOM_COMMON_TRUSTED_DIR_H
#define LAGOM_COMMON_TRUSTED_DIR_H

#include <sys/types.h>

#include "common/error.h"

/*
 * Open the trusted directory path (O_RDONLY | O_DIRECTORY | O_CLOEXEC, for
 * *at() calls and readdir) under the rules above.  trusted_uid: the owner
 * trusted besides root (0: root only).  what names the directory in
 * messages ("profile directory", "measure_dir").  A descriptor, or a
 * negative errno with err saying which component failed and why: -EPERM a
 * rule broken (owner, mode, link), -ENOTDIR, -ENOENT, -ENAMETOOLONG...
 */
int lagom_trusted_dir_open(const char *path, uid_t trusted_uid,
			   const char *what, struct lagom_error *err);

#endif /* LAGOM_COMMON_TRUSTED_DIR_H */
