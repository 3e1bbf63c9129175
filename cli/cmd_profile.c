/*
 * cli/cmd_profile.c - `lagom profile synth` (a node profile from the
 * built-in GPU table, what a site without measurements gets) and the
 * `lagom profile` dispatcher.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "model/model.h"
#include "profile/profile.h"

static const char synth_usage[] =
	"Usage: lagom profile synth --gpu MODEL --gpus-per-node G [OPTIONS]\n"
	"       lagom profile synth --list\n"
	"\n"
	"Write a node profile from lagom's built-in GPU table: what a node\n"
	"gets without measurements.  Rates are marked \"table\".\n"
	"\n"
	"Options:\n"
	"  --gpu MODEL          GPU model (see --list); vendor names work too\n"
	"  --gpus-per-node G    GPUs in the node (1-64)\n"
	"  --intra KIND         nvswitch, nvlink or pcie (default: the GPU's\n"
	"                       usual fabric)\n"
	"  --nic COUNTxGBITS    NICs and link speed, e.g. 4x400, or none\n"
	"                       (default 1x400)\n"
	"  --transport T        ib, roce, efa, tcpx or tcp (default: ib with\n"
	"                       NICs)\n"
	"  --nvl-domain NODES   nodes of one multi-node NVLink domain\n"
	"                       (GB200/GB300 NVL72: 18; needs NVSwitch)\n"
	"  --node NAME          Slurm node name (default: this host's name)\n"
	"  -o, --output PATH    a file, or a directory (writes PATH/NAME.json\n"
	"                       atomically); default: standard output\n"
	"  --list               list the built-in GPU table\n"
	"  --format text|json   output format of --list and of the report\n"
	"                       printed with -o (default text)\n"
	"  -h, --help           this help\n";

struct synth_opts {
	enum cli_format format;
	const char *gpu, *intra, *node, *output;
	unsigned gpus, nic_count, nvl_domain;
	double nic_Gbit;
	bool list;
	const char *transport;
};

static int synth_opt(void *ctx, int c, const char *arg)
{
	struct synth_opts *o = ctx;

	switch (c) {
	case 'g':
		o->gpu = arg;
		return 0;
	case 'G':
		return cli_parse_unsigned("--gpus-per-node", arg, 1, 64,
					  &o->gpus);
	case 'i':
		o->intra = arg;
		return 0;
	case 'n':
		return cli_parse_nic(arg, &o->nic_count, &o->nic_Gbit);
	case 'N':
		o->node = arg;
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case 'l':
		o->list = true;
		return 0;
	case 't':
		o->transport = arg;
		return 0;
	case 'D':
		return cli_parse_unsigned("--nvl-domain", arg, 1, 256,
					  &o->nvl_domain);
	default:
		return cli_parse_format(arg, &o->format);
	}
}

static int parse_synth(int argc, char **argv, struct synth_opts *o)
{
	static const struct option longopts[] = {
		{ "gpu", required_argument, NULL, 'g' },
		{ "gpus-per-node", required_argument, NULL, 'G' },
		{ "intra", required_argument, NULL, 'i' },
		{ "nic", required_argument, NULL, 'n' },
		{ "node", required_argument, NULL, 'N' },
		{ "output", required_argument, NULL, 'o' },
		{ "list", no_argument, NULL, 'l' },
		{ "transport", required_argument, NULL, 't' },
		{ "nvl-domain", required_argument, NULL, 'D' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt(argc, argv, "profile synth", "+ho:", longopts,
			    synth_usage, synth_opt, o);

	if (rc || (rc = cli_no_operand("profile synth", argc, argv)))
		return rc;
	if (!o->list && (!o->gpu || !o->gpus))
		return cli_fail(CLI_USAGE,
				"profile synth: --gpu and --gpus-per-node are "
				"required (try 'lagom profile synth --help')");
	return 0;
}

/* The node's hardware section and table rates from the model's view. */
static void fill_hw(struct lagom_profile *p, const struct lagom_hw *hw)
{
	struct lagom_profile_hw *h = &p->hw;

	snprintf(h->gpu_model, sizeof(h->gpu_model), "%s", hw->gpu.name);
	h->gpu_count = (int)hw->gpus_per_node;
	h->gpu_sm_count = (int)hw->gpu.sm_count;
	h->gpu_memory_bytes = hw->gpu.mem_bytes;
	h->intra = hw->gpus_per_node < 2 ? LAGOM_INTRA_NONE : hw->intra;
	if (h->intra == LAGOM_INTRA_NVLINK || h->intra == LAGOM_INTRA_NVSWITCH)
		h->nvlinks_per_gpu = (int)hw->intra_links;
	if (h->intra == LAGOM_INTRA_NVLINK)
		h->nvlink_peers = (int)hw->nvlink_peers;
	h->pcie_gen = (int)hw->pcie_gen;
	h->pcie_lanes = (int)hw->pcie_lanes;
	h->gpus_per_pcie_switch = (int)hw->gpus_per_pcie_switch;
	h->nic_count = (int)hw->nic_count;
	h->nic_rdma = hw->nic_gdr;
	h->gpus_per_nic = (int)hw->gpus_per_nic;
	h->nic_link_bw_Bps = hw->nic_Bps;
	h->nic_transport = hw->nic_count ? (int)hw->transport : 0;
	h->nvl_domain_nodes = (int)hw->nvl_domain_nodes;
}

static void fill_quantity(struct lagom_quantity *q, double value)
{
	if (value > 0) {
		q->value = value;
		q->source = LAGOM_SOURCE_TABLE;
	}
}

static void fill_profile(struct lagom_profile *p, const struct lagom_hw *hw)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	int i;

	snprintf(p->hostname, sizeof(p->hostname), "%s", p->node);
	fill_hw(p, hw);
	for (i = 0; i < LAGOM_PREC_COUNT; i++)
		fill_quantity(&p->meas.gemm_flops[i], hw->gpu.tflops[i] * 1e12);
	fill_quantity(&p->meas.hbm_bw_Bps, hw->gpu.hbm_Bps);
	if (hw->gpus_per_node > 1)
		fill_quantity(&p->meas.intra_bw_Bps,
			      hw->intra == LAGOM_INTRA_PCIE
				      ? hw->pcie_Bps
				      : hw->intra_link_Bps * hw->intra_links);
	fill_quantity(&p->meas.nic_bw_Bps, hw->nic_Bps);
	snprintf(p->prov.lagom_version, sizeof(p->prov.lagom_version), "%s",
		 PACKAGE_VERSION);
	p->prov.created_unix_s = epoch ? strtoll(epoch, NULL, 10)
				       : (int64_t)time(NULL);
	snprintf(p->prov.note, sizeof(p->prov.note),
		 "synthesized by lagom profile synth from the built-in GPU "
		 "table; nothing measured");
}

/* --transport and --nvl-domain. */
static int synth_rack(const struct synth_opts *o, struct lagom_hw *hw)
{
	struct lagom_error err = { 0 };

	if (o->transport) {
		if (lagom_transport_parse(o->transport, &hw->transport) ||
		    hw->transport == LAGOM_NET_DEFAULT)
			return cli_fail(CLI_USAGE,
					"--transport: expected ib, roce, efa, "
					"tcpx or tcp");
		if (hw->nic_count == 0)
			return cli_fail(CLI_USAGE,
					"--transport: the node has no NIC");
		hw->nic_gdr = hw->transport != LAGOM_NET_TCP;
	}
	if (o->nvl_domain > 1)
		hw->nvl_domain_nodes = o->nvl_domain;
	if (lagom_hw_check(hw, &err))
		return cli_fail(CLI_USAGE, "profile synth: %s", err.text);
	return 0;
}

/* The model's hardware for the options (the built-in table). */
static int synth_hw(const struct synth_opts *o, struct lagom_hw *hw)
{
	enum lagom_intra fabric = LAGOM_INTRA_DEFAULT;
	struct lagom_error err = { 0 };

	if (!lagom_gpu_lookup(o->gpu))
		return cli_fail(CLI_USAGE,
				"--gpu: unknown GPU model '%s' (see 'lagom "
				"profile synth --list')",
				o->gpu);
	if (o->intra && (lagom_intra_parse(o->intra, &fabric) != 0 ||
			 fabric >= LAGOM_INTRA_DEFAULT))
		return cli_fail(CLI_USAGE,
				"--intra: expected nvswitch, nvlink or pcie, "
				"got '%s'",
				o->intra);
	if (lagom_hw_from_spec(o->gpu, o->gpus, fabric, o->nic_count,
			       o->nic_Gbit, hw, &err))
		return cli_fail(CLI_USAGE, "profile synth: %s", err.text);
	return synth_rack(o, hw);
}

static int default_node(char *buf, size_t len)
{
	char *dot;

	if (gethostname(buf, len) != 0)
		return -1;
	buf[len - 1] = '\0';
	dot = strchr(buf, '.');
	if (dot)
		*dot = '\0';
	return lagom_profile_node_name_ok(buf) ? 0 : -1;
}

static int synth_output(const struct synth_opts *o,
			const struct lagom_profile *p, const char *text)
{
	struct lagom_error err = { 0 };
	struct stat st;
	char *path = NULL;
	int rc;

	if (!o->output || strcmp(o->output, "-") == 0)
		return fputs(text, stdout) == EOF
			       ? cli_fail(CLI_FAIL,
					  "cannot write to standard output")
			       : CLI_OK;
	if (stat(o->output, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (lagom_profile_write_atomic(o->output, p, &err))
			return cli_fail(CLI_FAIL, "%s", err.text);
		rc = asprintf(&path, "%s/%s.json", o->output, p->node);
	} else {
		if ((rc = cli_write_atomic(NULL, o->output, text, strlen(text),
					   0, NULL, NULL)))
			return rc;
		rc = asprintf(&path, "%s", o->output);
	}
	if (rc < 0)
		return cli_fail(CLI_FAIL, "out of memory");
	if (o->format == CLI_JSON) {
		json_t *doc = cli_json_doc("profile synth");

		json_object_set_new(doc, "path", json_string(path));
		json_object_set_new(doc, "profile",
				    lagom_profile_to_json(p, NULL));
		rc = cli_json_print(doc);
	} else {
		printf("wrote %s: node %s, %d x %s, %s, %d NIC%s\n", path,
		       p->node, p->hw.gpu_count, p->hw.gpu_model,
		       lagom_profile_intra_name(p->hw.intra), p->hw.nic_count,
		       p->hw.nic_count == 1 ? "" : "s");
		rc = CLI_OK;
	}
	free(path);
	return rc;
}

int cli_cmd_profile_synth(int argc, char **argv)
{
	struct synth_opts o = { .format = CLI_TEXT,
				.nic_count = 1,
				.nic_Gbit = 400 };
	struct lagom_error err = { 0 };
	struct lagom_profile *p;
	struct lagom_hw hw;
	char host[LAGOM_PROFILE_NAME_MAX + 2], *text = NULL;
	int rc = parse_synth(argc, argv, &o);

	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (o.list)
		return cli_synth_list(o.format);
	if ((rc = synth_hw(&o, &hw)))
		return rc;
	if (!o.node && default_node(host, sizeof(host)) != 0)
		return cli_fail(CLI_USAGE,
				"profile synth: this host's name "
				"cannot name a profile: give --node");
	p = lagom_profile_create(o.node ? o.node : host);
	if (!p)
		return cli_fail(CLI_USAGE,
				"--node: '%s' cannot name a profile (1-63 of "
				"A-Z a-z 0-9 . _ -, not starting with '.')",
				o.node ? o.node : host);
	fill_profile(p, &hw);
	if (lagom_profile_to_string(p, &text, &err))
		rc = cli_fail(CLI_FAIL, "profile synth: %s", err.text);
	else
		rc = synth_output(&o, p, text);
	free(text);
	lagom_profile_destroy(p);
	return rc;
}

int cli_cmd_profile(int argc, char **argv)
{
	if (argc < 2)
		return cli_fail(CLI_USAGE, "profile: give synth or check (try "
					   "'lagom profile --help')");
	if (strcmp(argv[1], "synth") == 0)
		return cli_cmd_profile_synth(argc - 1, argv + 1);
	if (strcmp(argv[1], "check") == 0)
		return cli_cmd_profile_check(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs("Usage: lagom profile synth [OPTIONS]\n"
		      "       lagom profile check [OPTIONS] FILE...\n"
		      "See 'lagom profile synth --help', 'lagom profile check "
		      "--help'.\n",
		      stdout);
		return CLI_OK;
	}
	return cli_fail(CLI_USAGE,
			"profile: unknown subcommand '%s' (synth or check)",
			argv[1]);
}
