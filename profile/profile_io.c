/*
 * profile/profile_io.c - reading profiles under the trust policy, and the
 * atomic writer.  See profile.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"
#include "common/trusted_dir.h"
#include "profile/profile.h"
#include "profile/profile_int.h"

#define OPEN_DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)

/* The common reader's rule for a profile-directory file: with trust,
 * never through a symlink, owned by root or the trusted uid and not
 * writable by group or others; without, a regular file wherever a link
 * leads. */
static struct lagom_read_rule rule_of(const struct lagom_trust *t, size_t max)
{
	return (struct lagom_read_rule){
		.max_bytes = max,
		.owner = t ? LAGOM_OWNER_TRUSTED : LAGOM_OWNER_ANY,
		.uid = t ? t->owner_uid : 0,
		.follow = t == NULL,
	};
}

/* The trusted directory dir: common/trusted_dir.h's walk, as given, from
 * "/" (no link followed anywhere, every ancestor checked). */
static int open_trusted_dir(const char *dir, const struct lagom_trust *t,
			    struct lagom_error *err)
{
	return lagom_trusted_dir_open(dir, t->owner_uid, "profile directory",
				      err);
}

/* Split path into its directory ("." when none) and last component. */
static int split_path(const char *path, char *dir, size_t size,
		      const char **base)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL) {
		snprintf(dir, size, ".");
		*base = path;
	} else if ((size_t)(slash - path) + 2 > size) {
		return -1;
	} else {
		size_t n = slash == path ? 1 : (size_t)(slash - path);

		memcpy(dir, path, n);
		dir[n] = '\0';
		*base = slash + 1;
	}
	return (*base)[0] == '\0' ? -1 : 0;
}

int lagom_profile_read_file(const char *path, const struct lagom_trust *trust,
			    struct lagom_profile **out, struct lagom_error *err)
{
	char dir[PATH_MAX];
	const char *base;
	struct lagom_read_rule rule = rule_of(trust, LAGOM_PROFILE_MAX_BYTES);
	char *buf = NULL;
	size_t len = 0;
	int dfd = AT_FDCWD, rc;

	if (split_path(path, dir, sizeof(dir), &base) < 0)
		return lagom_errprintf(err, EINVAL,
				       "profile %s: not a file path", path);
	if (trust && (dfd = open_trusted_dir(dir, trust, err)) < 0)
		return lagom_error_prefix(err, "profile %s", path);
	rc = lagom_read_file_alloc_at(dfd, trust ? base : path, &rule, &buf,
				      &len, NULL, err);
	if (dfd >= 0)
		close(dfd);
	if (rc == 0) {
		rc = lagom_profile_from_buffer(buf, len, out, err);
		free(buf);
	}
	if (rc < 0)
		return lagom_error_prefix(err, "profile %s", path);
	return 0;
}

int lagom_profile_dir_open(const char *dir, const struct lagom_trust *trust,
			   struct lagom_error *err)
{
	int fd;

	if (trust)
		return open_trusted_dir(dir, trust, err);
	fd = open(dir, OPEN_DIR_FLAGS);
	if (fd < 0)
		return lagom_errprintf(err, errno, "directory %s: %s", dir,
				       strerror(errno));
	return fd;
}

int lagom_profile_read_at(int dfd, const char *base,
			  const struct lagom_trust *trust, size_t max,
			  char **buf, size_t *len, struct stat *st,
			  struct lagom_error *err)
{
	struct lagom_read_rule rule = rule_of(trust, max);

	return lagom_read_file_alloc_at(dfd, base, &rule, buf, len, st, err);
}

int lagom_profile_load_node_at(int dfd, const char *dir, const char *node,
			       const struct lagom_trust *trust,
			       struct lagom_profile **out, struct stat *st,
			       struct lagom_error *err)
{
	char base[LAGOM_PROFILE_NAME_MAX + 8];
	struct lagom_profile *p = NULL;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (!lagom_profile_node_name_ok(node))
		return lagom_errprintf(err, EINVAL,
				       "\"%s\" is not a valid node name", node);
	snprintf(base, sizeof(base), "%s.json", node);
	rc = lagom_profile_read_at(dfd, base, trust, LAGOM_PROFILE_MAX_BYTES,
				   &buf, &len, st, err);
	if (rc == 0) {
		rc = lagom_profile_from_buffer(buf, len, &p, err);
		free(buf);
	}
	if (rc < 0)
		return lagom_error_prefix(err, "profile %s/%s", dir, base);
	if (strcmp(p->node, node) != 0) {
		rc = lagom_errprintf(err, EINVAL,
				     "profile %s/%s: written for node \"%s\"",
				     dir, base, p->node);
		lagom_profile_destroy(p);
		return rc;
	}
	*out = p;
	return 0;
}

int lagom_profile_load_node(const char *dir, const char *node,
			    const struct lagom_trust *trust,
			    struct lagom_profile **out, struct lagom_error *err)
{
	int dfd, rc;

	if (!lagom_profile_node_name_ok(node))
		return lagom_errprintf(err, EINVAL,
				       "\"%s\" is not a valid node name", node);
	if (strlen(dir) + strlen(node) + 6 >= PATH_MAX)
		return lagom_errprintf(err, ENAMETOOLONG,
				       "profile directory name too long");
	dfd = lagom_profile_dir_open(dir, trust, err);
	if (dfd < 0)
		return lagom_error_prefix(err, "profile %s/%s.json", dir, node);
	rc = lagom_profile_load_node_at(dfd, dir, node, trust, out, NULL, err);
	close(dfd);
	return rc;
}

int lagom_profile_trust_stat(const struct stat *st,
			     const struct lagom_trust *trust, const char *base,
			     struct lagom_error *err)
{
	if (!S_ISREG(st->st_mode))
		return lagom_errprintf(err, EPERM, "%s: not a regular file",
				       base);
	return trust ? lagom_trust_check(st, trust->owner_uid, false, "file",
					 base, "", err)
		     : 0;
}
