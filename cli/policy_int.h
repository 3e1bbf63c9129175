/*
 * cli/policy_int.h - what `lagom policy` and `lagom place` share: the
 * cluster's hardware from its profiles, the leaves of a switch tree, and the
 * placement cost of one workload (policy/policy.h does the arithmetic).
 */
#ifndef LAGOM_CLI_CLI_POLICY_H
#define LAGOM_CLI_CLI_POLICY_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "catalog/catalog.h"
#include "model/model.h"
#include "policy/policy.h"
#include "placement/placement.h"

/* A leaf switch and its nodes (names borrowed from the tree). */
struct cli_leaf {
	const char *name;
	const char **nodes;
	size_t count;
};

struct cli_leaves {
	struct cli_leaf *leaf; /* sorted by name */
	size_t count;
	size_t largest; /* nodes of the largest leaf */
};

/* Group the tree's nodes by leaf switch: 0 or CLI_FAIL after one line. */
int cli_leaves_build(const struct lagom_switch_tree *tree,
		     struct cli_leaves *out);
void cli_leaves_fini(struct cli_leaves *l);

/*
 * The hardware lagom plans for on these nodes: the planner's weakest-node
 * view of their profiles in DIR (trust rules unless !trust), or of the one
 * profile FILE.  gpus_per_node 0: the profile's.  *gpus_out: GPUs per node
 * planned.  0 or CLI_USAGE / CLI_FAIL after one line.
 */
int cli_cluster_hw(const char *profile, bool trust, unsigned trusted_uid,
		   const char *const *nodes, size_t count,
		   unsigned gpus_per_node, struct lagom_hw *hw,
		   unsigned *gpus_out);

/* A workload spec names a file by workload/'s one rule
 * (lagom_workload_is_file: a '/' or a ".json" suffix), else the catalog. */
bool cli_workload_is_file(const char *spec);

/*
 * The workload of spec on nodes x gpus ranks: the catalog's entry built for
 * that shape, or the JSON file read with the caller's rights (its own
 * shape).  0 with *out new, or CLI_USAGE / CLI_FAIL after one line.
 */
int cli_workload_load(const char *spec, const struct lagom_hw *hw,
		      unsigned nodes, unsigned gpus,
		      struct lagom_workload **out);

/* Nodes the communicator of a file workload spans (its largest comm). */
unsigned cli_workload_nodes(const struct lagom_workload *w);

/*
 * The options `lagom policy` and `lagom place` share: --profile,
 * --gpus-per-node, --run-length, --max-wait, --min-loss, --spine-taper,
 * --no-trust, --trusted-uid, --format (and --help).
 */
struct cli_policy_common {
	const char *profile;
	unsigned gpus_per_node;
	unsigned long long trusted_uid;
	bool trust;
	struct lagom_policy_params params;
	enum cli_format format;
};

/* getopt_long values: the shared options, then each command's own from
 * CLI_POLICY_OPT_OWN on. */
enum {
	CLI_POLICY_OPT_PROFILE = 0x300,
	CLI_POLICY_OPT_GPUS,
	CLI_POLICY_OPT_RUN,
	CLI_POLICY_OPT_WAIT,
	CLI_POLICY_OPT_LOSS,
	CLI_POLICY_OPT_TAPER,
	CLI_POLICY_OPT_NOTRUST,
	CLI_POLICY_OPT_UID,
	CLI_POLICY_OPT_FORMAT,
	CLI_POLICY_OPT_OWN,
};

/* The shared options' defaults (doc/scheduler.md). */
void cli_policy_common_init(struct cli_policy_common *c);

/*
 * Parse argv of subcommand cmd: the shared options into *c, the command's
 * own (own_opts: at most CLI_POLICY_OWN_MAX, values from CLI_POLICY_OPT_OWN
 * on, ended by a zero entry) through own(ctx, value, optarg).  No operands.
 * 0, -1 after printing usage for --help, or CLI_USAGE / own's status after
 * one line.
 */
#define CLI_POLICY_OWN_MAX 8
int cli_policy_parse(int argc, char **argv, const char *cmd, const char *usage,
		     const struct option *own_opts, struct cli_policy_common *c,
		     int (*own)(void *ctx, int value, const char *arg),
		     void *ctx);

#define POLICY_MAX_SPECS 1000
#define POLICY_MAX_COUNTS 256

struct policy_opts {
	struct cli_policy_common c;
	const char *topology_conf, *workloads_file, *output;
	const char *specs[POLICY_MAX_SPECS];
	size_t nspecs;
	unsigned counts[POLICY_MAX_COUNTS];
	size_t ncounts;
	char *list_text; /* owned: --workloads FILE's contents */
};

/* Compute and write the policy (cli/policy_run.c). */
int cli_policy_run(struct policy_opts *o);

/* Defaults (doc/scheduler.md). */
#define CLI_POLICY_RUN_S 86400.0
#define CLI_POLICY_MIN_LOSS 0.02
#define CLI_POLICY_SPINE_TAPER 1.0

#endif /* LAGOM_CLI_CLI_POLICY_H */
