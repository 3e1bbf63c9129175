/*
 * model/channel.c - what one channel (one CTA) carries on the intra-node
 * fabric, NCCL's copy-engine collectives, and the error the model is known
 * to have (doc/model.md 2.8-2.10).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "model/model_int.h"

static int arch_row(unsigned sm_arch)
{
	return sm_arch >= 100 ? 3 : sm_arch >= 90 ? 2 : sm_arch >= 80 ? 1 : 0;
}

/*
 * The per-CTA copy ceiling, Simple protocol, by architecture row (Volta,
 * Ampere, Hopper, Blackwell): NCCL's ring-graph speed per channel before
 * its postset doubling (links x topo.h link speed / search channels:
 * V100 20, A100 20, H100 23.2, B200 45.1 GB/s), which is the most NCCL's
 * own topology search lets one channel carry.  The network side keeps it
 * (doc/model.md 2: min with c_net).
 */
static const double ceiling_Bps[4] = { 10e9, 20e9, 24e9, 45e9 };

/*
 * Per-CTA rates measured on real NVLink/NVSwitch hardware, by row (0:
 * none).  Ampere: the A100 CTA sweep (tests/fixtures/measurements/overlap-cta-sweep-a100.csv,
 * 64 MiB all-reduce beside a GEMM): the curve flattens from 12 CTAs on
 * NVSwitch's 240 GB/s, 20 GB/s per CTA (tests/model/cta_a100.sh).
 */
static const double measured_Bps[4] = { 0, 20e9, 0, 0 };

double lagom_channel_ceiling_Bps(unsigned sm_arch)
{
	return ceiling_Bps[arch_row(sm_arch)];
}

/*
 * One channel's share (doc/model.md 2.8).  Without a measurement, NCCL's
 * own channel count is the evidence of how many CTAs the links need: NCCL
 * sizes it to the links (search, duplication, postset doubling), and on
 * NVLink-rich nodes fewer CTAs than NCCL's lowered throughput in published
 * runs (issue 32).  So the fabric is shared by NCCL's channels: fewer cost
 * bandwidth, and the link saturates exactly at NCCL's count.
 */
double lagom_channel_Bps_nocheck(const struct lagom_hw *hw,
				 const struct lagom_comm *comm)
{
	int row = arch_row(hw->gpu.sm_arch);
	unsigned ppn = comm->ranks_per_node, nch;
	double share;

	if (hw->ch_Bps > 0)
		return hw->ch_Bps;
	if (hw->intra == LAGOM_INTRA_PCIE || ppn <= 1)
		return ceiling_Bps[row];
	if (measured_Bps[row] > 0)
		return measured_Bps[row];
	nch = lagom_nccl_comm_channels_nocheck(hw, comm);
	share = lagom_intra_Bps(hw, ppn) / (nch ? nch : 1);
	return fmin(ceiling_Bps[row], share);
}

double lagom_channel_Bps(const struct lagom_hw *hw,
			 const struct lagom_comm *comm)
{
	if (!hw || lagom_hw_check(hw, NULL) || lagom_comm_check(hw, comm, NULL))
		return 0;
	return lagom_channel_Bps_nocheck(hw, comm);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int fit_points_check(const unsigned *nch, const double *bw, size_t n,
			    double *top, unsigned *nmin, unsigned *nmax,
			    struct lagom_error *err)
{
	if (!nch || !bw || n < 2)
		return lagom_errprintf(err, EINVAL,
				       "a channel curve needs two points or "
				       "more, got %zu",
				       n);
	*top = 0;
	*nmin = LAGOM_NCHANNELS_MAX + 1;
	*nmax = 0;
	for (size_t i = 0; i < n; i++) {
		if (nch[i] == 0 || nch[i] > LAGOM_NCHANNELS_MAX ||
		    !isfinite(bw[i]) || !(bw[i] > 0))
			return lagom_errprintf(err, EINVAL,
					       "channel curve point %zu: %u "
					       "channels, busbw %g",
					       i, nch[i], bw[i]);
		*top = fmax(*top, bw[i]);
		if (nch[i] < *nmin)
			*nmin = nch[i];
		if (nch[i] > *nmax)
			*nmax = nch[i];
	}
	if (*nmin == *nmax)
		return lagom_errprintf(err, EINVAL,
				       "channel curve measured at %u channels "
				       "only",
				       *nmin);
	return 0;
}

int lagom_channel_fit(const unsigned *nchannels, const double *busbw_Bps,
		      size_t n, double *ch_Bps, struct lagom_error *err)
{
	double top = 0, c, *r;
	unsigned nmin = 1, nmax = 0;
	size_t k = 0;
	int rc = fit_points_check(nchannels, busbw_Bps, n, &top, &nmin, &nmax,
				  err);

	if (rc)
		return rc;
	if (!(r = calloc(n, sizeof(*r))))
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (busbw_Bps[i] < 0.85 * top)
			r[k++] = busbw_Bps[i] / nchannels[i];
	if (k == 0) {
		c = top / nmin;
	} else {
		qsort(r, k, sizeof(*r), cmp_double);
		c = k % 2 ? r[k / 2] : 0.5 * (r[k / 2 - 1] + r[k / 2]);
	}
	free(r);
	if (!(c >= LAGOM_CHANNEL_BPS_MIN && c <= LAGOM_CHANNEL_BPS_MAX))
		return lagom_errprintf(err, EINVAL,
				       "one channel's rate %.3g B/s is outside "
				       "%.3g..%.3g",
				       c, LAGOM_CHANNEL_BPS_MIN,
				       LAGOM_CHANNEL_BPS_MAX);
	*ch_Bps = c;
	return 0;
}

bool lagom_ce_supported(const struct lagom_hw *hw,
			const struct lagom_comm *comm, enum lagom_coll coll,
			unsigned nccl_version)
{
	if (!hw || !comm || lagom_hw_check(hw, NULL) ||
	    lagom_comm_check(hw, comm, NULL))
		return false;
	return (coll == LAGOM_COLL_ALLGATHER || coll == LAGOM_COLL_ALLTOALL) &&
	       comm->nodes == 1 && comm->ranks_per_node >= 2 &&
	       hw->nvl_domain_nodes <= 1 && hw->intra != LAGOM_INTRA_PCIE &&
	       hw->gpu.sm_arch >= 90 && nccl_version >= LAGOM_CE_SINCE;
}

/*
 * Copy engines (doc/model.md 2.9): every peer's block is one copy the
 * engines run, over the same links the SM kernels use; no SM, so no
 * channel count.  Placeholder constants, not fitted (no measurement).
 */
double lagom_ce_time_s(const struct lagom_hw *hw, const struct lagom_comm *comm,
		       enum lagom_coll coll, uint64_t bytes)
{
	double n = comm->ranks, S = (double)bytes, wire, rate;

	if (!lagom_ce_supported(hw, comm, coll, LAGOM_CE_SINCE))
		return 0;
	wire = coll == LAGOM_COLL_ALLGATHER ? S * (n - 1) / n : S * (n - 1) / n;
	rate = lagom_intra_Bps(hw, comm->ranks_per_node) * LAGOM_CE_EFF;
	return ((LAGOM_CE_LAT_US + LAGOM_CE_PEER_US * (n - 1)) * 1e-6 +
		wire / rate) *
	       (comm->time_scale > 0 ? comm->time_scale : 1.0);
}

/*
 * The model's known error on one collective's time (doc/model.md 2.10),
 * median |predicted / measured - 1| of busbw.sh's validation:
 *  - one node: the single-node file's in-sample median (58 rows, 10.9 %);
 *    the A100 CTA sweep (cta_a100.sh) holds the channel trade itself to
 *    2.2 % of iteration time left out, which this does not lower;
 *  - several nodes: the leave-one-system-out medians per size band.
 * A site calibration's own error would replace a smaller one; the planner
 * does not pass it yet (built-in only).
 */
#define ERR_SINGLE 0.109
static const double err_multi[3] = { 0.165, 0.182, 0.153 };

double lagom_model_error(const struct lagom_hw *hw,
			 const struct lagom_comm *comm, uint64_t bytes)
{
	int band = bytes < (1u << 20) ? 0 : bytes < (64u << 20) ? 1 : 2;

	if (!hw || !comm)
		return err_multi[band];
	if (comm->nodes <= 1 ||
	    (hw->nvl_domain_nodes > 1 && comm->nodes <= hw->nvl_domain_nodes))
		return ERR_SINGLE;
	return err_multi[band];
}
