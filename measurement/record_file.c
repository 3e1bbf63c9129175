/*
 * measurement/record_file.c - read one measurement record file with the
 * caller's privileges (record.h).  Measurement files sit in the user's own
 * spool: common/io.h's reader refuses a symbolic link, anything but a
 * regular file, a file too large or owned by someone else.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "measurement/predicted.h"
#include "measurement/record.h"

/* dfd/name's text, at most max bytes, into buf (max + 1 bytes): the
 * common reader's rules for a user's file (common/io.h). */
static int read_text_at(int dfd, const char *name, long owner_uid, char *buf,
			size_t max, size_t *len, struct lagom_error *err)
{
	struct lagom_read_rule rule = {
		.max_bytes = max,
		.owner = owner_uid >= 0 ? LAGOM_OWNER_UID : LAGOM_OWNER_ANY,
		.uid = owner_uid >= 0 ? (uid_t)owner_uid : 0,
	};

	return lagom_read_file_at(dfd, name, &rule, buf, len, NULL, err);
}

int lagom_rec_read_at(int dfd, const char *name, long owner_uid, char *buf,
		      struct lagom_rec *out, struct lagom_rec *scratch,
		      struct lagom_error *err)
{
	size_t got = 0;
	int rc = read_text_at(dfd, name, owner_uid, buf, LAGOM_REC_MAX_BYTES,
			      &got, err);

	return rc ? rc : lagom_rec_parse(buf, got, out, scratch, err);
}

int lagom_rec_read_file(const char *path, long owner_uid, char *buf,
			struct lagom_rec *out, struct lagom_rec *scratch,
			struct lagom_error *err)
{
	int rc = lagom_rec_read_at(AT_FDCWD, path, owner_uid, buf, out, scratch,
				   err);

	return rc ? lagom_error_prefix(err, "%s", path) : 0;
}

int lagom_predicted_read_at(int dfd, const char *name, long owner_uid,
			    char *buf, struct lagom_predicted *out,
			    struct lagom_error *err)
{
	size_t got = 0;
	int rc = read_text_at(dfd, name, owner_uid, buf,
			      LAGOM_PREDICTED_MAX - 1, &got, err);

	return rc ? rc : lagom_predicted_parse(buf, got, out, err);
}

bool lagom_rec_is_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 4 && strcmp(name + len - 4, ".rec") == 0;
}
