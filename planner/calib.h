/*
 * planner/calib.h - the site calibration file (doc/calibration-format.md).
 *
 * Who uses it: `lagom calibrate` (cli/cmd_calibrate.c) collects evidence
 * from records (planner/consensus.h), fits (model/netsite.c,
 * model/netdense.c) and writes the file; srun's planner
 * reads LAGOM_CALIBRATION_FILE from the profile directory under the
 * profiles' trust rules (lagom_calibration_read_at); `lagom predict` and
 * `lagom plan` read a file the user names (lagom_calibration_read_file).
 */
#ifndef LAGOM_PLANNER_CALIB_H
#define LAGOM_PLANNER_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "model/model.h"
#include "model/model_fit.h"

/* The file's name in the profile directory, beside the digest. */
#define LAGOM_CALIBRATION_FILE "lagom-calibration.json"
#define LAGOM_CALIBRATION_FORMAT "lagom-calibration"
/* The version written where a dense fit is carried (else 1); the
 * reader takes 1 and 2. */
#define LAGOM_CALIBRATION_VERSION 2
/* Files larger than this are refused unread. */
#define LAGOM_CALIBRATION_MAX_BYTES (64 * 1024)
/* The evidence counts the file accepts. */
#define LAGOM_CALIBRATION_MAX_COUNT 100000000ULL

struct lagom_calibration {
	struct lagom_net_calib calib;
	/* measured classes behind each transport and band */
	uint64_t classes[LAGOM_NET_COUNT][LAGOM_NET_BANDS];
	uint64_t n_classes; /* every class fitted */
	uint64_t n_runs;    /* distinct measured steps they came from */
	int64_t date_unix;  /* when it was fitted */
};

/*
 * Parse a calibration file held in memory (len bytes).  Strict: the
 * format and version, every key known, numbers in range (each constant
 * inside lagom_net_param_range), counts within
 * LAGOM_CALIBRATION_MAX_COUNT, else -EINVAL ("key: why" in err); another
 * format or version is -EPROTONOSUPPORT; len over
 * LAGOM_CALIBRATION_MAX_BYTES is -EFBIG.  *out written only on success.
 */
int lagom_calibration_parse(const char *buf, size_t len,
			    struct lagom_calibration *out,
			    struct lagom_error *err);

/* Serialise c (keys sorted, ends with a newline) into *out (malloc'd,
 * NUL-terminated, the caller frees).  0, -EINVAL (c would not parse
 * back), -ENOMEM. */
int lagom_calibration_format(const struct lagom_calibration *c, char **out,
			     struct lagom_error *err);

/* LAGOM_CALIBRATION_FILE of the profile directory dfd (dir names it in
 * messages) under the profiles' trust rules (trust NULL: none):
 * lagom_profile_read_at().  -ENOENT when there is none. */
struct lagom_trust;
int lagom_calibration_read_at(int dfd, const char *dir,
			      const struct lagom_trust *trust,
			      struct lagom_calibration *out,
			      struct lagom_error *err);

/* A file the user names (the CLI): no trust rules, still no FIFO or
 * device (O_NONBLOCK, regular file), at most the size limit. */
int lagom_calibration_read_file(const char *path, struct lagom_calibration *out,
				struct lagom_error *err);

/* "calibrated from N classes of M runs, YYYY-MM-DD" into buf. */
void lagom_calibration_line(const struct lagom_calibration *c, char *buf,
			    size_t len);

/*
 * The evidence `lagom calibrate` fits (from measurement records: per
 * class, per run the fastest call, per user the median over runs, the
 * users' consensus) has one owner: planner/consensus.h.
 */

#endif /* LAGOM_PLANNER_CALIB_H */
