/*
 * tests/placement/test_switchtree.c - topology.conf (topology/tree): a
 * three-level tree, the hops between nodes, and malformed lines; blocks
 * (topology/block): hops, how a step fills them, BlockSizes=.
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

/* Four GB200 NVL72 racks of 18 trays (topology/block). */
static const char blocks[] = "# NVL72 racks\n"
			     "BlockName=rack1 Nodes=gb[001-018]\n"
			     "blockname=rack2 nodes=gb[019-036]  # lower case\n"
			     "BlockName=rack3 Nodes=gb[037-054]\n"
			     "BlockName=rack4 Nodes=gb[055-072]\n"
			     "BlockSizes=18,36,72\n";

static void check_fill(const struct lagom_switch_tree *t, const char *nodes,
		       unsigned leaves, unsigned fewest, unsigned most)
{
	struct lagom_error err = { 0 };
	struct lagom_nodelist *nl;
	size_t n;
	const char **names = names_of(nodes, &nl, &n);
	unsigned got_leaves, got_fewest, got_most;

	if (lagom_switch_tree_fill(t, names, n, &got_leaves, &got_fewest,
				   &got_most, &err) != 0)
		fail_msg("%s: %s", nodes, err.text);
	assert_int_equal(got_leaves, leaves);
	assert_int_equal(got_fewest, fewest);
	assert_int_equal(got_most, most);
	free(names);
	lagom_nodelist_destroy(nl);
}

static void test_blocks(void **state)
{
	struct lagom_error err = { 0 };
	struct lagom_switch_tree *t = lagom_switch_tree_parse(
		blocks, strlen(blocks), &err);
	static const char *const far[] = { "gb072", "gb001", "gb040" };
	unsigned leaves, lo, hi;

	if (!t)
		fail_msg("%s", err.text);
	assert_true(lagom_switch_tree_is_block(t));
	assert_int_equal(lagom_switch_tree_switches(t), 4);
	assert_int_equal(lagom_switch_tree_nodes(t), 72);
	assert_int_equal(lagom_switch_tree_levels(t), 1);
	assert_int_equal(lagom_switch_tree_block_size(t), 18);
	check_hops(t, "gb001", "gb018", LAGOM_HOPS_SAME_LEAF, 1);
	check_hops(t, "gb018", "gb019", LAGOM_HOPS_SPINE, 3);
	check_span(t, "gb[001-018]", LAGOM_HOPS_SAME_LEAF, 1, 1);
	check_span(t, "gb[001-036]", LAGOM_HOPS_SPINE, 3, 2);
	/* 36 trays: two full racks, four racks of 9, uneven racks. */
	check_fill(t, "gb[001-036]", 2, 18, 18);
	check_fill(t, "gb[001-009,019-027,037-045,055-063]", 4, 9, 9);
	check_fill(t, "gb[001-018,019-028,037-044]", 3, 8, 18);
	check_fill(t, "gb007", 1, 1, 1);
	/* Any order: the same fill. */
	assert_int_equal(
		lagom_switch_tree_fill(t, far, 3, &leaves, &lo, &hi, &err), 0);
	assert_int_equal(leaves, 3);
	assert_int_equal(lo, 1);
	assert_int_equal(hi, 1);
	assert_int_equal(lagom_switch_tree_fill(t, (const char *const[]){ "x" },
						1, &leaves, &lo, &hi, &err),
			 -ENOENT);
	lagom_switch_tree_destroy(t);

	/* No BlockSizes=: the smallest block; a tree has none. */
	t = lagom_switch_tree_parse("BlockName=a Nodes=n[1-4]\n"
				    "BlockName=b Nodes=m[1-2]\n"
				    "BlockLevels=0-1\n",
				    strlen("BlockName=a Nodes=n[1-4]\n"
					   "BlockName=b Nodes=m[1-2]\n"
					   "BlockLevels=0-1\n"),
				    &err);
	assert_non_null(t);
	assert_int_equal(lagom_switch_tree_block_size(t), 2);
	lagom_switch_tree_destroy(t);
	t = tree3();
	assert_false(lagom_switch_tree_is_block(t));
	assert_int_equal(lagom_switch_tree_block_size(t), 0);
	/* A tree's leaves fill the same way. */
	check_fill(t, "gpu[001-006]", 2, 2, 4);
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
	{ "BlockName=b1 Nodes=n1\nSwitchName=s Nodes=n2\n", 2, "mixed" },
	{ "SwitchName=s Nodes=n2\nBlockSizes=4\n", 2, "mixed" },
	{ "BlockName=b1 Switches=b2\n", 1, "Switches= for block" },
	{ "BlockName=b1\n", 1, "no Nodes= for block" },
	{ "BlockName=b1 SwitchName=b1 Nodes=n1\n", 1, "both SwitchName" },
	{ "BlockName=b1 Nodes=n1\nBlockSizes=4,2\n", 2, "increasing" },
	{ "BlockName=b1 Nodes=n1\nBlockSizes=4,x\n", 2, "increasing" },
	{ "BlockName=b1 Nodes=n1\nBlockSizes=4;8\n", 2, "BlockSizes" },
	{ "BlockName=b1 Nodes=n1\nBlockSizes=\n", 2, "BlockSizes" },
	{ "BlockName=b1 Nodes=n1 BlockSizes=4\n", 1, "line of its own" },
	{ "BlockSizes=4 BlockName=b1 Nodes=n1\n", 1, "line of its own" },
	{ "BlockName=b1 Nodes=n1\nBlockSizes=4\nBlockSizes=8\n", 3,
	  "given twice" },
	{ "BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n2\n", 2, "two leaf" },
	{ "BlockSizes=4\n", 0, "defines no switch" },
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
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_too_deep),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
