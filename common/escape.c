/*
 * common/escape.c - what lagom logs is one line of printable ASCII (see
 * escape.h).
 */
#include <string.h>

#include "common/escape.h"

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
