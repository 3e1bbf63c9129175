/*
 * cli/hw.c - where `lagom predict` gets its hardware: a profile file, or the
 * built-in GPU table (--gpu, as `lagom profile synth` would write it).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/hw_int.h"
#include "planner/planner.h"

int cli_parse_nic(const char *arg, unsigned *count, double *Gbit)
{
	unsigned long long n, g;
	const char *x = strchr(arg, 'x');
	char head[32];

	if (strcmp(arg, "none") == 0 || strcmp(arg, "0") == 0) {
		*count = 0;
		*Gbit = 0;
		return 0;
	}
	if (!x || (size_t)(x - arg) >= sizeof(head))
		return cli_fail(CLI_USAGE,
				"--nic: expected COUNTxGBITS (e.g. 4x400) or "
				"none, got '%s'",
				arg);
	memcpy(head, arg, (size_t)(x - arg));
	head[x - arg] = '\0';
	if (cli_parse_uint("--nic count", head, 1, 64, &n) ||
	    cli_parse_uint("--nic Gb/s", x + 1, 1, 100000, &g))
		return CLI_USAGE;
	*count = (unsigned)n;
	*Gbit = (double)g;
	return 0;
}

int cli_hw_opt(struct cli_hw_opts *o, int c, const char *arg)
{
	int rc;

	switch (c) {
	case CLI_OPT_PROFILE:
		o->profile = arg;
		return 0;
	case CLI_OPT_GPU:
		o->gpu = arg;
		return 0;
	case CLI_OPT_GPUS_PER_NODE:
		return cli_parse_unsigned("--gpus-per-node", arg, 1, 64,
					  &o->gpus_per_node);
	case CLI_OPT_INTRA:
		if (lagom_intra_parse(arg, &o->intra) != 0 ||
		    o->intra >= LAGOM_INTRA_DEFAULT)
			return cli_fail(CLI_USAGE,
					"--intra: expected nvswitch, nvlink or "
					"pcie, got '%s'",
					arg);
		o->intra_given = true;
		return 0;
	case CLI_OPT_NIC:
		if ((rc = cli_parse_nic(arg, &o->nic_count, &o->nic_Gbit)))
			return rc;
		o->nic_given = true;
		return 0;
	}
	return CLI_USAGE;
}

/* A usage error (exit 2) when a named file does not exist. */
int cli_require_file(const char *opt, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return cli_fail(CLI_USAGE, "%s: %s: %s", opt, path,
				strerror(errno));
	return 0;
}

int cli_hw_load(const struct cli_hw_opts *o, struct lagom_hw *hw)
{
	struct lagom_error err = { 0 };
	int rc;

	if (o->profile && o->gpu)
		return cli_fail(CLI_USAGE, "give --profile or --gpu, not both");
	if (o->profile) {
		if ((rc = cli_require_file("--profile", o->profile)))
			return rc;
		rc = lagom_planner_profile_hw(o->profile, false, 0, hw, &err);
		if (rc)
			return cli_fail(CLI_FAIL, "%s: %s", o->profile,
					err.text);
		if (o->gpus_per_node > hw->gpus_per_node)
			return cli_fail(CLI_USAGE,
					"--gpus-per-node %u: the profile lists "
					"%u GPUs",
					o->gpus_per_node, hw->gpus_per_node);
		return 0;
	}
	if (!o->gpu)
		return cli_fail(CLI_USAGE,
				"no hardware: give --profile FILE or --gpu "
				"MODEL (see 'lagom profile synth --help')");
	if (!lagom_gpu_lookup(o->gpu))
		return cli_fail(CLI_USAGE,
				"--gpu: unknown GPU model '%s' (see 'lagom "
				"profile synth --list')",
				o->gpu);
	rc = lagom_hw_from_spec(o->gpu, o->gpus_per_node ? o->gpus_per_node : 8,
				o->intra_given ? o->intra : LAGOM_INTRA_DEFAULT,
				o->nic_given ? o->nic_count : 1,
				o->nic_given ? o->nic_Gbit : 400, hw, &err);
	if (rc)
		return cli_fail(CLI_USAGE, "%s", err.text);
	return 0;
}
