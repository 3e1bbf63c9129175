/*
 * plugstack/measure.c - see measure.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plugstack/measure.h"

void lagom_measure_config_defaults(struct lagom_measure_config *m)
{
	memset(m, 0, sizeof(*m));
	m->on = true;
	m->max_steps = 64;
	m->max_mb = 256;
	strcpy(m->profiler, LAGOM_CONFIG_DEFAULT_PROFILER);
	m->control_share = LAGOM_CONTROL_DEFAULT;
	m->control_optout = true;
}

static bool key_is(const char *key, size_t keylen, const char *k)
{
	return keylen == strlen(k) && strncmp(key, k, keylen) == 0;
}

bool lagom_measure_config_key(const char *key, size_t keylen)
{
	return key_is(key, keylen, "measure") ||
	       key_is(key, keylen, "measure_dir") ||
	       key_is(key, keylen, "measure_max_steps") ||
	       key_is(key, keylen, "measure_max_mb") ||
	       key_is(key, keylen, "profiler") ||
	       key_is(key, keylen, "control") ||
	       key_is(key, keylen, "control_optout");
}

/* A share: "0", "1", or a decimal fraction ("0.05", ".5"), 0 to 1. */
static int share(const char *value, double *out, struct lagom_error *err)
{
	size_t digits = strspn(value, "0123456789"), frac = 0;
	char *end;
	double v;

	if (value[digits] == '.')
		frac = strspn(value + digits + 1, "0123456789");
	if (digits + frac == 0 || digits > 1 || frac > 6 ||
	    value[digits + (value[digits] == '.') + frac] != '\0')
		return lagom_errprintf(err, EINVAL,
				       "control=%s: expected a share from 0 to "
				       "1 (0.05: one step in twenty)",
				       value);
	v = strtod(value, &end);
	if (*end || v < 0 || v > 1)
		return lagom_errprintf(err, EINVAL,
				       "control=%s: expected a share from 0 to "
				       "1 (0.05: one step in twenty)",
				       value);
	*out = v;
	return 0;
}

static int number(const char *key, const char *value, unsigned max,
		  unsigned *out, struct lagom_error *err)
{
	char *end;
	unsigned long n;

	if (!value[0] || value[0] < '0' || value[0] > '9')
		return lagom_errprintf(err, EINVAL, "%s=%s: not a number", key,
				       value);
	errno = 0;
	n = strtoul(value, &end, 10);
	if (errno || *end || n < 1 || n > max)
		return lagom_errprintf(err, EINVAL, "%s=%s: expected 1 to %u",
				       key, value, max);
	*out = (unsigned)n;
	return 0;
}

static int path(char *dst, const char *key, const char *value, bool absolute,
		struct lagom_error *err)
{
	size_t n = strlen(value);

	if (n == 0)
		return lagom_errprintf(err, EINVAL, "%s= needs a value", key);
	if (n >= LAGOM_MEASURE_PATH_MAX)
		return lagom_errprintf(err, ERANGE, "%s=: longer than %d", key,
				       LAGOM_MEASURE_PATH_MAX - 1);
	if (absolute && value[0] != '/')
		return lagom_errprintf(err, EINVAL,
				       "%s=%s: must be an absolute path", key,
				       value);
	memcpy(dst, value, n + 1);
	return 0;
}

int lagom_measure_config_parse(struct lagom_measure_config *m, const char *key,
			       size_t keylen, const char *value,
			       struct lagom_error *err)
{
	if (!value)
		return lagom_errprintf(err, EINVAL, "%.*s needs =value",
				       (int)keylen, key);
	if (key_is(key, keylen, "measure")) {
		if (strcmp(value, "on") && strcmp(value, "off"))
			return lagom_errprintf(err, EINVAL,
					       "measure=%s: expected on or off",
					       value);
		m->on = strcmp(value, "on") == 0;
		return 0;
	}
	if (key_is(key, keylen, "measure_dir"))
		return path(m->dir, "measure_dir", value, true, err);
	if (key_is(key, keylen, "measure_max_steps"))
		return number("measure_max_steps", value, 100000, &m->max_steps,
			      err);
	if (key_is(key, keylen, "measure_max_mb"))
		return number("measure_max_mb", value, 1u << 20, &m->max_mb,
			      err);
	if (key_is(key, keylen, "profiler"))
		return path(m->profiler, "profiler", value, false, err);
	if (key_is(key, keylen, "control"))
		return share(value, &m->control_share, err);
	if (key_is(key, keylen, "control_optout")) {
		if (strcmp(value, "yes") && strcmp(value, "no"))
			return lagom_errprintf(
				err, EINVAL,
				"control_optout=%s: expected yes or no", value);
		m->control_optout = strcmp(value, "yes") == 0;
		return 0;
	}
	return lagom_errprintf(err, EINVAL, "unknown argument '%.*s'",
			       (int)keylen, key);
}
