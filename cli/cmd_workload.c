/*
 * cli/cmd_workload.c - `lagom workload import TRACE... [-o FILE]
 * [--contention] [--format text|json]`: a workload from PyTorch profiler
 * traces (trace/trace.h, doc/workload-import.md); `lagom workload show` is
 * in cli/cmd_workload_show.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/escape.h"
#include "trace/emit.h"
#include "trace/trace.h"
#include "workload/workload.h"

static const char import_usage[] =
	"Usage: lagom workload import TRACE... [-o FILE] [--contention]\n"
	"                             [--format text|json]\n"
	"\n"
	"Read PyTorch profiler (Kineto) traces, plain or gzip, one or several\n"
	"ranks of one run, and write the workload they show: the collectives\n"
	"of one training step and the computation they overlap.  Use it with\n"
	"srun --lagom=auto --lagom-workload=FILE or lagom plan --workload FILE.\n"
	"Rules: doc/workload-import.md.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   write the workload to FILE (atomically) and the\n"
	"                      report to standard output; without -o the\n"
	"                      workload goes to standard output, unless\n"
	"                      --contention or --format json asks for the report\n"
	"  --contention        print the contention the trace measured\n"
	"  --format text|json  report format (default text); json includes the\n"
	"                      contention table\n"
	"  -h, --help          this help\n";

static const char workload_usage[] =
	"Usage: lagom workload import TRACE... [-o FILE] [--contention] "
	"[--format text|json]\n"
	"       lagom workload show FILE|NAME [--format text|json]\n"
	"See 'lagom workload import --help' and lagom(1).\n";

struct import_opts {
	const char *output;
	bool contention;
	enum cli_format format;
	char **traces;
	size_t ntraces;
};

enum {
	OPT_CONTENTION = 0x400,
	OPT_FORMAT
};

static int import_opt(void *ctx, int c, const char *arg)
{
	struct import_opts *o = ctx;

	if (c == 'o')
		o->output = arg;
	else if (c == OPT_CONTENTION)
		o->contention = true;
	else
		return cli_parse_format(arg, &o->format);
	return 0;
}

static int parse_import(int argc, char **argv, struct import_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "contention", no_argument, NULL, OPT_CONTENTION },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt(argc, argv, "workload import", "ho:", longopts,
			    import_usage, import_opt, o);

	if (rc)
		return rc;
	if (optind >= argc)
		return cli_fail(CLI_USAGE,
				"workload import: no trace given (try 'lagom "
				"workload import --help')");
	if ((size_t)(argc - optind) > LAGOM_TRACE_MAX_FILES)
		return cli_fail(CLI_USAGE, "workload import: at most %d traces",
				LAGOM_TRACE_MAX_FILES);
	o->traces = argv + optind;
	o->ntraces = (size_t)(argc - optind);
	return 0;
}

/* Indented when that fits the readers' LAGOM_WORKLOAD_FILE_MAX, else
 * compact. */
static size_t dump_flags(json_t *doc)
{
	size_t pretty = JSON_INDENT(2) | JSON_REAL_PRECISION(9);

	return json_dumpb(doc, NULL, 0, pretty) < LAGOM_WORKLOAD_FILE_MAX
		       ? pretty
		       : JSON_COMPACT | JSON_REAL_PRECISION(9);
}

/* lagom's own reader accepts the file written (cli_write_atomic's check). */
static int check_workload(const char *tmp, void *ctx)
{
	struct lagom_workload *w = NULL;
	struct lagom_error err = { 0 };
	int rc = CLI_OK;

	(void)ctx;
	if (lagom_workload_read_file(tmp, &w, &err) != 0)
		rc = cli_fail(CLI_FAIL,
			      "internal error: the workload written "
			      "is not valid: %s",
			      err.text);
	lagom_workload_destroy(w);
	return rc;
}

/* Write doc to path, never half a file, mode 0600; checked before the
 * rename. */
static int write_workload(const char *path, json_t *doc)
{
	size_t flags = dump_flags(doc), len = json_dumpb(doc, NULL, 0, flags);
	char *text = len ? malloc(len + 1) : NULL;
	int rc;

	if (!text || json_dumpb(doc, text, len, flags) != len) {
		free(text);
		return cli_fail(CLI_FAIL, "out of memory");
	}
	text[len] = '\n';
	rc = cli_write_atomic(NULL, path, text, len + 1, 0600, check_workload,
			      NULL);
	free(text);
	return rc;
}

/* Collectives per iteration: count by op and total bytes. */
static void coll_totals(const struct lagom_workload *w, size_t *by_op,
			size_t *count, unsigned long long *bytes)
{
	*count = 0;
	*bytes = 0;
	for (size_t r = 0; r < w->nregions; r++) {
		unsigned rep = w->regions[r].repeat ? w->regions[r].repeat : 1;
		for (size_t j = 0; j < w->regions[r].ncolls; j++) {
			by_op[w->regions[r].colls[j].coll] += rep;
			*count += rep;
			*bytes += rep * w->regions[r].colls[j].bytes;
		}
	}
}

static void ops_text(const size_t *by_op, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int op = 0; op < LAGOM_COLL_COUNT && used < len; op++)
		if (by_op[op])
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%s %zu", used ? ", " : "",
						 lagom_coll_name(op),
						 by_op[op]);
}

static size_t estimated_kernels(const struct lagom_trace_import *imp,
				size_t *compute)
{
	size_t n = 0;

	*compute = 0;
	for (size_t r = 0; r < imp->workload->nregions; r++)
		for (size_t k = 0; k < imp->workload->regions[r].nkernels;
		     k++) {
			const struct lagom_trace_kernel_info *ki =
				&imp->kinfo[r * LAGOM_REGION_MAX_KERNELS + k];
			*compute += !ki->idle;
			n += ki->estimated;
		}
	return n;
}

static void report_text(const struct lagom_trace_import *imp,
			const struct lagom_trace_replay *rp, int replay_rc,
			const char *replay_err, const char *output)
{
	size_t by_op[LAGOM_COLL_COUNT] = { 0 }, n, compute, est;
	unsigned long long bytes;
	char ops[256], b[32];

	coll_totals(imp->workload, by_op, &n, &bytes);
	ops_text(by_op, ops, sizeof(ops));
	est = estimated_kernels(imp, &compute);
	printf("workload %s%s%s\n", imp->workload->name, output ? " -> " : "",
	       output ? output : "");
	printf("  trace: %s (%u SMs), rank %d of %u, %u trace(s), NCCL %s\n",
	       imp->gpu, imp->sms, imp->rank, imp->world_size, imp->ranks_given,
	       imp->nccl_version[0] ? imp->nccl_version : "?");
	if (imp->steps)
		printf("  steps: %u ProfilerStep# from #%u; representative "
		       "#%u: %.3f ms measured (mean %.3f ms), GPU window "
		       "%.3f ms\n",
		       imp->steps, imp->first_step, imp->rep_step,
		       imp->rep_step_s * 1e3, imp->mean_step_s * 1e3,
		       imp->rep_window_s * 1e3);
	else
		printf("  steps: no ProfilerStep#: the whole trace is one "
		       "iteration (%.3f ms)\n",
		       imp->rep_window_s * 1e3);
	printf("  collectives per iteration: %zu (%s), %s; %zu without a "
	       "size skipped\n",
	       n, ops, lagom_fmt_bytes(b, sizeof(b), bytes),
	       imp->unsized_colls);
	printf("  compute: %.3f ms busy, %.3f ms beside collectives, %.3f ms "
	       "serial; workload serial time %.3f ms\n",
	       imp->busy_s * 1e3, imp->overlap_s * 1e3, imp->serial_s * 1e3,
	       imp->workload->serial_s * 1e3);
	printf("  dependencies: %zu cudaStreamWaitEvent, %zu cudaEventRecord in "
	       "the step\n",
	       imp->stream_waits, imp->event_records);
	printf("  regions: %zu; super-kernels: %zu, %zu with an estimated "
	       "alone time\n",
	       imp->workload->nregions, compute, est);
	printf("  rank skew: %s\n",
	       imp->ranks_given > 1
		       ? "fastest instance of each collective over the ranks"
		       : "one rank: collective times include waiting for peers");
	if (imp->cupti_ranges)
		printf("  cupti: %zu range-profiler events%s\n",
		       imp->cupti_ranges,
		       imp->cupti_dram ? "" : " without DRAM counters");
	if (replay_rc)
		printf("  replay: not possible: %s\n", replay_err);
	else
		printf("  replay: predicted %.3f ms, measured %.3f ms (%+.1f%%) "
		       "on %s with the trace's channels and threads\n",
		       rp->predicted_s * 1e3, rp->measured_s * 1e3,
		       rp->error * 100, rp->hw_gpu);
}

static void contention_text(const struct lagom_trace_import *imp)
{
	printf("contention measured in the trace (%zu rows; at least %d "
	       "samples alone and beside):\n",
	       imp->nrows, LAGOM_TRACE_MIN_SAMPLES);
	printf("  %-40s %6s %5s %3s %4s  %-13s %3s %4s %-7s %8s %6s %5s %6s "
	       "%10s %10s %8s\n",
	       "kernel", "grid", "block", "bps", "mem", "nccl op", "ch", "thr",
	       "proto", "nccl MiB", "GB/s", "alone", "beside", "alone us",
	       "beside us", "slowdown");
	/* a row marked '?' is implausible: faster beside NCCL than alone */
	for (size_t i = 0; i < imp->nrows; i++) {
		const struct lagom_trace_contention *r = &imp->rows[i];
		printf("  %-40.40s %6u %5u %3u %4.2f  %-13s %3u %4u %-7s %8.2f "
		       "%6.2f %5u %6u %10.3f %10.3f %8.3f%s\n",
		       r->kernel, r->grid_blocks, r->block_threads,
		       r->blocks_per_sm, r->mem_bound,
		       lagom_coll_name(r->nccl_op), r->nccl_channels,
		       r->nccl_threads, lagom_trace_proto_name(r->nccl_proto),
		       r->nccl_bytes / (1024.0 * 1024.0), r->nccl_Bps * 1e-9,
		       r->alone_n, r->beside_n, r->alone_us, r->beside_us,
		       r->slowdown, r->plausible ? "" : " ?");
	}
}

static json_t *report_json(const struct lagom_trace_import *imp,
			   const struct lagom_trace_replay *rp, int replay_rc,
			   const char *output)
{
	size_t by_op[LAGOM_COLL_COUNT] = { 0 }, n, compute, est;
	json_t *doc = cli_json_doc("workload import"), *ops = json_object();
	unsigned long long bytes;

	coll_totals(imp->workload, by_op, &n, &bytes);
	est = estimated_kernels(imp, &compute);
	for (int op = 0; op < LAGOM_COLL_COUNT; op++)
		if (by_op[op])
			json_object_set_new(
				ops, lagom_coll_name(op),
				json_integer((json_int_t)by_op[op]));
	json_object_set_new(doc, "output",
			    output ? json_string(output) : json_null());
	json_object_set_new(
		doc, "summary",
		json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:s, s:i, s:i, "
			  "s:f, s:f, s:f, s:i, s:o, s:I, s:i, s:f, s:f, s:f, "
			  "s:f, s:i, s:i, s:i, s:i, s:i}",
			  "name", imp->workload->name, "gpu", imp->gpu, "sms",
			  (json_int_t)imp->sms, "rank", (json_int_t)imp->rank,
			  "world_size", (json_int_t)imp->world_size,
			  "ranks_given", (json_int_t)imp->ranks_given,
			  "nccl_version", imp->nccl_version, "steps",
			  (json_int_t)imp->steps, "step",
			  (json_int_t)imp->rep_step, "step_s", imp->rep_step_s,
			  "mean_step_s", imp->mean_step_s, "window_s",
			  imp->rep_window_s, "collectives", (json_int_t)n,
			  "collectives_by_op", ops, "bytes", (json_int_t)bytes,
			  "unsized_collectives", (json_int_t)imp->unsized_colls,
			  "busy_s", imp->busy_s, "overlap_s", imp->overlap_s,
			  "compute_serial_s", imp->serial_s, "serial_s",
			  imp->workload->serial_s, "regions",
			  (json_int_t)imp->workload->nregions, "super_kernels",
			  (json_int_t)compute, "estimated_kernels",
			  (json_int_t)est, "stream_waits",
			  (json_int_t)imp->stream_waits, "event_records",
			  (json_int_t)imp->event_records));
	if (replay_rc)
		json_object_set_new(doc, "replay", json_null());
	else
		json_object_set_new(
			doc, "replay",
			json_pack("{s:f, s:f, s:f, s:s}", "predicted_s",
				  rp->predicted_s, "measured_s", rp->measured_s,
				  "error", rp->error, "gpu", rp->hw_gpu));
	json_object_set_new(doc, "contention",
			    lagom_trace_contention_json(imp));
	return doc;
}

static int import_status(int rc)
{
	return rc == -ENOENT || rc == -EACCES || rc == -EISDIR ? CLI_USAGE
							       : CLI_FAIL;
}

/* The progress line of a long import, on a terminal only. */
struct progress {
	double start_s, last_s;
	bool shown;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* lagom_trace_progress_fn: after the first second, one line rewritten in
 * place at most five times a second, ended when the file is read. */
static void show_progress(void *ctx, const char *path, uint64_t done,
			  uint64_t total)
{
	struct progress *pr = ctx;
	double now = mono_s(), el = now - pr->start_s;
	bool end = done >= total;
	char name[256];

	if (el < 1.0 || (!end && now - pr->last_s < 0.2) || (end && !pr->shown))
		return;
	lagom_escape(path, name, sizeof(name));
	fprintf(stderr,
		"\rlagom: reading %s: %.0f of %.0f MiB (%.0f%%), %.0f MB/s%s",
		name, done / 1048576.0, total / 1048576.0,
		total ? 100.0 * done / total : 100.0, done / el / 1e6,
		end ? "\n" : "  ");
	fflush(stderr);
	pr->shown = !end;
	pr->last_s = now;
	if (end) /* the next file starts its own second */
		pr->start_s = now;
}

static int cmd_import(int argc, char **argv)
{
	struct import_opts o = { .format = CLI_TEXT };
	struct progress pr = { 0 };
	struct lagom_trace_import *imp = NULL;
	struct lagom_trace_replay rp = { 0 };
	struct lagom_error err = { 0 }, rerr = { 0 };
	bool report;
	json_t *doc;
	int rc = parse_import(argc, argv, &o), replay_rc;

	if (rc)
		return rc < 0 ? CLI_OK : rc;
	pr.start_s = mono_s();
	rc = lagom_trace_import_progress(
		(const char *const *)o.traces, o.ntraces,
		isatty(STDERR_FILENO) ? show_progress : NULL, &pr, &imp, &err);
	if (pr.shown) /* a file cut short: its line ends before the error */
		fputc('\n', stderr);
	if (rc)
		return cli_fail(import_status(rc), "workload import: %s",
				err.text);
	report = o.output || o.contention || o.format == CLI_JSON;
	doc = lagom_trace_workload_json(imp);
	if (!doc) {
		rc = cli_fail(CLI_FAIL, "out of memory");
		goto out;
	}
	if (json_dumpb(doc, NULL, 0, dump_flags(doc)) >=
	    LAGOM_WORKLOAD_FILE_MAX) {
		json_decref(doc);
		rc = cli_fail(CLI_FAIL,
			      "workload import: %zu regions do not fit in a "
			      "workload file (%d bytes at most); profile fewer "
			      "collectives per step",
			      imp->workload->nregions, LAGOM_WORKLOAD_FILE_MAX);
		goto out;
	}
	if (o.output)
		rc = write_workload(o.output, doc);
	else if (!report)
		rc = json_dumpf(doc, stdout, dump_flags(doc)) ||
				     fputc('\n', stdout) == EOF
			     ? cli_fail(CLI_FAIL, "cannot write the workload")
			     : CLI_OK;
	json_decref(doc);
	if (rc || !report)
		goto out;
	replay_rc = lagom_trace_replay(imp, &rp, &rerr);
	if (o.format == CLI_JSON) {
		rc = cli_json_print(report_json(imp, &rp, replay_rc, o.output));
		goto out;
	}
	report_text(imp, &rp, replay_rc, rerr.text, o.output);
	if (o.contention)
		contention_text(imp);
out:
	lagom_trace_import_destroy(imp);
	return rc;
}

int cli_cmd_workload(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "import") == 0)
		return cmd_import(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "show") == 0)
		return cli_workload_show(argc - 1, argv + 1);
	if (argc >= 2 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(workload_usage, stdout);
		return CLI_OK;
	}
	return cli_fail(CLI_USAGE,
			"workload: give 'import' or 'show' (try 'lagom "
			"workload --help')");
}
