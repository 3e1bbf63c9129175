/*
 * tests/planner/test_blocks.c - topology/block names which nodes share an
 * NVLink domain (GB200 NVL72 racks, doc/model.md 2.3): 36 trays in two
 * full racks plan faster than the same 36 spread over four racks, uneven
 * racks price as their emptiest, one rack plans as without a topology, and
 * the order of the nodes never changes the plan.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"
#include "tests/lib/write_profile.h"
#include "planner/planner.h"
#include "profile/profile.h"

#define TRAYS 72

struct fx {
	char dir[64];
	char profile[96];
	char conf[96];
	char names[TRAYS][8];
};

/* One GB200 tray of an NVL72 rack, as `lagom profile synth --nvl-domain
 * 18` writes it. */
static void write_profile(const char *dir)
{
	lagom_test_write_profile(dir, &(struct lagom_test_profile){
					      .node = "gb",
					      .gpu = "GB200",
					      .gpus = 4,
					      .sms = 148,
					      .nvlinks = 18,
					      .nics = 4,
					      .nic_rdma = 1,
					      .nic_Bps = 50e9,
					      .nvl_domain_nodes = 18,
					      .measured = true,
					      .bf16_flops = 2250e12,
					      .hbm_Bps = 8e12,
					      .version = "0.1.0",
				      });
}

static int setup(void **state)
{
	static struct fx f;
	FILE *c;

	snprintf(f.dir, sizeof(f.dir), "/tmp/lagom-blocks-XXXXXX");
	if (!mkdtemp(f.dir))
		return -1;
	write_profile(f.dir);
	snprintf(f.profile, sizeof(f.profile), "%s/gb.json", f.dir);
	snprintf(f.conf, sizeof(f.conf), "%s/topology.conf", f.dir);
	c = fopen(f.conf, "w");
	if (!c)
		return -1;
	fputs("BlockName=rack1 Nodes=gb[001-018]\n"
	      "BlockName=rack2 Nodes=gb[019-036]\n"
	      "BlockName=rack3 Nodes=gb[037-054]\n"
	      "BlockName=rack4 Nodes=gb[055-072]\n"
	      "BlockSizes=18,36,72\n",
	      c);
	if (fclose(c) != 0)
		return -1;
	for (int i = 0; i < TRAYS; i++)
		snprintf(f.names[i], sizeof(f.names[i]), "gb%03d", i + 1);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	unlink(f->profile);
	unlink(f->conf);
	rmdir(f->dir);
	return 0;
}

/* Plan for the trays named by their 1-based numbers. */
static struct lagom_planner_result *plan(const struct fx *f, const int *trays,
					 size_t n, bool topology)
{
	const char *names[TRAYS];
	struct lagom_planner_input in = {
		.profile_path = f->profile,
		.node_names = names,
		.node_count = n,
		.ranks_per_node = 4,
		.gpus_per_node = 4,
		.workload_name = "llama-3.1-8b:fsdp",
		.topology_conf = topology ? f->conf : NULL,
	};
	struct lagom_planner_result *r = NULL;
	struct lagom_error err = { 0 };

	for (size_t i = 0; i < n; i++)
		names[i] = f->names[trays[i] - 1];
	if (lagom_planner_run(&in, &r, &err) != 0)
		fail_msg("planner: %s", err.text);
	return r;
}

/* 36 trays: racks 1-2 full; nine of each rack; 18 + 10 + 8. */
static void trays_of(int *two, int *four, int *uneven)
{
	for (int i = 0; i < 36; i++) {
		two[i] = i + 1;
		four[i] = (i / 9) * 18 + i % 9 + 1;
		uneven[i] = i < 28 ? i + 1 : 36 + (i - 28) + 1;
	}
}

static void racks_decide_the_domains(void **state)
{
	struct fx *f = *state;
	int two[36], four[36], uneven[36];
	struct lagom_planner_result *a, *b, *c;

	trays_of(two, four, uneven);
	a = plan(f, two, 36, true);
	b = plan(f, four, 36, true);
	c = plan(f, uneven, 36, true);
	/* Two racks of 18 keep the profile's domain; four of 9 are domains
	 * of 9 with half the NICs each; 18 + 10 + 8 is priced at 8. */
	assert_int_equal(a->hw->nvl_domain_nodes, 18);
	assert_int_equal(b->hw->nvl_domain_nodes, 9);
	assert_int_equal(c->hw->nvl_domain_nodes, 8);
	assert_true(b->nccl_default_time_s > a->nccl_default_time_s * 1.001);
	assert_true(b->predicted_time_s > a->predicted_time_s * 1.001);
	assert_true(c->nccl_default_time_s > b->nccl_default_time_s);
	lagom_planner_result_destroy(a);
	lagom_planner_result_destroy(b);
	lagom_planner_result_destroy(c);
}

static void assert_same_plan(const struct lagom_planner_result *a,
			     const struct lagom_planner_result *b)
{
	assert_string_equal(a->plan_text, b->plan_text);
	assert_string_equal(a->plan_id, b->plan_id);
	assert_true(a->predicted_time_s == b->predicted_time_s);
}

static void node_order_does_not_matter(void **state)
{
	struct fx *f = *state;
	int two[36], four[36], uneven[36], rev[36];
	struct lagom_planner_result *a, *b;

	trays_of(two, four, uneven);
	/* Reversed, then every other tray first. */
	for (int i = 0; i < 36; i++)
		rev[i] = four[35 - i];
	a = plan(f, four, 36, true);
	b = plan(f, rev, 36, true);
	assert_same_plan(a, b);
	lagom_planner_result_destroy(b);
	for (int i = 0; i < 36; i++)
		rev[i] = four[(i * 7) % 36]; /* 7 is prime to 36 */
	b = plan(f, rev, 36, true);
	assert_same_plan(a, b);
	lagom_planner_result_destroy(a);
	lagom_planner_result_destroy(b);
}

/* One rack: the same plan as with no topology (in one domain either way). */
static void one_rack_as_without(void **state)
{
	struct fx *f = *state;
	int rack[18];
	struct lagom_planner_result *a, *b;

	for (int i = 0; i < 18; i++)
		rack[i] = 37 + i;
	a = plan(f, rack, 18, true);
	b = plan(f, rack, 18, false);
	assert_same_plan(a, b);
	assert_int_equal(a->hw->nvl_domain_nodes, 18);
	lagom_planner_result_destroy(a);
	lagom_planner_result_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(racks_decide_the_domains),
		cmocka_unit_test(node_order_does_not_matter),
		cmocka_unit_test(one_rack_as_without),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
