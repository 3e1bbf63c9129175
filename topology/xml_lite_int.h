/*
 * topology/xml_lite_int.h - a small, strict, bounded XML tokenizer for the
 * subset NCCL topology files use (private to topology/).
 *
 * Accepted: elements with single- or double-quoted attributes, comments,
 * <?...?> before the first element, white space between tags.  Refused,
 * with a message naming the line: text content, entities ('&'), '<' in
 * values, DOCTYPE/CDATA, names over XML_NAME_MAX, values over
 * XML_VALUE_MAX, more than XML_MAX_ATTRS attributes.  It does not check
 * that end tags match: the caller keeps the element stack.
 */
#ifndef LAGOM_TOPOLOGY_XML_LITE_H
#define LAGOM_TOPOLOGY_XML_LITE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define XML_NAME_MAX 32
#define XML_VALUE_MAX 256
#define XML_MAX_ATTRS 32

struct xml_attr {
	const char *name, *value; /* into the buffer, not NUL-terminated */
	size_t name_len, value_len;
};

enum xml_event {
	XML_START,
	XML_END,
	XML_EOF
};

struct xml_lite {
	const char *buf; /* borrowed */
	size_t len, pos;
	unsigned line;
	bool seen_element;
	const char *what; /* "NCCL topology": starts every message */
	struct lagom_error *err;
	/* The last XML_START or XML_END: */
	const char *name;
	size_t name_len;
	bool empty; /* <x/>: no XML_END follows */
	struct xml_attr attrs[XML_MAX_ATTRS];
	int nattrs;
};

void xml_init(struct xml_lite *X, const char *buf, size_t len, const char *what,
	      struct lagom_error *err);

/* The next element start or end, or XML_EOF; 0 or -EINVAL. */
int xml_next(struct xml_lite *X, enum xml_event *ev);

/* Record "WHAT line N: msg" in X->err; returns -EINVAL. */
int xml_fail(const struct xml_lite *X, const char *msg);

/* Copy attribute name's value into buf (XML_VALUE_MAX + 1 bytes). */
bool xml_attr_copy(const struct xml_lite *X, const char *name, char *buf);

/* Whole-string unsigned decimal, or hex with 0x, no larger than max. */
bool xml_parse_uint(const char *s, unsigned long long max,
		    unsigned long long *out);

#endif /* LAGOM_TOPOLOGY_XML_LITE_H */
