/*
 * spank/escape.c - what lagom logs is one line of printable ASCII.
 *
 * Every line lagom.so writes to a log or to the job's stderr goes through
 * lagom_escape(): a workload name, a file path or an option value is the
 * user's text, and a newline or an escape sequence in it could forge a line
 * in root's slurmd log or drive the reader's terminal.  Each byte outside
 * 0x20..0x7e, and the backslash, becomes "\xNN" (the backslash "\\"), so the
 * escaped line reads back to the exact bytes.
 */
#include <stdio.h>
#include <string.h>

#include "spank/lagom.h"

size_t lagom_escape(const char *in, char *out, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t used = 0;

	if (len == 0)
		return 0;
	for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
		char one[4];
		size_t n = 0;

		if (*p == '\\') {
			one[n++] = '\\';
			one[n++] = '\\';
		} else if (*p >= 0x20 && *p < 0x7f) {
			one[n++] = (char)*p;
		} else {
			one[n++] = '\\';
			one[n++] = 'x';
			one[n++] = hex[*p >> 4];
			one[n++] = hex[*p & 0xf];
		}
		if (used + n >= len)
			break;
		memcpy(out + used, one, n);
		used += n;
	}
	out[used] = '\0';
	return used;
}
