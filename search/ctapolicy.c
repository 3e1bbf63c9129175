/*
 * search/ctapolicy.c - NCCL_CTA_POLICY as the search models it
 * (doc/search.md "NCCL_CTA_POLICY"): which classes NCCL 2.28's efficiency
 * policy moves, and to what.  NCCL's facts (NCCL 2.28 src/enqueue.cc, nvls.cc ncclNvlsRegResourcesQuery): the policy
 * acts only without a tuner plugin and without NCCL_ALGO/NCCL_PROTO, on
 * all-gathers and reduce-scatters whose buffers are registered, when NVLS
 * is available; it then runs them on NVLS/Simple with the recommended CTA
 * count: ceil(f / heads), f = 32 for all-gather and 40 (48 from sm_100)
 * for reduce-scatter on one node, bounded by NCCL_MIN/MAX_CTAS, and only
 * when that count is at most the call's own channel count.  It is NCCL's
 * own lever for the SM footprint the method trades: a channel cap for
 * those two collectives alone, which NCCL_MAX_CTAS (every collective)
 * cannot express.
 */
#include "config.h"

#include "search/search_int.h"

#define CTA_EFF_AG_FACTOR 32
#define CTA_EFF_RS_FACTOR 40
#define CTA_EFF_RS_FACTOR_SM100 48

bool search_cta_policy_candidate(const struct sproblem *p)
{
	return p->registered_buffers &&
	       p->nccl_version >= LAGOM_NCCL_CTA_POLICY_SINCE;
}

bool search_cta_efficiency(const struct sproblem *p, size_t j, unsigned cap,
			   uint64_t buffsize_bytes,
			   const struct lagom_coll_config *base,
			   struct lagom_coll_config *out)
{
	const struct sclass *k = &p->cls[j];
	unsigned factor, nchannels;

	if (k->coll == LAGOM_COLL_ALLGATHER)
		factor = CTA_EFF_AG_FACTOR;
	else if (k->coll == LAGOM_COLL_REDUCESCATTER)
		factor = p->hw->gpu.sm_arch >= 100 ? CTA_EFF_RS_FACTOR_SM100
						   : CTA_EFF_RS_FACTOR;
	else
		return false;
	/* One node only: NCCL's multi-node branch needs CollNet and NVLS
	 * together and is not modelled.  One NVLS head per GPU of the node. */
	if (k->comm.nodes != 1 || k->comm.ranks == 0 ||
	    !(k->impl_mask & (1u << (LAGOM_ALGO_NVLS * LAGOM_PROTO_COUNT +
				     LAGOM_PROTO_SIMPLE))))
		return false;
	nchannels = (factor + k->comm.ranks - 1) / k->comm.ranks;
	if (cap && nchannels > cap)
		nchannels = cap;
	if (nchannels > base->nchannels)
		return false;
	*out = *base;
	out->algo = LAGOM_ALGO_NVLS;
	out->proto = LAGOM_PROTO_SIMPLE;
	out->nchannels = nchannels;
	out->nthreads = 0;
	out->chunk_bytes = search_chunk_bytes(buffsize_bytes, LAGOM_ALGO_NVLS,
					      LAGOM_PROTO_SIMPLE, k->bytes);
	return true;
}

/*
 * NCCL_CTA_POLICY=zero (doc/search.md): copy-engine collectives on
 * symmetric windows, NCCL 2.28+.  A candidate only when the site says the
 * buffers are symmetric (the model's copy-engine term is not fitted:
 * lagom_ce_time_s()), and for a class only where every occurrence shares
 * its communicator (the timeline then takes the class's time as given and
 * no channel count is priced).
 */
bool search_ce_candidate(const struct sproblem *p)
{
	return p->valid && p->symmetric_buffers &&
	       p->nccl_version >= LAGOM_CE_SINCE;
}

bool search_ce_class(const struct sproblem *p, size_t j, double *x_s)
{
	const struct sclass *k = &p->cls[j];

	if (!lagom_ce_supported(p->hw, &k->comm, k->coll, p->nccl_version))
		return false;
	for (size_t o = 0; o < p->nocc; o++)
		if (p->occ_class[o] == j && !p->occ_class_comm[o])
			return false;
	*x_s = lagom_ce_time_s(p->hw, &k->comm, k->coll, k->bytes);
	return *x_s > 0;
}
