/* topology/xml_lite.c - see xml_lite_int.h.  No recursion, no allocation. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "topology/xml_lite_int.h"

int xml_fail(const struct xml_lite *X, const char *what)
{
	return lagom_errprintf(X->err, EINVAL, "%s line %u: %s", X->what,
			       X->line, what);
}

static void advance(struct xml_lite *X, size_t n)
{
	for (size_t i = 0; i < n && X->pos < X->len; i++)
		if (X->buf[X->pos++] == '\n')
			X->line++;
}

static bool at(const struct xml_lite *X, const char *s)
{
	size_t n = strlen(s);

	return X->len - X->pos >= n && memcmp(X->buf + X->pos, s, n) == 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_space(struct xml_lite *X)
{
	while (X->pos < X->len && is_space(X->buf[X->pos]))
		advance(X, 1);
}

static bool is_name_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '-' || c == '.');
}

/* Skip past the next occurrence of end, or fail. */
static int skip_until(struct xml_lite *X, const char *end, const char *what)
{
	while (X->pos < X->len && !at(X, end))
		advance(X, 1);
	if (X->pos >= X->len)
		return xml_fail(X, what);
	advance(X, strlen(end));
	return 0;
}

static int read_name(struct xml_lite *X, const char **name, size_t *len)
{
	size_t start = X->pos;

	if (X->pos >= X->len || !is_name_char(X->buf[X->pos], true))
		return xml_fail(X, "expected a name");
	while (X->pos < X->len && is_name_char(X->buf[X->pos], false))
		X->pos++;
	*name = X->buf + start;
	*len = X->pos - start;
	if (*len > XML_NAME_MAX)
		return xml_fail(X, "name too long");
	return 0;
}

static int read_value(struct xml_lite *X, struct xml_attr *a)
{
	char quote;
	size_t start;

	if (X->pos >= X->len ||
	    (X->buf[X->pos] != '"' && X->buf[X->pos] != '\''))
		return xml_fail(X, "attribute value must be quoted");
	quote = X->buf[X->pos++];
	start = X->pos;
	while (X->pos < X->len && X->buf[X->pos] != quote) {
		char c = X->buf[X->pos];

		if (c == '<' || c == '&' || c == '\n' || c == '\0')
			return xml_fail(X, "unsupported character in a value");
		X->pos++;
	}
	if (X->pos >= X->len)
		return xml_fail(X, "unterminated attribute value");
	a->value = X->buf + start;
	a->value_len = X->pos - start;
	X->pos++;
	if (a->value_len > XML_VALUE_MAX)
		return xml_fail(X, "attribute value too long");
	return 0;
}

static int read_attrs(struct xml_lite *X)
{
	int rc;

	X->nattrs = 0;
	for (;;) {
		struct xml_attr *a;

		skip_space(X);
		if (X->pos >= X->len)
			return xml_fail(X, "unterminated tag");
		if (at(X, "/>") || at(X, ">"))
			return 0;
		if (X->nattrs == XML_MAX_ATTRS)
			return xml_fail(X, "too many attributes");
		a = &X->attrs[X->nattrs++];
		rc = read_name(X, &a->name, &a->name_len);
		if (rc)
			return rc;
		skip_space(X);
		if (X->pos >= X->len || X->buf[X->pos] != '=')
			return xml_fail(X,
					"expected '=' after an attribute name");
		X->pos++;
		skip_space(X);
		rc = read_value(X, a);
		if (rc)
			return rc;
	}
}

/* Attribute value as a NUL-terminated copy in buf; false when absent. */
bool xml_attr_copy(const struct xml_lite *X, const char *name, char *buf)
{
	for (int i = 0; i < X->nattrs; i++) {
		const struct xml_attr *a = &X->attrs[i];

		if (a->name_len == strlen(name) &&
		    memcmp(a->name, name, a->name_len) == 0) {
			memcpy(buf, a->value, a->value_len);
			buf[a->value_len] = '\0';
			return true;
		}
	}
	return false;
}

/* Unsigned decimal (or hex with 0x) no larger than max; whole string. */
bool xml_parse_uint(const char *s, unsigned long long max,
		    unsigned long long *out)
{
	unsigned long long v = 0;
	unsigned base = 10;
	int digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++, digits++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return false;
		if (v > (max - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return digits > 0;
}

void xml_init(struct xml_lite *X, const char *buf, size_t len, const char *what,
	      struct lagom_error *err)
{
	memset(X, 0, sizeof(*X));
	X->buf = buf;
	X->len = len;
	X->line = 1;
	X->what = what;
	X->err = err;
}

static int start_tag(struct xml_lite *X)
{
	int rc;

	advance(X, 1);
	rc = read_name(X, &X->name, &X->name_len);
	if (rc == 0)
		rc = read_attrs(X);
	if (rc)
		return rc;
	X->empty = at(X, "/>");
	advance(X, X->empty ? 2 : 1);
	X->seen_element = true;
	return 0;
}

static int end_tag(struct xml_lite *X)
{
	int rc;

	advance(X, 2);
	rc = read_name(X, &X->name, &X->name_len);
	if (rc)
		return rc;
	skip_space(X);
	if (X->pos >= X->len || X->buf[X->pos] != '>')
		return xml_fail(X, "malformed end tag");
	advance(X, 1);
	X->nattrs = 0;
	return 0;
}

int xml_next(struct xml_lite *X, enum xml_event *ev)
{
	int rc = 0;

	for (;;) {
		skip_space(X);
		if (X->pos >= X->len) {
			*ev = XML_EOF;
			return 0;
		}
		if (X->buf[X->pos] != '<')
			return xml_fail(X, "text outside tags");
		if (at(X, "<!--"))
			rc = skip_until(X, "-->", "unterminated comment");
		else if (at(X, "<?"))
			rc = X->seen_element
				     ? xml_fail(
					       X,
					       "<?...?> after the root element")
				     : skip_until(X, "?>",
						  "unterminated <?...?>");
		else if (at(X, "<!"))
			return xml_fail(X,
					"DOCTYPE and CDATA are not supported");
		else if (at(X, "</"))
			return (*ev = XML_END), end_tag(X);
		else
			return (*ev = XML_START), start_tag(X);
		if (rc)
			return rc;
	}
}
