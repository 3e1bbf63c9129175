/*
 * model/netdense.h - what dense calibration runs determine (issue 33):
 * per transport and algorithm, a per-protocol latency, a per-protocol
 * cost per pipeline step (which makes both the fixed cost that grows with
 * the step count, so with node count, and the rise between the latency-
 * and bandwidth-bound regimes, one step per chunk loop), and a bus
 * bandwidth.  The form (doc/model.md 2.8), for one class of S bytes on n
 * nodes of N ranks, protocol p, nch channels:
 *
 *   t = lat_p + step_p * steps(algo, coll, n, N) * loops(S, p, nch, N)
 *         + S * w(coll, N) / busbw
 *
 * steps: the pipeline's hops (ring allreduce 2(N-1), other rings N-1, a
 * tree 2(N/n - 1 + ceil(log2 n)), the rest 2 ceil(log2 n) + 2); loops:
 * ceil(S / (nch * N * chunk_p)) with chunk_p NCCL's default buffer over
 * its 8 steps (LL 16 KiB, LL128 480 KiB, Simple 512 KiB); w: nccl-tests'
 * bus-bandwidth factor (allreduce 2(N-1)/N, allgather, reducescatter and
 * alltoall (N-1)/N, else 1).
 *
 * Linear in its constants: fitted by least squares on the relative error
 * (every class weighted alike), a constant taken only when its column is
 * not (nearly) a combination of those taken before it (busbw, then the
 * step costs, then the latencies: the order in which they carry to sizes
 * and node counts not seen) and its value is positive; the others are
 * refused with the reason.  Pure: no I/O.
 */
#ifndef LAGOM_MODEL_NETDENSE_H
#define LAGOM_MODEL_NETDENSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "model/model.h"
#include "model/model_fit.h"

enum lagom_dense_param {
	LAGOM_DP_INV_BUSBW, /* seconds per byte of bus traffic */
	LAGOM_DP_STEP_SIMPLE,
	LAGOM_DP_STEP_LL128,
	LAGOM_DP_STEP_LL, /* seconds per pipeline step */
	LAGOM_DP_LAT_SIMPLE,
	LAGOM_DP_LAT_LL128,
	LAGOM_DP_LAT_LL, /* seconds per call */
	LAGOM_DP_COUNT
};

/* One measured class of one algorithm (one fit per transport and
 * algorithm). */
struct lagom_dense_meas {
	enum lagom_coll coll;
	enum lagom_algo algo;
	enum lagom_proto proto;
	uint64_t bytes; /* as nccl-tests counts them */
	unsigned nodes, ranks, nchannels;
	double time_s;
};

enum lagom_dense_verdict {
	LAGOM_DV_NO_DATA, /* no class of its protocol */
	LAGOM_DV_FITTED,
	LAGOM_DV_UNDETERMINED, /* a combination of the constants before it */
	LAGOM_DV_NEGATIVE,     /* fitted below zero: the form does not hold */
};

struct lagom_dense_fit {
	bool set[LAGOM_DP_COUNT];
	double value[LAGOM_DP_COUNT];
	enum lagom_dense_verdict verdict[LAGOM_DP_COUNT];
	size_t n;	      /* classes fitted */
	unsigned node_counts; /* distinct node counts among them */
};

/* A column is undetermined when less than this share of its norm is
 * independent of the columns taken before it. */
#define LAGOM_DENSE_MIN_INDEP 0.02
#define LAGOM_DENSE_MAX_MEAS 65536

const char *lagom_dense_param_name(enum lagom_dense_param p);
const char *lagom_dense_verdict_text(enum lagom_dense_verdict v);

/* The form's terms of m (steps, loops, w) and its prediction with f's
 * set constants (unset: 0). */
double lagom_dense_steps(const struct lagom_dense_meas *m);
double lagom_dense_loops(const struct lagom_dense_meas *m);
double lagom_dense_predict_s(const struct lagom_dense_meas *m,
			     const struct lagom_dense_fit *f);

/*
 * Fit m[0..n) (one transport, one algorithm) into *out.  -EINVAL: n 0 or
 * above LAGOM_DENSE_MAX_MEAS, a time not finite and > 0, ranks not a
 * multiple of nodes, no channel; -ENOMEM.  *out written only on success.
 */
int lagom_dense_fit(const struct lagom_dense_meas *m, size_t n,
		    struct lagom_dense_fit *out, struct lagom_error *err);

/* ------------------------------------------------------------------ */
/* The dense fit in a site calibration (calibration file version 2).   */
/* ------------------------------------------------------------------ */

/*
 * When the evidence is dense enough for the calibration to carry a dense
 * fit (doc/calibration-format.md): one fit per transport and algorithm
 * (ring, tree) over the classes of every node-count band (of the ranks
 * per node most classes have: a bus bandwidth holds for one share of the
 * NICs), so that the node counts seen determine the step term; a band
 * gets an entry when it has at least LAGOM_DENSE_MIN_CLASSES of those
 * classes, the bus bandwidth is fitted, the median leave-one-class-out
 * |measured / predicted - 1| of its classes is at most LAGOM_DENSE_MAX_LOO
 * (above it the form describes them no better than the built-in model's
 * known multi-node error), and at least one protocol is covered: a latency
 * or a step cost of its own fitted, and at least LAGOM_DENSE_MIN_SIZES
 * distinct sizes of it in the band (covered between the smallest and the
 * largest: the entry interpolates, it never extrapolates).
 */
#define LAGOM_DENSE_MIN_CLASSES 8
#define LAGOM_DENSE_MIN_SIZES 3
#define LAGOM_DENSE_MAX_LOO 0.15

/* Why a transport, band and algorithm got no dense fit. */
enum lagom_dense_site_why {
	LAGOM_DS_NO_DATA,     /* no class */
	LAGOM_DS_WRITTEN,     /* dense enough: in the calibration */
	LAGOM_DS_FEW_CLASSES, /* fewer than LAGOM_DENSE_MIN_CLASSES */
	LAGOM_DS_NO_BUSBW,    /* the bus bandwidth refused */
	LAGOM_DS_NO_PROTO,    /* no protocol covered (its term, 3 sizes) */
	LAGOM_DS_LOO,	      /* left-out error above LAGOM_DENSE_MAX_LOO */
};

struct lagom_dense_site_report {
	size_t classes[LAGOM_NET_COUNT][LAGOM_NET_BANDS][LAGOM_NET_DENSE_ALGOS];
	enum lagom_dense_site_why why[LAGOM_NET_COUNT][LAGOM_NET_BANDS]
				     [LAGOM_NET_DENSE_ALGOS];
	/* leave-one-class-out median error (NAN: not computed) */
	double loo[LAGOM_NET_COUNT][LAGOM_NET_BANDS][LAGOM_NET_DENSE_ALGOS];
};

const char *lagom_dense_site_why_text(enum lagom_dense_site_why w);
/* "ring" "tree"; the dense algorithm of an algorithm, or -1. */
const char *lagom_dense_algo_name(int a);
int lagom_dense_algo_of(enum lagom_algo algo);

/*
 * Fit the dense form per transport (each measurement's hw) and dense
 * algorithm over m[0..n) (multi-node classes; the others ignored) and
 * write each band's entry that is dense enough (above) into
 * calib->t[T].dense[B][A]; the others are cleared (calib's constants are
 * untouched).  rep may be NULL.  Deterministic.  -EINVAL: n above
 * LAGOM_NET_SITE_MAX_MEAS; -ENOMEM.
 */
int lagom_dense_site_fit(const struct lagom_net_meas *m, size_t n,
			 struct lagom_net_calib *calib,
			 struct lagom_dense_site_report *rep,
			 struct lagom_error *err);

/* Every set value of d finite and positive, the byte and channel ranges
 * ordered, err in [0, 1]: 0, else -EINVAL. */
int lagom_dense_check(const struct lagom_net_dense *d, struct lagom_error *err);

/*
 * The dense entry of hw->net_site that covers one class of the model's
 * view (hw, comm after lagom_domain_view): comm across nodes, cfg's
 * algorithm and protocol covered, bytes within that protocol's fitted
 * range; NULL when none (the built-in constants price it).  *m is filled
 * with the class for lagom_dense_site_time_at (nchannels then given),
 * *floor_s with its physical bound: the bytes each node moves across the
 * network at the NICs' line rate (doc/model.md 2.5).
 */
const struct lagom_net_dense *lagom_dense_site_entry(
	const struct lagom_hw *hw, const struct lagom_comm *comm,
	enum lagom_coll coll, uint64_t bytes,
	const struct lagom_coll_config *cfg, struct lagom_dense_meas *m,
	double *floor_s);

/*
 * The least time physics allows a class (doc/model.md 2.5): the bytes
 * each node must move across the network at the NICs' line rate, hw and
 * comm the model's view (lagom_domain_view); 0 on one node.
 */
double lagom_net_line_floor_s(const struct lagom_hw *hw,
			      const struct lagom_comm *comm,
			      enum lagom_coll coll, enum lagom_algo algo,
			      uint64_t bytes);

/*
 * The dense time of m at nc channels under d, never below floor_s: true
 * and *time_s; false when nc lies outside the channels d was fitted on
 * (the built-in model prices it then).
 */
bool lagom_dense_site_time_at(const struct lagom_net_dense *d,
			      const struct lagom_dense_meas *m, double nc,
			      double floor_s, double *time_s);

/* lagom_dense_site_error(): model/model.h (the search asks it). */

#endif /* LAGOM_MODEL_NETDENSE_H */
