/*
 * prolog/plugstack.c - lagom-prolog takes its defaults from the same
 * plugstack.conf line the SPANK plugin reads ("required /path/lagom.so
 * profile_dir=... slurm_user=..."), parsed by plugstack/.  "include" lines are
 * not followed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "prolog/prolog.h"

#define MAX_WORDS 64
/* Larger than any plugstack.conf; the file is read whole, at most this. */
#define PLUGSTACK_MAX_BYTES (256 * 1024)

/* Split line in place on blanks; stops at a '#'.  Returns the word count. */
static int split_words(char *line, char **words, int max)
{
	int n = 0;
	char *p = line;

	while (*p != '\0' && n < max) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			*p++ = '\0';
		if (*p == '\0' || *p == '#')
			break;
		words[n++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' &&
		       *p != '\r')
			p++;
	}
	if (*p == '#')
		*p = '\0';
	return n;
}

static int is_lagom_plugin(const char *path)
{
	const char *base = strrchr(path, '/');

	return strcmp(base ? base + 1 : path, "lagom.so") == 0;
}

/*
 * Read path whole into a NUL-terminated buffer (free it): a regular file
 * of at most PLUGSTACK_MAX_BYTES, opened without blocking (a FIFO with no
 * writer would block the open; /dev/zero would never end).
 */
static char *read_bounded(const char *path, struct lagom_error *err)
{
	struct lagom_read_rule rule = { .max_bytes = PLUGSTACK_MAX_BYTES,
					.follow = true };
	struct stat st = { 0 };
	size_t len = 0;
	char *buf = NULL;
	int rc = lagom_read_file_alloc_at(AT_FDCWD, path, &rule, &buf, &len,
					  &st, err);

	if (rc == -EFBIG)
		lagom_errprintf(err, EFBIG,
				"%s: too large (%lld bytes, max %d)", path,
				(long long)st.st_size, PLUGSTACK_MAX_BYTES);
	else if (rc == -EINVAL)
		lagom_errprintf(err, EINVAL, "%s: not a regular file", path);
	else if (rc < 0)
		lagom_error_prefix(err, "%s", path);
	return rc < 0 ? NULL : buf;
}

int prolog_read_plugstack(const char *path, struct lagom_config *cfg,
			  struct lagom_error *err)
{
	char *words[MAX_WORDS];
	char *text, *line, *next;
	int rc = -ENOENT;

	lagom_config_defaults(cfg);
	text = read_bounded(path, err);
	if (text == NULL)
		return -(err && err->errnum ? err->errnum : EIO);
	for (line = text; line != NULL; line = next) {
		int n;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		n = split_words(line, words, MAX_WORDS);
		if (n < 2 || !is_lagom_plugin(words[1]))
			continue;
		rc = lagom_config_parse(n - 2, words + 2, cfg, err);
		if (rc < 0)
			lagom_error_prefix(err, "%s", path);
		break;
	}
	free(text);
	if (rc == -ENOENT)
		lagom_errprintf(err, ENOENT, "%s: no line for lagom.so", path);
	return rc;
}
