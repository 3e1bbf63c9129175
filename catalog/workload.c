/*
 * catalog/workload.c - a model shape x parallelism turned into per-layer
 * regions of compute kernels and the collectives they overlap (method
 * section 2 inputs), and the workload-name grammar (catalog/catalog.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/catalog.h"

/* Achieved share of peak FLOPS for transformer GEMMs (doc/model.md). */
#define MFU 0.5
#define TILE 128.0

struct plan {
	const struct lagom_model_shape *m;
	struct lagom_parallel p;
	const struct lagom_hw *hw;
	unsigned nodes, world;
	double tokens, elem, flops_Bps;
	struct lagom_comm tp_comm, data_comm, ep_comm, pp_comm;
};

static double attn_params(const struct lagom_model_shape *m)
{
	double h = m->hidden, kv = h * m->kv_heads / m->heads;

	return 2 * h * h + 2 * h * kv;
}

static double ffn_params(const struct lagom_model_shape *m, double ffn)
{
	return (m->gated_ffn ? 3.0 : 2.0) * m->hidden * ffn;
}

static bool is_moe_layer(const struct lagom_model_shape *m, unsigned layer)
{
	return m->experts > 0 && layer >= m->dense_layers;
}

/* Parameters of one layer held per TP rank (all experts). */
static double layer_params(const struct plan *pl, bool moe)
{
	const struct lagom_model_shape *m = pl->m;
	double ffn = moe ? (m->experts + m->shared_experts) *
				     ffn_params(m, m->ffn)
			 : ffn_params(m,
				      m->dense_layers ? m->dense_ffn : m->ffn);

	return (attn_params(m) + ffn) / pl->p.tp;
}

static struct lagom_kernel gemm(const struct plan *pl, double flops,
				double n_out, double mem_bound)
{
	double blocks = ceil(pl->tokens / TILE) * ceil(n_out / TILE);

	return (struct lagom_kernel){
		.time_s = flops / pl->flops_Bps,
		.grid_blocks = blocks > 1e9 ? 0 : (unsigned)blocks,
		.blocks_per_sm = 1,
		.mem_bound = mem_bound,
	};
}

/* Forward kernels of one layer on one GPU: attention, FFN (x scale for
 * the backward pass, which costs twice the forward). */
static void layer_kernels(const struct plan *pl, bool moe, double scale,
			  struct lagom_kernel *attn, struct lagom_kernel *ffn)
{
	const struct lagom_model_shape *m = pl->m;
	double T = pl->tokens, tp = pl->p.tp, h = m->hidden;
	double af = 2 * T * attn_params(m) / tp +
		    4 * T * pl->p.seq_len * h / tp;
	double f = moe ? (m->experts_active + m->shared_experts) *
				   ffn_params(m, m->ffn)
		       : ffn_params(m, m->dense_layers ? m->dense_ffn : m->ffn);

	*attn = gemm(pl, scale * af, 4 * h / tp, 0.3);
	*ffn = gemm(pl, scale * 2 * T * f / tp,
		    (moe ? m->ffn : (m->dense_layers ? m->dense_ffn : m->ffn)) /
			    tp,
		    0.2);
}

static void add_coll(struct lagom_region *r, enum lagom_coll coll, double bytes,
		     const struct lagom_comm *comm, unsigned after_kernel)
{
	struct lagom_region_coll *c;

	if (r->ncolls >= LAGOM_REGION_MAX_COLLS || comm->ranks < 2 || bytes < 1)
		return;
	c = &r->colls[r->ncolls++];
	*c = (struct lagom_region_coll){ .coll = coll,
					 .bytes = (uint64_t)bytes,
					 .comm = *comm,
					 .after_kernel = after_kernel };
}

static void add_kernel(struct lagom_region *r, struct lagom_kernel k,
		       unsigned after_coll)
{
	if (r->nkernels >= LAGOM_REGION_MAX_KERNELS)
		return;
	k.after_coll = after_coll;
	r->kernels[r->nkernels++] = k;
}

/* Tensor parallel: an allreduce of the activations after attention and
 * after the FFN; the next kernel waits for it. */
static void tp_layer(const struct plan *pl, struct lagom_region *r,
		     const struct lagom_kernel *attn,
		     const struct lagom_kernel *ffn)
{
	double act = pl->tokens * pl->m->hidden * pl->elem;
	unsigned k0 = (unsigned)r->nkernels;

	add_kernel(r, *attn, 0);
	add_coll(r, LAGOM_COLL_ALLREDUCE, act, &pl->tp_comm, k0 + 1);
	add_kernel(r, *ffn, (unsigned)r->ncolls);
	add_coll(r, LAGOM_COLL_ALLREDUCE, act, &pl->tp_comm, k0 + 2);
}

/* Expert parallel with dual-batch overlap: two half batches, each with a
 * dispatch and a combine all-to-all overlapping the other's compute. */
static void ep_layer(const struct plan *pl, struct lagom_region *r,
		     struct lagom_kernel attn, struct lagom_kernel ffn)
{
	double a2a = pl->tokens / 2 * pl->m->hidden * pl->elem *
		     pl->m->experts_active;

	attn.time_s /= 2;
	ffn.time_s /= 2;
	add_kernel(r, attn, 0);
	add_kernel(r, attn, 0);
	add_coll(r, LAGOM_COLL_ALLTOALL, a2a, &pl->ep_comm, 1);
	add_coll(r, LAGOM_COLL_ALLTOALL, a2a, &pl->ep_comm, 2);
	add_kernel(r, ffn, (unsigned)r->ncolls - 1);
	add_kernel(r, ffn, (unsigned)r->ncolls);
	add_coll(r, LAGOM_COLL_ALLTOALL, a2a, &pl->ep_comm, 3);
	add_coll(r, LAGOM_COLL_ALLTOALL, a2a, &pl->ep_comm, 4);
}

static void fill_layer(const struct plan *pl, struct lagom_region *r, bool moe,
		       bool backward)
{
	struct lagom_kernel attn, ffn;
	double params = layer_params(pl, moe);
	unsigned data = pl->p.dp * pl->p.fsdp;
	double dense_share = moe ? attn_params(pl->m) / pl->p.tp / params : 1;

	layer_kernels(pl, moe, backward ? 2.0 : 1.0, &attn, &ffn);
	if (pl->p.fsdp > 1)
		add_coll(r, LAGOM_COLL_ALLGATHER, params * pl->elem,
			 &pl->data_comm, 0);
	if (moe && pl->p.ep > 1)
		ep_layer(pl, r, attn, ffn);
	else if (pl->p.tp > 1)
		tp_layer(pl, r, &attn, &ffn);
	else {
		add_kernel(r, attn, 0);
		add_kernel(r, ffn, 0);
	}
	if (!backward || data < 2)
		return;
	if (pl->p.fsdp > 1)
		add_coll(r, LAGOM_COLL_REDUCESCATTER, params * pl->elem,
			 &pl->data_comm, 0);
	else
		add_coll(r, LAGOM_COLL_ALLREDUCE,
			 params * pl->elem *
				 (moe && pl->p.ep > 1
					  ? dense_share +
						    (1 - dense_share) / pl->p.ep
					  : 1),
			 &pl->data_comm, 0);
}

static struct lagom_comm make_comm(unsigned ranks, unsigned per_node)
{
	unsigned ppn = per_node < ranks ? per_node : ranks;

	if (ppn == 0 || ranks % ppn)
		ppn = 1;
	return (struct lagom_comm){
		.ranks = ranks,
		.nodes = ranks / ppn,
		.ranks_per_node = ppn,
		.hops = ranks / ppn > 1 ? LAGOM_HOPS_SAME_LEAF
					: LAGOM_HOPS_SAME_NODE,
	};
}

static double peak_flops(const struct lagom_gpu_spec *g,
			 enum lagom_precision prec)
{
	double tf = g->tflops[prec];

	if (!(tf > 0) && prec == LAGOM_PREC_BF16)
		tf = g->tflops[LAGOM_PREC_FP16];
	if (!(tf > 0))
		tf = g->tflops[LAGOM_PREC_FP32];
	return tf * 1e12;
}

static int plan_init(struct plan *pl, const struct lagom_model_shape *m,
		     const struct lagom_parallel *par,
		     const struct lagom_hw *hw, unsigned nodes,
		     struct lagom_error *err)
{
	struct lagom_parallel p = *par;
	unsigned gpn = hw->gpus_per_node, data, per_node;

	p.dp = p.dp ? p.dp : 1;
	p.fsdp = p.fsdp ? p.fsdp : 1;
	p.tp = p.tp ? p.tp : 1;
	p.pp = p.pp ? p.pp : 1;
	p.ep = p.ep ? p.ep : 1;
	p.micro_batch = p.micro_batch ? p.micro_batch : 1;
	p.seq_len = p.seq_len ? p.seq_len : 2048;
	data = p.dp * p.fsdp;
	if ((uint64_t)data * p.tp * p.pp != (uint64_t)nodes * gpn)
		return lagom_errprintf(err, EINVAL,
				       "dp %u x fsdp %u x tp %u x pp %u != %u "
				       "GPUs",
				       p.dp, p.fsdp, p.tp, p.pp, nodes * gpn);
	if (p.tp > gpn || gpn % p.tp)
		return lagom_errprintf(
			err, EINVAL, "tp %u must divide the %u GPUs of a node",
			p.tp, gpn);
	if (p.ep > 1 && (m->experts == 0 || m->experts % p.ep || data % p.ep))
		return lagom_errprintf(err, EINVAL,
				       "ep %u must divide the %u experts and "
				       "the %u data-parallel ranks",
				       p.ep, m->experts, data);
	if (m->layers % p.pp)
		return lagom_errprintf(err, EINVAL,
				       "pp %u does not divide %u layers", p.pp,
				       m->layers);
	if ((int)p.precision < 0 || p.precision >= LAGOM_PREC_COUNT)
		return lagom_errprintf(err, EINVAL, "invalid precision");
	pl->m = m;
	pl->p = p;
	pl->hw = hw;
	pl->nodes = nodes;
	pl->world = nodes * gpn;
	pl->tokens = (double)p.micro_batch * p.seq_len;
	pl->elem = lagom_precision_bytes(p.precision);
	pl->flops_Bps = peak_flops(&hw->gpu, p.precision) * MFU;
	per_node = gpn / p.tp >= p.pp ? gpn / p.tp / p.pp : 1;
	pl->tp_comm = make_comm(p.tp, p.tp);
	pl->data_comm = make_comm(data, per_node);
	pl->ep_comm = make_comm(p.ep, per_node);
	pl->pp_comm = make_comm(2, gpn / p.tp >= 2 * p.pp ? 2 : 1);
	return 0;
}

/* Outside all regions: embedding/LM head and the optimizer step. */
static double serial_time(const struct plan *pl)
{
	const struct lagom_model_shape *m = pl->m;
	double head = 3 * 2 * pl->tokens * m->hidden * m->vocab / pl->p.tp;
	double params = 0;

	for (unsigned l = 0; l < m->layers; l++)
		params += layer_params(pl, is_moe_layer(m, l));
	params /= (double)pl->p.pp * pl->p.fsdp;
	return head / pl->flops_Bps + params * 16.0 / pl->hw->gpu.hbm_Bps;
}

static void name_region(struct lagom_region *r, bool moe, bool backward)
{
	strncpy(r->name,
		moe ? (backward ? "moe-layer-backward" : "moe-layer-forward")
		    : (backward ? "layer-backward" : "layer-forward"),
		sizeof(r->name) - 1);
}

static int build_regions(const struct plan *pl, struct lagom_workload *w)
{
	const struct lagom_model_shape *m = pl->m;
	unsigned moe_layers = m->experts ? m->layers - m->dense_layers : 0;
	unsigned dense = m->layers - moe_layers;
	size_t r = 0;

	for (int kind = 0; kind < 2; kind++) {
		unsigned count = kind ? moe_layers : dense;
		if (count == 0)
			continue;
		for (int bwd = 0; bwd < 2; bwd++) {
			struct lagom_region *reg = &w->regions[r++];
			name_region(reg, kind, bwd);
			fill_layer(pl, reg, kind, bwd);
			reg->repeat = (count + pl->p.pp - 1) / pl->p.pp;
		}
	}
	if (pl->p.pp > 1) {
		struct lagom_region *reg = &w->regions[r++];
		strncpy(reg->name, "pipeline-p2p", sizeof(reg->name) - 1);
		add_coll(reg, LAGOM_COLL_SENDRECV,
			 pl->tokens * m->hidden * pl->elem, &pl->pp_comm, 0);
		reg->repeat = 2;
	}
	w->nregions = r;
	w->serial_s = serial_time(pl);
	return 0;
}

int lagom_workload_build(const struct lagom_model_shape *shape,
			 const struct lagom_parallel *par,
			 const struct lagom_hw *hw, unsigned nodes,
			 struct lagom_workload **out, struct lagom_error *err)
{
	struct lagom_workload *w;
	struct plan pl;
	int rc;

	if (!shape || !par || !out)
		return lagom_errprintf(err, EINVAL, "missing argument");
	if (shape->layers == 0 || shape->hidden == 0 || shape->heads == 0 ||
	    shape->kv_heads == 0 || shape->ffn == 0)
		return lagom_errprintf(err, EINVAL,
				       "model shape '%s' incomplete",
				       shape->name ? shape->name : "?");
	if (nodes == 0)
		return lagom_errprintf(err, EINVAL, "nodes must be > 0");
	rc = lagom_hw_check(hw, err);
	if (rc == 0)
		rc = plan_init(&pl, shape, par, hw, nodes, err);
	if (rc)
		return rc;
	w = lagom_workload_create(shape->name, 5);
	if (!w)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	build_regions(&pl, w);
	for (size_t r = 0; r < w->nregions; r++) {
		struct lagom_region_time rt;
		rc = lagom_region_time(hw, &w->regions[r], NULL, &rt, err);
		if (rc) {
			lagom_workload_destroy(w);
			return rc;
		}
	}
	*out = w;
	return 0;
}

/* ---- catalog names ------------------------------------------------ */

struct name_opts {
	struct lagom_parallel par;
	bool fsdp_named, dp_named;
};

static int parse_uint(const char *s, unsigned *out)
{
	unsigned long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 1000000)
			return -EINVAL;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	if (v == 0)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int parse_option(const char *opt, struct name_opts *o)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "fsdp", offsetof(struct lagom_parallel, fsdp) },
		{ "dp", offsetof(struct lagom_parallel, dp) },
		{ "tp", offsetof(struct lagom_parallel, tp) },
		{ "pp", offsetof(struct lagom_parallel, pp) },
		{ "ep", offsetof(struct lagom_parallel, ep) },
		{ "mb", offsetof(struct lagom_parallel, micro_batch) },
		{ "seq", offsetof(struct lagom_parallel, seq_len) },
	};

	if (lagom_precision_parse(opt, &o->par.precision) == 0)
		return 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t len = strlen(keys[i].key);
		unsigned *field = (unsigned *)((char *)&o->par + keys[i].off);
		if (strncasecmp(opt, keys[i].key, len) != 0)
			continue;
		if (i < 2 && opt[len] == '\0') {
			*(i == 0 ? &o->fsdp_named : &o->dp_named) = true;
			return 0;
		}
		if (i < 2)
			*(i == 0 ? &o->fsdp_named : &o->dp_named) = true;
		return parse_uint(opt + len, field);
	}
	return -EINVAL;
}

int lagom_workload_option_check(const char *opt)
{
	struct name_opts o = { 0 };

	return parse_option(opt, &o);
}

static int parse_options(const char *list, struct name_opts *o,
			 struct lagom_error *err)
{
	char buf[64];

	while (*list) {
		size_t len = strcspn(list, ",");
		if (len == 0 || len >= sizeof(buf))
			return lagom_errprintf(err, EINVAL,
					       "bad workload option near '%s'",
					       list);
		memcpy(buf, list, len);
		buf[len] = '\0';
		if (parse_option(buf, o))
			return lagom_errprintf(err, EINVAL,
					       "unknown workload option '%s'",
					       buf);
		list += len;
		if (*list == ',')
			list++;
	}
	return 0;
}

/* Give the GPUs left after tp and pp to fsdp or dp. */
static int fill_degrees(struct name_opts *o, unsigned world,
			struct lagom_error *err)
{
	struct lagom_parallel *p = &o->par;
	unsigned tp = p->tp ? p->tp : 1, pp = p->pp ? p->pp : 1, data;

	if (world % (tp * pp))
		return lagom_errprintf(err, EINVAL,
				       "tp %u x pp %u does not divide %u GPUs",
				       tp, pp, world);
	data = world / (tp * pp);
	if (o->fsdp_named && !p->fsdp)
		p->fsdp = data / (p->dp ? p->dp : 1);
	if (!p->dp)
		p->dp = data / (p->fsdp ? p->fsdp : 1);
	if (!p->dp)
		p->dp = 1;
	return 0;
}

int lagom_workload_from_name(const char *name, const struct lagom_hw *hw,
			     unsigned nodes, unsigned gpus_per_node,
			     struct lagom_workload **out,
			     struct lagom_error *err)
{
	struct name_opts o = { .par = { .precision = LAGOM_PREC_BF16 } };
	const struct lagom_model_shape *shape;
	struct lagom_hw local;
	char model[LAGOM_NAME_MAX];
	size_t len;
	int rc;

	if (!name || !hw || !out)
		return lagom_errprintf(err, EINVAL, "missing argument");
	len = strcspn(name, ":");
	if (len == 0 || len >= sizeof(model))
		return lagom_errprintf(err, EINVAL, "bad workload name '%s'",
				       name);
	memcpy(model, name, len);
	model[len] = '\0';
	shape = lagom_model_lookup(model);
	if (!shape)
		return lagom_errprintf(err, EINVAL, "unknown model '%s'",
				       model);
	if (name[len] == ':' && (rc = parse_options(name + len + 1, &o, err)))
		return rc;
	local = *hw;
	if (gpus_per_node)
		local.gpus_per_node = gpus_per_node;
	if (nodes == 0 || local.gpus_per_node == 0)
		return lagom_errprintf(err, EINVAL,
				       "nodes and GPUs must be > 0");
	rc = fill_degrees(&o, nodes * local.gpus_per_node, err);
	if (rc == 0)
		rc = lagom_workload_build(shape, &o.par, &local, nodes, out,
					  err);
	if (rc == 0) {
		strncpy((*out)->name, name, sizeof((*out)->name) - 1);
		(*out)->name[sizeof((*out)->name) - 1] = '\0';
	}
	return rc;
}
