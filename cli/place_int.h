/*
 * cli/place_int.h - `lagom place`: the cluster's state from Slurm's API
 * (cli/place_slurm.c, the only file that calls Slurm) as plain data.
 */
#ifndef LAGOM_CLI_CLI_PLACE_H
#define LAGOM_CLI_CLI_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "policy/policy.h"

struct cli_place_node {
	char *name;
	bool usable; /* up, not drained or failing */
	bool idle;   /* usable and free of any job now */
};

struct cli_place_view {
	char *partition;  /* its name (the default one when none was given) */
	char *part_nodes; /* its Nodes= hostlist */
	struct cli_place_node *nodes; /* every node Slurm knows */
	size_t count;
	char *topo_text; /* the switch tree as topology.conf lines */
	enum lagom_topo_kind topo_kind;
};

/* Load the view (partition NULL: the default one): 0, or CLI_USAGE /
 * CLI_FAIL after one line. */
int cli_place_view_load(const char *partition, struct cli_place_view *v);
void cli_place_view_fini(struct cli_place_view *v);

#endif /* LAGOM_CLI_CLI_PLACE_H */
