/*
 * cli/policy_common.c - leaves of the switch tree, the cluster's hardware
 * and workloads for `lagom policy` and `lagom place` (cli/policy_int.h).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/policy_int.h"
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

void cli_policy_common_init(struct cli_policy_common *c)
{
	*c = (struct cli_policy_common){
		.trust = true,
		.format = CLI_TEXT,
		.params = { .run_s = CLI_POLICY_RUN_S,
			    .max_wait_s = LAGOM_POLICY_SLURM_MAX_SWITCH_WAIT_S,
			    .min_loss = CLI_POLICY_MIN_LOSS,
			    .spine_taper = CLI_POLICY_SPINE_TAPER },
	};
}

static int parse_double(const char *opt, const char *arg, double min,
			double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= min && v <= max))
		return cli_fail(CLI_USAGE,
				"%s: expected a number in %g..%g, got '%.64s'",
				opt, min, max, arg);
	*out = v;
	return 0;
}

static int common_opt(struct cli_policy_common *c, int value, const char *arg)
{
	switch (value) {
	case CLI_POLICY_OPT_PROFILE:
		c->profile = arg;
		return 0;
	case CLI_POLICY_OPT_GPUS:
		return cli_parse_unsigned("--gpus-per-node", arg, 1, 64,
					  &c->gpus_per_node);
	case CLI_POLICY_OPT_RUN:
		return parse_double("--run-length", arg, 1, 1e9,
				    &c->params.run_s);
	case CLI_POLICY_OPT_WAIT:
		return parse_double("--max-wait", arg, 0, 1e9,
				    &c->params.max_wait_s);
	case CLI_POLICY_OPT_LOSS:
		return parse_double("--min-loss", arg, 0, 9.99,
				    &c->params.min_loss);
	case CLI_POLICY_OPT_TAPER:
		return parse_double("--spine-taper", arg, 1, 64,
				    &c->params.spine_taper);
	case CLI_POLICY_OPT_NOTRUST:
		c->trust = false;
		return 0;
	case CLI_POLICY_OPT_UID:
		return cli_parse_uint("--trusted-uid", arg, 0, UINT32_MAX - 1,
				      &c->trusted_uid);
	default:
		return cli_parse_format(arg, &c->format);
	}
}

static const struct option common_opts[] = {
	{ "profile", required_argument, NULL, CLI_POLICY_OPT_PROFILE },
	{ "gpus-per-node", required_argument, NULL, CLI_POLICY_OPT_GPUS },
	{ "run-length", required_argument, NULL, CLI_POLICY_OPT_RUN },
	{ "max-wait", required_argument, NULL, CLI_POLICY_OPT_WAIT },
	{ "min-loss", required_argument, NULL, CLI_POLICY_OPT_LOSS },
	{ "spine-taper", required_argument, NULL, CLI_POLICY_OPT_TAPER },
	{ "no-trust", no_argument, NULL, CLI_POLICY_OPT_NOTRUST },
	{ "trusted-uid", required_argument, NULL, CLI_POLICY_OPT_UID },
	{ "format", required_argument, NULL, CLI_POLICY_OPT_FORMAT },
	{ "help", no_argument, NULL, 'h' },
};

#define NCOMMON (sizeof(common_opts) / sizeof(common_opts[0]))

struct policy_parse {
	struct cli_policy_common *c;
	int (*own)(void *ctx, int value, const char *arg);
	void *ctx;
};

static int policy_opt(void *ctx, int value, const char *arg)
{
	struct policy_parse *p = ctx;

	if (value >= CLI_POLICY_OPT_OWN)
		return p->own(p->ctx, value, arg);
	return common_opt(p->c, value, arg);
}

int cli_policy_parse(int argc, char **argv, const char *cmd, const char *usage,
		     const struct option *own_opts, struct cli_policy_common *c,
		     int (*own)(void *ctx, int value, const char *arg),
		     void *ctx)
{
	struct option longopts[CLI_POLICY_OWN_MAX + NCOMMON + 1] = { { 0 } };
	struct policy_parse p = { .c = c, .own = own, .ctx = ctx };
	size_t n = 0;
	int rc;

	while (n < CLI_POLICY_OWN_MAX && own_opts[n].name) {
		longopts[n] = own_opts[n];
		n++;
	}
	memcpy(longopts + n, common_opts, sizeof(common_opts));
	rc = cli_getopt(argc, argv, cmd, "+h", longopts, usage, policy_opt, &p);
	return rc ? rc : cli_no_operand(cmd, argc, argv);
}
