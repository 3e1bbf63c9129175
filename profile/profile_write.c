/*
 * profile/profile_write.c - the atomic writer: a temporary file in the
 * profile directory, written, fsync'd and renamed over "<node>.json", then
 * the directory fsync'd.  rename(2) replaces the name in one step, so readers
 * see the old file or the new one, never a torn one.  See profile.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"
#include "profile/profile.h"
#include "profile/profile_int.h"

#define TMP_NAME_MAX 128

/* A fresh temporary file "<prefix>.<pid>.<n>" in dfd (common/io.h: never
 * an existing name, never through a link, never blocking). */
static int create_temp(int dfd, const char *prefix, char *name,
		       struct lagom_error *err)
{
	int fd = lagom_create_temp_at(dfd, prefix, 0600, name, TMP_NAME_MAX);

	if (fd < 0)
		return lagom_errprintf(err, -fd,
				       "cannot create a temporary file: %s",
				       strerror(-fd));
	return fd;
}

/* Write text into the temporary file and make it durable before renaming. */
static int fill_temp(int fd, const char *text, size_t len,
		     struct lagom_error *err)
{
	int rc;

	if (fchmod(fd, 0644) < 0)
		return lagom_errprintf(err, errno, "fchmod: %s",
				       strerror(errno));
	rc = lagom_write_all(fd, text, len);
	if (rc < 0)
		return lagom_errprintf(err, -rc, "write: %s", strerror(-rc));
	if (fsync(fd) < 0)
		return lagom_errprintf(err, errno, "fsync: %s",
				       strerror(errno));
	return 0;
}

static int commit(int dfd, const char *tmp, const char *final,
		  struct lagom_error *err)
{
	if (renameat(dfd, tmp, dfd, final) < 0)
		return lagom_errprintf(err, errno, "rename: %s",
				       strerror(errno));
	if (fsync(dfd) < 0)
		return lagom_errprintf(err, errno, "fsync of the directory: %s",
				       strerror(errno));
	return 0;
}

/* Temporary files of this node left by a writer that was killed (a prolog
 * stopped by timeout) are removed once they are older than STALE_TEMP_S, so
 * a writer at work beside us is never disturbed. */
#define STALE_TEMP_S 600

static void remove_stale_temps(int dfd, const char *prefix)
{
	int fd = dup(dfd);
	time_t now = time(NULL);
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		struct stat st;

		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 ||
		    e->d_name[strlen(prefix)] != '.' ||
		    fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode) && now - st.st_mtime > STALE_TEMP_S)
			unlinkat(dfd, e->d_name, 0);
	}
	closedir(d);
}

int lagom_profile_replace_at(int dfd, const char *final, const char *text,
			     size_t len, struct lagom_error *err)
{
	char tmp[TMP_NAME_MAX], prefix[TMP_NAME_MAX];
	int fd, rc;

	snprintf(prefix, sizeof(prefix), ".%s", final);
	fd = create_temp(dfd, prefix, tmp, err);
	if (fd < 0)
		return fd;
	rc = fill_temp(fd, text, len, err);
	if (close(fd) < 0 && rc == 0)
		rc = lagom_errprintf(err, errno, "close: %s", strerror(errno));
	if (rc == 0)
		rc = commit(dfd, tmp, final, err);
	if (rc < 0)
		unlinkat(dfd, tmp, 0);
	else
		remove_stale_temps(dfd, prefix);
	return rc;
}

int lagom_profile_write_atomic_at(int dfd, const char *dir,
				  const struct lagom_profile *profile,
				  struct lagom_error *err)
{
	char final[LAGOM_PROFILE_NAME_MAX + 8];
	char *text = NULL;
	int rc;

	if (!lagom_profile_node_name_ok(profile->node))
		return lagom_errprintf(err, EINVAL,
				       "\"%s\" is not a valid node name",
				       profile->node);
	snprintf(final, sizeof(final), "%s.json", profile->node);
	rc = lagom_profile_to_string(profile, &text, err);
	if (rc < 0)
		return rc;
	rc = lagom_profile_replace_at(dfd, final, text, strlen(text), err);
	free(text);
	if (rc < 0)
		return lagom_error_prefix(err, "writing %s/%s", dir, final);
	return 0;
}

int lagom_profile_write_atomic(const char *dir,
			       const struct lagom_profile *profile,
			       struct lagom_error *err)
{
	int dfd, rc;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (dfd < 0) {
		rc = lagom_errprintf(err, errno, "%s", strerror(errno));
		return lagom_error_prefix(err, "writing %s/%s.json", dir,
					  profile->node);
	}
	rc = lagom_profile_write_atomic_at(dfd, dir, profile, err);
	close(dfd);
	return rc;
}
