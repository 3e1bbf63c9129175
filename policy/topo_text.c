/*
 * policy/topo_text.c - Slurm's printed topology records as topology.conf
 * text (policy/policy.h).  Pure string work.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

#define TOPO_TEXT_MAX (16u << 20)

/* The value of key (e.g. "Nodes=") among the line's space-separated
 * tokens: start and length, or NULL.  "(null)" counts as absent. */
static const char *token(const char *line, size_t len, const char *key,
			 size_t *vlen)
{
	size_t klen = strlen(key);
	const char *p = line, *end = line + len;

	while (p < end) {
		const char *t = p;

		while (p < end && *p != ' ' && *p != '\t')
			p++;
		if ((size_t)(p - t) > klen && strncmp(t, key, klen) == 0) {
			*vlen = (size_t)(p - t) - klen;
			if (*vlen == 6 && strncmp(t + klen, "(null)", 6) == 0)
				return NULL;
			return t + klen;
		}
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
	}
	return NULL;
}

static void put(char *buf, size_t *pos, const char *s, size_t n)
{
	memcpy(buf + *pos, s, n);
	*pos += n;
}

/* One output line: "SwitchName=NAME KEY=VALUE\n". */
static void put_line(char *buf, size_t *pos, const char *name, size_t nlen,
		     const char *key, const char *v, size_t vlen)
{
	put(buf, pos, "SwitchName=", 11);
	put(buf, pos, name, nlen);
	put(buf, pos, " ", 1);
	put(buf, pos, key, strlen(key));
	put(buf, pos, v, vlen);
	put(buf, pos, "\n", 1);
}

static int convert_line(const char *line, size_t len, char *buf, size_t *pos,
			int *kinds)
{
	const char *name, *nodes, *sw;
	size_t nlen, ndl = 0, swl = 0;

	if ((name = token(line, len, "SwitchName=", &nlen))) {
		*kinds |= 1;
		sw = token(line, len, "Switches=", &swl);
		nodes = token(line, len, "Nodes=", &ndl);
		if (sw)
			put_line(buf, pos, name, nlen, "Switches=", sw, swl);
		else if (nodes)
			put_line(buf, pos, name, nlen, "Nodes=", nodes, ndl);
	} else if ((name = token(line, len, "BlockName=", &nlen))) {
		*kinds |= 2;
		nodes = token(line, len, "Nodes=", &ndl);
		if (nodes)
			put_line(buf, pos, name, nlen, "Nodes=", nodes, ndl);
	}
	return 0;
}

int lagom_topo_print_to_conf(const char *printed, char **out,
			     enum lagom_topo_kind *kind)
{
	size_t n = printed ? strlen(printed) : 0, pos = 0;
	const char *p = printed, *end = printed + n;
	int kinds = 0;
	char *buf;

	if (!printed || !out || !kind)
		return -EINVAL;
	if (n > TOPO_TEXT_MAX)
		return -E2BIG;
	/* Each output line is at most its input line plus 12 bytes. */
	buf = malloc(2 * n + 64);
	if (!buf)
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		convert_line(p, len, buf, &pos, &kinds);
		p += len + (nl ? 1 : 0);
	}
	buf[pos] = '\0';
	if (kinds != 1 && kinds != 2) {
		free(buf);
		return -EINVAL;
	}
	*kind = kinds == 2 ? LAGOM_TOPO_BLOCK : LAGOM_TOPO_TREE;
	*out = buf;
	return 0;
}
