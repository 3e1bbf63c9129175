/*
 * profile/profile_hw.c - a profile as the cost model's struct lagom_hw: the
 * one translation of a node's facts into the model's terms, made at plan
 * time.  Table values for the GPU model (the spec table as this lagom has
 * it), overridden by what the node's profile knows (method: the model is
 * fed measured hardware where there is some).  See profile.h.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>

#include "model/model.h"
#include "profile/profile.h"
#include "profile/profile_int.h"

/* A node without a fabric (fewer than two GPUs) plans as PCIe; one whose
 * topology did not show it, on the GPU's usual fabric (the spec table). */
static enum lagom_intra intra_of(const struct lagom_profile_hw *h)
{
	if (h->intra == LAGOM_INTRA_DEFAULT)
		return h->gpu_count > 1 ? LAGOM_INTRA_DEFAULT
					: LAGOM_INTRA_PCIE;
	return h->intra == LAGOM_INTRA_NVLINK ||
			       h->intra == LAGOM_INTRA_NVSWITCH
		       ? h->intra
		       : LAGOM_INTRA_PCIE;
}

static void override_u(unsigned *dst, int value)
{
	if (value > 0)
		*dst = (unsigned)value;
}

/*
 * What the node's topology showed beats the table's guess: NVLink facts
 * only on an NVLink or NVSwitch fabric, NIC facts only with NICs, the
 * NVLink domain only on NVSwitch; 0 (unknown) keeps the table's value.
 */
static void apply_hw(const struct lagom_profile_hw *h, struct lagom_hw *hw)
{
	override_u(&hw->gpu.sm_count, h->gpu_sm_count);
	if (h->gpu_memory_bytes > 0)
		hw->gpu.mem_bytes = h->gpu_memory_bytes;
	if (hw->intra != LAGOM_INTRA_PCIE) {
		override_u(&hw->intra_links, h->nvlinks_per_gpu);
		override_u(&hw->nvlink_peers, h->nvlink_peers);
	}
	override_u(&hw->pcie_gen, h->pcie_gen);
	override_u(&hw->pcie_lanes, h->pcie_lanes);
	override_u(&hw->gpus_per_pcie_switch, h->gpus_per_pcie_switch);
	if (hw->nic_count > 0) {
		override_u(&hw->gpus_per_nic, h->gpus_per_nic);
		hw->nic_gdr = h->nic_rdma != 0;
		if (h->nic_transport > 0 && h->nic_transport < LAGOM_NET_COUNT)
			hw->transport = (enum lagom_transport)h->nic_transport;
	}
	if (hw->intra == LAGOM_INTRA_NVSWITCH && h->nvl_domain_nodes > 1)
		hw->nvl_domain_nodes = (unsigned)h->nvl_domain_nodes;
}

/*
 * One channel's rate from the prolog's measured busbw-over-channels grid
 * (doc/model.md 2.8): each collective's curve fitted alone, the smallest
 * rate kept (an NVLS all-reduce's busbw can exceed what a ring channel
 * carries).  A grid that does not fit leaves the model's rule (0).
 */
static double channel_rate(const struct lagom_profile_measurements *m)
{
	unsigned nch[LAGOM_PROFILE_MAX_POINTS];
	double bw[LAGOM_PROFILE_MAX_POINTS], best = 0;

	if (m->busbw_source != LAGOM_SOURCE_MEASURED)
		return 0;
	for (int c = 0; c < LAGOM_COLL_COUNT; c++) {
		size_t n = 0;
		double rate;

		for (size_t i = 0;
		     i < m->n_busbw && i < LAGOM_PROFILE_MAX_POINTS; i++)
			if ((int)m->busbw[i].collective == c &&
			    m->busbw[i].channels > 0) {
				nch[n] = (unsigned)m->busbw[i].channels;
				bw[n++] = m->busbw[i].busbw_Bps;
			}
		if (n >= 2 && lagom_channel_fit(nch, bw, n, &rate, NULL) == 0 &&
		    (best == 0 || rate < best))
			best = rate;
	}
	return best;
}

/* Measured (or tabled) numbers of the profile beat the model's table. */
static void apply_meas(const struct lagom_profile_measurements *m,
		       struct lagom_hw *hw)
{
	for (int i = 0; i < LAGOM_PREC_COUNT; i++)
		if (m->gemm_flops[i].source != LAGOM_SOURCE_ABSENT)
			hw->gpu.tflops[i] = m->gemm_flops[i].value / 1e12;
	if (m->hbm_bw_Bps.source != LAGOM_SOURCE_ABSENT)
		hw->gpu.hbm_Bps = m->hbm_bw_Bps.value;
	if (m->intra_bw_Bps.source != LAGOM_SOURCE_ABSENT) {
		if (hw->intra == LAGOM_INTRA_PCIE)
			hw->pcie_Bps = m->intra_bw_Bps.value;
		else if (hw->intra_links > 0)
			hw->intra_link_Bps = m->intra_bw_Bps.value /
					     hw->intra_links;
	}
	if (m->nic_bw_Bps.source != LAGOM_SOURCE_ABSENT && hw->nic_count > 0)
		hw->nic_Bps = m->nic_bw_Bps.value;
	/*
	 * The model applies its spec-sheet efficiencies unless every
	 * bandwidth it uses was achieved on this node: one flag covers them
	 * all, so a partly measured node keeps the efficiencies.
	 */
	hw->ch_Bps = channel_rate(m);
	hw->bw_measured = m->intra_bw_Bps.source == LAGOM_SOURCE_MEASURED &&
			  (hw->nic_count == 0 ||
			   m->nic_bw_Bps.source == LAGOM_SOURCE_MEASURED);
}

/*
 * lagom-prolog's probe (prolog/probe_contention.c): an 8192^3 GEMM, seen
 * the way the model sees workload GEMMs: 128 x 128 tiles, one block per SM
 * at a time, memory-bound share 0.2 (doc/model.md 4.1).
 */
#define PROBE_GEMM_N 8192
#define PROBE_TILE 128
#define PROBE_MEM_BOUND 0.2

/* Method: the measured contention curve calibrates the model's global
 * contention term (doc/model.md 4.1). */
int lagom_profile_fit_contention(const struct lagom_profile *p,
				 struct lagom_hw *hw,
				 struct lagom_fit_report *rep,
				 struct lagom_error *err)
{
	const struct lagom_profile_measurements *m = &p->meas;
	const unsigned tiles = PROBE_GEMM_N / PROBE_TILE;
	const struct lagom_kernel probe = { .time_s = 1.0,
					    .grid_blocks = tiles * tiles,
					    .blocks_per_sm = 1,
					    .mem_bound = PROBE_MEM_BOUND };
	struct lagom_fit_point pts[LAGOM_PROFILE_MAX_POINTS];
	size_t n = m->n_contention;
	int rc;

	if (m->contention_source != LAGOM_SOURCE_MEASURED || n == 0)
		return lagom_errprintf(err, ENODATA,
				       "profile %s: no measured contention "
				       "curve",
				       p->node);
	if (n > LAGOM_PROFILE_MAX_POINTS)
		n = LAGOM_PROFILE_MAX_POINTS;
	for (size_t i = 0; i < n; i++) {
		const struct lagom_contention_point *c = &m->contention[i];

		pts[i] = (struct lagom_fit_point){
			.nchannels = c->ctas < 0 ? UINT_MAX : (unsigned)c->ctas,
			.chunk_bytes = c->chunk_bytes,
			.slowdown = c->slowdown,
		};
	}
	rc = lagom_contention_fit(pts, n, &probe, hw, rep, err);
	if (rc < 0)
		return lagom_error_prefix(err, "profile %s", p->node);
	return 0;
}

int lagom_profile_spec_hw(const struct lagom_profile_hw *h,
			  struct lagom_hw *out, struct lagom_error *err)
{
	return lagom_hw_from_spec(h->gpu_model, (unsigned)h->gpu_count,
				  intra_of(h), 0, 0, out, err);
}

/* Every field of the profile read here (and by the fit above) must also be
 * in the cluster digest's entry (profile/digest.c), or a plan made from the
 * digest would differ from one made from the profiles. */
int lagom_profile_to_hw_spec(const struct lagom_profile *p,
			     const struct lagom_hw *spec, struct lagom_hw *out,
			     struct lagom_error *err)
{
	const struct lagom_profile_hw *h = &p->hw;
	struct lagom_hw hw;
	double nic_Bps = h->nic_link_bw_Bps;
	unsigned nics = (unsigned)h->nic_count;
	int rc;

	if (h->gpu_count <= 0)
		return lagom_errprintf(err, ENODEV, "profile %s: no GPU",
				       p->node);
	if (p->meas.nic_bw_Bps.source != LAGOM_SOURCE_ABSENT)
		nic_Bps = p->meas.nic_bw_Bps.value;
	if (!(nic_Bps > 0 && isfinite(nic_Bps)))
		nics = 0; /* NICs of unknown speed: treated as single node */
	if (spec)
		hw = *spec;
	else if ((rc = lagom_profile_spec_hw(h, &hw, err)) < 0)
		return lagom_error_prefix(err, "profile %s", p->node);
	lagom_hw_set_nics(&hw, nics, nic_Bps);
	apply_hw(h, &hw);
	apply_meas(&p->meas, &hw);
	/* A curve the fit refuses leaves the built-in coefficients: a real
	 * profile must never stop the model from working. */
	(void)lagom_profile_fit_contention(p, &hw, NULL, NULL);
	rc = lagom_hw_check(&hw, err);
	if (rc < 0)
		return lagom_error_prefix(err, "profile %s", p->node);
	*out = hw;
	return 0;
}

int lagom_profile_to_hw(const struct lagom_profile *p, struct lagom_hw *out,
			struct lagom_error *err)
{
	return lagom_profile_to_hw_spec(p, NULL, out, err);
}
