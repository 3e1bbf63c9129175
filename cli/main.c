/*
 * cli/main.c - `lagom`: plan, predict, explain and check, with the same code
 * the SPANK plugin runs.  This file only dispatches to the subcommands.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char usage_text[] =
	"Usage: lagom COMMAND [OPTIONS]\n"
	"\n"
	"Commands:\n"
	"  workloads       list the built-in workload catalog\n"
	"  workload import a workload from PyTorch profiler traces\n"
	"  workload show   summarise a workload file or catalog name\n"
	"  predict         predicted time and bus bandwidth of one "
	"collective\n"
	"  plan            the plan (environment, choices, prediction) for "
	"a step\n"
	"  profile synth   write a node profile from the built-in GPU table\n"
	"  profile check   validate profiles with the plugin's reader and "
	"trust rules\n"
	"  topo            the topology lagom sees (live, hwloc XML or NCCL "
	"topo file)\n"
	"  policy          the placement policy file for job_submit.lua\n"
	"  place           where a job would run best now (Slurm's view)\n"
	"  runs            measured steps: predicted against measured\n"
	"  report          tuned against control: the measured gain\n"
	"  calibrate       fit the network constants to measured steps\n"
	"\n"
	"Every command takes --format text|json and --help.\n"
	"Exit status: 0 success, 1 runtime failure, 2 usage error.\n"
	"See lagom(1).\n";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "workloads", cli_cmd_workloads }, { "predict", cli_cmd_predict },
	{ "plan", cli_cmd_plan },	    { "profile", cli_cmd_profile },
	{ "topo", cli_cmd_topo },	    { "workload", cli_cmd_workload },
	{ "policy", cli_cmd_policy },	    { "place", cli_cmd_place },
	{ "runs", cli_cmd_runs },	    { "calibrate", cli_cmd_calibrate },
	{ "report", cli_cmd_report },
};

/*
 * A command that succeeded but whose output did not reach stdout (a full
 * disk, a closed pipe, `lagom profile synth > FILE` on a full file system)
 * has failed: exit 1 rather than leave a truncated file behind a 0.
 */
static int flushed(int status)
{
	if (status == CLI_OK && (fflush(stdout) != 0 || ferror(stdout)))
		return cli_fail(CLI_FAIL, "cannot write to standard output");
	return status;
}

static int dispatch(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return cli_fail(CLI_USAGE,
				"no command given (try 'lagom --help')");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		fputs(usage_text, stdout);
		return CLI_OK;
	}
	if (strcmp(argv[1], "--version") == 0 ||
	    strcmp(argv[1], "version") == 0) {
		printf("lagom %s\n", PACKAGE_VERSION);
		return CLI_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	return cli_fail(CLI_USAGE, "unknown command '%s' (try 'lagom --help')",
			argv[1]);
}

int main(int argc, char **argv)
{
	opterr = 0; /* our own one-line messages (cli_bad_option) */
	return flushed(dispatch(argc, argv));
}
