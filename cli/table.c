/*
 * cli/table.c - aligned text tables for the `lagom` tool's text output.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

struct cli_table {
	size_t ncols;
	size_t nrows;
	size_t cap;
	char **cells; /* nrows * ncols, row 0 is the header */
	bool *right;
};

struct cli_table *cli_table_create(size_t ncols, const char *const *headers,
				   const bool *right_align)
{
	struct cli_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ncols = ncols;
	t->right = calloc(ncols, sizeof(*t->right));
	if (!t->right || cli_table_add(t, headers) != 0) {
		cli_table_destroy(t);
		return NULL;
	}
	if (right_align)
		memcpy(t->right, right_align, ncols * sizeof(*t->right));
	return t;
}

int cli_table_add(struct cli_table *t, const char *const *cells)
{
	size_t i;
	char **row;

	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;
		char **c = realloc(t->cells, cap * t->ncols * sizeof(*c));

		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->cap = cap;
	}
	row = t->cells + t->nrows * t->ncols;
	for (i = 0; i < t->ncols; i++) {
		row[i] = strdup(cells[i] ? cells[i] : "");
		if (!row[i]) {
			while (i > 0)
				free(row[--i]);
			return -ENOMEM;
		}
	}
	t->nrows++;
	return 0;
}

int cli_table_addf(struct cli_table *t, const char *fmt, ...)
{
	char *line = NULL, *p;
	const char **cells;
	size_t i;
	int rc;
	va_list ap;

	va_start(ap, fmt);
	rc = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	cells = calloc(t->ncols, sizeof(*cells));
	if (!cells) {
		free(line);
		return -ENOMEM;
	}
	for (i = 0, p = line; i < t->ncols && p; i++) {
		cells[i] = p;
		p = strchr(p, '\t');
		if (p)
			*p++ = '\0';
	}
	rc = cli_table_add(t, cells);
	free(cells);
	free(line);
	return rc;
}

void cli_table_print(const struct cli_table *t, FILE *f, const char *indent)
{
	size_t *w = calloc(t->ncols, sizeof(*w));
	size_t r, c;

	if (!w)
		return;
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			size_t len = strlen(t->cells[r * t->ncols + c]);

			if (len > w[c])
				w[c] = len;
		}
	for (r = 0; r < t->nrows; r++) {
		fputs(indent ? indent : "", f);
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			int width = (int)w[c];

			if (c + 1 == t->ncols && !t->right[c])
				fprintf(f, "%s", s);
			else if (t->right[c])
				fprintf(f, "%*s", width, s);
			else
				fprintf(f, "%-*s", width, s);
			fputs(c + 1 < t->ncols ? "  " : "\n", f);
		}
	}
	free(w);
}

void cli_table_destroy(struct cli_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->right);
	free(t);
}
