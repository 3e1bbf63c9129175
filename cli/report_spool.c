/*
 * cli/report_spool.c - `lagom report`'s users (report_int.h): root walks
 * every user directory of the spool, anyone else their own; each user's
 * steps come through measurement/arm.h's adapter, read with the invoker's
 * privileges, owned by the user the directory names.
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/report_int.h"

struct walk {
	void (*fn)(const struct lagom_arm_step *s, void *ctx);
	void *ctx;
	unsigned *refused;
};

static void step(const struct lagom_arm_step *s, void *ctx)
{
	struct walk *w = ctx;

	w->fn(s, w->ctx);
}

static void refused(const char *why, void *ctx)
{
	struct walk *w = ctx;

	cli_fail(CLI_FAIL, "report: refused %s", why);
	(*w->refused)++;
}

static int walk_user(const char *spool, const struct passwd *pw, struct walk *w)
{
	char dir[4096];

	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", spool, pw->pw_name) >=
	    sizeof(dir))
		return cli_fail(CLI_FAIL, "report: %s: path too long", spool);
	if (lagom_arm_spool_user(dir, (long)pw->pw_uid, pw->pw_name, NULL, step,
				 refused, w) != 0)
		return cli_fail(CLI_FAIL, "out of memory");
	return CLI_OK;
}

int report_spool_walk(const char *spool, const char *user,
		      void (*fn)(const struct lagom_arm_step *s, void *ctx),
		      void *ctx, unsigned *n_refused)
{
	struct walk w = { .fn = fn, .ctx = ctx, .refused = n_refused };
	struct passwd *pw;
	int rc = CLI_OK;

	if (user) {
		pw = getpwnam(user);
		return pw ? walk_user(spool, pw, &w) : CLI_OK;
	}
	if (lagom_arm_spool_root(spool, step, refused, &w) != 0)
		rc = cli_fail(CLI_FAIL, "out of memory");
	return rc;
}
