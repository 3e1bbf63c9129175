/*
 * cli/policy_run.c - `lagom policy`'s work: entries from the workloads,
 * node counts and the cluster's hardware, the policy text
 * (doc/policy-format.md), its atomic write and the summary.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/policy_int.h"

struct entry {
	const char *spec;
	unsigned nodes;
	struct lagom_placement_cost cost;
	struct lagom_policy_decision d;
};

struct run {
	struct policy_opts *o;
	enum lagom_topo_kind kind;
	struct lagom_hw hw;
	unsigned gpus;
	size_t leaf_nodes;
	struct entry *e;
	size_t n, cap;
	struct lagom_text text; /* the policy file */
};

/* Up to 64 counts: every one from 2 to the largest leaf, then powers of
 * two, then the largest leaf itself. */
static void default_counts(struct policy_opts *o, size_t largest)
{
	unsigned v;

	o->ncounts = 0;
	for (v = 2; v <= largest && v <= 16; v++)
		o->counts[o->ncounts++] = v;
	for (v = 32; v <= largest && o->ncounts < 63; v *= 2)
		o->counts[o->ncounts++] = v;
	if (largest > 16 && o->counts[o->ncounts - 1] != largest)
		o->counts[o->ncounts++] = (unsigned)largest;
}

static int add_entry(struct run *r, const char *spec, unsigned nodes,
		     const struct lagom_placement_cost *cost)
{
	struct entry *e;

	if (r->n == LAGOM_POLICY_MAX_ENTRIES)
		return cli_fail(CLI_USAGE, "more than %d policy entries",
				LAGOM_POLICY_MAX_ENTRIES);
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct entry *ne = realloc(r->e, cap * sizeof(*ne));

		if (!ne)
			return cli_fail(CLI_FAIL, "out of memory");
		r->e = ne;
		r->cap = cap;
	}
	e = &r->e[r->n++];
	e->spec = spec;
	e->nodes = nodes;
	e->cost = *cost;
	lagom_policy_decide(&r->o->c.params, nodes, (unsigned)r->leaf_nodes,
			    cost, 0, &e->d);
	return 0;
}

static int cost_of(struct run *r, const char *spec,
		   const struct lagom_workload *w, unsigned nodes)
{
	struct lagom_placement_cost cost;
	struct lagom_error err = { 0 };

	if (lagom_placement_cost(&r->hw, w, nodes, r->gpus,
				 r->o->c.params.spine_taper, &cost, &err) != 0)
		return cli_fail(CLI_FAIL, "workload '%s' on %u nodes: %s", spec,
				nodes, err.text);
	return add_entry(r, spec, nodes, &cost);
}

/* A workload file has its own shape: one entry, at its node count. */
static int file_entries(struct run *r, const char *spec)
{
	struct lagom_workload *w = NULL;
	unsigned nodes;
	int rc = cli_workload_load(spec, &r->hw, 0, r->gpus, &w);

	if (rc)
		return rc;
	nodes = cli_workload_nodes(w);
	if (nodes < 2 || nodes > r->leaf_nodes)
		fprintf(stderr,
			"lagom: note: %s spans %u node%s: no entry (a leaf "
			"holds at most %zu)\n",
			spec, nodes, nodes == 1 ? "" : "s", r->leaf_nodes);
	else
		rc = cost_of(r, spec, w, nodes);
	lagom_workload_destroy(w);
	return rc;
}

/* A catalog name at every count it can be built for (tp8 needs 8 GPUs per
 * node, ...); an error only when it fits none. */
static int catalog_entries(struct run *r, const char *spec)
{
	struct lagom_error err = { 0 };
	size_t built = 0, tried = 0;

	for (size_t i = 0; i < r->o->ncounts; i++) {
		struct lagom_workload *w = NULL;
		unsigned nodes = r->o->counts[i];
		int rc;

		if (nodes > r->leaf_nodes)
			continue;
		tried++;
		if (lagom_workload_from_name(spec, &r->hw, nodes, r->gpus, &w,
					     &err) != 0)
			continue;
		rc = cost_of(r, spec, w, nodes);
		lagom_workload_destroy(w);
		if (rc)
			return rc;
		built++;
	}
	if (tried && !built)
		return cli_fail(CLI_USAGE, "workload '%s': %s", spec, err.text);
	return 0;
}

/* The policy file (doc/policy-format.md): nothing varies but the inputs. */
static int format_policy(struct run *r)
{
	const struct lagom_policy_params *p = &r->o->c.params;
	int rc;

	rc = lagom_text_addf(
		&r->text,
		"lagom-policy %d\n"
		"# Written by `lagom policy` (doc/policy-format.md); "
		"read by contrib/slurm/lagom_submit.lua.\n"
		"generator lagom-%s\n"
		"gpu %s\ngpus_per_node %u\nleaf_nodes %zu\n"
		"topology %s\nrun_s %.0f\nmax_wait_s %.0f\n"
		"min_loss %.4f\nspine_taper %.3f\n"
		"# entry WORKLOAD NODES SWITCHES WAIT_S LOSS LEAF_S "
		"SPREAD_S REASON\n",
		LAGOM_POLICY_FORMAT_VERSION, PACKAGE_VERSION, r->hw.gpu.name,
		r->gpus, r->leaf_nodes,
		r->kind == LAGOM_TOPO_BLOCK ? "block" : "tree", p->run_s,
		p->max_wait_s, p->min_loss, p->spine_taper);
	for (size_t i = 0; rc == 0 && i < r->n; i++) {
		const struct entry *e = &r->e[i];

		rc = lagom_text_addf(
			&r->text, "entry %s %u %u %u %.6f %.6g %.6g %s\n",
			e->spec, e->nodes, e->d.switches, e->d.wait_s,
			e->cost.loss, e->cost.leaf_s, e->cost.spread_s,
			lagom_policy_reason_name(e->d.reason));
	}
	if (rc == 0)
		rc = lagom_text_addf(&r->text, "end %zu\n", r->n);
	if (rc)
		return cli_fail(CLI_FAIL, "out of memory");
	if (r->text.len > LAGOM_POLICY_MAX_BYTES)
		return cli_fail(CLI_USAGE,
				"the policy would be %zu bytes, over the %u "
				"its reader accepts: fewer workloads or node "
				"counts",
				r->text.len, LAGOM_POLICY_MAX_BYTES);
	return 0;
}

static int summary_json(const struct run *r)
{
	const struct lagom_policy_params *p = &r->o->c.params;
	json_t *doc = cli_json_doc("policy"), *arr = json_array();

	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		json_array_append_new(
			arr,
			json_pack("{s:s, s:i, s:i, s:i, s:f, s:f, s:f, s:s}",
				  "workload", e->spec, "nodes", (int)e->nodes,
				  "switches", (int)e->d.switches, "wait_s",
				  (int)e->d.wait_s, "loss", e->cost.loss,
				  "leaf_s", e->cost.leaf_s, "spread_s",
				  e->cost.spread_s, "reason",
				  lagom_policy_reason_name(e->d.reason)));
	}
	json_object_set_new(
		doc, "params",
		json_pack("{s:f, s:f, s:f, s:f, s:i, s:i, s:s}", "run_s",
			  p->run_s, "max_wait_s", p->max_wait_s, "min_loss",
			  p->min_loss, "spine_taper", p->spine_taper,
			  "leaf_nodes", (int)r->leaf_nodes, "gpus_per_node",
			  (int)r->gpus, "gpu", r->hw.gpu.name));
	json_object_set_new(doc, "entries", arr);
	if (r->o->output)
		json_object_set_new(doc, "output", json_string(r->o->output));
	return cli_json_print(doc);
}

static int summary_text(const struct run *r)
{
	static const char *const hdr[] = { "WORKLOAD", "NODES", "LEAF",
					   "SPREAD",   "LOSS",	"DECISION" };
	static const bool right[] = { 0, 1, 1, 1, 1, 0 };
	struct cli_table *t = cli_table_create(6, hdr, right);
	char dec[64];

	if (!t)
		return cli_fail(CLI_FAIL, "out of memory");
	printf("policy for %s x%u, largest leaf %zu nodes, run %.0f s, "
	       "spine taper %.2f -> %s\n",
	       r->hw.gpu.name, r->gpus, r->leaf_nodes, r->o->c.params.run_s,
	       r->o->c.params.spine_taper, r->o->output);
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		if (e->d.switches)
			snprintf(dec, sizeof(dec), "--switches=1@%u",
				 e->d.wait_s);
		else
			snprintf(dec, sizeof(dec), "%s",
				 lagom_policy_reason_name(e->d.reason));
		cli_table_addf(t, "%s\t%u\t%.1f ms\t%.1f ms\t%.2f%%\t%s",
			       e->spec, e->nodes, e->cost.leaf_s * 1e3,
			       e->cost.spread_s * 1e3, e->cost.loss * 100, dec);
	}
	cli_table_print(t, stdout, "  ");
	cli_table_destroy(t);
	return CLI_OK;
}

static int compute(struct run *r, struct lagom_switch_tree *tree)
{
	struct policy_opts *o = r->o;
	struct cli_leaves leaves = { 0 };
	const char **names = NULL;
	size_t n = lagom_switch_tree_nodes(tree);
	int rc;

	if ((rc = cli_leaves_build(tree, &leaves)))
		return rc;
	r->leaf_nodes = leaves.largest;
	if (!o->ncounts)
		default_counts(o, leaves.largest);
	names = calloc(n ? n : 1, sizeof(*names));
	if (!names) {
		cli_leaves_fini(&leaves);
		return cli_fail(CLI_FAIL, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		lagom_switch_tree_node(tree, i, &names[i], NULL);
	rc = cli_cluster_hw(o->c.profile, o->c.trust,
			    (unsigned)o->c.trusted_uid, names, n,
			    o->c.gpus_per_node, &r->hw, &r->gpus);
	for (size_t i = 0; rc == 0 && i < o->nspecs; i++)
		rc = cli_workload_is_file(o->specs[i])
			     ? file_entries(r, o->specs[i])
			     : catalog_entries(r, o->specs[i]);
	free(names);
	cli_leaves_fini(&leaves);
	return rc;
}

/*
 * topology.conf of topology/tree (SwitchName= lines), or of topology/block
 * (BlockName= lines, BlockSizes=): each block is read as a leaf.
 */
static struct lagom_switch_tree *load_topology(const char *path,
					       enum lagom_topo_kind *kind,
					       struct lagom_error *err)
{
	struct lagom_switch_tree *tree;
	char *text, *conf = NULL;
	size_t len;
	FILE *f = fopen(path, "r");

	*kind = LAGOM_TOPO_TREE;
	if (!f) {
		lagom_errprintf(err, errno, "%s", strerror(errno));
		return NULL;
	}
	text = malloc(LAGOM_SWITCH_CONF_MAX_BYTES + 1);
	len = text ? fread(text, 1, LAGOM_SWITCH_CONF_MAX_BYTES + 1, f) : 0;
	fclose(f);
	if (!text || len > LAGOM_SWITCH_CONF_MAX_BYTES) {
		free(text);
		lagom_errprintf(err, text ? E2BIG : ENOMEM,
				text ? "larger than 16 MiB" : "out of memory");
		return NULL;
	}
	text[len] = '\0';
	if (strstr(text, "BlockName=") &&
	    lagom_topo_print_to_conf(text, &conf, kind) != 0) {
		free(text);
		lagom_errprintf(err, EINVAL,
				"BlockName= and SwitchName= lines mixed");
		return NULL;
	}
	tree = conf ? lagom_switch_tree_parse(conf, strlen(conf), err)
		    : lagom_switch_tree_parse(text, len, err);
	free(conf);
	free(text);
	return tree;
}

int cli_policy_run(struct policy_opts *o)
{
	struct run r = { .o = o };
	struct lagom_error err = { 0 };
	struct lagom_switch_tree *tree;
	int rc;

	if (lagom_policy_params_check(&o->c.params, &err))
		return cli_fail(CLI_USAGE, "policy: %s", err.text);
	tree = load_topology(o->topology_conf, &r.kind, &err);
	if (!tree)
		return cli_fail(err.errnum == ENOENT ? CLI_USAGE : CLI_FAIL,
				"--topology-conf %s: %s", o->topology_conf,
				err.text);
	rc = compute(&r, tree);
	lagom_switch_tree_destroy(tree);
	if (rc == 0)
		rc = format_policy(&r);
	if (rc == 0 && !o->output)
		rc = fwrite(r.text.p, 1, r.text.len, stdout) == r.text.len
			     ? CLI_OK
			     : CLI_FAIL;
	else if (rc == 0)
		/* Readers see the old policy or the new one, mode 0644. */
		rc = cli_write_atomic("--output", o->output, r.text.p,
				      r.text.len, 0644, NULL, NULL);
	if (rc == 0 && o->output)
		rc = o->c.format == CLI_JSON ? summary_json(&r)
					     : summary_text(&r);
	free(r.e);
	free(r.text.p);
	return rc;
}
