/*
 * measurement/record_file.c - read one measurement record file with the
 * caller's privileges (record.h).  Measurement files sit in the user's own
 * spool: they are refused when they are a symbolic link, not a regular
 * file, too large, or owned by someone else.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "measurement/predicted.h"
#include "measurement/record.h"

int lagom_rec_read_text(const char *path, long owner_uid, char *buf, size_t max,
			size_t *len, struct lagom_error *err)
{
	struct stat st;
	size_t got = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rc = errno;
		return lagom_errprintf(err, rc, "%s: %s%s", path, strerror(rc),
				       rc == ELOOP ? " (symbolic link)" : "");
	}
	if (fstat(fd, &st) != 0) {
		rc = lagom_errprintf(err, errno, "%s: %s", path,
				     strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = lagom_errprintf(err, EINVAL, "%s: not a regular file",
				     path);
		goto out_close;
	}
	if (owner_uid >= 0 && st.st_uid != (uid_t)owner_uid) {
		rc = lagom_errprintf(err, EPERM,
				     "%s: owned by uid %lu, not %ld", path,
				     (unsigned long)st.st_uid, owner_uid);
		goto out_close;
	}
	if (st.st_size > (off_t)max) {
		rc = lagom_errprintf(err, EFBIG, "%s: larger than %zu bytes",
				     path, max);
		goto out_close;
	}
	rc = lagom_read_all(fd, buf, max + 1, &got);
	if (rc != 0) {
		lagom_errprintf(err, -rc, "%s: %s", path, strerror(-rc));
		goto out_close;
	}
	if (got > max) {
		rc = lagom_errprintf(err, EFBIG, "%s: grew beyond %zu bytes",
				     path, max);
		goto out_close;
	}
	*len = got;
out_close:
	close(fd);
	return rc;
}

int lagom_rec_read_file(const char *path, long owner_uid, char *buf,
			struct lagom_rec *out, struct lagom_rec *scratch,
			struct lagom_error *err)
{
	size_t got = 0;
	int rc = lagom_rec_read_text(path, owner_uid, buf, LAGOM_REC_MAX_BYTES,
				     &got, err);

	if (rc == 0 && (rc = lagom_rec_parse(buf, got, out, scratch, err)) != 0)
		lagom_error_prefix(err, "%s", path);
	return rc;
}

int lagom_measure_pred_read_file(const char *path, long owner_uid, char *buf,
				 struct lagom_measure_pred *out,
				 struct lagom_error *err)
{
	size_t got = 0;
	int rc = lagom_rec_read_text(path, owner_uid, buf,
				     LAGOM_MEASURE_PRED_MAX - 1, &got, err);

	if (rc == 0 && (rc = lagom_measure_pred_parse(buf, got, out, err)) != 0)
		lagom_error_prefix(err, "%s", path);
	return rc;
}

bool lagom_rec_is_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 4 && strcmp(name + len - 4, ".rec") == 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

size_t lagom_rec_names(const char *dir, char (*names)[LAGOM_REC_FILE_NAME_MAX],
		       size_t max, unsigned scan_max, size_t *found)
{
	size_t n = 0, total = 0, largest = 0;
	unsigned seen = 0;
	struct dirent *e;
	DIR *d = max ? opendir(dir) : NULL;

	while (d && seen++ < scan_max && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name), at = n;

		if (!lagom_rec_is_name(e->d_name) ||
		    len >= LAGOM_REC_FILE_NAME_MAX)
			continue;
		total++;
		if (n == max) {
			/* full: it replaces the largest kept, if smaller */
			if (strcmp(e->d_name, names[largest]) >= 0)
				continue;
			at = largest;
		} else {
			n++;
		}
		memcpy(names[at], e->d_name, len + 1);
		if (n < max)
			continue;
		largest = 0;
		for (size_t i = 1; i < n; i++)
			if (strcmp(names[i], names[largest]) > 0)
				largest = i;
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(names[0]), name_cmp);
	if (found)
		*found = total;
	return n;
}
