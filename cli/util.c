/*
 * cli/util.c - argument parsing, tables and JSON output shared by the
 * subcommands of `lagom`.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/escape.h"

int cli_fail(int status, const char *fmt, ...)
{
	char line[2048], safe[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* file names, JSON keys and names come from other people's files */
	lagom_escape(line, safe, sizeof(safe));
	fprintf(stderr, "lagom: %s\n", safe);
	return status;
}

int cli_parse_format(const char *arg, enum cli_format *out)
{
	if (strcmp(arg, "text") == 0)
		*out = CLI_TEXT;
	else if (strcmp(arg, "json") == 0)
		*out = CLI_JSON;
	else
		return cli_fail(CLI_USAGE,
				"--format: expected text or json, got '%s'",
				arg);
	return 0;
}

/* Digits only: strtoull accepts "-1" and " 7", which we refuse. */
static int parse_digits(const char *arg, unsigned long long *out,
			const char **end)
{
	char *e;

	if (!isdigit((unsigned char)arg[0]))
		return -EINVAL;
	errno = 0;
	*out = strtoull(arg, &e, 10);
	if (errno == ERANGE)
		return -ERANGE;
	*end = e;
	return 0;
}

int cli_parse_uint(const char *opt, const char *arg, unsigned long long min,
		   unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	const char *end;
	int rc = parse_digits(arg, &v, &end);

	if (rc == 0 && *end != '\0')
		rc = -EINVAL;
	if (rc == -EINVAL)
		return cli_fail(CLI_USAGE,
				"%s: expected a whole number, got '%s'", opt,
				arg);
	if (rc == -ERANGE || v < min || v > max)
		return cli_fail(CLI_USAGE, "%s: %s is out of range (%llu-%llu)",
				opt, arg, min, max);
	*out = v;
	return 0;
}

int cli_parse_unsigned(const char *opt, const char *arg, unsigned min,
		       unsigned max, unsigned *out)
{
	unsigned long long v = 0;
	int rc = cli_parse_uint(opt, arg, min, max, &v);

	if (rc == 0)
		*out = (unsigned)v;
	return rc;
}

struct suffix {
	const char *name;
	unsigned long long mult;
};

static const struct suffix byte_suffixes[] = {
	{ "", 1ULL },
	{ "B", 1ULL },
	{ "K", 1ULL << 10 },
	{ "KiB", 1ULL << 10 },
	{ "KB", 1000ULL },
	{ "M", 1ULL << 20 },
	{ "MiB", 1ULL << 20 },
	{ "MB", 1000000ULL },
	{ "G", 1ULL << 30 },
	{ "GiB", 1ULL << 30 },
	{ "GB", 1000000000ULL },
	{ "T", 1ULL << 40 },
	{ "TiB", 1ULL << 40 },
	{ "TB", 1000000000000ULL },
};

int cli_parse_bytes(const char *opt, const char *arg, unsigned long long max,
		    unsigned long long *out)
{
	unsigned long long v;
	const char *end;
	size_t i;
	int rc = parse_digits(arg, &v, &end);

	if (rc == -EINVAL)
		return cli_fail(CLI_USAGE,
				"%s: expected a size in bytes (e.g. 4096, 64K, "
				"16MiB), got '%s'",
				opt, arg);
	for (i = 0;
	     rc == 0 && i < sizeof(byte_suffixes) / sizeof(byte_suffixes[0]);
	     i++) {
		if (strcmp(end, byte_suffixes[i].name) != 0)
			continue;
		if (v > max / byte_suffixes[i].mult)
			break;
		*out = v * byte_suffixes[i].mult;
		if (*out == 0)
			return cli_fail(CLI_USAGE, "%s: must be > 0", opt);
		return 0;
	}
	if (rc == 0 && i == sizeof(byte_suffixes) / sizeof(byte_suffixes[0]))
		return cli_fail(CLI_USAGE, "%s: unknown size suffix in '%s'",
				opt, arg);
	return cli_fail(CLI_USAGE, "%s: %s is out of range (1-%llu bytes)", opt,
			arg, max);
}

int cli_bad_option(const char *sub, int optopt_char, const char *arg)
{
	if (optopt_char > 0 && optopt_char < 128 && isprint(optopt_char))
		return cli_fail(CLI_USAGE,
				"%s: unknown option or missing value '-%c' "
				"(try 'lagom %s --help')",
				sub, optopt_char, sub);
	return cli_fail(CLI_USAGE,
			"%s: unknown option or missing value '%s' (try 'lagom "
			"%s --help')",
			sub, arg ? arg : "?", sub);
}

int cli_getopt(int argc, char **argv, const char *sub, const char *shortopts,
	       const struct option *longopts, const char *usage,
	       int (*opt)(void *ctx, int value, const char *arg), void *ctx)
{
	int value, rc = 0;

	while (rc == 0 && (value = getopt_long(argc, argv, shortopts, longopts,
					       NULL)) != -1) {
		if (value == 'h')
			return fputs(usage, stdout), -1;
		if (value == '?' || value == ':')
			return cli_bad_option(sub, optopt, argv[optind - 1]);
		rc = opt(ctx, value, optarg);
	}
	return rc;
}

int cli_format_opt(void *format, int value, const char *arg)
{
	(void)value;
	return cli_parse_format(arg, format);
}

int cli_no_operand(const char *sub, int argc, char **argv)
{
	if (optind < argc)
		return cli_fail(CLI_USAGE, "%s: unexpected argument '%s'", sub,
				argv[optind]);
	return 0;
}

json_t *cli_json_doc(const char *command)
{
	json_t *doc = json_object();

	if (!doc)
		return NULL;
	if (json_object_set_new(doc, "lagom", json_string(PACKAGE_VERSION)) ||
	    json_object_set_new(doc, "schema", json_integer(CLI_JSON_SCHEMA)) ||
	    json_object_set_new(doc, "command", json_string(command))) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int cli_json_print(json_t *doc)
{
	int rc;

	if (!doc)
		return cli_fail(CLI_FAIL, "out of memory building JSON output");
	rc = json_dumpf(doc, stdout,
			JSON_INDENT(2) | JSON_SORT_KEYS |
				JSON_REAL_PRECISION(9));
	json_decref(doc);
	if (rc != 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0)
		return cli_fail(CLI_FAIL, "cannot write to standard output");
	return CLI_OK;
}
