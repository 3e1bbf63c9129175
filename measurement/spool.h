/*
 * measurement/spool.h - the measurement spool's layout, names and order,
 * and the one walk over it (doc/profiler.md, "The spool").
 *
 *   ROOT/USER/JOB.STEP/NAME.rec   one record per task (record.h)
 *   ROOT/USER/JOB.STEP/predicted  the plan's predictions (predicted.h)
 *   ROOT/USER/JOB.STEP/key        the step key (measurement/learn.h)
 *
 * ROOT is the admin's measure_dir, USER a user's own directory (created by
 * slurmstepd, owned by the user, mode 0700), JOB.STEP one step's.  USER and
 * JOB.STEP are names of the record's token characters ([A-Za-z0-9._:-],
 * not starting with '.'); anything else there is not lagom's and is passed
 * over.
 *
 * The order is by name, in version order (strverscmp(3): runs of digits
 * compare as numbers, so step 9.0 comes before 10.0 and task-2 before
 * task-10), at every level: users, steps, records.  What is read never
 * depends on the order a directory lists its entries in.
 *
 * The walk streams: it calls back for each user, step and record and
 * keeps one directory's list of names per level (at most the limit's
 * count), never the spool.  Every limit applies to one user (one user's
 * many steps or records never push another user's out) and, when a
 * say() callback is given, is said in one line when reached: which user,
 * which directory, how many there were, how many were read.  Every name
 * in those lines is escaped (common/escape.h); the names handed to the
 * callbacks are the spool's raw bytes: a caller escapes them before they
 * reach a terminal or a log (lagom_spool_where()).
 *
 * Every directory is opened relative to the one before it
 * (common/io.h's guarded open: never through a symbolic link, never
 * blocking); the user is the owner of the user's directory, as fstat(2)
 * on its descriptor says, and a record is read only when that user owns
 * it (lagom_spool_read_record()).
 *
 * Linking: libmeasurement.la, libcommon.la.
 */
#ifndef LAGOM_MEASUREMENT_SPOOL_H
#define LAGOM_MEASUREMENT_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "measurement/record.h"

/* The longest name of a spool entry that is kept, with its NUL. */
#define LAGOM_SPOOL_NAME_MAX 256
/* The step key's file (the predictions': LAGOM_PREDICTED_FILE). */
#define LAGOM_SPOOL_KEY "key"

/* Limits, all per user (0: the default beside it). */
struct lagom_spool_limits {
	unsigned scan_max;    /* entries looked at in one directory: 100000 */
	unsigned users_max;   /* users of one spool, first by name: 100000 */
	unsigned steps_max;   /* steps of one user, first by name: 4096 */
	unsigned records_max; /* records of one step, first by name: 4096 */
	unsigned long user_records_max; /* records of one user: 1000000 */
	unsigned long user_scan_max;	/* entries looked at for one user, all
					 * directories: 4000000 */
};

/* Where the walk is.  Names are the spool's raw bytes (see above). */
struct lagom_spool_at {
	uid_t uid;	  /* the user: owner of the user's directory */
	const char *user; /* its name; "" when the walk began at a step */
	int user_fd;	  /* -1 when the walk began at a step */
	const char *step; /* the step's name; NULL in on_user */
	int step_fd;	  /* -1 in on_user */
	const char *name; /* the record's; NULL in on_user, on_step */
	size_t found;	  /* on_step and after: record names in the step */
	size_t kept;	  /* of which the walk yields (the first by name) */
};

/* What a callback returns. */
enum {
	LAGOM_SPOOL_NEXT = 0, /* go on */
	LAGOM_SPOOL_SKIP = 1, /* do not go into this user or step */
	LAGOM_SPOOL_STOP = 2, /* end the walk */
};

struct lagom_spool_walk {
	struct lagom_spool_limits lim;
	/* on_record gets every entry of a step directory (but "." and
	 * ".."), not only record names: for a caller that sums sizes. */
	bool every_file;
	/* A user's steps from the last by name (the latest) to the first,
	 * and the last steps_max of them kept, not the first. */
	bool latest_first;
	/* Each may be NULL.  on_step is called once the step's names are
	 * listed (found, kept set), on_step_end after its last record. */
	int (*on_user)(void *ctx, const struct lagom_spool_at *at);
	int (*on_step)(void *ctx, const struct lagom_spool_at *at);
	int (*on_record)(void *ctx, const struct lagom_spool_at *at);
	void (*on_step_end)(void *ctx, const struct lagom_spool_at *at);
	/* One line (no newline, no "lagom: ", names escaped) per limit
	 * reached; NULL: the caller says it from found/kept. */
	void (*say)(void *ctx, const char *line);
	void *ctx;
	/* May be NULL: called as a step's directory is opened, before its
	 * names are listed (found and kept 0): LAGOM_SPOOL_SKIP passes over
	 * it unlisted (no on_step, no limit said), for a caller that picks
	 * steps by a file of theirs (measurement/arm.h: the step key). */
	int (*on_step_open)(void *ctx, const struct lagom_spool_at *at);
};

/* The spool's order: strverscmp(3). */
int lagom_spool_cmp(const char *a, const char *b);
/* Whether name can be a user's or a step's directory in the spool. */
bool lagom_spool_dir_name_ok(const char *name);

/*
 * Walk the whole spool (root_fd: the checked ROOT, common/trusted_dir.h),
 * one user's directory (user_fd; user names it, "" for none: the user is
 * its owner), or one step (the directory step in dfd, opened here; its
 * records must be uid's).  Descriptors stay the caller's.  0 when the walk
 * went through (or a callback stopped it), -errno when the first directory
 * cannot be listed (-ENOMEM, ...).
 */
int lagom_spool_walk_root(int root_fd, const struct lagom_spool_walk *w);
int lagom_spool_walk_user(int user_fd, const char *user,
			  const struct lagom_spool_walk *w);
int lagom_spool_walk_step(int dfd, const char *step, uid_t uid,
			  const struct lagom_spool_walk *w);

/*
 * Which part of the spool the directory fd is, from where its records are
 * (a bounded look at its first entries and theirs): a step's (it holds a
 * record), a user's (a step of it does) or the whole spool (anything else).
 */
enum lagom_spool_level {
	LAGOM_SPOOL_LEVEL_ROOT,
	LAGOM_SPOOL_LEVEL_USER,
	LAGOM_SPOOL_LEVEL_STEP,
};
enum lagom_spool_level lagom_spool_level(int fd);

/*
 * Read and parse the record at (lagom_rec_read_at(): relative to the
 * step's descriptor, owned by at->uid).  buf: LAGOM_REC_MAX_BYTES + 1
 * bytes.  0, or -errno with err saying why (not where: see below).
 */
int lagom_spool_read_record(const struct lagom_spool_at *at, char *buf,
			    struct lagom_rec *out, struct lagom_rec *scratch,
			    struct lagom_error *err);

/* "USER/STEP/NAME" of at (the parts it has), escaped, into buf. */
void lagom_spool_where(const struct lagom_spool_at *at, char *buf, size_t len);

#endif /* LAGOM_MEASUREMENT_SPOOL_H */
