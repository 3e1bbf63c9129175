/*
 * spank/envset.c - which of the plan's variables a task gets.
 *
 * The user wins (lagom-spank(8) override=, forbid=): a variable already in the user's environment
 * is kept unless the admin lists it in override=; a variable in forbid= is
 * never set.  Decided once per node, in user_init, against the step's
 * environment (what the user exported), and applied to every task.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spank/lagom.h"

int lagom_env_decide(const struct lagom_env_var *env, size_t n,
		     const struct lagom_config *cfg,
		     bool (*is_set)(void *ctx, const char *name), void *ctx,
		     struct lagom_env_item **out)
{
	struct lagom_env_item *items = calloc(n ? n : 1, sizeof(*items));

	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *name = env[i].name;

		items[i].var = &env[i];
		if (lagom_varlist_has(&cfg->forbid, name))
			items[i].action = LAGOM_ENV_SKIP_FORBIDDEN;
		else if (!is_set(ctx, name))
			items[i].action = LAGOM_ENV_SET;
		else if (lagom_varlist_has(&cfg->override, name))
			items[i].action = LAGOM_ENV_OVERRIDE;
		else
			items[i].action = LAGOM_ENV_SKIP_USER;
	}
	*out = items;
	return 0;
}

size_t lagom_env_skipped(const struct lagom_env_item *items, size_t n,
			 char *buf, size_t len)
{
	size_t skipped = 0, used = 0;
	bool truncated = false;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t need;

		if (items[i].action != LAGOM_ENV_SKIP_USER &&
		    items[i].action != LAGOM_ENV_SKIP_FORBIDDEN)
			continue;
		skipped++;
		need = strlen(items[i].var->name) + (used ? 1 : 0);
		if (truncated || used + need + 4 >= len) {
			truncated = true;
			continue;
		}
		if (used)
			buf[used++] = ',';
		strcpy(buf + used, items[i].var->name);
		used += strlen(items[i].var->name);
	}
	if (truncated && len >= 4)
		strcpy(buf + (used + 4 <= len ? used : len - 4), "...");
	return skipped;
}
