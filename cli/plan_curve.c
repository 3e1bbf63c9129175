/*
 * cli/plan_curve.c - the numbers behind `lagom plan --svg`: for one class of
 * the plan, the predicted time of its overlap regions against its channel
 * count, every other collective as planned (cli/svg_int.h).  The model's
 * public API only; no I/O.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/svg_int.h"
#include "search/search.h"

/* The plan record an occurrence belongs to: same operation, size inside
 * the record's window (the record's own size first), same communicator. */
static long class_of(const struct lagom_plan *plan,
		     const struct lagom_region_coll *rc)
{
	long found = -1;

	for (size_t j = 0; j < plan->ncolls; j++) {
		const struct lagom_plan_coll *c = &plan->colls[j];

		if (rc->coll != c->coll || rc->comm.ranks != c->comm.ranks ||
		    rc->comm.nodes != c->comm.nodes ||
		    rc->bytes < c->min_bytes || rc->bytes > c->max_bytes)
			continue;
		if (rc->bytes == c->bytes)
			return (long)j;
		if (found < 0)
			found = (long)j;
	}
	return found;
}

/* The chunk NCCL_BUFFSIZE gives a Simple-protocol collective (the buffer
 * holds a fixed number of chunks), clamped to the protocol and message. */
static uint64_t env_chunk(uint64_t buffsize_bytes, enum lagom_algo algo,
			  enum lagom_proto proto, uint64_t bytes)
{
	const uint64_t def_buff = 4u << 20;
	uint64_t chunk = lagom_chunk_default_bytes(algo, proto);
	uint64_t max = lagom_chunk_max_bytes(proto);

	if (proto == LAGOM_PROTO_SIMPLE && buffsize_bytes &&
	    buffsize_bytes != def_buff)
		chunk = chunk * buffsize_bytes / def_buff;
	if (max && chunk > max)
		chunk = max;
	return chunk > bytes ? bytes : chunk;
}

/* The configuration the plan gives occurrence rc of class j. */
static int planned_config(const struct lagom_hw *hw,
			  const struct lagom_plan *plan, size_t j,
			  const struct lagom_region_coll *rc,
			  struct lagom_coll_config *cfg,
			  struct lagom_error *err)
{
	const struct lagom_plan_coll *c = &plan->colls[j];

	if (c->keep)
		return lagom_nccl_default(hw, &rc->comm, rc->coll, rc->bytes,
					  cfg, err);
	*cfg = c->config;
	if (!cfg->chunk_bytes)
		cfg->chunk_bytes = env_chunk(plan->env.buffsize_bytes,
					     cfg->algo, cfg->proto, rc->bytes);
	if (cfg->chunk_bytes > rc->bytes)
		cfg->chunk_bytes = rc->bytes;
	if (!cfg->nthreads)
		cfg->nthreads = plan->env.nthreads;
	return 0;
}

/*
 * Region r of w as the plan sees it: each occurrence gets its class's
 * communicator (the hops topology.conf gave the planner).  classes[k]: the
 * class of occurrence k, -1 for none.  true when class j occurs in it.
 */
static bool plan_region(const struct lagom_plan *plan,
			const struct lagom_region *src, size_t j,
			struct lagom_region *reg, long *classes)
{
	bool has = false;

	*reg = *src;
	for (size_t k = 0; k < reg->ncolls; k++) {
		classes[k] = class_of(plan, &reg->colls[k]);
		if (classes[k] >= 0)
			reg->colls[k].comm = plan->colls[classes[k]].comm;
		has = has || classes[k] == (long)j;
	}
	return has;
}

/* The regions of class j with j at nc channels (0: NCCL's defaults for
 * every collective), summed per iteration. */
static int regions_at(const struct lagom_hw *hw, const struct lagom_workload *w,
		      const struct lagom_plan *plan, size_t j, unsigned nc,
		      struct cli_curve_point *pt, struct lagom_error *err)
{
	struct lagom_coll_config cfg[LAGOM_REGION_MAX_COLLS];
	long classes[LAGOM_REGION_MAX_COLLS];
	struct cli_curve_point sum = { .ok = true };
	struct lagom_region reg;
	struct lagom_region_time rt;
	int rc;

	for (size_t r = 0; r < w->nregions; r++) {
		double rep = w->regions[r].repeat ? w->regions[r].repeat : 1;

		if (!plan_region(plan, &w->regions[r], j, &reg, classes))
			continue;
		for (size_t k = 0; nc && k < reg.ncolls; k++) {
			rc = classes[k] < 0
				     ? lagom_nccl_default(
					       hw, &reg.colls[k].comm,
					       reg.colls[k].coll,
					       reg.colls[k].bytes, &cfg[k], err)
				     : planned_config(
					       hw, plan, (size_t)classes[k],
					       &reg.colls[k], &cfg[k], err);
			if (rc)
				return rc;
			if (classes[k] == (long)j)
				cfg[k].nchannels = nc;
		}
		if (lagom_region_time(hw, &reg, nc ? cfg : NULL, &rt, NULL)) {
			*pt = (struct cli_curve_point){ .ok = false };
			return 0;
		}
		sum.comp_s += rep * rt.y_s;
		sum.comm_s += rep * rt.x_s;
		sum.region_s += rep * rt.z_s;
	}
	*pt = sum;
	return 0;
}

static const struct lagom_region_coll *first_occurrence(
	const struct lagom_workload *w, const struct lagom_plan *plan, size_t j)
{
	for (size_t r = 0; r < w->nregions; r++)
		for (size_t k = 0; k < w->regions[r].ncolls; k++)
			if (class_of(plan, &w->regions[r].colls[k]) == (long)j)
				return &w->regions[r].colls[k];
	return NULL;
}

static int one_curve(const struct lagom_hw *hw, const struct lagom_workload *w,
		     const struct lagom_plan *plan, size_t j,
		     struct cli_curve *cv, struct lagom_error *err)
{
	const struct lagom_plan_coll *c = &plan->colls[j];
	const struct lagom_region_coll *occ = first_occurrence(w, plan, j);
	struct lagom_region_coll rc;
	struct lagom_coll_config def, swept;
	struct cli_curve_point pt;
	unsigned wide;
	int rv;

	if (!occ)
		return lagom_errprintf(err, EINVAL,
				       "%s of %llu bytes is in no region of "
				       "the workload",
				       lagom_coll_name(c->coll),
				       (unsigned long long)c->bytes);
	rc = *occ;
	rc.comm = c->comm;
	if ((rv = lagom_nccl_default(hw, &rc.comm, rc.coll, rc.bytes, &def,
				     err)) ||
	    (rv = planned_config(hw, plan, j, &rc, &swept, err)))
		return rv;
	*cv = (struct cli_curve){
		.class_index = j,
		.coll = c->coll,
		.bytes = c->bytes,
		.ranks = c->comm.ranks,
		.nodes = c->comm.nodes,
		.calls = c->calls,
		.algo = swept.algo,
		.proto = swept.proto,
		.keep = c->keep,
		.nccl_nc = def.nchannels,
		.lagom_nc = swept.nchannels,
	};
	wide = 2 * (cv->nccl_nc > cv->lagom_nc ? cv->nccl_nc : cv->lagom_nc);
	cv->nc_max = wide < 8		       ? 8
		     : wide > CLI_CURVE_NC_MAX ? CLI_CURVE_NC_MAX
					       : wide;
	for (unsigned nc = 1; nc <= cv->nc_max; nc++)
		if ((rv = regions_at(hw, w, plan, j, nc, &cv->points[nc - 1],
				     err)))
			return rv;
	if ((rv = regions_at(hw, w, plan, j, cv->lagom_nc, &pt, err)))
		return rv;
	cv->lagom_region_s = pt.ok ? pt.region_s : -1;
	if ((rv = regions_at(hw, w, plan, j, 0, &pt, err)))
		return rv;
	cv->nccl_region_s = pt.ok ? pt.region_s : -1;
	return 0;
}

int cli_plan_curves(const struct lagom_hw *hw, const struct lagom_workload *w,
		    const struct lagom_plan *plan, struct cli_curve **out,
		    size_t *count, struct lagom_error *err)
{
	size_t n = plan->ncolls < CLI_SVG_MAX_PANELS ? plan->ncolls
						     : CLI_SVG_MAX_PANELS;
	struct cli_curve *cv = calloc(n ? n : 1, sizeof(*cv));
	int rc;

	if (!cv)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (size_t j = 0; j < n; j++) {
		if ((rc = one_curve(hw, w, plan, j, &cv[j], err))) {
			free(cv);
			return rc;
		}
	}
	*out = cv;
	*count = n;
	return 0;
}
