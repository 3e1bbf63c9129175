/*
 * prolog/plugstack.c - lagom-prolog takes its defaults from the same
 * plugstack.conf line the SPANK plugin reads ("required /path/lagom.so
 * profile_dir=... slurm_user=..."), parsed by plugstack/.  "include" lines are
 * not followed.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "prolog/prolog.h"

#define MAX_WORDS 64

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

int prolog_read_plugstack(const char *path, struct lagom_config *cfg,
			  struct lagom_error *err)
{
	char line[4096];
	char *words[MAX_WORDS];
	FILE *f = fopen(path, "re");
	int rc = -ENOENT;

	lagom_config_defaults(cfg);
	if (f == NULL)
		return lagom_errprintf(err, errno, "%s: %s", path,
				       strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		int n = split_words(line, words, MAX_WORDS);

		if (n < 2 || !is_lagom_plugin(words[1]))
			continue;
		rc = lagom_config_parse(n - 2, words + 2, cfg, err);
		if (rc < 0)
			lagom_error_prefix(err, "%s", path);
		break;
	}
	fclose(f);
	if (rc == -ENOENT)
		lagom_errprintf(err, ENOENT, "%s: no line for lagom.so", path);
	return rc;
}
