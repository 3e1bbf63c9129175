/*
 * tests/policy/test_policy.c - policy/: the spine cost of real catalog
 * workloads on the built-in A100 hardware, the decision's arithmetic, the
 * placement options of `lagom place`, and Slurm's printed topology (the
 * 22.05 tree and the 23.11+ block formats, as Slurm's sources print them)
 * read back through the switch-tree parser.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog/catalog.h"
#include "policy/policy.h"
#include "tests/lib/lagom_test.h"
#include "placement/placement.h"

static const struct lagom_policy_params defaults = {
	.run_s = 86400,
	.max_wait_s = 300,
	.min_loss = 0.02,
	.spine_taper = 1,
};

static struct lagom_hw a100(void)
{
	struct lagom_hw hw;

	assert_int_equal(lagom_hw_from_spec("A100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    4, 200, &hw, NULL),
			 0);
	return hw;
}

static struct lagom_workload *catalog(const char *name,
				      const struct lagom_hw *hw, unsigned nodes)
{
	struct lagom_workload *w = NULL;

	assert_int_equal(lagom_workload_from_name(name, hw, nodes, 8, &w, NULL),
			 0);
	return w;
}

static void test_params_check(void **state)
{
	struct lagom_policy_params p = defaults;
	struct lagom_error err = { 0 };

	(void)state;
	assert_int_equal(lagom_policy_params_check(&p, &err), 0);
	p.spine_taper = 0.5;
	assert_int_equal(lagom_policy_params_check(&p, &err), -EINVAL);
	assert_non_null(strstr(err.text, "taper"));
	p = defaults;
	p.run_s = NAN;
	assert_int_equal(lagom_policy_params_check(&p, &err), -EINVAL);
	p = defaults;
	p.max_wait_s = -1;
	assert_int_equal(lagom_policy_params_check(&p, &err), -EINVAL);
	p = defaults;
	p.min_loss = INFINITY;
	assert_int_equal(lagom_policy_params_check(&p, &err), -EINVAL);
	assert_int_equal(lagom_policy_params_check(NULL, &err), -EINVAL);
}

/* A non-blocking spine adds only latency: large-message training loses
 * well under the default 2 % threshold. */
static void test_cost_nonblocking(void **state)
{
	struct lagom_hw hw = a100();
	struct lagom_workload *w = catalog("llama-3.1-8b:fsdp", &hw, 4);
	struct lagom_placement_cost c, c2;

	(void)state;
	assert_int_equal(lagom_placement_cost(&hw, w, 4, 8, 1.0, &c, NULL), 0);
	assert_true(c.leaf_s > 0 && isfinite(c.spread_s));
	assert_true(fabs(c.loss) < 0.02);
	assert_double_near(c.loss, c.spread_s / c.leaf_s - 1, 1e-12);
	/* deterministic */
	assert_int_equal(lagom_placement_cost(&hw, w, 4, 8, 1.0, &c2, NULL), 0);
	assert_memory_equal(&c, &c2, sizeof(c));
	lagom_workload_destroy(w);
}

/* A tapered spine: communication-bound workloads lose more as the taper
 * grows, and the workload passed in is not changed. */
static void test_cost_taper(void **state)
{
	static const double tapers[] = { 1, 2, 4, 8 };
	struct lagom_hw hw = a100();
	struct lagom_workload *w = catalog("llama-3-70b:tp8,fsdp", &hw, 2);
	struct lagom_workload *before = catalog("llama-3-70b:tp8,fsdp", &hw, 2);
	double prev = -1;

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		struct lagom_placement_cost c;

		assert_int_equal(
			lagom_placement_cost(&hw, w, 2, 8, tapers[i], &c, NULL),
			0);
		assert_true(c.loss >= prev - 0.005);
		prev = c.loss;
	}
	assert_true(prev > 0.10); /* 8:1 over the spine hurts TP+FSDP */
	assert_int_equal(w->nregions, before->nregions);
	/* field by field: bytes after a name's NUL are not the model's */
	for (size_t r = 0; r < w->nregions; r++) {
		const struct lagom_region *a = &w->regions[r];
		const struct lagom_region *b = &before->regions[r];

		assert_string_equal(a->name, b->name);
		assert_int_equal(a->nkernels, b->nkernels);
		assert_int_equal(a->ncolls, b->ncolls);
		assert_true(a->serial_s == b->serial_s);
		assert_int_equal(a->repeat, b->repeat);
		assert_memory_equal(a->colls, b->colls,
				    a->ncolls * sizeof(a->colls[0]));
	}
	lagom_workload_destroy(w);
	lagom_workload_destroy(before);
}

static void test_cost_errors(void **state)
{
	struct lagom_hw hw = a100();
	struct lagom_workload *w = catalog("phi-2:fsdp", &hw, 2);
	struct lagom_placement_cost c = { .leaf_s = 7 };
	struct lagom_error err = { 0 };

	(void)state;
	assert_int_equal(lagom_placement_cost(&hw, w, 1, 8, 1, &c, &err),
			 -EINVAL);
	assert_int_equal(lagom_placement_cost(&hw, w, 2, 8, 0.9, &c, &err),
			 -EINVAL);
	assert_int_equal(lagom_placement_cost(&hw, NULL, 2, 8, 1, &c, &err),
			 -EINVAL);
	assert_double_near(c.leaf_s, 7, 0); /* untouched on failure */
	lagom_workload_destroy(w);
}

static void test_decide(void **state)
{
	struct lagom_policy_decision d;
	struct lagom_placement_cost c = { .leaf_s = 1,
					  .spread_s = 1.001,
					  .loss = 0.001 };
	struct lagom_policy_params p = defaults;

	(void)state;
	lagom_policy_decide(&p, 4, 2, &c, 0, &d);
	assert_int_equal(d.reason, LAGOM_POLICY_WIDER);
	assert_int_equal(d.switches, 0);
	lagom_policy_decide(&p, 2, 2, &c, 0, &d);
	assert_int_equal(d.reason, LAGOM_POLICY_INSENSITIVE);
	assert_int_equal(d.switches, 0);
	c.loss = -0.05; /* spread predicted faster: nothing to gain */
	lagom_policy_decide(&p, 2, 2, &c, 0, &d);
	assert_int_equal(d.reason, LAGOM_POLICY_INSENSITIVE);
	/* break-even wait: loss x run, capped by max_wait */
	c.loss = 0.05;
	p.run_s = 3600;
	p.max_wait_s = 1000;
	lagom_policy_decide(&p, 2, 2, &c, 0, &d);
	assert_int_equal(d.reason, LAGOM_POLICY_PACK);
	assert_int_equal(d.switches, 1);
	assert_int_equal(d.wait_s, 180);
	p.max_wait_s = 100;
	lagom_policy_decide(&p, 2, 2, &c, 0, &d);
	assert_int_equal(d.wait_s, 100);
	lagom_policy_decide(&p, 2, 2, &c, 600, &d); /* the job's limit */
	assert_int_equal(d.wait_s, 30);
	lagom_policy_decide(&p, 2, 2, &c, 1, &d);
	assert_int_equal(d.wait_s, 1); /* never 0: 0 means no wait */
	assert_string_equal(lagom_policy_reason_name(LAGOM_POLICY_WIDER),
			    "wider-than-leaf");
}

static void options(unsigned nodes, const struct lagom_place_leaf *l, size_t n,
		    const struct lagom_policy_decision *d,
		    struct lagom_place_option *o, enum lagom_place_kind *best)
{
	struct lagom_placement_cost c = { .leaf_s = 1.0,
					  .spread_s = 1.3,
					  .loss = 0.3 };

	assert_int_equal(
		lagom_place_options(nodes, l, n, &c, d, 300, o, best, NULL), 0);
}

/* The demo cluster's states: leaf1 = n[1-2], leaf2 = n3. */
static void test_place_demo_states(void **state)
{
	const struct lagom_policy_decision pack = { 1, 120, LAGOM_POLICY_PACK };
	const struct lagom_policy_decision insens = {
		0, 0, LAGOM_POLICY_INSENSITIVE
	};
	struct lagom_place_leaf idle[] = { { "leaf1", 2, 2 },
					   { "leaf2", 1, 1 } };
	struct lagom_place_leaf drained[] = { { "leaf1", 1, 1 },
					      { "leaf2", 1, 1 } };
	struct lagom_place_leaf busy[] = { { "leaf1", 2, 1 },
					   { "leaf2", 1, 1 } };
	struct lagom_place_leaf full[] = { { "leaf1", 2, 0 },
					   { "leaf2", 1, 0 } };
	struct lagom_place_option o[LAGOM_PLACE_KIND_COUNT];
	enum lagom_place_kind best;

	(void)state;
	options(2, idle, 2, &pack, o, &best);
	assert_int_equal(best, LAGOM_PLACE_PACK_NOW);
	assert_int_equal(o[LAGOM_PLACE_PACK_NOW].leaf, 0);
	assert_false(o[LAGOM_PLACE_SPREAD_NOW].possible);
	assert_double_near(o[LAGOM_PLACE_PACK_NOW].iter_s, 1.0, 0);

	options(2, drained, 2, &pack, o, &best);
	assert_int_equal(best, LAGOM_PLACE_SPREAD_NOW);
	assert_false(o[LAGOM_PLACE_PACK_NOW].possible);
	assert_false(o[LAGOM_PLACE_WAIT_LEAF].possible);
	assert_double_near(o[LAGOM_PLACE_SPREAD_NOW].iter_s, 1.3, 0);

	options(2, busy, 2, &pack, o, &best);
	assert_int_equal(best, LAGOM_PLACE_WAIT_LEAF);
	assert_int_equal(o[LAGOM_PLACE_WAIT_LEAF].leaf, 0);
	assert_int_equal(o[LAGOM_PLACE_WAIT_LEAF].wait_s, 120);
	assert_true(o[LAGOM_PLACE_SPREAD_NOW].possible);
	/* the same cluster, a workload that does not care: spread now */
	options(2, busy, 2, &insens, o, &best);
	assert_int_equal(best, LAGOM_PLACE_SPREAD_NOW);
	assert_int_equal(o[LAGOM_PLACE_WAIT_LEAF].wait_s, 300);

	options(2, full, 2, &pack, o, &best);
	assert_int_equal(best, LAGOM_PLACE_WAIT_LEAF);
	assert_false(o[LAGOM_PLACE_SPREAD_NOW].possible);
	options(3, full, 2, &pack, o, &best);
	assert_int_equal(best, LAGOM_PLACE_SPREAD_LATER);
	options(4, full, 2, &pack, o, &best);
	assert_int_equal(best, LAGOM_PLACE_KIND_COUNT); /* nothing fits */
}

static void test_place_best_fit(void **state)
{
	const struct lagom_policy_decision pack = { 1, 60, LAGOM_POLICY_PACK };
	struct lagom_place_leaf l[] = { { "a", 8, 6 },
					{ "b", 8, 3 },
					{ "c", 8, 2 } };
	struct lagom_place_option o[LAGOM_PLACE_KIND_COUNT];
	enum lagom_place_kind best;
	struct lagom_error err = { 0 };

	(void)state;
	options(3, l, 3, &pack, o, &best);
	assert_int_equal(o[LAGOM_PLACE_PACK_NOW].leaf, 1); /* fewest that fit */
	options(7, l, 3, &pack, o, &best);
	assert_int_equal(best, LAGOM_PLACE_WAIT_LEAF);
	assert_int_equal(o[LAGOM_PLACE_WAIT_LEAF].leaf, 0); /* most idle */
	l[0].idle = 9;
	assert_int_equal(
		lagom_place_options(2, l, 3,
				    &(struct lagom_placement_cost){ 1, 1, 0 },
				    &pack, 300, o, &best, &err),
		-EINVAL);
}

/* What 22.05's `scontrol show topology` printed on the demo cluster. */
static const char tree_2205[] =
	"SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=n[1-2]\n"
	"SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=n3\n"
	"SwitchName=spine Level=1 LinkSpeed=1 Nodes=n[1-3] "
	"Switches=leaf[1-2]\n";

static void test_topo_tree(void **state)
{
	struct lagom_switch_tree *t;
	enum lagom_topo_kind kind;
	enum lagom_hops cls;
	unsigned hops;
	char *conf = NULL;

	(void)state;
	assert_int_equal(lagom_topo_print_to_conf(tree_2205, &conf, &kind), 0);
	assert_int_equal(kind, LAGOM_TOPO_TREE);
	assert_string_equal(conf, "SwitchName=leaf1 Nodes=n[1-2]\n"
				  "SwitchName=leaf2 Nodes=n3\n"
				  "SwitchName=spine Switches=leaf[1-2]\n");
	t = lagom_switch_tree_parse(conf, strlen(conf), NULL);
	assert_non_null(t);
	assert_int_equal(
		lagom_switch_tree_hops(t, "n1", "n3", &cls, &hops, NULL), 0);
	assert_int_equal(cls, LAGOM_HOPS_SPINE);
	lagom_switch_tree_destroy(t);
	free(conf);
}

/* topology/block's print format (24.05 topology_block.c
 * _print_topo_record): each block is a
 * leaf of its own; blocks are not joined by a spine switch. */
static void test_topo_block(void **state)
{
	static const char block[] =
		"BlockName=nvl1 BlockIndex=0 Nodes=gpu[01-18]\n"
		"BlockName=nvl2 BlockIndex=1 Nodes=gpu[19-36]\n";
	struct lagom_switch_tree *t;
	enum lagom_topo_kind kind;
	enum lagom_hops cls;
	unsigned hops;
	char *conf = NULL;

	(void)state;
	assert_int_equal(lagom_topo_print_to_conf(block, &conf, &kind), 0);
	assert_int_equal(kind, LAGOM_TOPO_BLOCK);
	assert_string_equal(conf, "SwitchName=nvl1 Nodes=gpu[01-18]\n"
				  "SwitchName=nvl2 Nodes=gpu[19-36]\n");
	t = lagom_switch_tree_parse(conf, strlen(conf), NULL);
	assert_non_null(t);
	assert_int_equal(lagom_switch_tree_nodes(t), 36);
	assert_int_equal(
		lagom_switch_tree_hops(t, "gpu01", "gpu18", &cls, &hops, NULL),
		0);
	assert_int_equal(cls, LAGOM_HOPS_SAME_LEAF);
	lagom_switch_tree_destroy(t);
	free(conf);
}

/* The same on 24.11 to 26.05 (topology_block.c _print_topo_record): each
 * line ends in BlockSize=, and the aggregated blocks (BlockSizes= above
 * the base size) are printed as AggregatedBlock= lines, which are unions
 * of the base blocks and left out. */
static void test_topo_block_2411(void **state)
{
	static const char block[] =
		"BlockName=nvl1 BlockIndex=0 Nodes=gpu[01-18] BlockSize=18\n"
		"BlockName=nvl2 BlockIndex=1 Nodes=gpu[19-36] BlockSize=18\n"
		"AggregatedBlock=nvl[1-2] BlockIndex=0 Nodes=gpu[01-36] "
		"BlockSize=36\n";
	enum lagom_topo_kind kind;
	char *conf = NULL;

	(void)state;
	assert_int_equal(lagom_topo_print_to_conf(block, &conf, &kind), 0);
	assert_int_equal(kind, LAGOM_TOPO_BLOCK);
	assert_string_equal(conf, "SwitchName=nvl1 Nodes=gpu[01-18]\n"
				  "SwitchName=nvl2 Nodes=gpu[19-36]\n");
	free(conf);
}

static void test_topo_bad(void **state)
{
	enum lagom_topo_kind kind = LAGOM_TOPO_BLOCK;
	char *conf = (char *)"untouched";

	(void)state;
	assert_int_equal(lagom_topo_print_to_conf("", &conf, &kind), -EINVAL);
	assert_int_equal(
		lagom_topo_print_to_conf("garbage\nmore=1\n", &conf, &kind),
		-EINVAL);
	assert_int_equal(lagom_topo_print_to_conf("SwitchName=a Nodes=n1\n"
						  "BlockName=b Nodes=n2\n",
						  &conf, &kind),
			 -EINVAL);
	assert_string_equal(conf, "untouched");
	assert_int_equal(kind, LAGOM_TOPO_BLOCK);
	/* "(null)" values are absent; no newline at the end is fine */
	assert_int_equal(lagom_topo_print_to_conf("SwitchName=s Level=0 "
						  "Nodes=n1 Switches=(null)",
						  &conf, &kind),
			 0);
	assert_string_equal(conf, "SwitchName=s Nodes=n1\n");
	free(conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_check),
		cmocka_unit_test(test_cost_nonblocking),
		cmocka_unit_test(test_cost_taper),
		cmocka_unit_test(test_cost_errors),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_place_demo_states),
		cmocka_unit_test(test_place_best_fit),
		cmocka_unit_test(test_topo_tree),
		cmocka_unit_test(test_topo_block),
		cmocka_unit_test(test_topo_block_2411),
		cmocka_unit_test(test_topo_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
