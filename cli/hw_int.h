/*
 * cli/hw_int.h - hardware options shared by `lagom predict` and
 * `lagom profile synth`: --profile FILE, or --gpu MODEL with
 * --gpus-per-node, --intra and --nic (the built-in table).
 */
#ifndef LAGOM_CLI_CLI_HW_H
#define LAGOM_CLI_CLI_HW_H

#include "cli/cli.h"
#include "model/model.h"

/* getopt_long values of the shared options (above the ASCII range). */
enum cli_hw_opt {
	CLI_OPT_PROFILE = 0x100,
	CLI_OPT_GPU,
	CLI_OPT_GPUS_PER_NODE,
	CLI_OPT_INTRA,
	CLI_OPT_NIC,
};

#define CLI_HW_LONGOPTS                                              \
	{ "profile", required_argument, NULL, CLI_OPT_PROFILE },     \
		{ "gpu", required_argument, NULL, CLI_OPT_GPU },     \
		{ "gpus-per-node", required_argument, NULL,          \
		  CLI_OPT_GPUS_PER_NODE },                           \
		{ "intra", required_argument, NULL, CLI_OPT_INTRA }, \
	{                                                            \
		"nic", required_argument, NULL, CLI_OPT_NIC          \
	}

struct cli_hw_opts {
	const char *profile;
	const char *gpu;
	unsigned gpus_per_node; /* --gpu: GPUs per node (0 = 8); --profile:
				 * ranks per node (0 = all GPUs) */
	enum lagom_intra intra;
	bool intra_given;
	unsigned nic_count;
	double nic_Gbit;
	bool nic_given;
};

/* Handle one of the options above: 0, or CLI_USAGE after one line. */
int cli_hw_opt(struct cli_hw_opts *o, int c, const char *arg);

/* CLI_USAGE with one line when path does not exist. */
int cli_require_file(const char *opt, const char *path);

/* Fill *hw from the options: 0, CLI_USAGE or CLI_FAIL (line printed). */
int cli_hw_load(const struct cli_hw_opts *o, struct lagom_hw *hw);

#endif /* LAGOM_CLI_CLI_HW_H */
