/*
 * placement/placement_int.h - shared by the libplacement sources
 * (private to placement/).
 */
#ifndef LAGOM_PLACEMENT_PLACEMENT_INTERNAL_H
#define LAGOM_PLACEMENT_PLACEMENT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

/* Characters, length and bracket pairing of a hostlist expression. */
int lagom_hostlist_check(const char *expr, struct lagom_error *err);

/*
 * Parse a decimal number of at most 10 digits from *p in 1..max (0..max
 * when allow_zero), advancing *p.  -EINVAL when there is no digit, -ERANGE
 * above max; never overflows.
 */
int lagom_parse_count(const char **p, uint64_t max, bool allow_zero,
		      uint64_t *out);

#endif /* LAGOM_PLACEMENT_PLACEMENT_INTERNAL_H */
