/*
 * common/error.h - the error type every lagom module shares.
 *
 * Functions return 0 on success or a negative errno value on failure
 * (-EINVAL for bad input, -ENOMEM, -ERANGE, ...).  When the caller passes a
 * struct lagom_error, a failing function also writes one human-readable line
 * into it (no trailing newline, no "lagom:" prefix: the caller that prints it
 * adds that).  Passing NULL is always allowed.
 *
 * This header is part of the pure core: it does no I/O.
 */
#ifndef LAGOM_COMMON_ERROR_H
#define LAGOM_COMMON_ERROR_H

#include <stddef.h>

#define LAGOM_ERROR_TEXT_MAX 256

struct lagom_error {
	int errnum; /* positive errno value, 0 when no error was recorded */
	char text[LAGOM_ERROR_TEXT_MAX];
};

/*
 * Record an error and return -errnum, so a failing path can say
 *	return lagom_errprintf(err, EINVAL, "ranks must be > 0, got %d", n);
 * err may be NULL.  errnum must be a positive errno value; 0 or a negative
 * value is recorded as EINVAL (a programming error must not look like
 * success).  Text longer than LAGOM_ERROR_TEXT_MAX - 1 is truncated with
 * "..." at its end.
 */
int lagom_errprintf(struct lagom_error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Clear err (NULL allowed). */
void lagom_error_clear(struct lagom_error *err);

/*
 * Prefix the recorded text with "CONTEXT: ", keeping errnum, so a caller can
 * say where an inner error happened ("profile gpu001.json: ...").  Returns
 * -err->errnum (or -EINVAL when nothing was recorded).  err may be NULL.
 */
int lagom_error_prefix(struct lagom_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* LAGOM_COMMON_ERROR_H */
