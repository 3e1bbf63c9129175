/*
 * cli/cmd_topo.c - `lagom topo`: what topology/ sees on this node (hwloc,
 * live) or in an hwloc XML export or an NCCL topology file.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "topology/topology.h"

static const char topo_usage[] =
	"Usage: lagom topo [--xml FILE | --nccl-topo FILE] [--format "
	"text|json]\n"
	"\n"
	"Show the GPUs, NICs, links and GPU-NIC affinity lagom's topology\n"
	"reader finds: on this node through hwloc (no file), in an hwloc XML\n"
	"export (--xml), or in an NCCL topology file (--nccl-topo).\n"
	"\n"
	"Options:\n"
	"  --xml FILE          read an hwloc XML export\n"
	"  --nccl-topo FILE    read an NCCL_TOPO_FILE XML\n"
	"  --format text|json  output format (default text)\n"
	"  -h, --help          this help\n";

static const char *const affinity_names[] = { "pcie-switch", "numa", "system",
					      "none" };

static const char *affinity_name(enum lagom_affinity a)
{
	return (unsigned)a <= LAGOM_AFF_NONE ? affinity_names[a] : "?";
}

/* Sum of the direct NVLink bandwidth from GPU g to the other GPUs. */
static double gpu_nvlink_Bps(const struct lagom_node_topo *t, int g)
{
	double sum = 0;
	int j;

	for (j = 0; j < t->gpus_per_node; j++)
		sum += t->nvlink_bw_Bps[g][j];
	return sum;
}

static json_t *gpu_json(const struct lagom_node_topo *t, int g)
{
	const struct lagom_topo_gpu *gpu = &t->gpus[g];
	json_t *nics = json_array();
	int n;

	for (n = 0; n < t->nnics && n < 64; n++)
		if (gpu->nic_mask & (1ULL << n))
			json_array_append_new(nics, json_integer(n));
	return json_pack(
		"{s:i, s:s, s:s, s:i, s:i, s:i, s:f, s:i, s:f, s:f, s:f, s:o, "
		"s:s}",
		"index", g, "busid", gpu->busid, "model", gpu->model,
		"cuda_dev", gpu->cuda_dev, "sm", gpu->sm, "numa_node",
		gpu->numa_node, "pcie_GTps", gpu->pcie.pcie_GTps, "pcie_width",
		gpu->pcie.pcie_width, "pcie_bw_GBps",
		gpu->pcie.pcie_bw_Bps / 1e9, "nvlink_gpu_bw_GBps",
		gpu_nvlink_Bps(t, g) / 1e9, "nvswitch_bw_GBps",
		gpu->nvswitch_bw_Bps / 1e9, "nics", nics, "nic_affinity",
		affinity_name(gpu->nic_affinity));
}

static json_t *nic_json(const struct lagom_node_topo *t, int n)
{
	const struct lagom_topo_nic *nic = &t->nics[n];

	return json_pack("{s:i, s:s, s:s, s:s, s:I, s:s, s:i, s:i}", "index", n,
			 "name", nic->name, "netdev", nic->netdev, "kind",
			 lagom_nic_kind_name(nic->kind), "speed_Mbps",
			 (json_int_t)(nic->speed_Bps * 8 / 1e6 + 0.5), "busid",
			 nic->busid, "numa_node", nic->numa_node, "gpus_served",
			 lagom_topo_gpus_per_nic(t, n));
}

static int topo_json(const struct lagom_node_topo *t, const char *path)
{
	json_t *doc = cli_json_doc("topo");
	json_t *gpus = json_array(), *nics = json_array();
	int i;

	for (i = 0; i < t->gpus_per_node; i++)
		json_array_append_new(gpus, gpu_json(t, i));
	for (i = 0; i < t->nnics; i++)
		json_array_append_new(nics, nic_json(t, i));
	if (doc) {
		json_object_set_new(doc, "source", json_string(t->source));
		json_object_set_new(doc, "file",
				    path ? json_string(path) : json_null());
		json_object_set_new(doc, "has_nvlink",
				    json_boolean(t->has_nvlink));
		json_object_set_new(doc, "nvswitches",
				    json_integer(t->nnvswitches));
		json_object_set_new(doc, "numa_nodes", json_integer(t->nnuma));
		json_object_set_new(doc, "vfs_skipped",
				    json_integer(t->nvfs_skipped));
	}
	json_object_set_new(doc, "gpus", gpus);
	json_object_set_new(doc, "nics", nics);
	return cli_json_print(doc);
}

static void topo_text_gpus(const struct lagom_node_topo *t)
{
	static const char *const hdr[] = { "GPU",     "BUSID",	  "MODEL",
					   "SM",      "NUMA",	  "PCIE",
					   "NVLINK",  "NVSWITCH", "NICS",
					   "AFFINITY" };
	static const bool right[] = { 1, 0, 0, 1, 1, 0, 1, 1, 0, 0 };
	struct cli_table *tb = cli_table_create(10, hdr, right);
	int g, n;

	for (g = 0; tb && g < t->gpus_per_node; g++) {
		const struct lagom_topo_gpu *gpu = &t->gpus[g];
		char nics[128] = "";
		size_t len = 0;

		for (n = 0; n < t->nnics && n < 64 && len < sizeof(nics) - 8;
		     n++)
			if (gpu->nic_mask & (1ULL << n))
				len += snprintf(nics + len, sizeof(nics) - len,
						"%s%d", len ? "," : "", n);
		char sm[16] = "-", nvl[32] = "-", nvs[32] = "-";

		if (gpu->sm > 0)
			snprintf(sm, sizeof(sm), "%d.%d", gpu->sm / 10,
				 gpu->sm % 10);
		if (gpu_nvlink_Bps(t, g) > 0)
			snprintf(nvl, sizeof(nvl), "%.0f GB/s",
				 gpu_nvlink_Bps(t, g) / 1e9);
		if (gpu->nvswitch_bw_Bps > 0)
			snprintf(nvs, sizeof(nvs), "%.0f GB/s",
				 gpu->nvswitch_bw_Bps / 1e9);
		cli_table_addf(
			tb, "%d\t%s\t%s\t%s\t%d\tGen%.0f x%d\t%s\t%s\t%s\t%s",
			g, gpu->busid, gpu->model[0] ? gpu->model : "-", sm,
			gpu->numa_node,
			gpu->pcie.pcie_GTps > 0
				? (gpu->pcie.pcie_GTps >= 32   ? 5.0
				   : gpu->pcie.pcie_GTps >= 16 ? 4.0
				   : gpu->pcie.pcie_GTps >= 8  ? 3.0
							       : 2.0)
				: 0.0,
			gpu->pcie.pcie_width, nvl, nvs, len ? nics : "-",
			affinity_name(gpu->nic_affinity));
	}
	if (tb)
		cli_table_print(tb, stdout, "  ");
	cli_table_destroy(tb);
}

static void topo_text_nics(const struct lagom_node_topo *t)
{
	static const char *const hdr[] = { "NIC",   "NAME",  "NETDEV", "KIND",
					   "SPEED", "BUSID", "NUMA",   "GPUS" };
	static const bool right[] = { 1, 0, 0, 0, 1, 0, 1, 1 };
	struct cli_table *tb = cli_table_create(8, hdr, right);
	int n;

	for (n = 0; tb && n < t->nnics; n++) {
		const struct lagom_topo_nic *nic = &t->nics[n];
		char speed[32] = "unknown";

		if (nic->speed_Bps > 0)
			snprintf(speed, sizeof(speed), "%.0f Gb/s",
				 nic->speed_Bps * 8 / 1e9);
		cli_table_addf(tb, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d", n,
			       nic->name, nic->netdev[0] ? nic->netdev : "-",
			       lagom_nic_kind_name(nic->kind), speed,
			       nic->busid, nic->numa_node,
			       lagom_topo_gpus_per_nic(t, n));
	}
	if (tb)
		cli_table_print(tb, stdout, "  ");
	cli_table_destroy(tb);
}

static void topo_text(const struct lagom_node_topo *t, const char *path)
{
	printf("source: %s%s%s\n", t->source, path ? "  file: " : "",
	       path ? path : "");
	printf("gpus: %d  nics: %d  nvswitches: %d  nvlink: %s  numa nodes: "
	       "%d\n",
	       t->gpus_per_node, t->nnics, t->nnvswitches,
	       t->has_nvlink ? "yes" : "no", t->nnuma);
	if (t->gpus_per_node) {
		printf("\nGPUs:\n");
		topo_text_gpus(t);
	}
	if (t->nnics) {
		printf("\nNICs:\n");
		topo_text_nics(t);
	}
}

struct topo_opts {
	enum cli_format format;
	const char *xml;
	const char *nccl;
};

static int topo_opt(void *ctx, int value, const char *arg)
{
	struct topo_opts *o = ctx;

	if (value == 'x')
		o->xml = arg;
	else if (value == 'n')
		o->nccl = arg;
	else
		return cli_parse_format(arg, &o->format);
	return 0;
}

static int parse_topo(int argc, char **argv, struct topo_opts *o)
{
	static const struct option longopts[] = {
		{ "xml", required_argument, NULL, 'x' },
		{ "nccl-topo", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt(argc, argv, "topo", "+h", longopts, topo_usage,
			    topo_opt, o);

	if (rc || (rc = cli_no_operand("topo", argc, argv)))
		return rc;
	if (o->xml && o->nccl)
		return cli_fail(CLI_USAGE,
				"topo: give --xml or --nccl-topo, not both");
	return 0;
}

int cli_cmd_topo(int argc, char **argv)
{
	struct topo_opts o = { .format = CLI_TEXT };
	struct lagom_node_topo *t;
	struct lagom_error err = { 0 };
	const char *path;
	struct stat st;
	int rc = parse_topo(argc, argv, &o);

	if (rc)
		return rc < 0 ? CLI_OK : rc;
	path = o.xml ? o.xml : o.nccl;
	if (path && stat(path, &st) != 0)
		return cli_fail(CLI_USAGE, "topo: %s: %s", path,
				strerror(errno));
	t = malloc(sizeof(*t));
	if (!t)
		return cli_fail(CLI_FAIL, "out of memory");
	if (o.nccl)
		rc = lagom_topo_load_nccl_file(o.nccl, t, &err);
	else
		rc = lagom_topo_load_hwloc(o.xml, t, &err);
	if (rc) {
		free(t);
		return cli_fail(CLI_FAIL, "topo: %s", err.text);
	}
	if (o.format == CLI_JSON) {
		rc = topo_json(t, path);
	} else {
		topo_text(t, path);
		rc = CLI_OK;
	}
	free(t);
	return rc;
}
