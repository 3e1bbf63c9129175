/*
 * measurement/predicted.h - what lagom predicted for a step, left by the SPANK
 * plugin next to the step's measurement records (file "predicted" in the
 * step's spool directory) so that `lagom runs` can show predicted against
 * measured.  The format and its strict parse are pure (no I/O, no
 * allocation); lagom_predicted_read_at() at the end reads the file
 * (measurement/record_file.c, record.h's bounded, owner-checked rules).
 *
 *   lagom-predicted 1
 *   plan <LAGOM_PLAN_ID>
 *   iteration_ns <predicted iteration time>
 *   default_ns <the same at NCCL's defaults>     (optional)
 *   arm control|measure|revert                   (optional; none: tuned)
 *   class <op> <min bytes> <max bytes> <ranks> <nodes> <ns per call>
 *   ...                     (at most LAGOM_PREDICTED_MAX_CLASSES)
 *   end
 *
 * op and the byte range are the plan's (doc/plan-format.md: for allgather
 * and reducescatter the whole buffer).  default_ns over iteration_ns is the
 * plan's predicted speedup.  An arm line says that the step did not apply
 * the plan (doc/report.md): "control", the control arm (NCCL's defaults,
 * measured; the plan is what lagom would have applied); "measure", a user's
 * --lagom=measure.
 */
#ifndef LAGOM_MEASUREMENT_PREDICTED_H
#define LAGOM_MEASUREMENT_PREDICTED_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define LAGOM_PREDICTED_FILE "predicted"
#define LAGOM_PREDICTED_MAX_CLASSES 256
#define LAGOM_PREDICTED_MAX 65536 /* bytes */

struct lagom_predicted_class {
	char op[16];
	uint64_t min_bytes, max_bytes;
	uint32_t ranks, nodes;
	uint64_t time_ns;
};

struct lagom_predicted {
	char plan[24];
	uint64_t iteration_ns;
	uint64_t default_ns; /* 0: not given */
	char arm[8];	     /* "", "control" or "measure" */
	size_t n;
	struct lagom_predicted_class cls[LAGOM_PREDICTED_MAX_CLASSES];
};

/* Text into buf; its length, or -ENOSPC / -EINVAL. */
int lagom_predicted_format(const struct lagom_predicted *p, char *buf,
			   size_t len);
/* 0, or -EINVAL with err; *out written only on success. */
int lagom_predicted_parse(const char *text, size_t len,
			  struct lagom_predicted *out, struct lagom_error *err);

/*
 * The prediction of a measured class: op (lagom_rec_op_name()), the plan's
 * byte count (lagom_rec_plan_bytes()) within a class's range, same ranks
 * and nodes; the first such class, or NULL.
 */
const struct lagom_predicted_class *lagom_predicted_find(
	const struct lagom_predicted *p, const char *op, uint64_t plan_bytes,
	uint32_t ranks, uint32_t nodes);

/* Read (record.h's lagom_rec_read_at() rules: dfd/name, owned by
 * owner_uid, -1 anyone) and parse the predictions file (in the spool,
 * LAGOM_PREDICTED_FILE); buf holds LAGOM_PREDICTED_MAX
 * bytes.  0 or -errno with err saying why. */
int lagom_predicted_read_at(int dfd, const char *name, long owner_uid,
			    char *buf, struct lagom_predicted *out,
			    struct lagom_error *err);

#endif /* LAGOM_MEASUREMENT_PREDICTED_H */
