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

#endif /* LAGOM_MODEL_NETDENSE_H */
