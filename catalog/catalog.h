/*
 * catalog/catalog.h - the example set: model shapes from the models'
 * published configurations, the workload-name grammar
 * ("llama-3.1-8b:tp8,mb4") and the examples that drive the no-workload
 * policy (search/nowork.c plans for the worst of lagom_workload_examples()).
 *
 * Pure core (tests/purity.sh): no I/O, no environment.  Built on the cost
 * model's types (model/model.h); link libcatalog.la before libmodel.la.
 * A new model shape is one entry in catalog/catalog.c.
 */
#ifndef LAGOM_CATALOG_CATALOG_H
#define LAGOM_CATALOG_CATALOG_H

#include "model/model.h"

/* A transformer's shape (catalog entries are static). */
struct lagom_model_shape {
	const char *name;  /* "llama-3.1-8b" */
	unsigned layers;   /* transformer blocks (encoder + decoder) */
	unsigned hidden;   /* model width */
	unsigned heads;	   /* attention heads */
	unsigned kv_heads; /* key/value heads (GQA); = heads if MHA */
	unsigned ffn;	   /* FFN inner size (per expert for MoE) */
	bool gated_ffn;	   /* SwiGLU/GeGLU: three FFN matrices */
	unsigned vocab;
	unsigned experts;	 /* routed experts per MoE layer; 0 dense */
	unsigned experts_active; /* routed experts per token (top-k) */
	unsigned shared_experts; /* always-active experts */
	unsigned dense_layers;	 /* leading layers with a dense FFN */
	unsigned dense_ffn;	 /* FFN size of those dense layers */
};

const struct lagom_model_shape *lagom_model_catalog(size_t *count);
/* Case-insensitive; NULL when unknown. */
const struct lagom_model_shape *lagom_model_lookup(const char *name);

/*
 * Parallelism of one training job; product dp * fsdp * tp * pp must equal
 * the number of GPUs given to lagom_workload_build() (ep divides dp*fsdp and
 * does not multiply).  0 in any degree means 1.  micro_batch 0 = 1,
 * seq_len 0 = 2048.
 */
struct lagom_parallel {
	unsigned dp;   /* plain data parallel (gradient allreduce) */
	unsigned fsdp; /* FSDP / ZeRO-3 sharding degree */
	unsigned tp;   /* tensor parallel (Megatron) */
	unsigned pp;   /* pipeline stages */
	unsigned ep;   /* expert parallel (MoE all-to-all) */
	unsigned micro_batch;
	unsigned seq_len;
	enum lagom_precision precision;
};

/*
 * Turn a model shape and a parallelism into regions, with compute times from
 * the hardware's peak rate and an achieved-efficiency factor (doc/model.md).
 * nodes x hw->gpus_per_node GPUs.  -EINVAL when the degrees do not multiply
 * to the GPU count, tp does not divide the GPUs of a node, ep does not divide
 * the experts and the data-parallel ranks, or pp does not divide the layers;
 * -ENOMEM.  Regions: "layer-forward", "layer-backward" (dense layers),
 * "moe-layer-forward", "moe-layer-backward" (MoE layers), "pipeline-p2p"
 * (pp > 1); each repeated once per layer of its kind on one stage.
 */
int lagom_workload_build(const struct lagom_model_shape *shape,
			 const struct lagom_parallel *par,
			 const struct lagom_hw *hw, unsigned nodes,
			 struct lagom_workload **out, struct lagom_error *err);

/*
 * Build a catalog workload by name.  Grammar (case-insensitive):
 *   NAME     := MODEL [":" OPTION ("," OPTION)*]
 *   OPTION   := "dp" [N] | "fsdp" [N] | "tp" N | "pp" N | "ep" N
 *             | "mb" N | "seq" N | "fp32" | "tf32" | "fp16" | "bf16" | "fp8"
 * The GPUs left after tp and pp go to fsdp when "fsdp" is named, else to dp.
 * Defaults: no option = "dp"; mb 1; seq 2048; bf16.
 * Examples: "phi-2:fsdp", "llama-3.1-8b:tp8,mb4", "olmoe-1b-7b:ep8".
 * gpus_per_node overrides hw->gpus_per_node when not 0.
 */
int lagom_workload_from_name(const char *name, const struct lagom_hw *hw,
			     unsigned nodes, unsigned gpus_per_node,
			     struct lagom_workload **out,
			     struct lagom_error *err);

/* Is opt one OPTION of the grammar above (any case)?  0 or -EINVAL.  The
 * job comment checks a workload name's options with it
 * (planner/comment_text.c). */
int lagom_workload_option_check(const char *opt);

/* Example names for `lagom workloads` (static array of count strings). */
const char *const *lagom_workload_examples(size_t *count);

#endif /* LAGOM_CATALOG_CATALOG_H */
