/*
 * cli/cmd_place.c - `lagom place`: for a job about to be submitted, the
 * placement options the cluster offers now (pack into one leaf now, wait
 * for one, spread now), their predicted iteration times and the sbatch
 * options that get each.  Slurm's state comes from cli/place_slurm.c.
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/place_int.h"
#include "cli/policy_int.h"

static const char place_usage[] =
	"Usage: lagom place --nodes N --workload NAME|FILE --profile FILE|DIR\n"
	"                   [--partition P] [OPTIONS]\n"
	"\n"
	"Read the partition's node states and the switch tree from Slurm and\n"
	"print where a job of N nodes would run best: packed into one leaf\n"
	"now, waiting for one, or spread over the spine now; with the\n"
	"predicted iteration time and the sbatch options that get each.\n"
	"\n"
	"Options:\n"
	"  --nodes N             nodes of the job (1-4096)\n"
	"  --workload NAME|FILE  catalog name or JSON workload file\n"
	"  --profile FILE|DIR    one profile for every node, or the profile\n"
	"                        directory (the weakest node is planned for)\n"
	"  --partition P         the partition (default: Slurm's default)\n"
	"  --gpus-per-node G     GPUs per node (default: the profiles')\n"
	"  --run-length SECONDS  the job's run, for the wait (default 86400)\n"
	"  --max-wait SECONDS    longest wait (default 300)\n"
	"  --min-loss FRACTION   as lagom policy (default 0.02)\n"
	"  --spine-taper R       as lagom policy (default 1)\n"
	"  --no-trust            with DIR: skip the ownership checks\n"
	"  --trusted-uid UID     with DIR: owner trusted besides root\n"
	"  --format text|json    output format (default text)\n"
	"  -h, --help            this help\n";

enum {
	OPT_NODES = CLI_POLICY_OPT_OWN,
	OPT_WORKLOAD,
	OPT_PARTITION,
};

struct place_opts {
	struct cli_policy_common c;
	unsigned nodes;
	const char *workload, *partition;
};

static int place_opt(void *ctx, int value, const char *arg)
{
	struct place_opts *o = ctx;

	switch (value) {
	case OPT_NODES:
		return cli_parse_unsigned("--nodes", arg, 1,
					  LAGOM_POLICY_MAX_NODES, &o->nodes);
	case OPT_WORKLOAD:
		o->workload = arg;
		return 0;
	default:
		o->partition = arg;
		return 0;
	}
}

static int parse_place(int argc, char **argv, struct place_opts *o)
{
	static const struct option own_opts[] = {
		{ "nodes", required_argument, NULL, OPT_NODES },
		{ "workload", required_argument, NULL, OPT_WORKLOAD },
		{ "partition", required_argument, NULL, OPT_PARTITION },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_policy_parse(argc, argv, "place", place_usage, own_opts,
				  &o->c, place_opt, o);

	if (rc)
		return rc;
	if (!o->nodes || !o->workload || !o->c.profile)
		return cli_fail(CLI_USAGE,
				"place: --nodes, --workload and --profile are "
				"required (try 'lagom place --help')");
	return 0;
}

static int cmp_node(const void *a, const void *b)
{
	return strcmp(((const struct cli_place_node *)a)->name,
		      ((const struct cli_place_node *)b)->name);
}

/* What place computed, for the printers. */
struct place_result {
	const struct place_opts *o;
	const struct cli_place_view *v;
	struct cli_leaves leaves;
	struct lagom_place_leaf *pl; /* one per leaf, with the counts */
	struct lagom_hw hw;
	unsigned gpus;
	struct lagom_placement_cost cost;
	struct lagom_policy_decision d;
	struct lagom_place_option opt[LAGOM_PLACE_KIND_COUNT];
	enum lagom_place_kind best;
};

/* Count each leaf's usable and idle nodes of the partition. */
static int count_leaves(struct place_result *r, struct lagom_nodelist *part)
{
	const struct cli_place_view *v = r->v;

	r->pl = calloc(r->leaves.count ? r->leaves.count : 1, sizeof(*r->pl));
	if (!r->pl)
		return cli_fail(CLI_FAIL, "out of memory");
	for (size_t i = 0; i < r->leaves.count; i++) {
		const struct cli_leaf *l = &r->leaves.leaf[i];

		r->pl[i].name = l->name;
		for (size_t j = 0; j < l->count; j++) {
			struct cli_place_node key = {
				.name = (char *)l->nodes[j]
			};
			const struct cli_place_node *n;

			if (lagom_nodelist_find(part, l->nodes[j]) < 0)
				continue;
			n = bsearch(&key, v->nodes, v->count, sizeof(*v->nodes),
				    cmp_node);
			if (!n || !n->usable)
				continue;
			r->pl[i].usable++;
			r->pl[i].idle += n->idle;
		}
	}
	return 0;
}

/* The partition's nodes that are in the tree: the hardware to plan for. */
static int place_hw(struct place_result *r, struct lagom_nodelist *part)
{
	size_t n = 0, cap = 0;
	const char **names;
	int rc;

	for (size_t i = 0; i < r->leaves.count; i++)
		cap += r->leaves.leaf[i].count;
	names = calloc(cap ? cap : 1, sizeof(*names));
	if (!names)
		return cli_fail(CLI_FAIL, "out of memory");
	for (size_t i = 0; i < r->leaves.count; i++)
		for (size_t j = 0; j < r->leaves.leaf[i].count; j++)
			if (lagom_nodelist_find(
				    part, r->leaves.leaf[i].nodes[j]) >= 0)
				names[n++] = r->leaves.leaf[i].nodes[j];
	if (n == 0)
		rc = cli_fail(CLI_FAIL,
			      "partition %s has no node in the switch tree",
			      r->v->partition);
	else
		rc = cli_cluster_hw(r->o->c.profile, r->o->c.trust,
				    (unsigned)r->o->c.trusted_uid, names, n,
				    r->o->c.gpus_per_node, &r->hw, &r->gpus);
	free(names);
	return rc;
}

static int place_cost(struct place_result *r)
{
	const struct place_opts *o = r->o;
	struct lagom_workload *w = NULL;
	struct lagom_error err = { 0 };
	int rc;

	if (o->nodes < 2) {
		r->cost = (struct lagom_placement_cost){ 0 };
		return cli_fail(CLI_USAGE,
				"place: a one-node job crosses no switch");
	}
	if ((rc = cli_workload_load(o->workload, &r->hw, o->nodes, r->gpus,
				    &w)))
		return rc;
	if (cli_workload_is_file(o->workload) &&
	    cli_workload_nodes(w) != o->nodes) {
		lagom_workload_destroy(w);
		return cli_fail(CLI_USAGE,
				"place: workload %s spans %u nodes, not %u",
				o->workload, cli_workload_nodes(w), o->nodes);
	}
	rc = lagom_placement_cost(&r->hw, w, o->nodes, r->gpus,
				  o->c.params.spine_taper, &r->cost, &err);
	lagom_workload_destroy(w);
	if (rc)
		return cli_fail(CLI_FAIL, "place: %s", err.text);
	lagom_policy_decide(&o->c.params, o->nodes, (unsigned)r->leaves.largest,
			    &r->cost, 0, &r->d);
	if (lagom_place_options(o->nodes, r->pl, r->leaves.count, &r->cost,
				&r->d, (unsigned)o->c.params.max_wait_s, r->opt,
				&r->best, &err))
		return cli_fail(CLI_FAIL, "place: %s", err.text);
	return 0;
}

static int cli_place_print(const struct place_result *r);

static int place_run(const struct place_opts *o)
{
	struct place_result r = { .o = o };
	struct cli_place_view v;
	struct lagom_switch_tree *tree = NULL;
	struct lagom_nodelist *part = NULL;
	struct lagom_error err = { 0 };
	int rc;

	if ((rc = cli_place_view_load(o->partition, &v)))
		return rc;
	r.v = &v;
	qsort(v.nodes, v.count, sizeof(*v.nodes), cmp_node);
	if (!v.topo_text || !v.topo_text[0]) {
		rc = cli_fail(CLI_FAIL,
			      "Slurm reports no switch tree (TopologyPlugin "
			      "is not topology/tree or topology/block)");
		goto view;
	}
	tree = lagom_switch_tree_parse(v.topo_text, strlen(v.topo_text), &err);
	if (!tree) {
		rc = cli_fail(CLI_FAIL, "Slurm's switch tree: %s", err.text);
		goto view;
	}
	part = lagom_nodelist_create(v.part_nodes, &err);
	if (!part) {
		rc = cli_fail(CLI_FAIL, "partition %s: %s", v.partition,
			      err.text);
		goto tree;
	}
	if ((rc = cli_leaves_build(tree, &r.leaves)) == 0 &&
	    (rc = count_leaves(&r, part)) == 0 &&
	    (rc = place_hw(&r, part)) == 0 && (rc = place_cost(&r)) == 0)
		rc = cli_place_print(&r);
	free(r.pl);
	cli_leaves_fini(&r.leaves);
	lagom_nodelist_destroy(part);
tree:
	lagom_switch_tree_destroy(tree);
view:
	cli_place_view_fini(&v);
	return rc;
}

/* The sbatch options that get an option. */
static void sbatch_opts(const struct place_result *r,
			const struct lagom_place_option *op, char *buf,
			size_t len)
{
	int n = snprintf(buf, len, "-N%u -p %s", r->o->nodes, r->v->partition);
	bool block = r->v->topo_kind == LAGOM_TOPO_BLOCK;

	if (n < 0 || (size_t)n >= len)
		return;
	if (op->kind == LAGOM_PLACE_PACK_NOW ||
	    op->kind == LAGOM_PLACE_WAIT_LEAF) {
		if (block)
			snprintf(buf + n, len - n, " --segment=%u",
				 r->o->nodes);
		else if (op->kind == LAGOM_PLACE_WAIT_LEAF)
			snprintf(buf + n, len - n, " --switches=1@%u",
				 op->wait_s);
		else
			snprintf(buf + n, len - n, " --switches=1");
	}
}

static int print_json(const struct place_result *r)
{
	json_t *doc = cli_json_doc("place"), *arr = json_array();
	char opts[256];

	for (int k = 0; k < LAGOM_PLACE_KIND_COUNT; k++) {
		const struct lagom_place_option *op = &r->opt[k];

		sbatch_opts(r, op, opts, sizeof(opts));
		json_array_append_new(
			arr,
			json_pack("{s:s, s:b, s:f, s:s?, s:i, s:s, s:b}",
				  "kind", lagom_place_kind_name(op->kind),
				  "possible", op->possible, "iter_s",
				  op->iter_s, "leaf",
				  op->leaf >= 0 ? r->pl[op->leaf].name : NULL,
				  "wait_s", (int)op->wait_s, "sbatch", opts,
				  "recommended", (int)k == (int)r->best));
	}
	json_object_set_new(
		doc, "job",
		json_pack(
			"{s:i, s:s, s:s, s:s, s:i, s:s}", "nodes",
			(int)r->o->nodes, "workload", r->o->workload,
			"partition", r->v->partition, "topology",
			r->v->topo_kind == LAGOM_TOPO_BLOCK ? "block" : "tree",
			"gpus_per_node", (int)r->gpus, "gpu", r->hw.gpu.name));
	json_object_set_new(
		doc, "policy",
		json_pack("{s:f, s:f, s:f, s:s, s:i, s:i}", "leaf_s",
			  r->cost.leaf_s, "spread_s", r->cost.spread_s, "loss",
			  r->cost.loss, "decision",
			  lagom_policy_reason_name(r->d.reason), "switches",
			  (int)r->d.switches, "wait_s", (int)r->d.wait_s));
	json_object_set_new(doc, "options", arr);
	return cli_json_print(doc);
}

static int cli_place_print(const struct place_result *r)
{
	char opts[256];

	if (r->o->c.format == CLI_JSON)
		return print_json(r);
	printf("%u nodes of %s, workload %s, partition %s (%s x%u)\n",
	       r->o->nodes,
	       r->v->topo_kind == LAGOM_TOPO_BLOCK ? "blocks" : "leaf switches",
	       r->o->workload, r->v->partition, r->hw.gpu.name, r->gpus);
	printf("one leaf %.1f ms/iteration, spread %.1f ms (+%.2f%%): %s\n",
	       r->cost.leaf_s * 1e3, r->cost.spread_s * 1e3, r->cost.loss * 100,
	       lagom_policy_reason_name(r->d.reason));
	for (size_t i = 0; i < r->leaves.count; i++)
		printf("  %s: %u usable, %u idle\n", r->pl[i].name,
		       r->pl[i].usable, r->pl[i].idle);
	for (int k = 0; k < LAGOM_PLACE_KIND_COUNT; k++) {
		const struct lagom_place_option *op = &r->opt[k];

		sbatch_opts(r, op, opts, sizeof(opts));
		printf("%c %-13s %-12s %7.1f ms  sbatch %s%s%s\n",
		       k == (int)r->best ? '*' : ' ',
		       lagom_place_kind_name(op->kind),
		       op->possible ? "possible" : "not possible",
		       op->iter_s * 1e3, opts, op->leaf >= 0 ? "  # " : "",
		       op->leaf >= 0 ? r->pl[op->leaf].name : "");
	}
	return CLI_OK;
}

int cli_cmd_place(int argc, char **argv)
{
	struct place_opts o = { .nodes = 0 };
	int rc;

	cli_policy_common_init(&o.c);
	rc = parse_place(argc, argv, &o);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	return place_run(&o);
}
