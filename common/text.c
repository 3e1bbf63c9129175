/*
 * common/text.c - the text appender and the byte formatter (common/text.h).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"

int lagom_text_addf(struct lagom_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	while (!t->failed) {
		va_start(ap, fmt);
		n = vsnprintf(t->p ? t->p + t->len : NULL,
			      t->p ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = -EINVAL;
			break;
		}
		if (t->p && (size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return 0;
		}
		size_t cap = t->cap * 2 + (size_t)n + 1;
		char *p = realloc(t->p, cap);

		if (!p) {
			t->failed = -ENOMEM;
			break;
		}
		if (!t->p)
			p[0] = '\0';
		t->p = p;
		t->cap = cap;
	}
	return t->failed;
}

const char *lagom_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;
	double v = (double)bytes;

	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	if (u == 0 || v == (double)(unsigned long long)v)
		snprintf(buf, len, "%llu %s", (unsigned long long)v, units[u]);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

size_t lagom_text_digits(const char *p, size_t max)
{
	size_t n = strspn(p, "0123456789");

	if (n == 0 || n > max || (n > 1 && p[0] == '0'))
		return 0;
	return n;
}

bool lagom_text_is_uint(const char *v, size_t max)
{
	size_t n = lagom_text_digits(v, max);

	return n && v[n] == '\0';
}

bool lagom_text_is_hundredths(const char *v, const char *tail)
{
	size_t n = lagom_text_digits(v, 7);

	return n && v[n] == '.' && strspn(v + n + 1, "0123456789") == 2 &&
	       strcmp(v + n + 3, tail) == 0;
}
