/*
 * tests/placement/test_switchtree.c - topology.conf (topology/tree): a
 * three-level tree, the hops between nodes, and malformed lines.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"
#include "placement/placement.h"

/* core -> agg1, agg2 -> leaf1..leaf4 -> 4 nodes each. */
static const char three_level[] =
	"# a fat tree, three levels\n"
	"SwitchName=core Switches=agg[1-2]\n"
	"SwitchName=agg1 Switches=leaf[1-2]\n"
	"switchname=agg2 switches=leaf[3-4] LinkSpeed=100   # lower-case keys\n"
	"\n"
	"SwitchName=leaf1 Nodes=gpu[001-004]\n"
	"SwitchName=leaf2\tNodes=gpu[005-008]\r\n"
	"SwitchName=leaf3 Nodes=gpu[009-012]\n"
	"SwitchName=leaf4 Nodes=gpu[013-016]";

static struct lagom_switch_tree *tree3(void)
{
	struct lagom_error err = { 0 };
	struct lagom_switch_tree *t = lagom_switch_tree_parse(
		three_level, strlen(three_level), &err);

	if (!t)
		fail_msg("%s", err.text);
	return t;
}

static void check_hops(const struct lagom_switch_tree *t, const char *a,
		       const char *b, enum lagom_hops cls, unsigned hops)
{
	struct lagom_error err = { 0 };
	enum lagom_hops got_cls;
	unsigned got_hops;

	if (lagom_switch_tree_hops(t, a, b, &got_cls, &got_hops, &err) != 0)
		fail_msg("%s-%s: %s", a, b, err.text);
	assert_int_equal(got_cls, cls);
	assert_int_equal(got_hops, hops);
}

static void test_three_levels(void **state)
{
	struct lagom_switch_tree *t = tree3();

	assert_int_equal(lagom_switch_tree_switches(t), 7);
	assert_int_equal(lagom_switch_tree_nodes(t), 16);
	assert_int_equal(lagom_switch_tree_levels(t), 3);
	check_hops(t, "gpu001", "gpu001", LAGOM_HOPS_SAME_NODE, 0);
	check_hops(t, "gpu001", "gpu004", LAGOM_HOPS_SAME_LEAF, 1);
	check_hops(t, "gpu001", "gpu005", LAGOM_HOPS_SPINE, 3); /* via agg1 */
	check_hops(t, "gpu008", "gpu009", LAGOM_HOPS_SPINE, 5); /* via core */
	check_hops(t, "gpu016", "gpu001", LAGOM_HOPS_SPINE, 5);
	lagom_switch_tree_destroy(t);
	lagom_switch_tree_destroy(NULL);
}

/* The names of a Slurm hostlist expression, borrowed from *nl. */
static const char **names_of(const char *expr, struct lagom_nodelist **nl,
			     size_t *n)
{
	struct lagom_error err = { 0 };
	const char **names;

	*nl = lagom_nodelist_create(expr, &err);
	if (!*nl)
		fail_msg("%s: %s", expr, err.text);
	*n = lagom_nodelist_count(*nl);
	names = calloc(*n, sizeof(*names));
	assert_non_null(names);
	for (size_t i = 0; i < *n; i++)
		names[i] = lagom_nodelist_name(*nl, i);
	return names;
}

static void check_span(const struct lagom_switch_tree *t, const char *nodes,
		       enum lagom_hops cls, unsigned hops, unsigned leaves)
{
	struct lagom_error err = { 0 };
	struct lagom_nodelist *nl;
	size_t n;
	const char **names = names_of(nodes, &nl, &n);
	enum lagom_hops got_cls;
	unsigned got_hops, got_leaves;

	if (lagom_switch_tree_span(t, names, n, &got_cls, &got_hops,
				   &got_leaves, &err) != 0)
		fail_msg("%s: %s", nodes, err.text);
	assert_int_equal(got_cls, cls);
	assert_int_equal(got_hops, hops);
	assert_int_equal(got_leaves, leaves);
	free(names);
	lagom_nodelist_destroy(nl);
}

static void test_span(void **state)
{
	struct lagom_switch_tree *t = tree3();
	struct lagom_error err = { 0 };
	struct lagom_nodelist *nl;
	const char **names;
	size_t n;
	enum lagom_hops cls;
	unsigned hops, leaves;

	check_span(t, "gpu003", LAGOM_HOPS_SAME_NODE, 0, 1);
	check_span(t, "gpu[001-004]", LAGOM_HOPS_SAME_LEAF, 1, 1);
	check_span(t, "gpu[001,005]", LAGOM_HOPS_SPINE, 3, 2);
	check_span(t, "gpu[001-008]", LAGOM_HOPS_SPINE, 3, 2);
	check_span(t, "gpu[009,001,002]", LAGOM_HOPS_SPINE, 5, 2);
	check_span(t, "gpu[001-016]", LAGOM_HOPS_SPINE, 5, 4);
	names = names_of("gpu001,cpu7", &nl, &n);
	assert_int_equal(
		lagom_switch_tree_span(t, names, n, &cls, &hops, &leaves, &err),
		-ENOENT);
	assert_non_null(strstr(err.text, "cpu7"));
	free(names);
	lagom_nodelist_destroy(nl);
	lagom_switch_tree_destroy(t);
}

/* Two trees with no common switch: nodes across them share no switch. */
static void test_forest(void **state)
{
	static const char conf[] = "SwitchName=a Nodes=x[1-2]\n"
				   "SwitchName=b Nodes=y[1-2]\n";
	struct lagom_error err = { 0 };
	struct lagom_switch_tree *t = lagom_switch_tree_parse(
		conf, strlen(conf), &err);
	enum lagom_hops cls;
	unsigned hops;

	assert_non_null(t);
	assert_int_equal(lagom_switch_tree_levels(t), 1);
	assert_int_equal(
		lagom_switch_tree_hops(t, "x1", "y1", &cls, &hops, &err),
		-ENOENT);
	assert_int_equal(
		lagom_switch_tree_hops(t, "x1", "z1", &cls, &hops, &err),
		-ENOENT);
	lagom_switch_tree_destroy(t);
}

struct bad {
	const char *conf;
	unsigned line;	  /* the line the message must name */
	const char *says; /* part of the message */
};

static const struct bad bad_confs[] = {
	{ "SwitchName=a Nodes=n1\nSwitchName=b Nodes=n2 Bogus=1\n", 2,
	  "unknown key" },
	{ "SwitchName=a Nodes=n1\n\nNodes=n2\n", 3, "no SwitchName" },
	{ "SwitchName=a\n", 1, "neither" },
	{ "SwitchName=a Nodes=n1 Switches=b\n", 1, "both" },
	{ "SwitchName=a Nodes=n1\nSwitchName=a Nodes=n2\n", 2,
	  "defined twice" },
	{ "SwitchName=s Switches=leaf[1-3]\nSwitchName=leaf1 Nodes=n1\n", 1,
	  "undefined switch leaf2" },
	{ "SwitchName=p Switches=l\nSwitchName=q Switches=l\n"
	  "SwitchName=l Nodes=n1\n",
	  2, "two parents" },
	{ "SwitchName=l1 Nodes=n[1-3]\nSwitchName=l2 Nodes=n[3-4]\n", 2,
	  "two leaf" },
	{ "SwitchName=a Switches=b\nSwitchName=b Switches=a\n", 1, "cycle" },
	{ "SwitchName=a Switches=a\n", 1, "own child" },
	{ "SwitchName=a Nodes=n[1-\n", 1, "line 1" },
	{ "SwitchName=a Nodes=\n", 1, "empty value" },
	{ "SwitchName=a Nodes=n1 Nodes=n2\n", 1, "given twice" },
	{ "SwitchName\n", 1, "KEY=VALUE" },
	{ "SwitchName=a,b Nodes=n1\n", 1, "bad switch name" },
	{ "SwitchName=a Nodes=n[1-60000],m[1-60000]\n", 1, "line 1" },
	{ "# only a comment\n", 0, "defines no switch" },
	{ "", 0, "defines no switch" },
};

static void test_malformed(void **state)
{
	for (size_t i = 0; i < sizeof(bad_confs) / sizeof(bad_confs[0]); i++) {
		struct lagom_error err = { 0 };
		char want[32];
		const struct bad *b = &bad_confs[i];

		if (lagom_switch_tree_parse(b->conf, strlen(b->conf), &err))
			fail_msg("case %zu accepted", i);
		snprintf(want, sizeof(want), "line %u", b->line);
		if (!strstr(err.text, b->says) ||
		    (b->line && !strstr(err.text, want)))
			fail_msg("case %zu: message '%s'", i, err.text);
	}
}

/* Deeper than 16 levels: a chain s0 <- s1 <- ... <- s17. */
static void test_too_deep(void **state)
{
	char conf[2048], *p = conf;
	struct lagom_error err = { 0 };

	for (int i = 0; i < 17; i++)
		p += sprintf(p, "SwitchName=s%d Switches=s%d\n", i, i + 1);
	sprintf(p, "SwitchName=s17 Nodes=n1\n");
	assert_null(lagom_switch_tree_parse(conf, strlen(conf), &err));
	assert_non_null(strstr(err.text, "exceed 16"));
}

static void test_load(void **state)
{
	char path[] = "/tmp/lagom-topoconf-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct lagom_error err = { 0 };
	struct lagom_switch_tree *t;

	assert_non_null(f);
	fputs(three_level, f);
	fclose(f);
	t = lagom_switch_tree_load(path, &err);
	unlink(path);
	assert_non_null(t);
	assert_int_equal(lagom_switch_tree_nodes(t), 16);
	lagom_switch_tree_destroy(t);
	assert_null(lagom_switch_tree_load("/nonexistent/topology.conf", &err));
	assert_int_equal(err.errnum, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_levels),
		cmocka_unit_test(test_span),
		cmocka_unit_test(test_forest),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_too_deep),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
