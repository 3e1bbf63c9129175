/*
 * cli/cmd_profile_check.c - `lagom profile check FILE...`: validate profiles
 * with the reader and trust rules the SPANK plugin uses.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "profile/profile.h"

static const char check_usage[] =
	"Usage: lagom profile check [OPTIONS] FILE...\n"
	"\n"
	"Read each profile with the plugin's reader: format, units, fingerprint\n"
	"and, unless --no-trust, the trust rules (file and directory owned by\n"
	"root or --trusted-uid, not writable by group or others, no symlink).\n"
	"\n"
	"Options:\n"
	"  --no-trust          skip the ownership and permission checks\n"
	"  --trusted-uid UID   owner trusted besides root (SlurmUser)\n"
	"  --format text|json  output format (default text)\n"
	"  -h, --help          this help\n"
	"\n"
	"Exit status: 0 all valid, 1 some profile invalid or untrusted,\n"
	"2 usage error or a FILE that does not exist.\n";

struct check_opts {
	enum cli_format format;
	bool trust;
	unsigned long long trusted_uid;
};

static int check_opt(void *ctx, int value, const char *arg)
{
	struct check_opts *o = ctx;

	if (value == 'n') {
		o->trust = false;
		return 0;
	}
	if (value == 'u')
		return cli_parse_uint("--trusted-uid", arg, 0, UINT32_MAX - 1,
				      &o->trusted_uid);
	return cli_parse_format(arg, &o->format);
}

static int parse_check(int argc, char **argv, struct check_opts *o)
{
	static const struct option longopts[] = {
		{ "no-trust", no_argument, NULL, 'n' },
		{ "trusted-uid", required_argument, NULL, 'u' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt(argc, argv, "profile check", "+h", longopts,
			    check_usage, check_opt, o);

	if (rc)
		return rc;
	if (optind >= argc)
		return cli_fail(CLI_USAGE, "profile check: no FILE given (try "
					   "'lagom profile check --help')");
	return 0;
}

static json_t *check_json(const char *path, const struct lagom_profile *p,
			  const struct lagom_error *err)
{
	json_t *o = json_pack("{s:s, s:b}", "path", path, "valid", p != NULL);

	if (!o)
		return NULL;
	if (p)
		json_object_set_new(o, "profile",
				    lagom_profile_to_json(p, NULL));
	else
		json_object_set_new(o, "error", json_string(err->text));
	return o;
}

static void check_row(struct cli_table *t, const char *path,
		      const struct lagom_profile *p)
{
	if (!p) {
		cli_table_addf(t, "%s\tINVALID\t-\t-\t-\t-\t-", path);
		return;
	}
	cli_table_addf(t, "%s\tok\t%s\t%s\t%d\t%s\t%s", path, p->node,
		       p->hw.gpu_model[0] ? p->hw.gpu_model : "(none)",
		       p->hw.gpu_count, lagom_profile_intra_name(p->hw.intra),
		       lagom_source_name(p->meas.busbw_source));
}

/* One file: 0 valid, CLI_FAIL invalid or untrusted, CLI_USAGE missing. */
static int check_one(const char *path, const struct check_opts *o,
		     struct lagom_profile **out, struct lagom_error *err)
{
	struct lagom_trust trust = { .owner_uid = (uid_t)o->trusted_uid };
	struct stat st;
	int rc;

	lagom_error_clear(err);
	if (stat(path, &st) != 0 && errno == ENOENT) {
		lagom_errprintf(err, ENOENT, "%s: no such file", path);
		return CLI_USAGE;
	}
	rc = lagom_profile_read_file(path, o->trust ? &trust : NULL, out, err);
	if (rc == -ENOENT)
		return CLI_USAGE;
	return rc ? CLI_FAIL : CLI_OK;
}

int cli_cmd_profile_check(int argc, char **argv)
{
	static const char *const hdr[] = { "FILE", "STATUS", "NODE", "GPU",
					   "GPUS", "INTRA",  "BUSBW" };
	static const bool right[] = { 0, 0, 0, 0, 1, 0, 0 };
	struct check_opts o = { .format = CLI_TEXT, .trust = true };
	struct cli_table *t = cli_table_create(7, hdr, right);
	json_t *doc = cli_json_doc("profile check");
	json_t *files = json_array();
	int rc = parse_check(argc, argv, &o), worst = CLI_OK, i;

	if (!rc && (!t || !doc || !files))
		rc = cli_fail(CLI_FAIL, "out of memory");
	if (rc)
		goto out;
	for (i = optind; i < argc; i++) {
		struct lagom_profile *p = NULL;
		struct lagom_error err;
		int st = check_one(argv[i], &o, &p, &err);

		if (st != CLI_OK)
			cli_fail(st, "%s", err.text);
		if (st > worst)
			worst = st;
		check_row(t, argv[i], p);
		json_array_append_new(files, check_json(argv[i], p, &err));
		lagom_profile_destroy(p);
	}
	if (o.format == CLI_JSON) {
		json_object_set_new(doc, "valid", json_boolean(worst == 0));
		json_object_set_new(doc, "files", files);
		files = NULL;
		rc = cli_json_print(doc);
		doc = NULL;
	} else {
		cli_table_print(t, stdout, "");
	}
	rc = rc ? rc : worst;
out:
	json_decref(files);
	json_decref(doc);
	cli_table_destroy(t);
	return rc < 0 ? CLI_OK : rc;
}
