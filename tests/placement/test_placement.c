/*
 * tests/placement/test_placement.c - the strings Slurm gives a step: node
 * lists (through Slurm's hostlist functions), tasks per node, GPU lists,
 * SLURM_TOPOLOGY_ADDR, and the communicator shape they imply.
 * Forms from the srun/sbatch man pages (SLURM_TASKS_PER_NODE "2(x3),1").
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "placement/placement.h"

static void test_nodelist_forms(void **state)
{
	struct lagom_error err = { 0 };
	struct lagom_nodelist *nl = lagom_nodelist_create("gpu[001-004,010]",
							  &err);

	assert_non_null(nl);
	assert_int_equal(lagom_nodelist_count(nl), 5);
	assert_string_equal(lagom_nodelist_name(nl, 0), "gpu001");
	assert_string_equal(lagom_nodelist_name(nl, 3), "gpu004");
	assert_string_equal(lagom_nodelist_name(nl, 4), "gpu010");
	assert_null(lagom_nodelist_name(nl, 5));
	assert_int_equal(lagom_nodelist_find(nl, "gpu010"), 4);
	assert_int_equal(lagom_nodelist_find(nl, "gpu005"), -1);
	lagom_nodelist_destroy(nl);

	nl = lagom_nodelist_create("login1", &err); /* single node */
	assert_non_null(nl);
	assert_int_equal(lagom_nodelist_count(nl), 1);
	lagom_nodelist_destroy(nl);

	nl = lagom_nodelist_create("a[1-2],b3 c[7-8]", &err);
	assert_non_null(nl);
	assert_int_equal(lagom_nodelist_count(nl), 5);
	assert_string_equal(lagom_nodelist_name(nl, 2), "b3");
	lagom_nodelist_destroy(nl);
	lagom_nodelist_destroy(NULL);
}

static void test_nodelist_10000(void **state)
{
	struct lagom_error err = { 0 };
	struct lagom_nodelist *nl = lagom_nodelist_create("n[00001-10000]",
							  &err);

	assert_non_null(nl);
	assert_int_equal(lagom_nodelist_count(nl), 10000);
	assert_string_equal(lagom_nodelist_name(nl, 9999), "n10000");
	assert_int_equal(lagom_nodelist_find(nl, "n05000"), 4999);
	lagom_nodelist_destroy(nl);
}

static void test_nodelist_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"   ",
		"x[1-",
		"x]",
		"x[[1]]",
		"x[5-1]",
		"x[a-b]",
		"n(1)",
		"n;rm -rf",
		"n[1-2],n1",
		"x[1-60000],y[1-60000]",
		/* a product Slurm would expand in full (the fuzzer's
		 * 130 M-host switch tree line): refused before it */
		"l[2-512][2-512][1-512]",
		"a[1-400][1-400]",
		"x[0-99999999999999999999]",
		"x[1-100000000]",
		"x[1-2-3]",
		"x[26-16]",
		"x[1-65537]",
		"x[]",
		"x[,1]",
		"x[1,]",
		"x[1]]",
		"x\xff",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lagom_error err = { 0 };

		if (lagom_nodelist_create(bad[i], &err) != NULL)
			fail_msg("'%s' accepted", bad[i]);
		assert_true(err.errnum == EINVAL || err.errnum == E2BIG);
		assert_true(err.text[0] != '\0');
	}
	assert_null(lagom_nodelist_create(NULL, NULL));
}

static void test_tpn_forms(void **state)
{
	struct lagom_error err = { 0 };
	struct lagom_tasks_per_node t;

	assert_int_equal(lagom_tasks_per_node_parse("2(x3),1", &t, &err), 0);
	assert_int_equal(t.nodes, 4);
	assert_int_equal(t.tasks, 7);
	assert_int_equal(t.min_tasks, 1);
	assert_int_equal(t.max_tasks, 2);
	assert_int_equal(t.ngroups, 2);
	assert_int_equal(lagom_tasks_per_node_at(&t, 2), 2);
	assert_int_equal(lagom_tasks_per_node_at(&t, 3), 1);
	assert_int_equal(lagom_tasks_per_node_at(&t, 4), 0);
	lagom_tasks_per_node_release(&t);
	assert_null(t.groups);

	assert_int_equal(lagom_tasks_per_node_parse("8", &t, &err), 0);
	assert_int_equal(t.nodes, 1);
	assert_int_equal(t.tasks, 8);
	lagom_tasks_per_node_release(&t);

	/* Equal neighbours merge: one group. */
	assert_int_equal(lagom_tasks_per_node_parse("4,4(x2),4", &t, &err), 0);
	assert_int_equal(t.ngroups, 1);
	assert_int_equal(t.nodes, 4);
	lagom_tasks_per_node_release(&t);

	assert_int_equal(lagom_tasks_per_node_parse("8(x10000)", &t, &err), 0);
	assert_int_equal(t.nodes, 10000);
	assert_int_equal(t.tasks, 80000);
	lagom_tasks_per_node_release(&t);
	lagom_tasks_per_node_release(NULL);
}

static void test_tpn_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"x",
		"2(x3",
		"2(3)",
		"2(x)",
		"2(x0)",
		"0",
		"-1",
		"2,",
		",2",
		"2,,2",
		"2 (x3)",
		"1.5",
		"65537",
		"99999999999",
		"184467440737095516161",
		"1(x100001)",
		"1(x50000),1(x50001)",
		"2(x3)x",
		"+2",
	};
	struct lagom_tasks_per_node t = { .nodes = 77 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lagom_error err = { 0 };
		int rc = lagom_tasks_per_node_parse(bad[i], &t, &err);

		if (rc == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_true(rc == -EINVAL || rc == -ERANGE || rc == -E2BIG);
		assert_non_null(strstr(err.text, "tasks per node"));
		assert_int_equal(t.nodes, 77);
	}
	assert_int_equal(lagom_tasks_per_node_parse(NULL, &t, NULL), -EINVAL);
}

static void test_gpu_list(void **state)
{
	struct lagom_error err = { 0 };
	struct lagom_gpu_list l;

	assert_int_equal(lagom_gpu_list_parse("0,1", &l, &err), 0);
	assert_int_equal(l.count, 2);
	assert_int_equal(l.index[1], 1);
	assert_int_equal(lagom_gpu_list_parse("0-3,6", &l, &err), 0);
	assert_int_equal(l.count, 5);
	assert_int_equal(l.index[4], 6);
	assert_int_equal(lagom_gpu_list_parse("", &l, &err), 0);
	assert_int_equal(l.count, 0);
	assert_int_equal(
		lagom_gpu_list_parse("GPU-8d2c1f1e-aaaa-bbbb-cccc-0123456789ab,"
				     "MIG-GPU-8d2c1f1e/1/0",
				     &l, &err),
		0);
	assert_int_equal(l.count, 2);
	assert_int_equal(l.index[0], -1);
	assert_int_equal(lagom_gpu_list_parse("NoDevFiles", &l, &err), -ENODEV);
	assert_int_equal(lagom_gpu_list_parse("0-63", &l, &err), 0);
	assert_int_equal(l.count, 64);
}

static void test_gpu_list_bad(void **state)
{
	static const char *const bad[] = {
		"0,,1", "0,",  "a",  "0,0", "3-1",	   "0-64",
		"1024", "0 1", "-1", "0;1", "99999999999", "0-1023",
	};
	struct lagom_gpu_list l = { .count = 7 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lagom_error err = { 0 };
		int rc = lagom_gpu_list_parse(bad[i], &l, &err);

		if (rc == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_true(rc == -EINVAL || rc == -E2BIG);
		assert_int_equal(l.count, 7);
	}
}

static void test_shape(void **state)
{
	struct lagom_error err = { 0 };
	struct lagom_tasks_per_node t;
	struct lagom_step_shape s;
	struct lagom_comm c;

	assert_int_equal(lagom_tasks_per_node_parse("8(x4)", &t, &err), 0);
	assert_int_equal(lagom_step_shape(&t, 1, 1, &s, &err), 0);
	assert_int_equal(s.ranks, 32);
	assert_int_equal(s.nodes, 4);
	assert_true(s.uniform);
	assert_int_equal(lagom_step_comm(&s, LAGOM_HOPS_SPINE, &c, &err), 0);
	assert_int_equal(c.ranks, 32);
	assert_int_equal(c.ranks_per_node, 8);
	assert_int_equal(c.hops, LAGOM_HOPS_SPINE);
	lagom_tasks_per_node_release(&t);

	/* torchrun: one task per node seeing 8 GPUs, one rank per GPU. */
	assert_int_equal(lagom_tasks_per_node_parse("1(x2)", &t, &err), 0);
	assert_int_equal(lagom_step_shape(&t, 8, 8, &s, &err), 0);
	assert_int_equal(s.ranks, 16);
	assert_int_equal(s.ranks_per_node_max, 8);
	assert_int_equal(s.gpus_per_rank, 1);
	lagom_tasks_per_node_release(&t);

	/* Uneven: 2,2,2,1 ranks. */
	assert_int_equal(lagom_tasks_per_node_parse("2(x3),1", &t, &err), 0);
	assert_int_equal(lagom_step_shape(&t, 0, 1, &s, &err), 0);
	assert_int_equal(s.ranks, 7);
	assert_false(s.uniform);
	assert_int_equal(s.ranks_per_node_min, 1);
	c.ranks = 99;
	assert_int_equal(lagom_step_comm(&s, LAGOM_HOPS_SAME_LEAF, &c, &err),
			 -EINVAL);
	assert_non_null(strstr(err.text, "1 to 2 ranks per node"));
	assert_int_equal(c.ranks, 99);
	lagom_tasks_per_node_release(&t);

	/* Single node: SAME_NODE whatever the caller says. */
	assert_int_equal(lagom_tasks_per_node_parse("4", &t, &err), 0);
	assert_int_equal(lagom_step_shape(&t, 1, 1, &s, &err), 0);
	assert_int_equal(lagom_step_comm(&s, LAGOM_HOPS_SPINE, &c, &err), 0);
	assert_int_equal(c.hops, LAGOM_HOPS_SAME_NODE);
	/* Overflow: 4 tasks x 64 ranks fits; huge steps do not. */
	assert_int_equal(lagom_step_shape(&t, 65, 1, &s, &err), -EINVAL);
	lagom_tasks_per_node_release(&t);
	assert_int_equal(lagom_tasks_per_node_parse("65536(x100000)", &t, &err),
			 0);
	assert_int_equal(lagom_step_shape(&t, 64, 64, &s, &err), -E2BIG);
	lagom_tasks_per_node_release(&t);
}

static void test_topology_addr(void **state)
{
	struct lagom_error err = { 0 };
	enum lagom_hops cls;
	unsigned hops;

	assert_int_equal(lagom_topology_addr_hops("spine.leaf1.n1",
						  "spine.leaf1.n1", &cls, &hops,
						  &err),
			 0);
	assert_int_equal(cls, LAGOM_HOPS_SAME_NODE);
	assert_int_equal(hops, 0);
	assert_int_equal(lagom_topology_addr_hops("spine.leaf1.n1",
						  "spine.leaf1.n2", &cls, &hops,
						  &err),
			 0);
	assert_int_equal(cls, LAGOM_HOPS_SAME_LEAF);
	assert_int_equal(hops, 1);
	assert_int_equal(lagom_topology_addr_hops("spine.leaf1.n1",
						  "spine.leaf2.n3", &cls, &hops,
						  &err),
			 0);
	assert_int_equal(cls, LAGOM_HOPS_SPINE);
	assert_int_equal(hops, 3);
	assert_int_equal(lagom_topology_addr_hops("core.agg1.leaf1.n1",
						  "core.agg2.leaf3.n9", &cls,
						  &hops, &err),
			 0);
	assert_int_equal(hops, 5);
	assert_int_equal(
		lagom_topology_addr_hops("n1", "n2", &cls, &hops, &err),
		-ENOENT);
	assert_int_equal(
		lagom_topology_addr_hops("a..b", "a.b.c", &cls, &hops, &err),
		-EINVAL);
	assert_int_equal(
		lagom_topology_addr_hops("a.b", "a.b.c", &cls, &hops, &err),
		-EINVAL);
	assert_int_equal(
		lagom_topology_addr_hops("a.b.", "a.b.c", &cls, &hops, &err),
		-EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nodelist_forms),
		cmocka_unit_test(test_nodelist_10000),
		cmocka_unit_test(test_nodelist_bad),
		cmocka_unit_test(test_tpn_forms),
		cmocka_unit_test(test_tpn_bad),
		cmocka_unit_test(test_gpu_list),
		cmocka_unit_test(test_gpu_list_bad),
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_topology_addr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
