/*
 * cli/synth_table.c - `lagom profile synth --list`: the model's built-in
 * GPU table.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "model/model.h"

static json_t *spec_json(const struct lagom_gpu_spec *g)
{
	return json_pack(
		"{s:s, s:i, s:i, s:f, s:f, s:f, s:f, s:I, s:i, s:i, "
		"s:f, s:i, s:s}",
		"name", g->name, "sm_arch", (int)g->sm_arch, "sm_count",
		(int)g->sm_count, "bf16_tflops", g->tflops[LAGOM_PREC_BF16],
		"fp16_tflops", g->tflops[LAGOM_PREC_FP16], "fp8_tflops",
		g->tflops[LAGOM_PREC_FP8], "hbm_GBps", g->hbm_Bps / 1e9,
		"mem_bytes", (json_int_t)g->mem_bytes, "nvlink_gen",
		(int)g->nvlink_gen, "nvlink_links", (int)g->nvlink_links,
		"nvlink_GBps", g->nvlink_links * g->nvlink_link_Bps / 1e9,
		"pcie_gen", (int)g->pcie_gen, "intra_default",
		lagom_intra_name(g->intra_default));
}

int cli_synth_list(enum cli_format format)
{
	static const char *const hdr[] = { "GPU",    "ARCH", "SMS",
					   "BF16",   "HBM",  "MEMORY",
					   "NVLINK", "PCIE", "FABRIC" };
	static const bool right[] = { 0, 1, 1, 1, 1, 1, 1, 1, 0 };
	struct cli_table *t;
	size_t n, i;
	const struct lagom_gpu_spec *tab = lagom_gpu_table(&n);
	char mem[32];

	if (format == CLI_JSON) {
		json_t *doc = cli_json_doc("profile synth --list");
		json_t *gpus = json_array();

		for (i = 0; i < n; i++)
			json_array_append_new(gpus, spec_json(&tab[i]));
		json_object_set_new(doc, "gpus", gpus);
		return cli_json_print(doc);
	}
	t = cli_table_create(9, hdr, right);
	for (i = 0; t && i < n; i++)
		cli_table_addf(
			t,
			"%s\t%u.%u\t%u\t%.0f TFLOP/s\t%.0f GB/s\t%s\t"
			"%.0f GB/s\tGen%u\t%s",
			tab[i].name, tab[i].sm_arch / 10, tab[i].sm_arch % 10,
			tab[i].sm_count, tab[i].tflops[LAGOM_PREC_BF16],
			tab[i].hbm_Bps / 1e9,
			lagom_fmt_bytes(mem, sizeof(mem), tab[i].mem_bytes),
			tab[i].nvlink_links * tab[i].nvlink_link_Bps / 1e9,
			tab[i].pcie_gen,
			lagom_intra_name(tab[i].intra_default));
	if (!t)
		return cli_fail(CLI_FAIL, "out of memory");
	cli_table_print(t, stdout, "");
	cli_table_destroy(t);
	return CLI_OK;
}
