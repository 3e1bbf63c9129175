/*
 * profile/profile_int.h - private to profile/: what the profile reader and
 * writer share with the cluster digest (profile/digest.h).
 */
#ifndef LAGOM_PROFILE_PROFILE_INT_H
#define LAGOM_PROFILE_PROFILE_INT_H

#include <stddef.h>
#include <sys/stat.h>

#include "common/error.h"
#include "profile/profile.h"

/*
 * Replace the file final of the directory dfd by len bytes of text: a
 * temporary file ".<final>.<pid>.<n>", written, fsync'd, mode 0644, renamed
 * over final, then the directory fsync'd; temporaries of final older than
 * ten minutes are removed afterwards.  0 or a negative errno (err says
 * why, without the file's name).
 */
int lagom_profile_replace_at(int dfd, const char *final, const char *text,
			     size_t len, struct lagom_error *err);

/* The trust policy of a profile file on st (from fstat or a
 * non-following fstatat): a regular file owned by root or the trusted uid,
 * not writable by group or others.  0 or -EPERM (err names base). */
int lagom_profile_trust_stat(const struct stat *st,
			     const struct lagom_trust *trust, const char *base,
			     struct lagom_error *err);

/* For the digest's writer: 1 and the line (no newline) of node's entry in
 * digest when it was made from the file whose stat is st, else 0. */
struct lagom_digest;
int lagom_digest_entry_line(const struct lagom_digest *digest, const char *node,
			    const struct stat *st, const char **line,
			    size_t *len);

/* For the digest's writer: digest's seal is seal (both invalid counts as
 * the same). */
struct lagom_digest_seal;
bool lagom_digest_has_seal(const struct lagom_digest *digest,
			   const struct lagom_digest_seal *seal);
/* The seal's text ("INO:SEC.NSEC" or "-") into seal: 0 or -EINVAL. */
int lagom_digest_parse_seal(const char *text, struct lagom_digest_seal *seal);

/* The part of lagom_profile_to_hw() that the hardware section h alone
 * decides: the spec table's hardware for its GPU, count and fabric
 * (lagom_hw_from_spec()); 0 or a negative errno. */
struct lagom_hw;
int lagom_profile_spec_hw(const struct lagom_profile_hw *h,
			  struct lagom_hw *out, struct lagom_error *err);

/* lagom_profile_to_hw() from spec, what lagom_profile_spec_hw() gave for
 * p->hw (NULL: computed here), so the digest makes it once per machine;
 * the result is the same bytes either way. */
int lagom_profile_to_hw_spec(const struct lagom_profile *p,
			     const struct lagom_hw *spec, struct lagom_hw *out,
			     struct lagom_error *err);

#endif /* LAGOM_PROFILE_PROFILE_INT_H */
