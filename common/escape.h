/*
 * common/escape.h - make a string one line of printable ASCII before it
 * reaches a log or a terminal.
 *
 * Every line lagom.so writes to a log or to the job's stderr, every error
 * line of the lagom command and of lagom-prolog goes through lagom_escape():
 * a workload name, a JSON key, a file path or an option value is someone
 * else's text, and a newline or an escape sequence in it could forge a line
 * in root's slurmd log or drive the reader's terminal.  Each byte outside
 * 0x20..0x7e becomes a backslash, 'x' and two hex digits, and a backslash
 * is doubled, so the escaped line reads back to the exact bytes.
 */
#ifndef LAGOM_COMMON_ESCAPE_H
#define LAGOM_COMMON_ESCAPE_H

#include <stddef.h>

/*
 * Copy in to out (len bytes with the NUL; len 0 writes nothing), escaped;
 * cuts only between whole escapes.  Returns the length written.
 */
size_t lagom_escape(const char *in, char *out, size_t len);

#endif /* LAGOM_COMMON_ESCAPE_H */
