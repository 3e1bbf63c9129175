/*
 * search/problem.c - a workload as the search sees it: collective classes,
 * components, canonical region order (so the plan does not depend on the
 * order the workload was built in).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "search/search_int.h"

static const unsigned nchannels_grid_full[] = { 1,  2,	3,  4,	6,  8,	12,
						16, 24, 32, 40, 48, 56, 64 };

static int dcmp(double a, double b)
{
	return (a > b) - (a < b);
}

static int ucmp(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* A total order on region contents (names first). */
static int region_cmp(const struct lagom_region *a,
		      const struct lagom_region *b)
{
	int c = strncmp(a->name, b->name, LAGOM_NAME_MAX);
	size_t i;

	if (c || (c = ucmp(a->repeat, b->repeat)) ||
	    (c = dcmp(a->serial_s, b->serial_s)) ||
	    (c = ucmp(a->nkernels, b->nkernels)) ||
	    (c = ucmp(a->ncolls, b->ncolls)))
		return c;
	for (i = 0; i < a->nkernels && i < LAGOM_REGION_MAX_KERNELS; i++)
		if ((c = dcmp(a->kernels[i].time_s, b->kernels[i].time_s)) ||
		    (c = ucmp(a->kernels[i].grid_blocks,
			      b->kernels[i].grid_blocks)) ||
		    (c = dcmp(a->kernels[i].mem_bound,
			      b->kernels[i].mem_bound)))
			return c;
	for (i = 0; i < a->ncolls && i < LAGOM_REGION_MAX_COLLS; i++)
		if ((c = ucmp(a->colls[i].coll, b->colls[i].coll)) ||
		    (c = ucmp(a->colls[i].bytes, b->colls[i].bytes)) ||
		    (c = ucmp(a->colls[i].comm.ranks,
			      b->colls[i].comm.ranks)) ||
		    (c = dcmp(a->colls[i].ready_s, b->colls[i].ready_s)))
			return c;
	return 0;
}

static int class_key_cmp(enum lagom_coll c1, uint64_t b1,
			 const struct lagom_comm *m1, enum lagom_coll c2,
			 uint64_t b2, const struct lagom_comm *m2)
{
	int c;

	if ((c = ucmp(c1, c2)) || (c = ucmp(m1->ranks, m2->ranks)) ||
	    (c = ucmp(m1->nodes, m2->nodes)))
		return c;
	return ucmp(b1, b2);
}

static void sort_regions(struct sproblem *p)
{
	const struct lagom_region *r = p->w->regions;
	size_t i, j;

	for (i = 0; i < p->w->nregions; i++) {
		unsigned v = (unsigned)i;

		for (j = i;
		     j > 0 && region_cmp(&r[v], &r[p->region_order[j - 1]]) < 0;
		     j--)
			p->region_order[j] = p->region_order[j - 1];
		p->region_order[j] = v;
	}
}

/* Insert the class of one collective, keeping cls sorted by key. */
static unsigned add_class(struct sproblem *p,
			  const struct lagom_region_coll *rc, unsigned repeat)
{
	size_t i, pos = p->nclass;

	for (i = 0; i < p->nclass; i++) {
		struct sclass *k = &p->cls[i];
		int c = class_key_cmp(k->coll, k->bytes, &k->comm, rc->coll,
				      rc->bytes, &rc->comm);

		if (c == 0) {
			k->calls += repeat;
			return (unsigned)i;
		}
		if (c > 0 && pos == p->nclass)
			pos = i;
	}
	memmove(&p->cls[pos + 1], &p->cls[pos],
		(p->nclass - pos) * sizeof(*p->cls));
	p->cls[pos] = (struct sclass){ .coll = rc->coll,
				       .bytes = rc->bytes,
				       .comm = rc->comm,
				       .calls = repeat };
	p->nclass++;
	return (unsigned)pos;
}

static unsigned find_class(const struct sproblem *p,
			   const struct lagom_region_coll *rc)
{
	for (size_t i = 0; i < p->nclass; i++)
		if (class_key_cmp(p->cls[i].coll, p->cls[i].bytes,
				  &p->cls[i].comm, rc->coll, rc->bytes,
				  &rc->comm) == 0)
			return (unsigned)i;
	return 0;
}

static unsigned uf_find(unsigned *parent, unsigned i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

/* Components: classes that share a region are searched together. */
static int build_components(struct sproblem *p)
{
	unsigned *parent = calloc(p->nclass + 1, sizeof(*parent));
	unsigned *label = calloc(p->nclass + 1, sizeof(*label));
	size_t i, r;

	if (!parent || !label) {
		free(parent);
		free(label);
		return -ENOMEM;
	}
	for (i = 0; i < p->nclass; i++) {
		parent[i] = (unsigned)i;
		label[i] = UINT_MAX;
	}
	for (r = 0; r < p->w->nregions; r++)
		for (i = 1; i < p->w->regions[r].ncolls; i++) {
			unsigned a = uf_find(parent,
					     p->occ_class[p->region_first[r]]);
			unsigned b = uf_find(
				parent, p->occ_class[p->region_first[r] + i]);
			parent[a > b ? a : b] = a < b ? a : b;
		}
	p->ncomp = 0;
	for (i = 0; i < p->nclass; i++) {
		unsigned root = uf_find(parent, (unsigned)i);

		if (label[root] == UINT_MAX)
			label[root] = p->ncomp++;
		p->cls[i].comp = label[root];
	}
	for (r = 0; r < p->w->nregions; r++)
		p->region_comp[r] =
			p->w->regions[r].ncolls
				? p->cls[p->occ_class[p->region_first[r]]].comp
				: UINT_MAX;
	free(parent);
	free(label);
	return 0;
}

static int alloc_problem(struct sproblem *p)
{
	size_t r, n = 0, nr = p->w->nregions;

	for (r = 0; r < nr; r++) {
		if (p->w->regions[r].ncolls > LAGOM_REGION_MAX_COLLS)
			return lagom_errprintf(
				p->err, EINVAL,
				"region %zu: too many collectives", r);
		n += p->w->regions[r].ncolls;
	}
	p->nocc = n;
	p->cls = calloc(n + 1, sizeof(*p->cls));
	p->occ_class = calloc(n + 1, sizeof(*p->occ_class));
	p->cfg = calloc(n + 1, sizeof(*p->cfg));
	p->region_first = calloc(nr + 1, sizeof(*p->region_first));
	p->region_order = calloc(nr + 1, sizeof(*p->region_order));
	p->region_comp = calloc(nr + 1, sizeof(*p->region_comp));
	p->occ_class_comm = calloc(n + 1, sizeof(*p->occ_class_comm));
	if (!p->cls || !p->occ_class || !p->cfg || !p->region_first ||
	    !p->region_order || !p->region_comp || !p->occ_class_comm)
		return lagom_errprintf(p->err, ENOMEM, "out of memory");
	for (r = 0, n = 0; r < nr; r++) {
		p->region_first[r] = n;
		n += p->w->regions[r].ncolls;
	}
	return 0;
}

static void init_nchannels_grid(struct sproblem *p,
				const struct lagom_search_opts *opts)
{
	unsigned cap = opts && opts->max_nchannels ? opts->max_nchannels
						   : LAGOM_NCHANNELS_MAX;
	size_t i;

	if (p->hw->gpu.sm_count > 1 && cap > p->hw->gpu.sm_count - 1)
		cap = p->hw->gpu.sm_count - 1;
	p->n_nchannels = 0;
	for (i = 0;
	     i < sizeof(nchannels_grid_full) / sizeof(*nchannels_grid_full);
	     i++)
		if (nchannels_grid_full[i] <= cap || p->n_nchannels == 0)
			p->nchannels_grid[p->n_nchannels++] =
				nchannels_grid_full[i];
}

static int alloc_tables(struct sproblem *p)
{
	size_t n = p->nclass * p->n_nchannels + 1;

	p->table_cfg = calloc(n, sizeof(*p->table_cfg));
	p->table_x = calloc(n, sizeof(*p->table_x));
	p->table_x1 = calloc(n, sizeof(*p->table_x1));
	p->table_cost = calloc(n, sizeof(*p->table_cost));
	p->choice = calloc(p->nclass + 1, sizeof(*p->choice));
	p->xcache = calloc(n * SEARCH_IMPLS, sizeof(*p->xcache));
	if (!p->table_cfg || !p->table_x || !p->table_x1 || !p->table_cost ||
	    !p->choice || !p->xcache)
		return lagom_errprintf(p->err, ENOMEM, "out of memory");
	for (size_t i = 0; i < n * SEARCH_IMPLS; i++)
		p->xcache[i] = -1;
	return 0;
}

static bool same_comm(const struct lagom_comm *a, const struct lagom_comm *b)
{
	return a->ranks == b->ranks && a->nodes == b->nodes &&
	       a->ranks_per_node == b->ranks_per_node && a->hops == b->hops &&
	       a->time_scale == b->time_scale;
}

/*
 * Check once what every model call would check again (the hardware, each
 * collective's communicator and size, each region), so the search can use
 * the unchecked entry points.  Also notes which occurrences share their
 * class's communicator (the class's tables hold their times).
 */
static bool inputs_valid(struct sproblem *p)
{
	bool ok = lagom_hw_check(p->hw, NULL) == 0;

	for (size_t r = 0; r < p->w->nregions; r++) {
		const struct lagom_region *reg = &p->w->regions[r];

		ok = ok && lagom_region_check(reg, NULL) == 0;
		for (size_t k = 0; k < reg->ncolls; k++) {
			const struct lagom_region_coll *c = &reg->colls[k];
			size_t o = p->region_first[r] + k;

			ok = ok && c->bytes > 0 &&
			     lagom_call_check(p->hw, &c->comm, c->coll, NULL) ==
				     0;
			p->occ_class_comm[o] = same_comm(
				&c->comm, &p->cls[p->occ_class[o]].comm);
		}
	}
	return ok;
}

/* The implementations lagom_coll_supported() allows for class k. */
static void set_impl_mask(const struct sproblem *p, struct sclass *k)
{
	if (!p->valid && lagom_call_check(p->hw, &k->comm, k->coll, NULL) != 0)
		return; /* supports nothing */
	for (unsigned i = 0; i < SEARCH_IMPLS; i++)
		if (lagom_coll_allowed_nocheck(
			    p->hw, &k->comm, k->coll,
			    (enum lagom_algo)(i / LAGOM_PROTO_COUNT),
			    (enum lagom_proto)(i % LAGOM_PROTO_COUNT)))
			k->impl_mask |= 1u << i;
}

int sproblem_init(struct sproblem *p, const struct lagom_hw *hw,
		  const struct lagom_workload *w,
		  const struct lagom_search_opts *opts, struct lagom_error *err)
{
	size_t i, k;
	int rc;

	*p = (struct sproblem){ .hw = hw, .w = w, .err = err };
	p->refine_budget = opts && opts->refine_budget ? opts->refine_budget
						       : SEARCH_DEFAULT_REFINE;
	p->min_gain = opts && opts->min_gain > 0 ? opts->min_gain
						 : SEARCH_DEFAULT_MIN_GAIN;
	p->nccl_version = opts ? opts->nccl_version : 0;
	p->registered_buffers = opts && opts->registered_buffers;
	p->symmetric_buffers = opts && opts->symmetric_buffers;
	p->no_gate = opts && opts->no_gate;
	if (!hw || !w || (w->nregions && !w->regions))
		return lagom_errprintf(err, EINVAL, "no hardware or workload");
	if ((rc = alloc_problem(p)) < 0)
		goto fail;
	init_nchannels_grid(p, opts);
	sort_regions(p);
	for (i = 0; i < w->nregions; i++) {
		const struct lagom_region *r = &w->regions[p->region_order[i]];

		for (k = 0; k < r->ncolls; k++)
			add_class(p, &r->colls[k], r->repeat ? r->repeat : 1);
	}
	if (p->nclass > LAGOM_PLAN_MAX_COLLS) {
		rc = lagom_errprintf(err, EINVAL,
				     "%zu collective classes, at most %d",
				     p->nclass, LAGOM_PLAN_MAX_COLLS);
		goto fail;
	}
	for (i = 0; i < w->nregions; i++)
		for (k = 0; k < w->regions[i].ncolls; k++)
			p->occ_class[p->region_first[i] + k] = find_class(
				p, &w->regions[i].colls[k]);
	p->valid = inputs_valid(p);
	for (i = 0; i < p->nclass; i++)
		set_impl_mask(p, &p->cls[i]);
	if ((rc = build_components(p)) < 0 || (rc = alloc_tables(p)) < 0)
		goto fail;
	return 0;
fail:
	sproblem_fini(p);
	return rc;
}

void sproblem_fini(struct sproblem *p)
{
	free(p->cls);
	free(p->occ_class);
	free(p->cfg);
	free(p->region_first);
	free(p->region_order);
	free(p->region_comp);
	free(p->table_cfg);
	free(p->table_x);
	free(p->table_x1);
	free(p->table_cost);
	free(p->occ_class_comm);
	free(p->choice);
	free(p->xcache);
	memset(p, 0, sizeof(*p));
}

uint64_t search_chunk_bytes(uint64_t buffsize_bytes, enum lagom_algo algo,
			    enum lagom_proto proto, uint64_t bytes)
{
	uint64_t chunk = lagom_chunk_default_bytes(algo, proto);
	uint64_t max = lagom_chunk_max_bytes(proto);
	const uint64_t def_buff = 4u << 20;

	if (proto == LAGOM_PROTO_SIMPLE && buffsize_bytes &&
	    buffsize_bytes != def_buff)
		chunk = chunk * buffsize_bytes / def_buff;
	if (max && chunk > max)
		chunk = max;
	if (chunk > bytes)
		chunk = bytes;
	return chunk;
}

void sproblem_apply(struct sproblem *p, const struct lagom_coll_config *cls)
{
	for (size_t i = 0; i < p->nocc; i++)
		p->cfg[i] = cls[p->occ_class[i]];
}

int sproblem_coll_time(struct sproblem *p, size_t j,
		       const struct lagom_coll_config *c, double *x_s)
{
	const struct sclass *k = &p->cls[j];
	struct lagom_coll_time t;
	int rc;

	if (p->valid) {
		rc = lagom_coll_config_check_nocheck(p->hw, &k->comm, k->coll,
						     k->bytes, c, p->err);
		if (rc == 0)
			*x_s = lagom_coll_time_s_nocheck(p->hw, &k->comm,
							 k->coll, k->bytes, c);
		return rc;
	}
	rc = lagom_coll_predict(p->hw, &k->comm, k->coll, k->bytes, c, &t,
				p->err);
	if (rc == 0)
		*x_s = t.time_s;
	return rc;
}

int sproblem_region(struct sproblem *p, unsigned r, const double *coll_time_s,
		    struct lagom_region_time *rt)
{
	const struct lagom_region *reg = &p->w->regions[r];
	const struct lagom_coll_config *cfg = &p->cfg[p->region_first[r]];
	double x[LAGOM_REGION_MAX_COLLS];

	if (!p->valid)
		return lagom_region_time(p->hw, reg, reg->ncolls ? cfg : NULL,
					 rt, p->err);
	if (!coll_time_s) {
		for (size_t k = 0; k < reg->ncolls; k++)
			x[k] = lagom_coll_time_s_nocheck(
				p->hw, &reg->colls[k].comm, reg->colls[k].coll,
				reg->colls[k].bytes, &cfg[k]);
		coll_time_s = x;
	}
	return lagom_region_timeline_nocheck(p->hw, reg, cfg, coll_time_s, rt,
					     p->err);
}

int sproblem_iteration_x(struct sproblem *p, const double *class_x,
			 double *time_s)
{
	double t = p->w->serial_s, x[LAGOM_REGION_MAX_COLLS];
	size_t i;
	int rc;

	for (i = 0; i < p->w->nregions; i++) {
		unsigned r = p->region_order[i];
		const struct lagom_region *reg = &p->w->regions[r];
		struct lagom_region_time rt;
		size_t o = p->region_first[r];

		for (size_t k = 0; class_x && p->valid && k < reg->ncolls; k++)
			x[k] = p->occ_class_comm[o + k]
				       ? class_x[p->occ_class[o + k]]
				       : lagom_coll_time_s_nocheck(
						 p->hw, &reg->colls[k].comm,
						 reg->colls[k].coll,
						 reg->colls[k].bytes,
						 &p->cfg[o + k]);
		if ((rc = sproblem_region(p, r, class_x ? x : NULL, &rt)) < 0)
			return rc;
		t += (reg->repeat ? reg->repeat : 1) * rt.z_s;
	}
	*time_s = t;
	return 0;
}

int sproblem_iteration(struct sproblem *p, double *time_s)
{
	return sproblem_iteration_x(p, NULL, time_s);
}

struct lagom_workload *lagom_search_workload_copy(
	const struct lagom_workload *w)
{
	struct lagom_workload *c = lagom_workload_create(w->name, w->nregions);

	if (!c)
		return NULL;
	if (w->nregions)
		memcpy(c->regions, w->regions,
		       w->nregions * sizeof(*w->regions));
	c->serial_s = w->serial_s;
	return c;
}

void lagom_search_workload_hops(struct lagom_workload *w, enum lagom_hops hops)
{
	for (size_t r = 0; r < w->nregions; r++)
		for (size_t c = 0; c < w->regions[r].ncolls; c++)
			if (w->regions[r].colls[c].comm.nodes > 1)
				w->regions[r].colls[c].comm.hops = hops;
}
