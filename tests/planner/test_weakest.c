/*
 * tests/planner/test_weakest.c - the weakest hardware of a step depends on
 * the nodes' hardware only: not on their names, not on their order, not on
 * which node measured its bandwidths (issue 12's two planner/hw.c bugs).
 *
 * Every order of the step's nodes gives the same struct lagom_hw, plan text,
 * plan id and predicted time (three nodes, and all 24 orders of a mixed
 * four-node step under two sets of names); the same two profiles under
 * names that sort the other way give the same plan; a profile's
 * GPUs-per-NIC survives the combination.
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"
#include "model/model.h"
#include "planner/planner.h"
#include "planner/planner_int.h"
#include "profile/profile.h"

static char dir[64];

/* One node's profile: 8 GPUs on NVSwitches, 4 RDMA NICs of nic_Bps, each
 * shared by 4 GPUs (two NICs idle for NCCL); a measured bandwidth (> 0)
 * comes from the prolog's probes, else from the table. */
struct node_hw {
	const char *gpu;
	int sm_count, nvlinks_per_gpu;
	double nic_Bps, intra_measured_Bps, nic_measured_Bps;
};

static void write_node(const char *node, const struct node_hw *h)
{
	struct lagom_profile *p = lagom_profile_create(node);
	struct lagom_error err = { 0 };

	assert_non_null(p);
	snprintf(p->hostname, sizeof(p->hostname), "%s", node);
	snprintf(p->hw.gpu_model, sizeof(p->hw.gpu_model), "%s", h->gpu);
	p->hw.gpu_count = 8;
	p->hw.gpu_sm_count = h->sm_count;
	p->hw.intra = LAGOM_INTRA_NVSWITCH;
	p->hw.nvlinks_per_gpu = h->nvlinks_per_gpu;
	p->hw.nic_count = 4;
	p->hw.nic_link_bw_Bps = h->nic_Bps;
	p->hw.nic_rdma = 1;
	p->hw.gpus_per_nic = 4;
	if (h->intra_measured_Bps > 0) {
		p->meas.intra_bw_Bps.value = h->intra_measured_Bps;
		p->meas.intra_bw_Bps.source = LAGOM_SOURCE_MEASURED;
	}
	if (h->nic_measured_Bps > 0) {
		p->meas.nic_bw_Bps.value = h->nic_measured_Bps;
		p->meas.nic_bw_Bps.source = LAGOM_SOURCE_MEASURED;
	}
	snprintf(p->prov.lagom_version, sizeof(p->prov.lagom_version), "0.1.0");
	p->prov.created_unix_s = 1700000000;
	if (lagom_profile_write_atomic(dir, p, &err) != 0)
		fail_msg("writing %s: %s", node, err.text);
	lagom_profile_destroy(p);
}

/* An 8 x H100 node; measured: intra-node and NIC bandwidths probed. */
static void write_h100(const char *node, bool measured)
{
	const struct node_hw h = {
		"H100-SXM",	    132, 18, 50e9, measured ? 345e9 : 0,
		measured ? 46e9 : 0
	};

	write_node(node, &h);
}

/*
 * A mixed four-node step: a measured H100, a table H100, a table A100 with
 * slower NICs, an H100 whose intra-node bandwidth alone was measured (so
 * its bandwidths stay nominal).  mixed[i] and renamed[i] hold the same
 * hardware; the renamed names sort the other way round.
 */
static const struct node_hw mixed_hw[4] = {
	{ "H100-SXM", 132, 18, 50e9, 345e9, 46e9 },
	{ "H100-SXM", 132, 18, 50e9, 0, 0 },
	{ "A100-SXM", 108, 12, 25e9, 0, 0 },
	{ "H100-SXM", 132, 18, 50e9, 300e9, 0 },
};
static const char *const mixed[4] = { "a1", "a2", "a3", "a4" };
static const char *const renamed[4] = { "z4", "z3", "z2", "z1" };

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/lagom-weakest-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	/* n1 (measured) sorts before n2; m1 (table) sorts before m2. */
	write_h100("n1", true);
	write_h100("n2", false);
	write_h100("m1", false);
	write_h100("m2", true);
	write_h100("t1", false);
	for (int i = 0; i < 4; i++) {
		write_node(mixed[i], &mixed_hw[i]);
		write_node(renamed[i], &mixed_hw[i]);
	}
	return 0;
}

static int teardown(void **state)
{
	static const char *const nodes[] = { "n1", "n2", "m1", "m2", "t1",
					     "a1", "a2", "a3", "a4", "z1",
					     "z2", "z3", "z4" };
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.json", dir, nodes[i]);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}

static struct lagom_planner_result *plan(const char *const *names, size_t n)
{
	struct lagom_planner_input in = {
		.profile_dir = dir,
		.node_names = names,
		.node_count = n,
		.ranks_per_node = 8,
		.gpus_per_node = 8,
		.workload_name = "llama-3.1-8b:fsdp",
		.tuner_path = "/usr/lib/libnccl-tuner-lagom.so",
	};
	struct lagom_planner_result *r = NULL;
	struct lagom_error err = { 0 };

	if (lagom_planner_run(&in, &r, &err) != 0)
		fail_msg("planner: %s", err.text);
	return r;
}

static void assert_same(const struct lagom_planner_result *a,
			const struct lagom_planner_result *b)
{
	assert_string_equal(a->plan_text, b->plan_text);
	assert_string_equal(a->plan_id, b->plan_id);
	assert_double_rel(a->predicted_time_s, b->predicted_time_s, 1e-12);
	assert_memory_equal(a->hw, b->hw, sizeof(*a->hw));
}

/* The operator's report: the same two nodes under other names. */
static void names_do_not_change_the_plan(void **state)
{
	static const char *const n[] = { "n1", "n2" };
	static const char *const m[] = { "m1", "m2" };
	struct lagom_planner_result *a = plan(n, 2), *b = plan(m, 2);

	assert_same(a, b);
	lagom_planner_result_destroy(a);
	lagom_planner_result_destroy(b);
}

/* Every order of a three-node step (measured, table, table). */
static void every_order_same_plan(void **state)
{
	static const char *const base[] = { "n1", "n2", "t1" };
	static const int perm[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
					{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
	struct lagom_planner_result *first = NULL;
	int i, j;

	for (i = 0; i < 6; i++) {
		const char *names[3];
		struct lagom_planner_result *r;

		for (j = 0; j < 3; j++)
			names[j] = base[perm[i][j]];
		r = plan(names, 3);
		if (!first)
			first = r;
		else {
			assert_same(first, r);
			lagom_planner_result_destroy(r);
		}
	}
	lagom_planner_result_destroy(first);
}

/* Next permutation of idx[0..n) in lexicographic order; false after the
 * last. */
static bool next_perm(int *idx, int n)
{
	int i = n - 2, j = n - 1, t;

	while (i >= 0 && idx[i] >= idx[i + 1])
		i--;
	if (i < 0)
		return false;
	while (idx[j] <= idx[i])
		j--;
	t = idx[i], idx[i] = idx[j], idx[j] = t;
	for (int a = i + 1, b = n - 1; a < b; a++, b--)
		t = idx[a], idx[a] = idx[b], idx[b] = t;
	return true;
}

/*
 * The mixed four-node step in all 24 orders, under both sets of names:
 * one weakest hardware (the A100's GPU and NICs, the measured H100's
 * achievable basis), one plan text, one plan id, one predicted time.
 */
static void mixed_step_every_order_every_name(void **state)
{
	const char *const *sets[2] = { mixed, renamed };
	struct lagom_planner_result *first = NULL;
	struct lagom_error err = { 0 };
	struct lagom_hw a100;
	int runs = 0;

	for (int s = 0; s < 2; s++) {
		int idx[4] = { 0, 1, 2, 3 };

		do {
			const char *names[4];
			struct lagom_planner_result *r;

			for (int j = 0; j < 4; j++)
				names[j] = sets[s][idx[j]];
			r = plan(names, 4);
			runs++;
			if (!first) {
				first = r;
				continue;
			}
			assert_same(first, r);
			lagom_planner_result_destroy(r);
		} while (next_perm(idx, 4));
	}
	assert_int_equal(runs, 48);
	assert_string_equal(first->hw->gpu.name, "A100-SXM");
	assert_true(first->hw->bw_measured);
	/* The A100's table NICs on the achievable basis are the slowest. */
	assert_int_equal(lagom_hw_from_spec("A100-SXM", 8, LAGOM_INTRA_NVSWITCH,
					    4, 25e9 * 8 / 1e9, &a100, &err),
			 0);
	lagom_hw_bw_achievable(&a100);
	assert_double_rel(first->hw->nic_Bps, a100.nic_Bps, 1e-12);
	lagom_planner_result_destroy(first);
}

/* planner_weakest_hw itself, on every order of four different nodes. */
static void weakest_hw_is_order_free(void **state)
{
	struct lagom_hw hws[4], out[24], shuffled[4];
	struct lagom_error err = { 0 };
	int idx[4] = { 0, 1, 2, 3 }, k = 0, a, b, c, d;

	assert_int_equal(lagom_hw_from_spec("H100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    4, 400, &hws[0], &err),
			 0);
	hws[1] = hws[0];
	hws[1].intra_link_Bps *= 0.8; /* a measured node, slower links */
	hws[1].nic_Bps *= 0.9;
	hws[1].bw_measured = true;
	assert_int_equal(lagom_hw_from_spec("A100-SXM", 8, LAGOM_INTRA_DEFAULT,
					    8, 200, &hws[2], &err),
			 0);
	assert_int_equal(lagom_hw_from_spec("H100-PCIe", 4, LAGOM_INTRA_DEFAULT,
					    1, 100, &hws[3], &err),
			 0);
	for (a = 0; a < 4; a++)
		for (b = 0; b < 4; b++)
			for (c = 0; c < 4; c++)
				for (d = 0; d < 4; d++) {
					if (a == b || a == c || a == d ||
					    b == c || b == d || c == d)
						continue;
					shuffled[0] = hws[idx[a]];
					shuffled[1] = hws[idx[b]];
					shuffled[2] = hws[idx[c]];
					shuffled[3] = hws[idx[d]];
					assert_int_equal(planner_weakest_hw(
								 shuffled, 4,
								 &out[k], &err),
							 0);
					assert_memory_equal(&out[k], &out[0],
							    sizeof(out[0]));
					k++;
				}
	assert_int_equal(k, 24);
	assert_true(out[0].bw_measured);
	assert_int_equal(out[0].gpus_per_node, 4);
}

/* The profile says 4 GPUs share a NIC; the planner does not recompute it. */
static void gpus_per_nic_kept(void **state)
{
	static const char *const t[] = { "t1" };
	static const char *const n[] = { "n1", "n2" };
	struct lagom_planner_result *a = plan(t, 1), *b = plan(n, 2);

	assert_int_equal(a->hw->gpus_per_nic, 4);
	assert_int_equal(b->hw->gpus_per_nic, 4);
	lagom_planner_result_destroy(a);
	lagom_planner_result_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_do_not_change_the_plan),
		cmocka_unit_test(every_order_same_plan),
		cmocka_unit_test(weakest_hw_is_order_free),
		cmocka_unit_test(mixed_step_every_order_every_name),
		cmocka_unit_test(gpus_per_nic_kept),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
