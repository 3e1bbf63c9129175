/*
 * planner/profiles.c - load the profiles of a step's nodes (profile/'s
 * reader and trust rules) as the model's hardware.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "planner/planner_int.h"
#include "profile/profile.h"

static int load_one(const char *dir, const char *path,
		    const struct lagom_trust *trust, const char *name,
		    struct lagom_hw *hw, struct lagom_error *err)
{
	struct lagom_profile *p = NULL;
	int rc;

	if (path)
		rc = lagom_profile_read_file(path, trust, &p, err);
	else
		rc = lagom_profile_load_node(dir, name, trust, &p, err);
	if (rc == -ENOENT)
		return lagom_error_prefix(err, "no profile for node %s in %s",
					  name, path ? path : dir);
	if (rc)
		return lagom_error_prefix(err, "profile of node %s", name);
	rc = lagom_profile_to_hw(p, hw, err);
	lagom_profile_destroy(p);
	return rc;
}

int planner_load_hw(const char *dir, const char *path, bool enforce_trust,
		    uid_t trusted_uid, const char *const *names, size_t n,
		    struct lagom_hw *hws, struct lagom_error *err)
{
	struct lagom_trust trust = { .owner_uid = trusted_uid };
	size_t i;
	int rc;

	if (!path && !dir)
		return lagom_errprintf(err, EINVAL, "no profile directory");
	for (i = 0; i < n; i++) {
		if (path && i > 0) { /* one file for every node: read once */
			hws[i] = hws[0];
			continue;
		}
		rc = load_one(dir, path, enforce_trust ? &trust : NULL,
			      names[i], &hws[i], err);
		if (rc)
			return rc;
	}
	return 0;
}
