/*
 * cli/cmd_workload_show.c - `lagom workload show FILE|NAME`: a workload of
 * any source (a file of any version, or a catalog name built for one node
 * of 8 A100-SXM) in a few lines: regions, collectives per iteration, bytes,
 * compute beside collectives, serial time.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "catalog/catalog.h"
#include "cli/cli.h"
#include "model/model.h"
#include "workload/workload.h"

static const char show_usage[] =
	"Usage: lagom workload show FILE|NAME [--format text|json]\n"
	"\n"
	"Summarise a workload: a JSON workload file (any version, e.g. from\n"
	"'lagom workload import') or a catalog name (built for one node of\n"
	"8 A100-SXM).\n"
	"\n"
	"Options:\n"
	"  --format text|json  output format (default text)\n"
	"  -h, --help          this help\n";

struct show_sums {
	size_t regions, per_iter, colls, by_op[LAGOM_COLL_COUNT];
	unsigned long long bytes;
	double overlapped_s, idle_s, alone_s, region_serial_s;
};

/* Kernels of one block with mem_bound 0 are what the importer writes for
 * host gaps and copies ("kind": "idle"). */
static bool idle_kernel(const struct lagom_kernel *k)
{
	return k->grid_blocks == 1 && k->blocks_per_sm == 1 &&
	       k->mem_bound == 0;
}

static void sum_up(const struct lagom_workload *w, struct show_sums *s)
{
	memset(s, 0, sizeof(*s));
	s->regions = w->nregions;
	for (size_t r = 0; r < w->nregions; r++) {
		const struct lagom_region *reg = &w->regions[r];
		unsigned rep = reg->repeat ? reg->repeat : 1;
		s->per_iter += rep;
		s->region_serial_s += rep * reg->serial_s;
		for (size_t j = 0; j < reg->ncolls; j++) {
			s->by_op[reg->colls[j].coll] += rep;
			s->colls += rep;
			s->bytes += rep * reg->colls[j].bytes;
		}
		for (size_t k = 0; k < reg->nkernels; k++) {
			double t = rep * reg->kernels[k].time_s;
			if (idle_kernel(&reg->kernels[k]))
				s->idle_s += t;
			else if (reg->ncolls)
				s->overlapped_s += t;
			else
				s->alone_s += t;
		}
	}
}

/* The plugin's rule (workload/workload.h): a '/' or ".json" names a file,
 * anything else a catalog workload. */
static int load(const char *arg, struct lagom_workload **w, const char **kind)
{
	struct lagom_error err = { 0 };
	struct lagom_hw hw;
	int rc;

	if (lagom_workload_is_file(arg)) {
		*kind = "file";
		rc = lagom_workload_read_file(arg, w, &err);
		if (rc)
			return cli_fail(rc == -ENOENT ? CLI_USAGE : CLI_FAIL,
					"workload show: %s", err.text);
		return CLI_OK;
	}
	*kind = "catalog, 1 node of 8 A100-SXM";
	if (lagom_hw_from_spec("A100-SXM", 8, LAGOM_INTRA_DEFAULT, 0, 0, &hw,
			       &err) != 0 ||
	    lagom_workload_from_name(arg, &hw, 1, 0, w, &err) != 0)
		return cli_fail(CLI_USAGE,
				"workload show: '%s' is not a catalog workload "
				"(a file needs a '/' or .json): %s",
				arg, err.text);
	return CLI_OK;
}

/* A version 2 file's "source" object (where an import came from). */
static json_t *source_of(const char *path)
{
	json_t *root = json_load_file(path, 0, NULL), *src;

	src = root ? json_object_get(root, "source") : NULL;
	if (src)
		json_incref(src);
	json_decref(root);
	return src;
}

static void show_text(const char *arg, const char *kind,
		      const struct lagom_workload *w, const struct show_sums *s,
		      json_t *src)
{
	char ops[256] = "", b[32];
	size_t used = 0;

	for (int op = 0; op < LAGOM_COLL_COUNT; op++)
		if (s->by_op[op] && used < sizeof(ops))
			used += (size_t)snprintf(ops + used, sizeof(ops) - used,
						 "%s%s %zu", used ? ", " : "",
						 lagom_coll_name(op),
						 s->by_op[op]);
	printf("workload %s (%s: %s)\n", w->name[0] ? w->name : "(unnamed)",
	       kind, arg);
	if (src && json_is_string(json_object_get(src, "gpu")))
		printf("  source: %s on %s, step #%lld, measured %.3f ms\n",
		       json_string_value(json_object_get(src, "kind")),
		       json_string_value(json_object_get(src, "gpu")),
		       (long long)json_integer_value(
			       json_object_get(src, "step")),
		       json_number_value(json_object_get(src, "step_s")) * 1e3);
	printf("  regions: %zu (%zu per iteration with repeats)\n", s->regions,
	       s->per_iter);
	printf("  collectives per iteration: %zu (%s), %s\n", s->colls,
	       s->colls ? ops : "none",
	       lagom_fmt_bytes(b, sizeof(b), s->bytes));
	printf("  compute in regions with collectives: %.3f ms; elsewhere "
	       "%.3f ms; idle (host gaps, copies) %.3f ms\n",
	       s->overlapped_s * 1e3, s->alone_s * 1e3, s->idle_s * 1e3);
	printf("  serial time: %.3f ms per iteration, %.3f ms in regions\n",
	       w->serial_s * 1e3, s->region_serial_s * 1e3);
}

static int show_json(const char *arg, const char *kind,
		     const struct lagom_workload *w, const struct show_sums *s,
		     json_t *src)
{
	json_t *doc = cli_json_doc("workload show"), *ops = json_object();

	for (int op = 0; op < LAGOM_COLL_COUNT; op++)
		if (s->by_op[op])
			json_object_set_new(
				ops, lagom_coll_name(op),
				json_integer((json_int_t)s->by_op[op]));
	json_object_set_new(
		doc, "workload",
		json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:o, s:I, s:f, s:f, "
			  "s:f, s:f, s:f}",
			  "name", w->name, "from", kind, "argument", arg,
			  "regions", (json_int_t)s->regions,
			  "regions_per_iteration", (json_int_t)s->per_iter,
			  "collectives", (json_int_t)s->colls,
			  "collectives_by_op", ops, "bytes",
			  (json_int_t)s->bytes, "overlapped_compute_s",
			  s->overlapped_s, "other_compute_s", s->alone_s,
			  "idle_s", s->idle_s, "serial_s", w->serial_s,
			  "region_serial_s", s->region_serial_s));
	json_object_set_new(doc, "source",
			    src ? json_incref(src) : json_null());
	return cli_json_print(doc);
}

int cli_workload_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum cli_format format = CLI_TEXT;
	struct lagom_workload *w = NULL;
	struct show_sums s;
	const char *kind;
	json_t *src = NULL;
	int rc;

	rc = cli_getopt(argc, argv, "workload show", "h", longopts, show_usage,
			cli_format_opt, &format);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (optind + 1 != argc)
		return cli_fail(CLI_USAGE,
				"workload show: give one FILE or NAME (try "
				"'lagom workload show --help')");
	if ((rc = load(argv[optind], &w, &kind)))
		return rc;
	sum_up(w, &s);
	if (strcmp(kind, "file") == 0)
		src = source_of(argv[optind]);
	if (format == CLI_JSON)
		rc = show_json(argv[optind], kind, w, &s, src);
	else
		show_text(argv[optind], kind, w, &s, src);
	json_decref(src);
	lagom_workload_destroy(w);
	return rc;
}
