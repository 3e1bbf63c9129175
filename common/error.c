/* common/error.c - see error.h. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

static void mark_truncated(struct lagom_error *err, int written)
{
	if (written >= (int)sizeof(err->text))
		memcpy(err->text + sizeof(err->text) - 4, "...", 4);
}

int lagom_errprintf(struct lagom_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	int written;

	if (errnum <= 0)
		errnum = EINVAL;
	if (err == NULL)
		return -errnum;
	err->errnum = errnum;
	va_start(ap, fmt);
	written = vsnprintf(err->text, sizeof(err->text), fmt, ap);
	va_end(ap);
	if (written < 0)
		err->text[0] = '\0';
	else
		mark_truncated(err, written);
	return -errnum;
}

void lagom_error_clear(struct lagom_error *err)
{
	if (err == NULL)
		return;
	err->errnum = 0;
	err->text[0] = '\0';
}

int lagom_error_prefix(struct lagom_error *err, const char *fmt, ...)
{
	char inner[LAGOM_ERROR_TEXT_MAX];
	char prefix[LAGOM_ERROR_TEXT_MAX];
	va_list ap;
	int written;

	if (err == NULL)
		return -EINVAL;
	if (err->errnum <= 0)
		err->errnum = EINVAL;
	memcpy(inner, err->text, sizeof(inner));
	inner[sizeof(inner) - 1] = '\0';
	va_start(ap, fmt);
	written = vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	if (written < 0)
		prefix[0] = '\0';
	written = snprintf(err->text, sizeof(err->text), "%s: %s", prefix,
			   inner);
	mark_truncated(err, written);
	return -err->errnum;
}
