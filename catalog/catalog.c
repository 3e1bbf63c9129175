/*
 * catalog/catalog.c - model shapes from the models' published configurations
 * (Hugging Face config.json values: layers, width, heads, FFN, experts).
 */
#include <strings.h>

#include "catalog/catalog.h"

static const struct lagom_model_shape catalog[] = {
	{ .name = "phi-2",
	  .layers = 32,
	  .hidden = 2560,
	  .heads = 32,
	  .kv_heads = 32,
	  .ffn = 10240,
	  .vocab = 51200 },
	{ .name = "llama-3.1-8b",
	  .layers = 32,
	  .hidden = 4096,
	  .heads = 32,
	  .kv_heads = 8,
	  .ffn = 14336,
	  .gated_ffn = true,
	  .vocab = 128256 },
	{ .name = "mpt-7b",
	  .layers = 32,
	  .hidden = 4096,
	  .heads = 32,
	  .kv_heads = 32,
	  .ffn = 16384,
	  .vocab = 50432 },
	{ .name = "llama-3-70b",
	  .layers = 80,
	  .hidden = 8192,
	  .heads = 64,
	  .kv_heads = 8,
	  .ffn = 28672,
	  .gated_ffn = true,
	  .vocab = 128256 },
	{ .name = "gpt2-xl",
	  .layers = 48,
	  .hidden = 1600,
	  .heads = 25,
	  .kv_heads = 25,
	  .ffn = 6400,
	  .vocab = 50257 },
	{ .name = "bert-large",
	  .layers = 24,
	  .hidden = 1024,
	  .heads = 16,
	  .kv_heads = 16,
	  .ffn = 4096,
	  .vocab = 30522 },
	/* 24 encoder + 24 decoder blocks; attention inner size 4096 is
	 * approximated by the model width. */
	{ .name = "t5-3b",
	  .layers = 48,
	  .hidden = 1024,
	  .heads = 32,
	  .kv_heads = 32,
	  .ffn = 16384,
	  .vocab = 32128 },
	{ .name = "deepseek-moe-16b",
	  .layers = 28,
	  .hidden = 2048,
	  .heads = 16,
	  .kv_heads = 16,
	  .ffn = 1408,
	  .gated_ffn = true,
	  .vocab = 102400,
	  .experts = 64,
	  .experts_active = 6,
	  .shared_experts = 2,
	  .dense_layers = 1,
	  .dense_ffn = 10944 },
	{ .name = "olmoe-1b-7b",
	  .layers = 16,
	  .hidden = 2048,
	  .heads = 16,
	  .kv_heads = 16,
	  .ffn = 1024,
	  .gated_ffn = true,
	  .vocab = 50304,
	  .experts = 64,
	  .experts_active = 8 },
};

#define CATALOG_COUNT (sizeof(catalog) / sizeof(catalog[0]))

const struct lagom_model_shape *lagom_model_catalog(size_t *count)
{
	if (count)
		*count = CATALOG_COUNT;
	return catalog;
}

const struct lagom_model_shape *lagom_model_lookup(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < CATALOG_COUNT; i++)
		if (strcasecmp(catalog[i].name, name) == 0)
			return &catalog[i];
	return NULL;
}

static const char *const examples[] = {
	"phi-2:fsdp",
	"llama-3.1-8b:fsdp",
	"mpt-7b:fsdp",
	"phi-2:tp8,mb8",
	"llama-3.1-8b:tp8,mb4",
	"mpt-7b:tp8,mb2",
	"deepseek-moe-16b:ep8,mb2",
	"olmoe-1b-7b:ep8,mb2",
	"llama-3-70b:tp8,fsdp",
	"gpt2-xl:dp",
	"bert-large:dp,seq512",
	"t5-3b:fsdp",
};

const char *const *lagom_workload_examples(size_t *count)
{
	if (count)
		*count = sizeof(examples) / sizeof(examples[0]);
	return examples;
}
