/*
 * cli/workload_int.h - `lagom plan --workload FILE`: read a JSON workload
 * file with workload/'s reader (as the plugin does, with the caller's
 * privileges).
 */
#ifndef LAGOM_CLI_CLI_WORKLOAD_H
#define LAGOM_CLI_CLI_WORKLOAD_H

#include "model/model.h"

/* 0 with *out new (caller destroys), or CLI_USAGE / CLI_FAIL after one
 * line on stderr. */
int cli_workload_read(const char *path, const struct lagom_hw *hw,
		      unsigned nodes, unsigned gpus_per_node,
		      struct lagom_workload **out);

#endif /* LAGOM_CLI_CLI_WORKLOAD_H */
