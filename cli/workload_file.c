/*
 * cli/workload_file.c - read `lagom plan --workload FILE` with workload/'s
 * reader (see cli/workload_int.h).
 */
#include "config.h"

#include <errno.h>

#include "cli/cli.h"
#include "cli/workload_int.h"
#include "workload/workload.h"

int cli_workload_read(const char *path, const struct lagom_hw *hw,
		      unsigned nodes, unsigned gpus_per_node,
		      struct lagom_workload **out)
{
	struct lagom_error err = { 0 };

	int rc = lagom_workload_read_file(path, out, &err);

	if (rc == -ENOENT)
		return cli_fail(CLI_USAGE, "--workload: %s", err.text);
	if (rc != 0)
		return cli_fail(CLI_FAIL, "--workload: %s", err.text);
	return 0;
}
