/*
 * cli/cmd_workloads.c - `lagom workloads`: the built-in model catalog and
 * the workload name grammar.
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "model/model.h"
#include "catalog/catalog.h"

static const char workloads_usage[] =
	"Usage: lagom workloads [--format text|json]\n"
	"\n"
	"List the models of the built-in catalog and example workload names.\n"
	"A workload name is MODEL[:OPTION,...] with options dp, fsdp, tpN,\n"
	"ppN, epN, dpN, fsdpN, mbN, seqN and a precision (fp32 tf32 fp16 bf16\n"
	"fp8); e.g. llama-3.1-8b:tp8,mb4.  Without options: dp, mb1, seq2048,\n"
	"bf16.  Use a name with --lagom-workload=NAME or lagom plan --workload.\n"
	"\n"
	"Options:\n"
	"  --format text|json  output format (default text)\n"
	"  -h, --help          this help\n";

/* Parameters of a decoder-only transformer, for the catalog listing. */
static double model_params(const struct lagom_model_shape *m)
{
	double h = m->hidden, head_dim = m->heads ? h / m->heads : 0;
	double attn = 2 * h * h + 2 * h * head_dim * m->kv_heads;
	double ffn_one = (m->gated_ffn ? 3.0 : 2.0) * h * m->ffn;
	double dense_ffn = (m->gated_ffn ? 3.0 : 2.0) * h *
			   (m->dense_ffn ? m->dense_ffn : m->ffn);
	unsigned moe_layers = m->experts ? m->layers - m->dense_layers : 0;
	double per_moe = ffn_one * (m->experts + m->shared_experts);

	return m->layers * attn + (m->layers - moe_layers) * dense_ffn +
	       moe_layers * per_moe + 2.0 * m->vocab * h;
}

static json_t *shape_json(const struct lagom_model_shape *m)
{
	return json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:b, s:i, s:i, s:i, "
			 "s:i, s:f}",
			 "name", m->name, "layers", (int)m->layers, "hidden",
			 (int)m->hidden, "heads", (int)m->heads, "kv_heads",
			 (int)m->kv_heads, "ffn", (int)m->ffn, "gated_ffn",
			 m->gated_ffn, "vocab", (int)m->vocab, "experts",
			 (int)m->experts, "experts_active",
			 (int)m->experts_active, "shared_experts",
			 (int)m->shared_experts, "params_billion",
			 model_params(m) / 1e9);
}

static int workloads_json(void)
{
	json_t *doc = cli_json_doc("workloads");
	json_t *models = json_array(), *examples = json_array();
	const struct lagom_model_shape *cat;
	const char *const *ex;
	size_t n, i;

	cat = lagom_model_catalog(&n);
	for (i = 0; i < n; i++)
		json_array_append_new(models, shape_json(&cat[i]));
	ex = lagom_workload_examples(&n);
	for (i = 0; i < n; i++)
		json_array_append_new(examples, json_string(ex[i]));
	json_object_set_new(doc, "models", models);
	json_object_set_new(doc, "examples", examples);
	return cli_json_print(doc);
}

static int workloads_text(void)
{
	static const char *const hdr[] = { "MODEL",  "PARAMS", "LAYERS",
					   "HIDDEN", "HEADS",  "KV",
					   "FFN",    "EXPERTS" };
	static const bool right[] = { 0, 1, 1, 1, 1, 1, 1, 1 };
	struct cli_table *t = cli_table_create(8, hdr, right);
	const struct lagom_model_shape *cat;
	const char *const *ex;
	size_t n, i;

	if (!t)
		return cli_fail(CLI_FAIL, "out of memory");
	cat = lagom_model_catalog(&n);
	for (i = 0; i < n; i++) {
		const struct lagom_model_shape *m = &cat[i];
		char experts[32] = "-";

		if (m->experts)
			snprintf(experts, sizeof(experts), "%u (top-%u)",
				 m->experts, m->experts_active);
		cli_table_addf(t, "%s\t%.1f B\t%u\t%u\t%u\t%u\t%u\t%s", m->name,
			       model_params(m) / 1e9, m->layers, m->hidden,
			       m->heads, m->kv_heads, m->ffn, experts);
	}
	cli_table_print(t, stdout, "");
	cli_table_destroy(t);
	ex = lagom_workload_examples(&n);
	printf("\nExamples:");
	for (i = 0; i < n; i++)
		printf("%s%s", i ? ", " : " ", ex[i]);
	printf("\n");
	return CLI_OK;
}

int cli_cmd_workloads(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum cli_format format = CLI_TEXT;
	int rc = cli_getopt(argc, argv, "workloads", "+h", longopts,
			    workloads_usage, cli_format_opt, &format);

	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if ((rc = cli_no_operand("workloads", argc, argv)))
		return rc;
	return format == CLI_JSON ? workloads_json() : workloads_text();
}
