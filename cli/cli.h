/*
 * cli/cli.h - private header of the `lagom` command-line tool.
 *
 * Exit statuses (documented in lagom(1)): 0 success, 1 a runtime failure
 * (a file that cannot be read or does not parse, a failed plan), 2 a usage
 * error (unknown option or subcommand, a bad or out-of-range value, an
 * unknown workload, a file named on the command line that does not exist).
 * Every error is one line on stderr starting with "lagom: ".
 */
#ifndef LAGOM_CLI_CLI_H
#define LAGOM_CLI_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "common/text.h" /* lagom_fmt_bytes() for sizes in words */

enum cli_exit {
	CLI_OK = 0,
	CLI_FAIL = 1,
	CLI_USAGE = 2,
};

enum cli_format {
	CLI_TEXT,
	CLI_JSON,
};

/* Version of the JSON output schema (doc/cli-json.md). */
#define CLI_JSON_SCHEMA 1

/* Print "lagom: " + message + newline on stderr; returns status. */
int cli_fail(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parsers: 0 on success, else print one usage line and return CLI_USAGE. */
int cli_parse_format(const char *arg, enum cli_format *out);
int cli_parse_uint(const char *opt, const char *arg, unsigned long long min,
		   unsigned long long max, unsigned long long *out);
/* The same into an unsigned (max at most UINT_MAX). */
int cli_parse_unsigned(const char *opt, const char *arg, unsigned min,
		       unsigned max, unsigned *out);
/* Bytes: a decimal integer with an optional K, M, G, T (powers of 1024)
 * or KB, MB, GB, TB (powers of 1000) suffix, or KiB, MiB, GiB, TiB. */
int cli_parse_bytes(const char *opt, const char *arg, unsigned long long max,
		    unsigned long long *out);

/* --nic: "4x400" -> 4, 400.0; "none" or "0" -> 0, 0. */
int cli_parse_nic(const char *arg, unsigned *count, double *Gbit);

/*
 * Common handling of an unknown option or a stray argument from getopt_long:
 * prints the line and returns CLI_USAGE.
 */
int cli_bad_option(const char *sub, int optopt_char, const char *arg);

/*
 * The getopt_long loop of subcommand sub: -h/--help prints usage and
 * returns -1; an unknown option or a missing value is cli_bad_option's line;
 * every other option goes to opt(ctx, value, optarg), whose nonzero status
 * ends the loop and is returned.  0 with the operands from optind.
 */
int cli_getopt(int argc, char **argv, const char *sub, const char *shortopts,
	       const struct option *longopts, const char *usage,
	       int (*opt)(void *ctx, int value, const char *arg), void *ctx);

/* cli_getopt's opt for a command whose one option is --format: ctx is
 * the enum cli_format to set. */
int cli_format_opt(void *format, int value, const char *arg);

/* No operand after the options: 0, else one line and CLI_USAGE. */
int cli_no_operand(const char *sub, int argc, char **argv);

/*
 * Replace path with len bytes of data so that a reader sees the old file or
 * the whole new one (common/io.h lagom_write_temp_at(), then
 * lagom_commit_temp_at()): a temporary ".NAME.<pid>.<n>" beside it, written,
 * given mode (0: 0666 less the umask), fsync'd, accepted by check(tmp, ctx)
 * when check is given (its status, after its own line, stops the write),
 * renamed over path, the directory fsync'd.  CLI_OK, or CLI_FAIL after one line
 * "WHAT PATH: error" ("PATH: error" when what is NULL).
 */
int cli_write_atomic(const char *what, const char *path, const void *data,
		     size_t len, unsigned mode,
		     int (*check)(const char *tmp, void *ctx), void *ctx);

/* A text table: columns with a header, right-aligned when numeric. */
struct cli_table;
struct cli_table *cli_table_create(size_t ncols, const char *const *headers,
				   const bool *right_align);
/* Add a row of ncols cells (copied); returns 0 or -ENOMEM. */
int cli_table_add(struct cli_table *t, const char *const *cells);
/* Add a row formatted with printf formats, one per column, separated by
 * '\t' in fmt: cli_table_addf(t, "%s\t%.2f", name, x). */
int cli_table_addf(struct cli_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cli_table_print(const struct cli_table *t, FILE *f, const char *indent);
void cli_table_destroy(struct cli_table *t);

/* Dump a JSON document to stdout (sorted keys, indent 2) and steal it.
 * Returns CLI_OK or CLI_FAIL. */
int cli_json_print(json_t *doc);

/* A new object with "lagom" (version) and "schema" (CLI_JSON_SCHEMA) keys and
 * "command" = name. */
json_t *cli_json_doc(const char *command);

/* Subcommands: argc/argv start at the subcommand's name. */
int cli_cmd_workloads(int argc, char **argv);
int cli_cmd_predict(int argc, char **argv);
int cli_cmd_plan(int argc, char **argv);
int cli_cmd_profile(int argc, char **argv);
int cli_cmd_topo(int argc, char **argv);
int cli_cmd_runs(int argc, char **argv);
int cli_cmd_report(int argc, char **argv);
int cli_cmd_calibrate(int argc, char **argv);
/* `lagom workload import|show` (cli/cmd_workload*.c). */
int cli_cmd_workload(int argc, char **argv);
int cli_workload_show(int argc, char **argv);
int cli_cmd_profile_check(int argc, char **argv);
int cli_cmd_policy(int argc, char **argv);
int cli_cmd_place(int argc, char **argv);
int cli_cmd_profile_synth(int argc, char **argv);
/* `lagom profile synth --list`: the built-in GPU table. */
int cli_synth_list(enum cli_format format);

#endif /* LAGOM_CLI_CLI_H */
