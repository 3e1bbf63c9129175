/*
 * model/model_fit.h - fitting the model's constants to measurements: the
 * contention coefficients to a probe's measured curve (model/fit.c; the
 * prolog, through profile/) and a site calibration to measured collective
 * classes (model/netsite.c; `lagom calibrate`, through planner/calib.h).
 * Who may include which model header: model/model_fast.h.  A fit's
 * evidence is checked as the search checks its calls (lagom_call_check(),
 * then lagom_coll_config_check_nocheck()), so this header brings the fast
 * path with it.
 */
/* lagom-api: stable */
#ifndef LAGOM_MODEL_MODEL_FIT_H
#define LAGOM_MODEL_MODEL_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "model/model.h"
#include "model/model_fast.h"

/* ------------------------------------------------------------------ */
/* Fitting the contention coefficients to a measured curve.            */
/* ------------------------------------------------------------------ */

/*
 * Physical ranges of the fitted coefficients (doc/model.md section 4.1):
 * a fit never leaves them.  LAGOM_FIT_MAX_RMS: largest root-mean-square
 * relative residual of an accepted fit.  LAGOM_FIT_NOISE: model/model.h.
 */
#define LAGOM_FIT_SM_MAX 2.0
#define LAGOM_FIT_L2_MAX 5.0
#define LAGOM_FIT_CAP_MIN 0.25
#define LAGOM_FIT_CAP_MAX 16.0
#define LAGOM_FIT_MAX_RMS 0.15
#define LAGOM_FIT_MAX_POINTS 512

/*
 * One measured point of a contention curve: a kernel's time beside
 * nchannels resident communication CTAs, each moving chunk_bytes per round,
 * divided by its time alone.
 */
struct lagom_fit_point {
	unsigned nchannels;   /* 0..LAGOM_NCHANNELS_MAX, < the GPU's SMs */
	uint64_t chunk_bytes; /* > 0 */
	double slowdown;      /* finite, >= 1 - LAGOM_FIT_NOISE */
};

/* What a fit found (filled only on success). */
struct lagom_fit_report {
	size_t npoints;		  /* points used (all of them) */
	size_t ninformative;	  /* points with nchannels > 0 */
	double contention_sm;	  /* as written into hw */
	double contention_l2;	  /* as written into hw */
	double contention_l2_cap; /* as written into hw */
	bool cap_fitted; /* false: no point is beyond the cap, which is kept
			    (raised to the largest NC * C / L2 seen) */
	bool at_bound;	 /* a coefficient sits on its range's edge */
	double rms_rel;	 /* rms of (measured - fitted) / measured */
	double max_abs;	 /* largest |measured - fitted| slowdown */
};

/*
 * Least-squares fit of the global-contention coefficients of doc/model.md
 * section 4 (contention_sm, contention_l2 and, when points reach it,
 * contention_l2_cap) to measured slowdowns of one probe kernel.  The wave /
 * SM-share factor W(NC) comes from the model itself (lagom_compute_time()
 * with hw's channel_sm_share and the probe's grid), so only
 * 1 + m * gamma(NC, C) is fitted; m is probe->mem_bound (must be > 0).
 * probe NULL: grid unknown (smooth SM share), mem_bound 0.2.  probe's
 * time_s is only checked (the fit works on ratios).
 *
 * hw: in, the node (SMs, L2, channel_sm_share, the prior contention_l2_cap);
 * out, on success only, the three fitted coefficients, each within the
 * LAGOM_FIT_* ranges, with the knee 0 and the L2 term ungated by traffic
 * (contention_l2_x0 and _x1 0: the probe streams its chunks).  rep may be NULL.  Deterministic and bounded: no
 * randomness, work O(n^2) at most, n <= LAGOM_FIT_MAX_POINTS.
 *
 * Errors (-EINVAL with a message, hw untouched): no points or more than
 * LAGOM_FIT_MAX_POINTS; fewer points with nchannels > 0 than the two
 * coefficients; a point out of range (nchannels above 64 or not below the
 * SMs, chunk 0, slowdown not finite or below 1 - LAGOM_FIT_NOISE); points
 * that cannot tell the two coefficients apart (a single chunk size); an
 * invalid hw or probe, mem_bound 0; a fit whose rms relative residual
 * exceeds LAGOM_FIT_MAX_RMS (the formula does not describe the points).
 * -ENOMEM.
 */
int lagom_contention_fit(const struct lagom_fit_point *pts, size_t n,
			 const struct lagom_kernel *probe, struct lagom_hw *hw,
			 struct lagom_fit_report *rep, struct lagom_error *err);

/* ------------------------------------------------------------------ */
/* Fitting a site calibration to measured collectives.                 */
/* ------------------------------------------------------------------ */

/*
 * Fitting a site calibration (model/netsite.c, doc/model.md 2.7).  One
 * measured collective class: the hardware it ran on, its communicator,
 * operation, bytes (nccl-tests' convention), the configuration NCCL ran,
 * and the measured time of one call (the evidence `lagom calibrate` keeps
 * per class).
 */
struct lagom_net_meas {
	struct lagom_hw hw;
	struct lagom_comm comm;
	enum lagom_coll coll;
	uint64_t bytes;
	struct lagom_coll_config cfg;
	double time_s;
};

/* What the fit did with one constant of one transport and band. */
enum lagom_net_verdict {
	LAGOM_NV_NO_DATA,      /* no measured class in this transport/band */
	LAGOM_NV_UNDETERMINED, /* the classes do not determine it: kept */
	LAGOM_NV_NO_GAIN,      /* determined, but moving it predicts the
				  classes left out no better: kept */
	LAGOM_NV_FITTED,       /* moved to the fitted value */
	LAGOM_NV_AT_BOUND,     /* fitted, on its range's edge */
};

struct lagom_net_site_report {
	size_t rows[LAGOM_NET_COUNT][LAGOM_NET_BANDS];
	enum lagom_net_verdict verdict[LAGOM_NET_COUNT][LAGOM_NET_BANDS]
				      [LAGOM_NP_COUNT];
	/* rms change of log(time) over the band's classes per tenth of the
	 * constant's range, end to end (how much the data see it), and the
	 * share of that change no constant taken before explains (1:
	 * independent, 0: the same as another's). */
	double sensitivity[LAGOM_NET_COUNT][LAGOM_NET_BANDS][LAGOM_NP_COUNT];
	double independence[LAGOM_NET_COUNT][LAGOM_NET_BANDS][LAGOM_NP_COUNT];
	/* median |predicted / measured - 1| of the band's classes with the
	 * built-in constants and with the fitted ones (in sample) */
	double err_builtin[LAGOM_NET_COUNT][LAGOM_NET_BANDS];
	double err_fitted[LAGOM_NET_COUNT][LAGOM_NET_BANDS];
};

#define LAGOM_NET_SITE_MAX_MEAS 4096
/* A constant is determined when moving it across its range moves the
 * band's classes by at least this rms (log) per tenth of the range ... */
#define LAGOM_NET_SITE_MIN_SENS 0.01
/* ... and this share of that is independent of the constants already
 * taken (Gram-Schmidt on the sensitivities, largest first). */
#define LAGOM_NET_SITE_MIN_INDEP 0.3
/* A determined constant is moved only when that cuts the mean loss of
 * the classes left out one at a time by at least this share. */
#define LAGOM_NET_SITE_MIN_GAIN 0.1

/*
 * Fit a site calibration to n measured classes (multi-node ones; the rest
 * are ignored): per transport and node-count band, the constants the
 * classes determine (above) are fitted by a robust loss (pseudo-Huber on
 * log(predicted / measured), delta 0.1, every class weighted alike) inside
 * their physical ranges (lagom_net_param_range), by cyclic coordinate
 * descent with golden-section line searches from the built-in values;
 * never more constants than classes.  The others stay unset (built-in).
 * Every measurement's hw.net_site is ignored.  Pure, deterministic.
 * rep may be NULL.  -EINVAL: n 0 or above LAGOM_NET_SITE_MAX_MEAS, a time
 * not finite and > 0, a class the model refuses (err says which).
 */
int lagom_net_site_fit(const struct lagom_net_meas *m, size_t n,
		       struct lagom_net_calib *out,
		       struct lagom_net_site_report *rep,
		       struct lagom_error *err);

/* The model's time of m's class under calib (NULL: built-in). */
double lagom_net_meas_predict_s(const struct lagom_net_meas *m,
				const struct lagom_net_calib *calib);

#endif /* LAGOM_MODEL_MODEL_FIT_H */
