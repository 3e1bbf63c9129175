/*
 * cli/cmd_policy.c - `lagom policy`: for each workload and node count, the
 * predicted iteration time inside one leaf against spread over the spine,
 * and the policy file (doc/policy-format.md) that contrib/slurm's
 * job_submit.lua module reads.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/policy_int.h"

static const char policy_usage[] =
	"Usage: lagom policy --profile FILE|DIR --topology-conf PATH\n"
	"                    [--output FILE] [OPTIONS]\n"
	"\n"
	"Predict, for each workload and node count, the iteration time inside\n"
	"one leaf switch and spread over the spine, and write the policy file\n"
	"the job_submit.lua module reads (doc/policy-format.md).\n"
	"\n"
	"Options:\n"
	"  --profile FILE|DIR    one profile for every node, or the profile\n"
	"                        directory (the weakest node is planned for)\n"
	"  --topology-conf PATH  Slurm topology.conf (topology/tree)\n"
	"  --workload NAME|FILE  a workload to include (repeatable)\n"
	"  --workloads FILE      the admin's list: one catalog name or\n"
	"                        absolute workload file path per line\n"
	"                        (default without either: the catalog's "
	"examples)\n"
	"  --nodes LIST          node counts, e.g. 2,4,8 (default: 2 up to\n"
	"                        the largest leaf, at most 64 counts)\n"
	"  --gpus-per-node G     GPUs per node (default: the profiles')\n"
	"  --run-length SECONDS  a typical run (default 86400)\n"
	"  --max-wait SECONDS    longest wait to ask for (default 300, "
	"Slurm's\n"
	"                        max_switch_wait)\n"
	"  --min-loss FRACTION   leave jobs losing less alone (default 0.02)\n"
	"  --spine-taper R       NIC share 1/R across the spine (default 1)\n"
	"  --no-trust            with DIR: skip the ownership checks\n"
	"  --trusted-uid UID     with DIR: owner trusted besides root\n"
	"  --output FILE         write the policy atomically (default: stdout)\n"
	"  --format text|json    what goes to stdout besides (default text)\n"
	"  -h, --help            this help\n";

enum {
	OPT_TOPO = CLI_POLICY_OPT_OWN,
	OPT_WORKLOAD,
	OPT_WORKLOADS,
	OPT_NODES,
	OPT_OUTPUT,
};

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

static int parse_counts(struct policy_opts *o, const char *arg)
{
	const char *p = arg;

	o->ncounts = 0;
	while (*p) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || v < 2 ||
		    v > LAGOM_POLICY_MAX_NODES ||
		    o->ncounts == POLICY_MAX_COUNTS)
			return cli_fail(CLI_USAGE,
					"--nodes: expected up to %d counts in "
					"2..%d separated by ',', got '%.64s'",
					POLICY_MAX_COUNTS,
					LAGOM_POLICY_MAX_NODES, arg);
		o->counts[o->ncounts++] = (unsigned)v;
		p = *end ? end + 1 : end;
	}
	qsort(o->counts, o->ncounts, sizeof(*o->counts), cmp_uint);
	for (size_t i = 1; i < o->ncounts; i++)
		if (o->counts[i] == o->counts[i - 1])
			return cli_fail(CLI_USAGE, "--nodes: %u given twice",
					o->counts[i]);
	return o->ncounts ? 0 : cli_fail(CLI_USAGE, "--nodes: no node count");
}

static int add_spec(struct policy_opts *o, const char *spec)
{
	size_t n = strlen(spec);

	if (n == 0 || n >= LAGOM_POLICY_NAME_MAX)
		return cli_fail(CLI_USAGE,
				"workload: names are 1..%d characters",
				LAGOM_POLICY_NAME_MAX - 1);
	for (size_t i = 0; i < n; i++)
		if (!(spec[i] > ' ' && spec[i] < 0x7f))
			return cli_fail(CLI_USAGE,
					"workload '%.64s': only printable "
					"characters without spaces",
					spec);
	if (o->nspecs == POLICY_MAX_SPECS)
		return cli_fail(CLI_USAGE, "more than %d workloads",
				POLICY_MAX_SPECS);
	o->specs[o->nspecs++] = spec;
	return 0;
}

/* --workloads FILE: one catalog name or workload file path per line, '#'
 * comments; read with the caller's rights, at most 1 MiB. */
static int read_list(struct policy_opts *o)
{
	FILE *f = fopen(o->workloads_file, "r");
	size_t len;
	char *p, *line;
	int rc = 0;

	if (!f)
		return cli_fail(CLI_USAGE, "--workloads %s: %s",
				o->workloads_file, strerror(errno));
	o->list_text = malloc(LAGOM_POLICY_MAX_BYTES + 1);
	if (!o->list_text) {
		fclose(f);
		return cli_fail(CLI_FAIL, "out of memory");
	}
	len = fread(o->list_text, 1, LAGOM_POLICY_MAX_BYTES + 1, f);
	rc = ferror(f);
	fclose(f);
	if (rc || len > LAGOM_POLICY_MAX_BYTES)
		return cli_fail(CLI_FAIL, "--workloads %s: %s",
				o->workloads_file,
				rc ? "read error" : "larger than 1 MiB");
	o->list_text[len] = '\0';
	for (p = o->list_text; rc == 0 && p && *p; p = line) {
		char *end;

		line = strchr(p, '\n');
		if (line)
			*line++ = '\0';
		if ((end = strchr(p, '#')))
			*end = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		end = p + strlen(p);
		while (end > p &&
		       (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		if (*p)
			rc = add_spec(o, p);
	}
	return rc;
}

/* The workloads: given ones, the list's, else the catalog's examples;
 * each once. */
static int collect_specs(struct policy_opts *o)
{
	int rc = o->workloads_file ? read_list(o) : 0;

	if (rc == 0 && o->nspecs == 0) {
		size_t n;
		const char *const *ex = lagom_workload_examples(&n);

		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = add_spec(o, ex[i]);
	}
	for (size_t i = 0; rc == 0 && i < o->nspecs; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(o->specs[i], o->specs[j]) == 0)
				return cli_fail(CLI_USAGE,
						"workload '%s' given twice",
						o->specs[i]);
	return rc;
}

static int policy_opt(void *ctx, int value, const char *arg)
{
	struct policy_opts *o = ctx;

	switch (value) {
	case OPT_TOPO:
		o->topology_conf = arg;
		return 0;
	case OPT_WORKLOAD:
		return add_spec(o, arg);
	case OPT_WORKLOADS:
		o->workloads_file = arg;
		return 0;
	case OPT_NODES:
		return parse_counts(o, arg);
	default:
		o->output = arg;
		return 0;
	}
}

static int parse_policy(int argc, char **argv, struct policy_opts *o)
{
	static const struct option own_opts[] = {
		{ "topology-conf", required_argument, NULL, OPT_TOPO },
		{ "workload", required_argument, NULL, OPT_WORKLOAD },
		{ "workloads", required_argument, NULL, OPT_WORKLOADS },
		{ "nodes", required_argument, NULL, OPT_NODES },
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_policy_parse(argc, argv, "policy", policy_usage, own_opts,
				  &o->c, policy_opt, o);

	if (rc)
		return rc;
	if (!o->c.profile || !o->topology_conf)
		return cli_fail(CLI_USAGE,
				"policy: --profile and --topology-conf are "
				"required (try 'lagom policy --help')");
	return 0;
}

int cli_cmd_policy(int argc, char **argv)
{
	struct policy_opts *o = calloc(1, sizeof(*o));
	int rc;

	if (!o)
		return cli_fail(CLI_FAIL, "out of memory");
	cli_policy_common_init(&o->c);
	rc = parse_policy(argc, argv, o);
	if (rc == 0)
		rc = collect_specs(o);
	if (rc == 0)
		rc = cli_policy_run(o);
	free(o->list_text);
	free(o);
	return rc < 0 ? CLI_OK : rc;
}
