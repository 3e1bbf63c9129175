/*
 * profile/profile_write.c - the atomic writer (common/io.h
 * lagom_replace_at()): a temporary file in the profile directory, written,
 * fsync'd and renamed over "<node>.json", then the directory fsync'd.  rename(2) replaces the name in one step, so readers
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
	char prefix[TMP_NAME_MAX];
	int rc = lagom_replace_at(dfd, final, text, len, 0644, true);

	if (rc < 0)
		return lagom_errprintf(err, -rc, "%s", strerror(-rc));
	snprintf(prefix, sizeof(prefix), ".%s", final);
	remove_stale_temps(dfd, prefix);
	return 0;
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
