/*
 * model/netcal_int.h - the calibrated network part of the collective model
 * (doc/model.md 2.1-2.4): its constants, the multi-node NVLink domain view,
 * and the pure fit that sets the constants from measured collectives.
 * Private to model/ and its tests.
 */
#ifndef LAGOM_MODEL_NETCAL_H
#define LAGOM_MODEL_NETCAL_H

#include "model/model.h"
#include "model/model_fast.h"
#include "model/model_fit.h"

/*
 * Calibration of the network part of x_j (doc/model.md 2.1).  The values
 * the model uses are lagom_netcal_fitted (model/netcal_data.c: fitted by
 * lagom_net_fit() on the published sweeps, provenance there); the fitter
 * and the validation report price candidates with lagom_coll_time_cal_s().
 */
struct lagom_netcal {
	double eff[LAGOM_NET_COUNT];	 /* NIC line rate share per transport */
	double step_us[LAGOM_NET_COUNT]; /* software cost per network step */
	double mn_step_us;  /* per intra-node step of a ring/tree that also
			      crosses the network (proxy progress) */
	double tree2_eff;   /* share of the 2-node tree's doubled rate */
	double p2p_peer_us; /* per peer of an alltoall */
	double net_fill;    /* network pipeline depth in chunks (fill) */
	double ch_net_Bps;  /* one channel's rate towards an RDMA NIC */
};

extern const struct lagom_netcal lagom_netcal_fitted;
/* The calibration the prior model used (before any fit): the start and
 * the fallback of lagom_net_fit() for parameters the data do not reach. */
extern const struct lagom_netcal lagom_netcal_prior;

/* NCCL 2.28's per-hop latency (us, nccl.md 3.1 hwLatencies) of link 0
 * NVLink, 1 PCI, 2 NET; an entry NCCL leaves 0 reads as Ring/Simple's.
 * The collective model takes its multi-node hop shape from it (2). */
double lagom_nccl_hop_lat_us(int link, enum lagom_algo algo,
			     enum lagom_proto proto);

/* NIC line rate per node (per direction) the communicator's ranks reach:
 * a share of the node's NICs proportional to its ranks (rails). */
double lagom_nic_line_Bps(const struct lagom_hw *hw,
			  const struct lagom_comm *comm);

/* Effective transport (DEFAULT resolved from nic_gdr). */
enum lagom_transport lagom_hw_transport(const struct lagom_hw *hw);

/*
 * The view of a communicator the collective model prices: with a
 * multi-node NVLink domain (hw->nvl_domain_nodes > 1) the nodes of one
 * domain become one NVSwitch node; otherwise hw and comm themselves.
 * *vhw and *vcomm point at the inputs or at *hw_buf / *comm_buf.
 */
void lagom_domain_view(const struct lagom_hw *hw, const struct lagom_comm *comm,
		       struct lagom_hw *hw_buf, struct lagom_comm *comm_buf,
		       const struct lagom_hw **vhw,
		       const struct lagom_comm **vcomm);

/*
 * Golden-section search of one value on [lo, hi] for the smallest
 * loss_at(ctx, v) (which may set v into ctx), steps steps, keeping the
 * best point seen with start (the current value) included, so a search
 * never makes a fit worse.  Returns that point; the last value loss_at
 * was given is not restored.
 */
double lagom_golden_search(double (*loss_at)(void *ctx, double v), void *ctx,
			   double lo, double hi, double start, int steps);

/* The nodes of that view: comm->nodes, or the number of NVLink domains. */
unsigned lagom_domain_nodes(const struct lagom_hw *hw,
			    const struct lagom_comm *comm);

/* lagom_coll_time_s_nocheck() with another calibration (same precondition). */
double lagom_coll_time_cal_s(const struct lagom_hw *hw,
			     const struct lagom_comm *comm,
			     enum lagom_coll coll, uint64_t bytes,
			     const struct lagom_coll_config *cfg,
			     const struct lagom_netcal *cal);

/* cal with hw's site calibration (hw->net_site, for a communicator over
 * nodes as the model prices it) applied: cal itself when hw has none for
 * that band, else *buf. */
const struct lagom_netcal *lagom_netcal_site(const struct lagom_hw *hw,
					     unsigned nodes,
					     const struct lagom_netcal *cal,
					     struct lagom_netcal *buf);

/* lagom_net_site_fit() and lagom_net_meas_predict_s() on another base
 * calibration than lagom_netcal_fitted (the validation's built-in model
 * fitted without the site's own system). */
int lagom_net_site_fit_base(const struct lagom_net_meas *m, size_t n,
			    const struct lagom_netcal *base,
			    struct lagom_net_calib *out,
			    struct lagom_net_site_report *rep,
			    struct lagom_error *err);
double lagom_net_meas_predict_base_s(const struct lagom_net_meas *m,
				     const struct lagom_net_calib *calib,
				     const struct lagom_netcal *base);

/* One measured collective for lagom_net_fit(). */
struct lagom_net_obs {
	struct lagom_hw hw;
	struct lagom_comm comm;
	enum lagom_coll coll;
	uint64_t bytes;
	struct lagom_coll_config cfg; /* what ran (NCCL's choice or forced) */
	double time_s;		      /* measured */
	unsigned group;		      /* system: each group weighs the same */
};

#define LAGOM_NETFIT_MAX_OBS 4096

/*
 * Least squares on log(predicted / measured) time over obs (each group's
 * rows weighted 1 / its row count), by cyclic coordinate descent (at
 * most 40 sweeps, until a sweep gains less than 1e-9 of the objective)
 * with a golden-section line search per parameter inside its physical range
 * (doc/model.md 2.4).  A transport absent from obs takes the fitted values
 * of its nearest kind (RoCE and EFA: InfiniBand; TCPX: TCP), or prior's
 * when that is absent too; other parameters no observation depends on
 * keep prior's value.  Deterministic, bounded work.
 * prior NULL = lagom_netcal_prior.  rms_log: the fitted weighted rms of
 * log(pred/measured), may be NULL.  -EINVAL: n 0 or above
 * LAGOM_NETFIT_MAX_OBS, a measured time not finite and > 0.
 */
int lagom_net_fit(const struct lagom_net_obs *obs, size_t n,
		  const struct lagom_netcal *prior, struct lagom_netcal *out,
		  double *rms_log, struct lagom_error *err);

#endif /* LAGOM_MODEL_NETCAL_H */
