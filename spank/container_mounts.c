/*
 * spank/container_mounts.c - is a host path shown at the same place inside
 * an OCI container?  The bundle's mounts judged the way the runtime
 * resolves them (spank/container.h, lagom_container_mounts_path_at()).
 *
 * What runc 1.1 does, and what this file relies on (runc's
 * libcontainer/rootfs_linux.go mountToRootfs() and the securejoin package
 * it calls; tried with Debian's runc 1.1.5 in tests/spank/runc_mounts.sh):
 *  - the mounts are made in the order of config.json, each on the result
 *    of the ones before: a later mount at or above a path hides what an
 *    earlier one showed there;
 *  - each destination is joined to the root file system as securejoin
 *    does: cleaned ("//", ".", "..", a trailing "/"), a relative one taken
 *    from the container's "/" (runc 1.1 warns "mount destination not
 *    absolute" and mounts it there), ".." never above "/", and every
 *    symbolic link on the way followed inside the root (an absolute
 *    target starts again at the container's "/"), at most 255 of them;
 *  - a bind mount shows its source (a host path); a tmpfs or any other
 *    type shows a new file system without the host's files.
 * Links are read where the container would find them: in the root file
 * system, or, below a bind mount, in its host source; below a mount of
 * another type there are none.  The host path itself is resolved on the
 * host the same way, so a tuner that is a link (libX.so -> libX.so.1)
 * still matches.  At most LAGOM_CONTAINER_LINKS_MAX links per path and
 * LAGOM_CONTAINER_MOUNTS_MAX mounts are judged; past them, not shown.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "spank/container.h"

#define PATH_LEN 4096

/* One mount of config.json, its destination resolved in the container. */
struct mnt {
	char *dest;	 /* resolved, absolute, clean; "/" for the root */
	const char *src; /* a bind's absolute source, borrowed; or NULL */
	bool bind;	 /* a bind mount (shows src); else an empty fs */
};

struct view {
	int root_fd;	       /* the root file system; -1: read no links */
	const struct mnt *mnt; /* the mounts made so far */
	size_t n_mnt;
};

/* dest ("/" or "/a/b", clean) is path or one of its parents */
static bool covers(const char *dest, const char *path)
{
	size_t dn = strlen(dest);

	if (dn == 1)
		return true;
	return strncmp(dest, path, dn) == 0 &&
	       (path[dn] == '\0' || path[dn] == '/');
}

/* The last mount made that covers path, or NULL. */
static const struct mnt *shown_by(const struct view *v, const char *path)
{
	const struct mnt *hit = NULL;

	for (size_t i = 0; i < v->n_mnt; i++)
		if (covers(v->mnt[i].dest, path))
			hit = &v->mnt[i];
	return hit;
}

/* src + what path has below dest, into buf; -ENAMETOOLONG */
static int rebase(const char *src, const char *dest, const char *path,
		  char *buf, size_t len)
{
	const char *rest = path + (strlen(dest) == 1 ? 0 : strlen(dest));
	size_t sn = strlen(src);

	while (sn > 1 && src[sn - 1] == '/')
		sn--;
	if (sn == 1 && rest[0] == '/')
		sn = 0;
	if (sn + strlen(rest) + 1 > len)
		return -ENAMETOOLONG;
	memcpy(buf, src, sn);
	strcpy(buf + sn, rest);
	if (!buf[0])
		strcpy(buf, "/");
	return 0;
}

/*
 * The target of the link at path (absolute, clean, its parents no links)
 * as the container sees it, into target: its length, 0 when path is no
 * link (or absent), or a negative errno.
 */
static ssize_t link_at(const struct view *v, const char *path, char *target,
		       size_t len)
{
	const struct mnt *m;
	char host[PATH_LEN];
	ssize_t n;

	if (v->root_fd < 0 && v->root_fd != AT_FDCWD)
		return 0;
	m = shown_by(v, path);
	if (!m) {
		n = readlinkat(v->root_fd,
			       v->root_fd == AT_FDCWD ? path : path + 1, target,
			       len);
	} else {
		/* a mount point shows what was mounted, never a link */
		if (!m->bind || strcmp(m->dest, path) == 0 ||
		    rebase(m->src, m->dest, path, host, sizeof(host)) < 0)
			return 0;
		n = readlinkat(AT_FDCWD, host, target, len);
	}
	if (n < 0)
		return errno == ENOENT || errno == EINVAL || errno == ENOTDIR
			       ? 0
			       : -errno;
	if ((size_t)n >= len)
		return -ENAMETOOLONG;
	target[n] = '\0';
	return n;
}

/*
 * Resolve unsafe as securejoin does in v: clean, from "/", ".." stopping at
 * "/", links followed inside (at most LAGOM_CONTAINER_LINKS_MAX), absent
 * parts kept as written.  out: PATH_LEN bytes.  0 or a negative errno.
 */
static int resolve(const struct view *v, const char *unsafe, char *out)
{
	char todo[2 * PATH_LEN + 2], target[PATH_LEN];
	char *p = todo;
	size_t on = 0;
	int links = 0;

	if (strlen(unsafe) >= PATH_LEN)
		return -ENAMETOOLONG;
	strcpy(todo, unsafe);
	out[0] = '\0';
	while (*p) {
		char *end = strchr(p, '/');
		size_t cn = end ? (size_t)(end - p) : strlen(p);
		char *next = end ? end + 1 : p + cn;
		ssize_t tn;

		if (cn == 0 || (cn == 1 && p[0] == '.')) {
			p = next;
			continue;
		}
		if (cn == 2 && p[0] == '.' && p[1] == '.') {
			while (on > 0 && out[on - 1] != '/')
				on--;
			if (on > 0)
				on--;
			out[on] = '\0';
			p = next;
			continue;
		}
		if (on + 1 + cn >= PATH_LEN)
			return -ENAMETOOLONG;
		out[on] = '/';
		memcpy(out + on + 1, p, cn);
		out[on + 1 + cn] = '\0';
		tn = link_at(v, out, target, sizeof(target));
		if (tn < 0)
			return (int)tn;
		if (tn == 0) {
			on += 1 + cn;
			p = next;
			continue;
		}
		if (++links > LAGOM_CONTAINER_LINKS_MAX)
			return -ELOOP;
		if ((size_t)tn + 1 + strlen(next) >= sizeof(todo))
			return -ENAMETOOLONG;
		/* the link's target, then what followed it */
		memmove(todo + tn + 1, next, strlen(next) + 1);
		memcpy(todo, target, (size_t)tn);
		todo[tn] = '/';
		p = todo;
		if (target[0] == '/')
			on = 0;
		out[on] = '\0';
	}
	if (on == 0)
		strcpy(out, "/");
	return 0;
}

static bool is_bind(const json_t *m)
{
	const json_t *type = json_object_get(m, "type");
	const json_t *opts = json_object_get(m, "options");
	size_t i;
	json_t *o;

	if (json_is_string(type) &&
	    strcmp(json_string_value(type), "bind") == 0)
		return true;
	json_array_foreach(opts, i, o)
	{
		if (json_is_string(o) &&
		    (strcmp(json_string_value(o), "bind") == 0 ||
		     strcmp(json_string_value(o), "rbind") == 0))
			return true;
	}
	return false;
}

static void free_mounts(struct mnt *mnt, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(mnt[i].dest);
	free(mnt);
}

/*
 * config's mounts, each destination resolved on the ones before it, into
 * *out (n_out of them; free_mounts()).  0, -EINVAL (no OCI config),
 * -E2BIG, -ENOMEM, or a resolution's errno.
 */
static int made_mounts(const json_t *config, int root_fd, struct mnt **out,
		       size_t *n_out)
{
	const json_t *mounts = json_object_get(config, "mounts");
	struct view v = { .root_fd = root_fd };
	char dest[PATH_LEN];
	struct mnt *mnt;
	size_t i;
	json_t *m;
	int rc;

	if (mounts && !json_is_array(mounts))
		return -EINVAL;
	json_array_foreach(mounts, i, m)
	{
		const json_t *d = json_object_get(m, "destination");

		if (!json_is_object(m) || !json_is_string(d))
			return -EINVAL;
	}
	if (json_array_size(mounts) > LAGOM_CONTAINER_MOUNTS_MAX)
		return -E2BIG;
	mnt = calloc(json_array_size(mounts) + 1, sizeof(*mnt));
	if (!mnt)
		return -ENOMEM;
	v.mnt = mnt;
	json_array_foreach(mounts, i, m)
	{
		const json_t *s = json_object_get(m, "source");

		rc = resolve(
			&v,
			json_string_value(json_object_get(m, "destination")),
			dest);
		if (rc < 0 || !(mnt[i].dest = strdup(dest))) {
			free_mounts(mnt, i);
			return rc < 0 ? rc : -ENOMEM;
		}
		mnt[i].bind = is_bind(m);
		if (mnt[i].bind && json_is_string(s) &&
		    json_string_value(s)[0] == '/')
			mnt[i].src = json_string_value(s);
		v.n_mnt = i + 1;
	}
	*out = mnt;
	*n_out = v.n_mnt;
	return 0;
}

/* path, resolved in the container, shows the host's path: 1 or 0 */
static int same_file(const struct view *v, const char *path)
{
	struct view host = { .root_fd = v->root_fd < 0 ? -1 : AT_FDCWD };
	char inside[PATH_LEN], outside[PATH_LEN], src[PATH_LEN];
	char from[PATH_LEN];
	const struct mnt *m;

	if (resolve(v, path, inside) < 0 || resolve(&host, path, outside) < 0)
		return 0;
	m = shown_by(v, inside);
	if (!m || !m->bind || !m->src)
		return 0;
	/* the source, resolved on the host as runc opens it */
	if (resolve(&host, m->src, src) < 0 ||
	    rebase(src, m->dest, inside, from, sizeof(from)) < 0)
		return 0;
	return strcmp(from, outside) == 0;
}

int lagom_container_mounted_at(const json_t *config, int root_fd,
			       const char *path)
{
	struct mnt *mnt = NULL;
	size_t n = 0;
	int rc;

	if (!json_is_object(config))
		return -EINVAL;
	rc = made_mounts(config, root_fd, &mnt, &n);
	if (rc == -EINVAL)
		return rc;
	if (rc < 0)
		return 0;
	{
		const struct view v = { .root_fd = root_fd,
					.mnt = mnt,
					.n_mnt = n };

		rc = same_file(&v, path);
	}
	free_mounts(mnt, n);
	return rc;
}

int lagom_container_mounts_path_at(int root_fd, const char *json, size_t len,
				   const char *path)
{
	json_t *config = json_loadb(json, len, JSON_REJECT_DUPLICATES, NULL);
	int rc;

	if (!config)
		return -EINVAL;
	rc = lagom_container_mounted_at(config, root_fd, path);
	json_decref(config);
	return rc;
}

int lagom_container_mounts_path(const char *json, size_t len, const char *path)
{
	return lagom_container_mounts_path_at(-1, json, len, path);
}
