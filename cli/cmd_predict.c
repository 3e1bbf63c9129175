/*
 * cli/cmd_predict.c - `lagom predict`: the model's time and bus bandwidth of
 * one collective, with given knobs or NCCL's own default choice.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/hw_int.h"
#include "planner/calib.h"
#include "planner/planner.h"

static const char predict_usage[] =
	"Usage: lagom predict (--profile FILE | --gpu MODEL) --nodes N\n"
	"                     --collective C --bytes B [OPTIONS]\n"
	"\n"
	"Predicted time (us) and bus bandwidth (GB/s) of one collective.\n"
	"Without --algo/--proto/--channels/--chunk/--threads, NCCL's own\n"
	"default choice; the default is always shown beside for comparison.\n"
	"\n"
	"Hardware:\n"
	"  --profile FILE        a node profile (lagom-prolog or profile synth)\n"
	"  --gpu MODEL           the built-in table instead (see profile synth)\n"
	"  --gpus-per-node G     GPUs per node (default: profile's, or 8)\n"
	"  --intra KIND          with --gpu: nvswitch, nvlink or pcie\n"
	"  --nic COUNTxGBITS     with --gpu: NICs per node (default 1x400)\n"
	"  --calibration FILE    the site's network calibration (lagom\n"
	"                        calibrate) instead of the built-in one\n"
	"Communicator:\n"
	"  --nodes N             nodes (1-65536)\n"
	"  --ranks-per-node R    ranks per node (default: GPUs per node)\n"
	"  --hops node|leaf|spine  farthest network distance (default leaf)\n"
	"Call:\n"
	"  --collective C        allreduce allgather reducescatter broadcast\n"
	"                        reduce alltoall sendrecv\n"
	"  --bytes B             message size as nccl-tests counts it (K, M, G,\n"
	"                        KiB, MB... suffixes)\n"
	"  --algo A              tree ring collnetdirect collnetchain nvls\n"
	"                        nvlstree pat\n"
	"  --proto P             ll ll128 simple\n"
	"  --channels NC         channels (CTAs), 1-64\n"
	"  --chunk BYTES         chunk size\n"
	"  --threads NT          threads per channel, multiple of 32, 64-640\n"
	"Kernel beside the collective (all optional but --kernel-time):\n"
	"  --kernel-time US      the kernel's time alone, microseconds\n"
	"  --grid BLOCKS         its thread blocks (default unknown: smooth\n"
	"                        SM-share model instead of waves)\n"
	"  --blocks-per-sm B     resident blocks per SM (default 1)\n"
	"  --mem-bound M         memory-bound share 0..1 (default 0.2)\n"
	"  --format text|json    output format (default text)\n"
	"  -h, --help            this help\n";

enum {
	OPT_NODES = 0x200,
	OPT_RPN,
	OPT_HOPS,
	OPT_COLL,
	OPT_BYTES,
	OPT_ALGO,
	OPT_PROTO,
	OPT_CHANNELS,
	OPT_CHUNK,
	OPT_THREADS,
	OPT_FORMAT,
	OPT_KTIME,
	OPT_GRID,
	OPT_BPSM,
	OPT_MEMBOUND,
	OPT_CALIBRATION,
};

struct predict_opts {
	struct cli_hw_opts hw;
	enum cli_format format;
	unsigned nodes, ranks_per_node;
	enum lagom_hops hops;
	bool hops_given, coll_given, algo_given, proto_given;
	enum lagom_coll coll;
	unsigned long long bytes, chunk;
	enum lagom_algo algo;
	enum lagom_proto proto;
	unsigned channels, threads;
	struct lagom_kernel kernel; /* time_s 0: no kernel asked for */
	bool kernel_given, mem_bound_given;
	const char *calibration;
};

/* The kernel's time beside each of the two configurations. */
struct kernel_pred {
	double time_s[2]; /* [0] the configuration asked for, [1] NCCL's */
	uint64_t chunk_bytes[2];
	double mem_Bps[2]; /* the collective's HBM traffic beside it */
	double hbm_Bps;	   /* the GPU's */
};

static int predict_names(struct predict_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_HOPS:
		o->hops_given = true;
		if (lagom_hops_parse(arg, &o->hops) == 0)
			return 0;
		return cli_fail(
			CLI_USAGE,
			"--hops: expected node, leaf or spine, got '%s'", arg);
	case OPT_COLL:
		o->coll_given = true;
		if (lagom_coll_parse(arg, &o->coll) == 0)
			return 0;
		return cli_fail(CLI_USAGE,
				"--collective: unknown collective '%s' (try "
				"'lagom predict --help')",
				arg);
	case OPT_ALGO:
		o->algo_given = true;
		if (lagom_algo_parse(arg, &o->algo) == 0)
			return 0;
		return cli_fail(CLI_USAGE, "--algo: unknown algorithm '%s'",
				arg);
	default:
		o->proto_given = true;
		if (lagom_proto_parse(arg, &o->proto) == 0)
			return 0;
		return cli_fail(CLI_USAGE, "--proto: unknown protocol '%s'",
				arg);
	}
}

static int predict_numbers(struct predict_opts *o, int c, const char *arg)
{
	int rc;

	switch (c) {
	case OPT_NODES:
		return cli_parse_unsigned("--nodes", arg, 1,
					  LAGOM_PLANNER_MAX_NODES, &o->nodes);
	case OPT_RPN:
		return cli_parse_unsigned("--ranks-per-node", arg, 1, 64,
					  &o->ranks_per_node);
	case OPT_BYTES:
		return cli_parse_bytes("--bytes", arg, 1ULL << 40, &o->bytes);
	case OPT_CHUNK:
		return cli_parse_bytes("--chunk", arg, 1ULL << 30, &o->chunk);
	case OPT_CHANNELS:
		return cli_parse_unsigned("--channels", arg, 1,
					  LAGOM_NCHANNELS_MAX, &o->channels);
	default:
		rc = cli_parse_unsigned("--threads", arg, LAGOM_NTHREADS_MIN,
					LAGOM_NTHREADS_MAX, &o->threads);
		if (rc == 0 && o->threads % 32)
			rc = cli_fail(CLI_USAGE,
				      "--threads: %u is not a multiple of 32",
				      o->threads);
		return rc;
	}
}

/* A decimal number in [min, max]: 0, or CLI_USAGE after one line. */
static int cli_parse_double(const char *opt, const char *arg, double min,
			    double max, double *out)
{
	char *end = NULL;
	double v;

	if (!arg || !*arg || strlen(arg) > 32 ||
	    strspn(arg, "0123456789.eE+-") != strlen(arg))
		return cli_fail(CLI_USAGE, "%s: expected a number", opt);
	errno = 0;
	v = strtod(arg, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return cli_fail(CLI_USAGE, "%s: expected a number in [%g, %g]",
				opt, min, max);
	*out = v;
	return 0;
}

/* --kernel-time US, --grid, --blocks-per-sm, --mem-bound. */
static int predict_kernel_opt(struct predict_opts *o, int c, const char *arg)
{
	double v;

	o->kernel_given = true;
	switch (c) {
	case OPT_GRID:
		return cli_parse_unsigned("--grid", arg, 1, 1u << 30,
					  &o->kernel.grid_blocks);
	case OPT_BPSM:
		return cli_parse_unsigned("--blocks-per-sm", arg, 1, 64,
					  &o->kernel.blocks_per_sm);
	case OPT_MEMBOUND:
		if (cli_parse_double("--mem-bound", arg, 0, 1, &v))
			return CLI_USAGE;
		o->kernel.mem_bound = v;
		o->mem_bound_given = true;
		return 0;
	default:
		if (cli_parse_double("--kernel-time", arg, 1e-3, 1e9, &v))
			return CLI_USAGE;
		o->kernel.time_s = v * 1e-6;
		return 0;
	}
}

static int predict_opt(void *ctx, int c, const char *arg)
{
	struct predict_opts *o = ctx;

	if (c >= CLI_OPT_PROFILE && c <= CLI_OPT_NIC)
		return cli_hw_opt(&o->hw, c, arg);
	if (c == OPT_HOPS || c == OPT_COLL || c == OPT_ALGO || c == OPT_PROTO)
		return predict_names(o, c, arg);
	if (c == OPT_FORMAT)
		return cli_parse_format(arg, &o->format);
	if (c == OPT_CALIBRATION) {
		o->calibration = arg;
		return cli_require_file("--calibration", arg);
	}
	if (c >= OPT_KTIME && c <= OPT_MEMBOUND)
		return predict_kernel_opt(o, c, arg);
	return predict_numbers(o, c, arg);
}

static int parse_predict(int argc, char **argv, struct predict_opts *o)
{
	static const struct option longopts[] = {
		CLI_HW_LONGOPTS,
		{ "nodes", required_argument, NULL, OPT_NODES },
		{ "ranks-per-node", required_argument, NULL, OPT_RPN },
		{ "hops", required_argument, NULL, OPT_HOPS },
		{ "collective", required_argument, NULL, OPT_COLL },
		{ "bytes", required_argument, NULL, OPT_BYTES },
		{ "algo", required_argument, NULL, OPT_ALGO },
		{ "proto", required_argument, NULL, OPT_PROTO },
		{ "channels", required_argument, NULL, OPT_CHANNELS },
		{ "chunk", required_argument, NULL, OPT_CHUNK },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "kernel-time", required_argument, NULL, OPT_KTIME },
		{ "grid", required_argument, NULL, OPT_GRID },
		{ "blocks-per-sm", required_argument, NULL, OPT_BPSM },
		{ "mem-bound", required_argument, NULL, OPT_MEMBOUND },
		{ "calibration", required_argument, NULL, OPT_CALIBRATION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt(argc, argv, "predict", "+h", longopts,
			    predict_usage, predict_opt, o);

	if (rc || (rc = cli_no_operand("predict", argc, argv)))
		return rc;
	if (!o->nodes || !o->coll_given || !o->bytes)
		return cli_fail(CLI_USAGE,
				"predict: --nodes, --collective and --bytes "
				"are required (try 'lagom predict --help')");
	if (o->kernel_given && !(o->kernel.time_s > 0))
		return cli_fail(CLI_USAGE,
				"predict: --grid, --blocks-per-sm "
				"and --mem-bound need --kernel-time");
	if (!o->mem_bound_given)
		o->kernel.mem_bound = 0.2;
	return 0;
}

/* The configuration to predict: NCCL's default with the given knobs. */
static int predict_config(const struct predict_opts *o,
			  const struct lagom_coll_config *dflt,
			  struct lagom_coll_config *cfg)
{
	*cfg = *dflt;
	if (o->algo_given || o->proto_given) {
		cfg->chunk_bytes = 0;
		cfg->nthreads = 0;
	}
	if (o->algo_given)
		cfg->algo = o->algo;
	if (o->proto_given)
		cfg->proto = o->proto;
	if (o->channels)
		cfg->nchannels = o->channels;
	if (o->threads)
		cfg->nthreads = o->threads;
	if (o->chunk)
		cfg->chunk_bytes = o->chunk;
	return 0;
}

static json_t *config_json(const struct lagom_coll_config *cfg,
			   const struct lagom_coll_time *t)
{
	return json_pack("{s:s, s:s, s:i, s:i, s:I, s:f, s:f, s:f, s:f}",
			 "algo", lagom_algo_name(cfg->algo), "proto",
			 lagom_proto_name(cfg->proto), "channels",
			 (int)cfg->nchannels, "threads", (int)cfg->nthreads,
			 "chunk_bytes", (json_int_t)cfg->chunk_bytes, "time_us",
			 t->time_s * 1e6, "busbw_GBps", t->busbw_Bps / 1e9,
			 "algbw_GBps", t->algbw_Bps / 1e9, "latency_us",
			 t->lat_s * 1e6);
}

static json_t *kernel_json(const struct predict_opts *o,
			   const struct kernel_pred *k)
{
	json_t *j = json_pack("{s:f, s:i, s:i, s:f, s:f}", "time_alone_us",
			      o->kernel.time_s * 1e6, "grid_blocks",
			      (int)o->kernel.grid_blocks, "blocks_per_sm",
			      (int)o->kernel.blocks_per_sm, "mem_bound",
			      o->kernel.mem_bound, "hbm_GBps",
			      k->hbm_Bps / 1e9);

	for (int i = 0; j && i < 2; i++)
		json_object_set_new(
			j, i ? "beside_nccl_default" : "beside_prediction",
			json_pack("{s:f, s:f, s:I, s:f, s:f}", "time_us",
				  k->time_s[i] * 1e6, "slowdown",
				  k->time_s[i] / o->kernel.time_s,
				  "chunk_bytes", (json_int_t)k->chunk_bytes[i],
				  "mem_GBps", k->mem_Bps[i] / 1e9, "x",
				  k->mem_Bps[i] / k->hbm_Bps));
	return j;
}

static void kernel_print(const struct predict_opts *o,
			 const struct lagom_coll_config *const *cs,
			 const struct kernel_pred *k)
{
	char grid[64];

	if (o->kernel.grid_blocks)
		snprintf(grid, sizeof(grid), "%u blocks, %u per SM",
			 o->kernel.grid_blocks,
			 o->kernel.blocks_per_sm ? o->kernel.blocks_per_sm : 1);
	else
		snprintf(grid, sizeof(grid), "grid unknown");
	printf("kernel: %.1f us alone (%s, memory-bound %.2f)\n",
	       o->kernel.time_s * 1e6, grid, o->kernel.mem_bound);
	for (int i = 0; i < 2; i++)
		printf("  beside %-12s %2u channels: %.1f us, %.3fx (its HBM "
		       "traffic %.1f GB/s, x %.4f)\n",
		       i ? "nccl-default" : "predicted", cs[i]->nchannels,
		       k->time_s[i] * 1e6, k->time_s[i] / o->kernel.time_s,
		       k->mem_Bps[i] / 1e9, k->mem_Bps[i] / k->hbm_Bps);
}

static int predict_print(
	const struct predict_opts *o, const struct lagom_hw *hw,
	const struct lagom_comm *comm, const struct lagom_coll_config *cfg,
	const struct lagom_coll_time *t, const struct lagom_coll_config *dcfg,
	const struct lagom_coll_time *dt, const struct kernel_pred *k)
{
	static const char *const hdr[] = { "CONFIG",   "ALGO",	  "PROTO",
					   "CHANNELS", "THREADS", "CHUNK",
					   "TIME",     "BUSBW" };
	static const bool right[] = { 0, 0, 0, 1, 1, 1, 1, 1 };
	const struct lagom_coll_config *cs[2] = { cfg, dcfg };
	const struct lagom_coll_time *ts[2] = { t, dt };
	struct cli_table *tb;
	char b1[32], b2[32];
	int i;

	if (o->format == CLI_JSON) {
		json_t *doc = cli_json_doc("predict");

		json_object_set_new(
			doc, "call",
			json_pack("{s:s, s:I, s:i, s:i, s:i, s:s, s:s, s:i}",
				  "collective", lagom_coll_name(o->coll),
				  "bytes", (json_int_t)o->bytes, "nodes",
				  (int)comm->nodes, "ranks_per_node",
				  (int)comm->ranks_per_node, "ranks",
				  (int)comm->ranks, "hops",
				  lagom_hops_name(comm->hops), "gpu",
				  hw->gpu.name, "gpus_per_node",
				  (int)hw->gpus_per_node));
		json_object_set_new(doc, "prediction", config_json(cfg, t));
		json_object_set_new(doc, "nccl_default", config_json(dcfg, dt));
		if (o->kernel.time_s > 0)
			json_object_set_new(doc, "kernel", kernel_json(o, k));
		return cli_json_print(doc);
	}
	printf("%s of %s on %u node%s x %u ranks (%s, %s), hops %s\n",
	       lagom_coll_name(o->coll),
	       lagom_fmt_bytes(b1, sizeof(b1), o->bytes), comm->nodes,
	       comm->nodes == 1 ? "" : "s", comm->ranks_per_node, hw->gpu.name,
	       lagom_intra_name(hw->intra), lagom_hops_name(comm->hops));
	tb = cli_table_create(8, hdr, right);
	for (i = 0; tb && i < 2; i++)
		cli_table_addf(tb, "%s\t%s\t%s\t%u\t%u\t%s\t%.1f us\t%.2f GB/s",
			       i ? "nccl-default" : "predicted",
			       lagom_algo_name(cs[i]->algo),
			       lagom_proto_name(cs[i]->proto), cs[i]->nchannels,
			       cs[i]->nthreads,
			       cs[i]->chunk_bytes
				       ? lagom_fmt_bytes(b2, sizeof(b2),
							 cs[i]->chunk_bytes)
				       : "default",
			       ts[i]->time_s * 1e6, ts[i]->busbw_Bps / 1e9);
	if (tb)
		cli_table_print(tb, stdout, "");
	cli_table_destroy(tb);
	if (o->kernel.time_s > 0)
		kernel_print(o, cs, k);
	return CLI_OK;
}

/* The kernel's time while each configuration's channels are resident
 * (the whole kernel overlapped; chunk: the configuration's, else NCCL's
 * default clamped to the message), beside the HBM traffic of that
 * collective over its predicted time: the timeline's rate (doc/model.md
 * 4, lagom_coll_mem_bytes()). */
static int predict_kernel(const struct predict_opts *o,
			  const struct lagom_hw *hw,
			  const struct lagom_comm *comm,
			  const struct lagom_coll_config *const *cs,
			  const struct lagom_coll_time *const *ts,
			  struct kernel_pred *k)
{
	struct lagom_error err = { 0 };

	k->hbm_Bps = hw->gpu.hbm_Bps;
	for (int i = 0; i < 2; i++) {
		uint64_t chunk = cs[i]->chunk_bytes;
		if (!chunk)
			chunk = lagom_chunk_default_bytes(cs[i]->algo,
							  cs[i]->proto);
		if (chunk > o->bytes)
			chunk = o->bytes;
		k->chunk_bytes[i] = chunk;
		k->mem_Bps[i] = ts[i]->time_s > 0
					? lagom_coll_mem_bytes(comm, o->coll,
							       o->bytes,
							       cs[i]->proto) /
						  ts[i]->time_s
					: 0;
		if (lagom_compute_time_rate(hw, &o->kernel, cs[i]->nchannels,
					    chunk, k->mem_Bps[i], &k->time_s[i],
					    &err))
			return cli_fail(CLI_USAGE, "predict: kernel: %s",
					err.text);
	}
	return 0;
}

static int predict_run(const struct predict_opts *o, const struct lagom_hw *hw)
{
	struct lagom_comm comm = { 0 };
	struct lagom_coll_config dcfg, cfg;
	struct lagom_coll_time dt, t;
	struct lagom_error err = { 0 };
	struct kernel_pred k;
	unsigned rpn = o->ranks_per_node ? o->ranks_per_node
		       : o->hw.gpus_per_node && o->hw.profile
			       ? o->hw.gpus_per_node
			       : hw->gpus_per_node;

	if (rpn > hw->gpus_per_node)
		return cli_fail(CLI_USAGE,
				"--ranks-per-node %u exceeds the %u GPUs per "
				"node",
				rpn, hw->gpus_per_node);
	comm.nodes = o->nodes;
	comm.ranks_per_node = rpn;
	comm.ranks = o->nodes * rpn;
	comm.hops = o->hops_given   ? o->hops
		    : o->nodes == 1 ? LAGOM_HOPS_SAME_NODE
				    : LAGOM_HOPS_SAME_LEAF;
	memset(&k, 0, sizeof(k));
	if (lagom_nccl_default(hw, &comm, o->coll, o->bytes, &dcfg, &err) ||
	    lagom_coll_predict(hw, &comm, o->coll, o->bytes, &dcfg, &dt, &err))
		return cli_fail(CLI_FAIL, "predict: %s", err.text);
	predict_config(o, &dcfg, &cfg);
	if (!lagom_coll_supported(hw, &comm, o->coll, cfg.algo, cfg.proto))
		return cli_fail(CLI_USAGE,
				"predict: %s/%s is not available for %s on "
				"this hardware and placement",
				lagom_algo_name(cfg.algo),
				lagom_proto_name(cfg.proto),
				lagom_coll_name(o->coll));
	if (lagom_coll_predict(hw, &comm, o->coll, o->bytes, &cfg, &t, &err))
		return cli_fail(CLI_USAGE, "predict: %s", err.text);
	if (o->kernel.time_s > 0 &&
	    predict_kernel(
		    o, hw, &comm,
		    (const struct lagom_coll_config *const[2]){ &cfg, &dcfg },
		    (const struct lagom_coll_time *const[2]){ &t, &dt }, &k))
		return CLI_USAGE;
	return predict_print(o, hw, &comm, &cfg, &t, &dcfg, &dt, &k);
}

int cli_cmd_predict(int argc, char **argv)
{
	struct predict_opts o = { .format = CLI_TEXT };
	struct lagom_hw hw;
	int rc = parse_predict(argc, argv, &o);

	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = cli_hw_load(&o.hw, &hw)))
		return rc;
	if (o.calibration) {
		struct lagom_calibration cal;
		struct lagom_error err = { 0 };
		char line[128];

		if (lagom_calibration_read_file(o.calibration, &cal, &err))
			return cli_fail(CLI_FAIL, "%s", err.text);
		lagom_hw_apply_calib(&hw, &cal.calib);
		lagom_calibration_line(&cal, line, sizeof(line));
		if (o.format == CLI_TEXT)
			printf("%s\n", line);
	}
	return predict_run(&o, &hw);
}
