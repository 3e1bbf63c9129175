/*
 * profile/digest.h - the cluster digest: one file in the profile directory
 * that holds, for every profiled node, what the planner needs from its
 * profile, so srun reads one file instead of one profile per node of the
 * step (doc/consistency.md, doc/profile-format.md "Cluster digest").
 *
 * Who uses it: lagom-prolog calls lagom_digest_sync() after it wrote (or
 * found fresh) its node's profile; the planner reads the digest with
 * lagom_digest_read_at() and asks lagom_digest_node_hw() for each node of
 * the step, reading the node's profile itself whenever the digest cannot
 * answer.
 *
 * The digest and its seal.  The digest lives in its own directory,
 * LAGOM_DIGEST_DIR, in the profile directory, so that writing it does not
 * change the profile directory; its first line carries the seal: the inode
 * and change time (ns) of the profile directory when its writer began to
 * list the profiles, after waiting for the file system's clock to pass that
 * time.  Any profile renamed, created or removed since (every writer of
 * profiles replaces them by rename) gives the directory a later change
 * time, so a reader whose one fstat() of the directory gives the seal uses
 * the entries as they are: no system call per node.  A profile edited in
 * place (or chmod'ed) leaves the directory alone: the next sync picks it up
 * (lagom-prolog --digest), as doc/profile-format.md says.
 *
 * When the directory does not match the seal, an entry records the inode,
 * size, modification and change time (ns) of the profile it was made from
 * (the change time catches a profile rewritten in place with its old
 * modification time put back: no one can set it back); the
 * reader compares them with a non-following fstatat() of the profile (and
 * applies the profile's trust rules to that stat), so a profile replaced,
 * removed or made untrusted since is read (or refused) as if there were no
 * digest.  The entry holds every field lagom_profile_to_hw() reads, so the
 * hardware, and the plan, are the same bytes either way.
 *
 * Contract: functions return 0 (or the documented positive value) or a
 * negative errno with one line in err (NULL allowed), as profile.h.
 * Linking: as profile.h.
 */
#ifndef LAGOM_PROFILE_DIGEST_H
#define LAGOM_PROFILE_DIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "model/model.h"
#include "profile/profile.h"

/* The digest's directory in the profile directory (never "<node>.json"),
 * the digest's name in it, and the path from the profile directory. */
#define LAGOM_DIGEST_DIR "lagom-cluster.digest.d"
#define LAGOM_DIGEST_NAME "digest"
#define LAGOM_DIGEST_FILE LAGOM_DIGEST_DIR "/" LAGOM_DIGEST_NAME
/* The writers' lock file beside it (mode 0600: users cannot hold it). */
#define LAGOM_DIGEST_LOCK_FILE "lagom-cluster.digest.lock"
#define LAGOM_DIGEST_FORMAT "lagom-digest"
#define LAGOM_DIGEST_VERSION 4
/* Digests larger than this are refused unread; more entries than
 * LAGOM_DIGEST_MAX_NODES are refused. */
#define LAGOM_DIGEST_MAX_BYTES (64 * 1024 * 1024)
#define LAGOM_DIGEST_MAX_NODES 65536

struct lagom_digest;
struct stat;

/* The profile directory as a writer saw it before listing it (valid false:
 * no seal, readers check every entry). */
struct lagom_digest_seal {
	bool valid;
	uint64_t ino;
	int64_t ctime_s;
	long ctime_ns;
};

/* dir_st (the profile directory's fstat) still has the seal. */
bool lagom_digest_seal_matches(const struct lagom_digest_seal *seal,
			       const struct stat *dir_st);

/*
 * Parse a digest held in memory (len bytes; the text is copied).  Strict:
 * the header, every entry (keys in their order, numbers in range, the
 * hardware fingerprint recomputed), names in strictly increasing order and
 * the closing "end N" line with the entry count must all be right, else
 * -EINVAL with "line L: ..." in err; another format or version is
 * -EPROTONOSUPPORT.
 */
int lagom_digest_parse(const char *buf, size_t len, struct lagom_digest **out,
		       struct lagom_error *err);

/*
 * Read LAGOM_DIGEST_FILE from the profile directory opened as dfd (named
 * dir; lagom_profile_dir_open(): the same trust walk as profiles, and the
 * same walk for LAGOM_DIGEST_DIR) under the profiles' trust rules (trust
 * NULL: none) and parse it; then one fstat of dfd says whether the digest
 * is sealed (lagom_digest_sealed()).  -ENOENT when there is none; other
 * errors name the file ("cluster digest DIR/...: ").
 */
int lagom_digest_read_at(int dfd, const char *dir,
			 const struct lagom_trust *trust,
			 struct lagom_digest **out, struct lagom_error *err);

void lagom_digest_destroy(struct lagom_digest *digest);

/* The profile directory had the digest's seal when it was read: its
 * entries are current without a stat per node. */
bool lagom_digest_sealed(const struct lagom_digest *digest);

/* Entries in the digest. */
size_t lagom_digest_count(const struct lagom_digest *digest);

/*
 * The model's hardware of node from the digest: 1 when the digest has an
 * entry for node and, the digest being sealed, nothing more; or, unsealed,
 * its profile in dfd is still the file the entry was
 * made from (fstatat without following links: same inode, size,
 * modification and change time, and it passes trust); 0 when the profile must be read
 * instead (no entry, stale, removed, untrusted, or the entry's hardware
 * does not convert: reading the profile then gives the error a reader
 * without digest gives).  The conversion is done once per distinct
 * hardware text and kept in digest.
 */
int lagom_digest_node_hw(struct lagom_digest *digest, int dfd,
			 const struct lagom_trust *trust, const char *node,
			 struct lagom_hw *hw);

/*
 * lagom_digest_node_hw() without the copy: *hw points to the hardware that
 * every node of the same hardware text shares (valid until the digest is
 * destroyed) and *rec numbers that text (below lagom_digest_records()), so
 * a caller can take each distinct hardware once.
 */
int lagom_digest_node_hw_ref(struct lagom_digest *digest, int dfd,
			     const struct lagom_trust *trust, const char *node,
			     const struct lagom_hw **hw, size_t *rec);

/* Distinct hardware texts in the digest. */
size_t lagom_digest_records(const struct lagom_digest *digest);

/* lagom_digest_node_nccl_version() of the nodes of hardware text rec (the
 * version is part of the text); NULL when rec is out of range. */
const char *lagom_digest_rec_nccl_version(const struct lagom_digest *digest,
					  size_t rec);

/*
 * The NCCL version node's profile recorded (provenance.nccl_version, ""
 * when none), as its entry holds it: meaningful after
 * lagom_digest_node_hw() returned 1 for node (the entry is current).  NULL
 * when the digest has no entry for node.
 */
const char *lagom_digest_node_nccl_version(const struct lagom_digest *digest,
					   const char *node);

/*
 * One entry's line (no newline) for profile p read from a file whose
 * fstat is st; *line is malloc'd.  -EINVAL when p would not validate.
 */
int lagom_digest_format_entry(const struct lagom_profile *p,
			      const struct stat *st, char **line,
			      struct lagom_error *err);

/* What lagom_digest_sync() did. */
struct lagom_digest_sync_report {
	size_t nodes;	/* entries written (or kept) */
	size_t kept;	/* entries whose profile had not changed */
	size_t read;	/* profiles read because new or changed */
	size_t skipped; /* profiles that failed to read or validate */
	bool written;	/* the digest file was replaced */
	bool already;	/* lagom_digest_sync_for(): the node was in */
	char note[LAGOM_ERROR_TEXT_MAX]; /* why an old digest was dropped */
};

/*
 * Bring the digest of dir up to date with the profiles in it, under
 * LAGOM_DIGEST_LOCK_FILE (an fcntl write lock, which works across the
 * nodes of a shared file system): read the old digest, list "*.json",
 * keep every entry whose profile is unchanged, read the others (profile
 * rules and trust), and replace the digest atomically when anything
 * changed.  Waits at most lock_wait_s for the lock (-EAGAIN after; the
 * next sync by any node brings every entry up to date, and readers fall
 * back to the profiles meanwhile).  trust: as for the profiles (NULL: none).
 * rep may be NULL.  A digest that would exceed LAGOM_DIGEST_MAX_BYTES (which
 * its readers refuse) is written empty instead, and -EFBIG says so: srun
 * then reads every node's profile, and the prologs rebuild it only when a
 * profile changes.
 */
int lagom_digest_sync(const char *dir, const struct lagom_trust *trust,
		      double lock_wait_s, struct lagom_digest_sync_report *rep,
		      struct lagom_error *err);

/*
 * lagom_digest_sync() for the prolog of node, whose profile is in place:
 * when the lock comes, a digest whose seal is not older than the profile's
 * change time holds it already (a sync listed the directory after the
 * profile's rename), and the call returns at once with rep->already set.
 * So when many prologs re-profile at once, one sync takes in every profile
 * written before it began, and the prologs waiting meanwhile find their
 * node in and leave: a herd costs a few full syncs, not one each.
 */
int lagom_digest_sync_for(const char *dir, const struct lagom_trust *trust,
			  const char *node, double lock_wait_s,
			  struct lagom_digest_sync_report *rep,
			  struct lagom_error *err);

/* lagom_digest_sync() with max_bytes in place of LAGOM_DIGEST_MAX_BYTES
 * (tests use a small limit to reach the "written empty" path). */
int lagom_digest_sync_max(const char *dir, const struct lagom_trust *trust,
			  double lock_wait_s, size_t max_bytes,
			  struct lagom_digest_sync_report *rep,
			  struct lagom_error *err);

#endif /* LAGOM_PROFILE_DIGEST_H */
