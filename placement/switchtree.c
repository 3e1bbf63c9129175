/*
 * placement/switchtree.c - the switch tree of topology.conf
 * (TopologyPlugin=topology/tree), or the blocks of topology/block (each
 * block a leaf, the fabric between blocks counted as one switch above
 * them), and the hops between a step's nodes.  Hostlists in Nodes= and
 * Switches= are expanded with Slurm's functions (through
 * lagom_nodelist_create).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "placement/placement.h"
#include "placement/placement_int.h"

struct sw {
	char *name;
	char *nodes;	/* Nodes= expression, or NULL */
	char *children; /* Switches= expression, or NULL */
	int parent;	/* index, -1 for a root */
	unsigned depth; /* 0 for a root */
	unsigned line;
	bool block;	 /* named by BlockName= */
	unsigned nnodes; /* nodes under a leaf */
};

struct node_entry {
	char *name;
	int leaf;
};

struct name_idx {
	const char *name;
	int idx;
};

struct lagom_switch_tree {
	struct sw *sw;
	size_t nsw, cap;
	struct name_idx *by_name; /* switches sorted by name */
	struct node_entry *nodes;
	size_t nnodes, nodes_cap;
	unsigned levels;
	unsigned kinds; /* 1: SwitchName= lines, 2: BlockName= or BlockSizes= */
	unsigned block_sizes[LAGOM_BLOCK_SIZES_MAX];
	size_t nblock_sizes;
	unsigned block_sizes_line;
};

void lagom_switch_tree_destroy(struct lagom_switch_tree *tree)
{
	if (!tree)
		return;
	for (size_t i = 0; i < tree->nsw; i++) {
		free(tree->sw[i].name);
		free(tree->sw[i].nodes);
		free(tree->sw[i].children);
	}
	for (size_t i = 0; i < tree->nnodes; i++)
		free(tree->nodes[i].name);
	free(tree->sw);
	free(tree->by_name);
	free(tree->nodes);
	free(tree);
}

static int line_error(struct lagom_error *err, unsigned line, const char *what,
		      const char *detail)
{
	return lagom_errprintf(err, EINVAL, "topology.conf line %u: %s%.64s",
			       line, what, detail ? detail : "");
}

static int set_value(char **slot, const char *v, size_t len, unsigned line,
		     const char *key, struct lagom_error *err)
{
	if (*slot)
		return line_error(err, line, "key given twice: ", key);
	if (len == 0)
		return line_error(err, line, "empty value for ", key);
	*slot = strndup(v, len);
	return *slot ? 0 : lagom_errprintf(err, ENOMEM, "out of memory");
}

/* One KEY=VALUE token of a line into s. */
static int line_token(struct sw *s, const char *tok, size_t len,
		      struct lagom_error *err)
{
	const char *eq = memchr(tok, '=', len);
	size_t klen = eq ? (size_t)(eq - tok) : 0;
	const char *v = eq ? eq + 1 : tok;
	size_t vlen = eq ? len - klen - 1 : 0;
	char key[16];

	if (!eq || klen == 0 || klen >= sizeof(key))
		return line_error(err, s->line, "expected KEY=VALUE", NULL);
	memcpy(key, tok, klen);
	key[klen] = '\0';
	if (strcasecmp(key, "SwitchName") == 0 ||
	    strcasecmp(key, "BlockName") == 0) {
		if (s->name && s->block != (key[0] == 'B' || key[0] == 'b'))
			return line_error(
				err, s->line,
				"both SwitchName= and BlockName=", NULL);
		s->block = key[0] == 'B' || key[0] == 'b';
		return set_value(&s->name, v, vlen, s->line, key, err);
	}
	if (strcasecmp(key, "Nodes") == 0)
		return set_value(&s->nodes, v, vlen, s->line, key, err);
	if (strcasecmp(key, "Switches") == 0)
		return set_value(&s->children, v, vlen, s->line, key, err);
	if (strcasecmp(key, "LinkSpeed") == 0)
		return 0;
	return line_error(err, s->line, "unknown key ", key);
}

static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

static int line_check(const struct sw *s, struct lagom_error *err)
{
	if (!s->name)
		return line_error(err, s->line, "no SwitchName=", NULL);
	if (s->block && s->children)
		return line_error(err, s->line, "Switches= for block ",
				  s->name);
	if (s->block && !s->nodes)
		return line_error(err, s->line, "no Nodes= for block ",
				  s->name);
	if (s->nodes && s->children)
		return line_error(err, s->line,
				  "both Nodes= and Switches= for ", s->name);
	if (!s->nodes && !s->children)
		return line_error(err, s->line,
				  "neither Nodes= nor Switches= for ", s->name);
	for (const char *c = s->name; *c; c++)
		if (!name_char_ok(*c))
			return line_error(err, s->line, "bad switch name ",
					  s->name);
	return 0;
}

static int push_switch(struct lagom_switch_tree *t, struct sw *s,
		       struct lagom_error *err)
{
	if (t->nsw == LAGOM_SWITCH_MAX)
		return lagom_errprintf(err, E2BIG, "more than %d switches",
				       LAGOM_SWITCH_MAX);
	if (t->nsw == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct sw *n = realloc(t->sw, cap * sizeof(*n));

		if (!n)
			return lagom_errprintf(err, ENOMEM, "out of memory");
		t->sw = n;
		t->cap = cap;
	}
	t->sw[t->nsw++] = *s;
	return 0;
}

/* Whether the token [tok, tok + len) is KEY= (case-insensitive). */
static bool token_is(const char *tok, size_t len, const char *key)
{
	size_t klen = strlen(key);

	return len > klen && tok[klen] == '=' &&
	       strncasecmp(tok, key, klen) == 0;
}

/*
 * "BlockSizes=18,36" (topology/block, 24.05+): the base block size and the
 * larger aggregates, increasing.  "BlockLevels=" (its 23.11 form) names
 * aggregation levels only and is accepted without effect.
 */
static int block_sizes(struct lagom_switch_tree *t, const char *v, size_t len,
		       unsigned line, struct lagom_error *err)
{
	char buf[256];
	const char *p = buf;

	if (t->block_sizes_line)
		return line_error(err, line, "key given twice: ", "BlockSizes");
	if (len == 0 || len >= sizeof(buf))
		return line_error(err, line, "bad BlockSizes= list", NULL);
	memcpy(buf, v, len);
	buf[len] = '\0';
	t->block_sizes_line = line;
	for (;;) {
		uint64_t size;

		if (t->nblock_sizes == LAGOM_BLOCK_SIZES_MAX)
			return line_error(err, line, "more than 16 BlockSizes",
					  NULL);
		if (lagom_parse_count(&p, LAGOM_PLACEMENT_MAX_NODES, false,
				      &size) != 0 ||
		    (t->nblock_sizes &&
		     size <= t->block_sizes[t->nblock_sizes - 1]))
			return line_error(err, line,
					  "BlockSizes= must be increasing "
					  "node counts: ",
					  buf);
		t->block_sizes[t->nblock_sizes++] = (unsigned)size;
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			return line_error(err, line,
					  "bad BlockSizes= list: ", buf);
	}
}

/* A line of the other kind than the lines before it. */
static int check_kind(struct lagom_switch_tree *t, unsigned kind, unsigned line,
		      struct lagom_error *err)
{
	if (t->kinds && !(t->kinds & kind))
		return line_error(err, line,
				  "BlockName= and SwitchName= lines mixed",
				  NULL);
	t->kinds |= kind;
	return 0;
}

/* A global line of topology/block: its only token is tok. */
static int global_line(struct lagom_switch_tree *t, const char *tok, size_t len,
		       const char *rest, const char *end, unsigned line,
		       struct lagom_error *err)
{
	const char *eq = memchr(tok, '=', len);
	int rc;

	while (rest < end && (*rest == ' ' || *rest == '\t' || *rest == '\r'))
		rest++;
	if (rest != end)
		return line_error(err, line,
				  "BlockSizes= takes a line of "
				  "its own",
				  NULL);
	rc = check_kind(t, 2, line, err);
	if (rc == 0 && token_is(tok, len, "BlockSizes"))
		rc = block_sizes(t, eq + 1, len - (size_t)(eq + 1 - tok), line,
				 err);
	return rc;
}

/* Parse one line [p, end): blank and comment lines add nothing. */
static int parse_line(struct lagom_switch_tree *t, const char *p,
		      const char *end, unsigned line, struct lagom_error *err)
{
	struct sw s = { .parent = -1, .line = line };
	const char *hash = memchr(p, '#', (size_t)(end - p));
	bool first = true;
	int rc = 0;

	if (hash)
		end = hash;
	while (rc == 0) {
		size_t len;

		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == end)
			break;
		len = 0;
		while (p + len < end && p[len] != ' ' && p[len] != '\t' &&
		       p[len] != '\r')
			len++;
		if (token_is(p, len, "BlockSizes") ||
		    token_is(p, len, "BlockLevels")) {
			if (first)
				return global_line(t, p, len, p + len, end,
						   line, err);
			rc = line_error(err, line,
					"BlockSizes= takes a line of its own",
					NULL);
			break;
		}
		first = false;
		rc = line_token(&s, p, len, err);
		p += len;
	}
	if (rc == 0 && (s.name || s.nodes || s.children))
		rc = line_check(&s, err);
	if (rc == 0 && s.name)
		rc = check_kind(t, s.block ? 2 : 1, line, err);
	if (rc == 0 && s.name)
		rc = push_switch(t, &s, err);
	if (rc || !s.name) {
		free(s.name);
		free(s.nodes);
		free(s.children);
	}
	return rc;
}

static int parse_lines(struct lagom_switch_tree *t, const char *text,
		       size_t len, struct lagom_error *err)
{
	const char *p = text, *end = text + len;
	unsigned line = 1;
	int rc = 0;

	if (memchr(text, '\0', len))
		return lagom_errprintf(err, EINVAL,
				       "topology.conf holds a NUL byte");
	while (rc == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		rc = parse_line(t, p, eol, line++, err);
		p = nl ? nl + 1 : end;
	}
	return rc;
}

static int cmp_name_idx(const void *a, const void *b)
{
	return strcmp(((const struct name_idx *)a)->name,
		      ((const struct name_idx *)b)->name);
}

static int cmp_node(const void *a, const void *b)
{
	return strcmp(((const struct node_entry *)a)->name,
		      ((const struct node_entry *)b)->name);
}

static int find_switch(const struct lagom_switch_tree *t, const char *name)
{
	struct name_idx key = { .name = name };
	struct name_idx *hit = bsearch(&key, t->by_name, t->nsw,
				       sizeof(*t->by_name), cmp_name_idx);

	return hit ? hit->idx : -1;
}

static int index_switches(struct lagom_switch_tree *t, struct lagom_error *err)
{
	t->by_name = malloc((t->nsw ? t->nsw : 1) * sizeof(*t->by_name));
	if (!t->by_name)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < t->nsw; i++)
		t->by_name[i] = (struct name_idx){ t->sw[i].name, (int)i };
	qsort(t->by_name, t->nsw, sizeof(*t->by_name), cmp_name_idx);
	for (size_t i = 1; i < t->nsw; i++)
		if (strcmp(t->by_name[i - 1].name, t->by_name[i].name) == 0) {
			const struct sw *a = &t->sw[t->by_name[i - 1].idx];
			const struct sw *b = &t->sw[t->by_name[i].idx];

			return line_error(err,
					  a->line > b->line ? a->line : b->line,
					  "switch defined twice: ", a->name);
		}
	return 0;
}

/* Switches=: every child must exist and have no other parent. */
static int link_children(struct lagom_switch_tree *t, int parent,
			 struct lagom_error *err)
{
	struct sw *p = &t->sw[parent];
	struct lagom_nodelist *nl = lagom_nodelist_create(p->children, err);
	int rc = 0;

	if (!nl)
		return lagom_error_prefix(err, "topology.conf line %u",
					  p->line);
	for (size_t i = 0; rc == 0 && i < lagom_nodelist_count(nl); i++) {
		const char *name = lagom_nodelist_name(nl, i);
		int c = find_switch(t, name);

		if (c < 0)
			rc = line_error(err, p->line, "undefined switch ",
					name);
		else if (c == parent)
			rc = line_error(err, p->line,
					"switch is its own child: ", name);
		else if (t->sw[c].parent >= 0)
			rc = line_error(err, p->line,
					"switch has two parents: ", name);
		else
			t->sw[c].parent = parent;
	}
	lagom_nodelist_destroy(nl);
	return rc;
}

static int grow_nodes(struct lagom_switch_tree *t, size_t more,
		      struct lagom_error *err)
{
	struct node_entry *n;
	size_t cap = t->nodes_cap ? t->nodes_cap : 64;

	if (more > LAGOM_PLACEMENT_MAX_NODES - t->nnodes)
		return lagom_errprintf(err, E2BIG,
				       "topology.conf names more than %d nodes",
				       LAGOM_PLACEMENT_MAX_NODES);
	while (cap < t->nnodes + more)
		cap *= 2;
	if (cap == t->nodes_cap)
		return 0;
	n = realloc(t->nodes, cap * sizeof(*n));
	if (!n)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	t->nodes = n;
	t->nodes_cap = cap;
	return 0;
}

/* Nodes=: expand and record each node under this leaf. */
static int add_leaf_nodes(struct lagom_switch_tree *t, int leaf,
			  struct lagom_error *err)
{
	struct lagom_nodelist *nl = lagom_nodelist_create(t->sw[leaf].nodes,
							  err);
	size_t n = lagom_nodelist_count(nl);
	int rc;

	if (!nl)
		return lagom_error_prefix(err, "topology.conf line %u",
					  t->sw[leaf].line);
	rc = grow_nodes(t, n, err);
	t->sw[leaf].nnodes = (unsigned)n;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *name = strdup(lagom_nodelist_name(nl, i));

		if (!name)
			rc = lagom_errprintf(err, ENOMEM, "out of memory");
		else
			t->nodes[t->nnodes++] = (struct node_entry){ name,
								     leaf };
	}
	lagom_nodelist_destroy(nl);
	return rc;
}

static int index_nodes(struct lagom_switch_tree *t, struct lagom_error *err)
{
	if (t->nnodes > 1)
		qsort(t->nodes, t->nnodes, sizeof(*t->nodes), cmp_node);
	for (size_t i = 1; i < t->nnodes; i++)
		if (strcmp(t->nodes[i - 1].name, t->nodes[i].name) == 0) {
			unsigned a = t->sw[t->nodes[i - 1].leaf].line;
			unsigned b = t->sw[t->nodes[i].leaf].line;

			return line_error(err, a > b ? a : b,
					  "node under two leaf switches: ",
					  t->nodes[i].name);
		}
	return 0;
}

/* Depth of every switch; a chain longer than the level cap is a cycle. */
static int compute_depths(struct lagom_switch_tree *t, struct lagom_error *err)
{
	t->levels = 0;
	for (size_t i = 0; i < t->nsw; i++) {
		unsigned d = 0;

		for (int p = t->sw[i].parent; p >= 0; p = t->sw[p].parent)
			if (++d >= LAGOM_SWITCH_MAX_LEVELS)
				return line_error(err, t->sw[i].line,
						  "switch levels form a cycle "
						  "or exceed 16: ",
						  t->sw[i].name);
		t->sw[i].depth = d;
		if (d + 1 > t->levels)
			t->levels = d + 1;
	}
	return 0;
}

static int build(struct lagom_switch_tree *t, struct lagom_error *err)
{
	int rc = index_switches(t, err);

	for (size_t i = 0; rc == 0 && i < t->nsw; i++)
		if (t->sw[i].children)
			rc = link_children(t, (int)i, err);
	for (size_t i = 0; rc == 0 && i < t->nsw; i++)
		if (t->sw[i].nodes)
			rc = add_leaf_nodes(t, (int)i, err);
	if (rc == 0)
		rc = index_nodes(t, err);
	if (rc == 0)
		rc = compute_depths(t, err);
	if (rc == 0 && t->nsw == 0)
		rc = lagom_errprintf(err, EINVAL,
				     "topology.conf defines no switch");
	return rc;
}

struct lagom_switch_tree *lagom_switch_tree_parse(const char *text, size_t len,
						  struct lagom_error *err)
{
	struct lagom_switch_tree *t;

	if (!text || len > LAGOM_SWITCH_CONF_MAX_BYTES) {
		lagom_errprintf(err, E2BIG,
				"topology.conf larger than %u bytes",
				LAGOM_SWITCH_CONF_MAX_BYTES);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		lagom_errprintf(err, ENOMEM, "out of memory");
		return NULL;
	}
	if (parse_lines(t, text, len, err) != 0 || build(t, err) != 0) {
		lagom_switch_tree_destroy(t);
		return NULL;
	}
	return t;
}

struct lagom_switch_tree *lagom_switch_tree_load(const char *path,
						 struct lagom_error *err)
{
	FILE *f = fopen(path, "re");
	struct lagom_switch_tree *t = NULL;
	char *buf;
	size_t n;

	if (!f) {
		lagom_errprintf(err, errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(LAGOM_SWITCH_CONF_MAX_BYTES + 1);
	if (!buf)
		lagom_errprintf(err, ENOMEM, "out of memory");
	else if ((n = fread(buf, 1, LAGOM_SWITCH_CONF_MAX_BYTES + 1, f)),
		 ferror(f))
		lagom_errprintf(err, EIO, "%s: read error", path);
	else if (!(t = lagom_switch_tree_parse(buf, n, err)))
		lagom_error_prefix(err, "%s", path);
	free(buf);
	fclose(f);
	return t;
}

size_t lagom_switch_tree_nodes(const struct lagom_switch_tree *tree)
{
	return tree ? tree->nnodes : 0;
}

size_t lagom_switch_tree_switches(const struct lagom_switch_tree *tree)
{
	return tree ? tree->nsw : 0;
}

unsigned lagom_switch_tree_levels(const struct lagom_switch_tree *tree)
{
	return tree ? tree->levels : 0;
}

int lagom_switch_tree_node(const struct lagom_switch_tree *tree, size_t i,
			   const char **node, const char **leaf)
{
	if (!tree || i >= tree->nnodes)
		return -ENOENT;
	if (node)
		*node = tree->nodes[i].name;
	if (leaf)
		*leaf = tree->sw[tree->nodes[i].leaf].name;
	return 0;
}

static int leaf_of(const struct lagom_switch_tree *t, const char *node,
		   struct lagom_error *err)
{
	struct node_entry key = { .name = (char *)node };
	struct node_entry *hit = node ? bsearch(&key, t->nodes, t->nnodes,
						sizeof(*t->nodes), cmp_node)
				      : NULL;

	if (!hit)
		return lagom_errprintf(err, ENOENT,
				       "node %.64s is not in the switch tree",
				       node ? node : "(null)");
	return hit->leaf;
}

/* Switch levels from leaves a and b up to their lowest common switch. */
static int climb(const struct lagom_switch_tree *t, int a, int b,
		 unsigned *up_a, unsigned *up_b)
{
	*up_a = *up_b = 0;
	while (t->sw[a].depth > t->sw[b].depth) {
		a = t->sw[a].parent;
		++*up_a;
	}
	while (t->sw[b].depth > t->sw[a].depth) {
		b = t->sw[b].parent;
		++*up_b;
	}
	while (a != b && a >= 0 && b >= 0) {
		a = t->sw[a].parent;
		b = t->sw[b].parent;
		++*up_a;
		++*up_b;
	}
	return a == b && a >= 0 ? a : -1;
}

static bool is_block(const struct lagom_switch_tree *t)
{
	return (t->kinds & 2) != 0;
}

static int disconnected(struct lagom_error *err, const char *a, const char *b)
{
	return lagom_errprintf(err, ENOENT,
			       "nodes %.48s and %.48s share no switch", a, b);
}

int lagom_switch_tree_hops(const struct lagom_switch_tree *tree, const char *a,
			   const char *b, enum lagom_hops *cls,
			   unsigned *switch_hops, struct lagom_error *err)
{
	int la, lb;
	unsigned up_a, up_b;

	if (!tree)
		return lagom_errprintf(err, EINVAL, "no switch tree");
	la = leaf_of(tree, a, err);
	if (la < 0)
		return la;
	lb = leaf_of(tree, b, err);
	if (lb < 0)
		return lb;
	if (is_block(tree) && la != lb) {
		/* Blocks: the fabric between them counts as one switch. */
		up_a = up_b = 1;
	} else if (climb(tree, la, lb, &up_a, &up_b) < 0) {
		return disconnected(err, a, b);
	}
	if (strcmp(a, b) == 0) {
		*cls = LAGOM_HOPS_SAME_NODE;
		*switch_hops = 0;
	} else {
		*cls = la == lb ? LAGOM_HOPS_SAME_LEAF : LAGOM_HOPS_SPINE;
		*switch_hops = up_a + up_b + 1;
	}
	return 0;
}

/* The ancestor of leaf just below top (the branch it hangs from). */
static int branch_below(const struct lagom_switch_tree *t, int leaf, int top)
{
	while (leaf >= 0 && t->sw[leaf].parent != top)
		leaf = t->sw[leaf].parent;
	return leaf;
}

/*
 * The farthest pair: every leaf climbs to the common switch of all leaves;
 * the two longest climbs from different branches below it add up.
 */
static unsigned span_hops(const struct lagom_switch_tree *t, const int *leaf,
			  size_t n, int top)
{
	unsigned best = 0, second = 0;
	int best_branch = -1;

	for (size_t i = 0; i < n; i++) {
		unsigned up = t->sw[leaf[i]].depth - t->sw[top].depth;
		int br = branch_below(t, leaf[i], top);

		if (br == best_branch) {
			best = up > best ? up : best;
		} else if (up > best) {
			second = best;
			best = up;
			best_branch = br;
		} else if (up > second) {
			second = up;
		}
	}
	return best + second + 1;
}

static int collect_leaves(const struct lagom_switch_tree *tree,
			  const char *const *names, size_t n, int *leaf,
			  size_t *nleaves, int *top, struct lagom_error *err)
{
	bool *seen = calloc(tree->nsw, sizeof(*seen));
	unsigned ua, ub;

	if (!seen)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	*nleaves = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = names[i];
		int l = leaf_of(tree, name, err);

		if (l < 0) {
			free(seen);
			return l;
		}
		if (!*nleaves || is_block(tree))
			*top = l;
		else
			*top = climb(tree, *top, l, &ua, &ub);
		if (*top < 0) {
			free(seen);
			return disconnected(err, names[0], name);
		}
		if (!seen[l]) {
			seen[l] = true;
			leaf[(*nleaves)++] = l;
		}
	}
	free(seen);
	return 0;
}

int lagom_switch_tree_span(const struct lagom_switch_tree *tree,
			   const char *const *names, size_t n,
			   enum lagom_hops *cls, unsigned *switch_hops,
			   unsigned *leaves, struct lagom_error *err)
{
	size_t nleaves = 0;
	int *leaf, top = -1, rc;

	if (!tree || !names || n == 0)
		return lagom_errprintf(err, EINVAL,
				       "no switch tree or no nodes");
	leaf = malloc(tree->nsw * sizeof(*leaf));
	if (!leaf)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	rc = collect_leaves(tree, names, n, leaf, &nleaves, &top, err);
	if (rc == 0) {
		*leaves = (unsigned)nleaves;
		*cls = n == 1	      ? LAGOM_HOPS_SAME_NODE
		       : nleaves == 1 ? LAGOM_HOPS_SAME_LEAF
				      : LAGOM_HOPS_SPINE;
		if (n == 1)
			*switch_hops = 0;
		else if (is_block(tree))
			*switch_hops = nleaves == 1 ? 1 : 3;
		else
			*switch_hops = span_hops(tree, leaf, nleaves, top);
	}
	free(leaf);
	return rc;
}

bool lagom_switch_tree_is_block(const struct lagom_switch_tree *tree)
{
	return tree && is_block(tree);
}

unsigned lagom_switch_tree_block_size(const struct lagom_switch_tree *tree)
{
	unsigned least = 0;

	if (!tree || !is_block(tree))
		return 0;
	if (tree->nblock_sizes)
		return tree->block_sizes[0];
	/* Slurm's default: the smallest block. */
	for (size_t i = 0; i < tree->nsw; i++)
		if (!least || tree->sw[i].nnodes < least)
			least = tree->sw[i].nnodes;
	return least;
}

int lagom_switch_tree_fill(const struct lagom_switch_tree *tree,
			   const char *const *names, size_t n, unsigned *leaves,
			   unsigned *fewest, unsigned *most,
			   struct lagom_error *err)
{
	unsigned *count, nleaves = 0, lo = 0, hi = 0;

	if (!tree || !names || n == 0)
		return lagom_errprintf(err, EINVAL,
				       "no switch tree or no nodes");
	count = calloc(tree->nsw, sizeof(*count));
	if (!count)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		int l = leaf_of(tree, names[i], err);

		if (l < 0) {
			free(count);
			return l;
		}
		count[l]++;
	}
	for (size_t i = 0; i < tree->nsw; i++) {
		if (!count[i])
			continue;
		nleaves++;
		lo = lo && lo < count[i] ? lo : count[i];
		hi = hi > count[i] ? hi : count[i];
	}
	free(count);
	*leaves = nleaves;
	*fewest = lo;
	*most = hi;
	return 0;
}
