/*
 * common/text.h - text built a piece at a time, and a byte count in words
 * for people: each written once for every folder.  libc only.
 */
#ifndef LAGOM_COMMON_TEXT_H
#define LAGOM_COMMON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A text that grows as pieces are added.  Start from { 0 } (or with p
 * malloc'd, cap bytes, p[0] a NUL); p is NUL-terminated after every
 * successful add and is the caller's to free.  failed is sticky: once an
 * add fails, later adds do nothing, so a writer checks once at the end.
 */
struct lagom_text {
	char *p;
	size_t len; /* bytes in p, the NUL not counted */
	size_t cap; /* bytes allocated at p */
	int failed; /* 0, or the first error: -ENOMEM, -EINVAL (encoding) */
};

/* Append printf(fmt, ...) to t: 0, or t->failed. */
int lagom_text_addf(struct lagom_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* bytes in binary units for people, into buf (len bytes): the largest of
 * B, KiB, MiB, GiB, TiB that keeps the number at least 1, whole when it is
 * ("64 MiB") and with one decimal otherwise ("1.5 GiB").  Returns buf. */
const char *lagom_fmt_bytes(char *buf, size_t len, uint64_t bytes);

/*
 * Numbers in a text someone else wrote, read strictly (the job comment and
 * the step plan's variables, which a node takes from the user):
 * lagom_text_digits(): the count n (1..max) of decimal digits at p, with no
 * sign and no leading zero but "0"; 0 when p starts no such number.
 * lagom_text_is_uint(): v is such a number of at most max digits, and
 * nothing else.  lagom_text_is_hundredths(): v is "N.DD" (N at most 7
 * digits) followed by exactly tail.
 */
size_t lagom_text_digits(const char *p, size_t max);
bool lagom_text_is_uint(const char *v, size_t max);
bool lagom_text_is_hundredths(const char *v, const char *tail);

#endif /* LAGOM_COMMON_TEXT_H */
