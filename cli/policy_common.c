/*
 * cli/policy_common.c - leaves of the switch tree, the cluster's hardware
 * and workloads for `lagom policy` and `lagom place` (cli/cli_policy.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_policy.h"
#include "planner/planner.h"
#include "workload/workload.h"

static int cmp_leaf(const void *a, const void *b)
{
	return strcmp(((const struct cli_leaf *)a)->name,
		      ((const struct cli_leaf *)b)->name);
}

static struct cli_leaf *find_leaf(struct cli_leaves *l, const char *name)
{
	for (size_t i = 0; i < l->count; i++)
		if (strcmp(l->leaf[i].name, name) == 0)
			return &l->leaf[i];
	return NULL;
}

/* Count the nodes of each leaf (first pass) ... */
static int count_leaves(const struct lagom_switch_tree *tree,
			struct cli_leaves *l)
{
	size_t n = lagom_switch_tree_nodes(tree);
	const char *leaf;

	l->leaf = calloc(lagom_switch_tree_switches(tree) + 1,
			 sizeof(*l->leaf));
	if (!l->leaf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct cli_leaf *f;

		lagom_switch_tree_node(tree, i, NULL, &leaf);
		f = find_leaf(l, leaf);
		if (!f) {
			f = &l->leaf[l->count++];
			f->name = leaf;
		}
		f->count++;
	}
	return 0;
}

/* ... then fill their node arrays (nodes stay sorted by name). */
int cli_leaves_build(const struct lagom_switch_tree *tree,
		     struct cli_leaves *out)
{
	struct cli_leaves l = { 0 };
	size_t n = lagom_switch_tree_nodes(tree);
	const char *node, *leaf;

	if (count_leaves(tree, &l))
		goto nomem;
	for (size_t i = 0; i < l.count; i++) {
		l.leaf[i].nodes = calloc(l.leaf[i].count, sizeof(char *));
		if (!l.leaf[i].nodes)
			goto nomem;
		if (l.leaf[i].count > l.largest)
			l.largest = l.leaf[i].count;
		l.leaf[i].count = 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct cli_leaf *f;

		lagom_switch_tree_node(tree, i, &node, &leaf);
		f = find_leaf(&l, leaf);
		f->nodes[f->count++] = node;
	}
	qsort(l.leaf, l.count, sizeof(*l.leaf), cmp_leaf);
	*out = l;
	return 0;
nomem:
	cli_leaves_fini(&l);
	return cli_fail(CLI_FAIL, "out of memory");
}

void cli_leaves_fini(struct cli_leaves *l)
{
	for (size_t i = 0; l->leaf && i < l->count; i++)
		free(l->leaf[i].nodes);
	free(l->leaf);
	*l = (struct cli_leaves){ 0 };
}

int cli_cluster_hw(const char *profile, bool trust, unsigned trusted_uid,
		   const char *const *nodes, size_t count,
		   unsigned gpus_per_node, struct lagom_hw *hw,
		   unsigned *gpus_out)
{
	struct lagom_planner_input in = { .enforce_trust = trust,
					  .trusted_uid = trusted_uid,
					  .node_names = nodes,
					  .node_count = count,
					  .ranks_per_node = 1,
					  .gpus_per_node = gpus_per_node };
	struct lagom_planner_result *res = NULL;
	struct lagom_error err = { 0 };
	struct stat st;

	if (stat(profile, &st) != 0)
		return cli_fail(CLI_USAGE, "--profile: %s: %s", profile,
				strerror(errno));
	if (S_ISDIR(st.st_mode))
		in.profile_dir = profile;
	else
		in.profile_path = profile;
	if (lagom_planner_run(&in, &res, &err) != 0)
		return cli_fail(CLI_FAIL, "profiles: %s", err.text);
	*hw = *res->hw;
	*gpus_out = res->gpus_per_node;
	lagom_planner_result_destroy(res);
	return 0;
}

bool cli_workload_is_file(const char *spec)
{
	return lagom_workload_is_file(spec);
}

int cli_workload_load(const char *spec, const struct lagom_hw *hw,
		      unsigned nodes, unsigned gpus,
		      struct lagom_workload **out)
{
	struct lagom_error err = { 0 };

	if (cli_workload_is_file(spec)) {
		if (lagom_workload_read_file(spec, out, &err) != 0)
			return cli_fail(CLI_FAIL, "workload %s: %s", spec,
					err.text);
		return 0;
	}
	if (lagom_workload_from_name(spec, hw, nodes, gpus, out, &err) != 0)
		return cli_fail(CLI_USAGE, "workload '%s': %s", spec, err.text);
	return 0;
}

unsigned cli_workload_nodes(const struct lagom_workload *w)
{
	unsigned nodes = 1;

	for (size_t r = 0; r < w->nregions; r++)
		for (size_t c = 0; c < w->regions[r].ncolls; c++)
			if (w->regions[r].colls[c].comm.nodes > nodes)
				nodes = w->regions[r].colls[c].comm.nodes;
	return nodes;
}
