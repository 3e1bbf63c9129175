/*
 * model/model_fast.h - the model's unchecked fast path, for the search.
 *
 * Who includes which model header (tests/purity.sh checks it):
 *   model/model.h       the public API: names, hardware, communicators,
 *                       collective and kernel times, regions, workloads,
 *                       a site calibration applied.  Anyone.
 *   model/model_fast.h  this file: the checks run once and the *_nocheck
 *                       calls run many times.  model/, search/, and the
 *                       calibration fit's evidence (through model_fit.h).
 *   model/model_fit.h   fitting contention coefficients and a site
 *                       calibration to measurements.  model/, profile/
 *                       (the prolog's contention fit), planner/calib.h
 *                       (`lagom calibrate`).
 * Tests under tests/ may include any of them.
 */
/* lagom-api: stable */
#ifndef LAGOM_MODEL_MODEL_FAST_H
#define LAGOM_MODEL_MODEL_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "model/model.h"

/* ------------------------------------------------------------------ */
/* The unchecked fast path.                                            */
/* ------------------------------------------------------------------ */

/*
 * For callers that validate their inputs once and then make many model calls
 * (the search: tens of thousands per plan).  Like jansson's
 * json_string_nocheck(), a function named *_nocheck does not check its
 * arguments: each states the checks its arguments must have passed, and
 * calling it with arguments those checks would reject is undefined (out of
 * range reads, division by zero).  Each computes exactly what its checked
 * counterpart computes, with the same floating-point operations, so the
 * results are bit-identical (tests/model/test_nocheck).
 *
 * The checks themselves are safe on any input.
 */

/* lagom_hw_check(hw), then comm against hw (ranks = nodes x ranks_per_node,
 * no more ranks per node than GPUs, a NIC for several nodes), then coll in
 * range: the arguments every collective call shares; 0 or -EINVAL. */
int lagom_call_check(const struct lagom_hw *hw, const struct lagom_comm *comm,
		     enum lagom_coll coll, struct lagom_error *err);

/* lagom_region_time()'s checks of the region itself (counts, kernels,
 * dependency indices, serial time), not of its collectives' communicators
 * (lagom_call_check() each); 0 or -EINVAL. */
int lagom_region_check(const struct lagom_region *region,
		       struct lagom_error *err);

/* Precondition: lagom_call_check(hw, comm, coll) == 0.  lagom_coll_predict()'s
 * checks of bytes and cfg (sizes, channel and thread ranges, chunk, an
 * algorithm/protocol the hardware allows); 0 or -EINVAL. */
int lagom_coll_config_check_nocheck(const struct lagom_hw *hw,
				    const struct lagom_comm *comm,
				    enum lagom_coll coll, uint64_t bytes,
				    const struct lagom_coll_config *cfg,
				    struct lagom_error *err);

/* Precondition: lagom_call_check(hw, comm, coll) == 0 (algo and proto may be
 * out of range: false).  lagom_coll_supported(). */
bool lagom_coll_allowed_nocheck(const struct lagom_hw *hw,
				const struct lagom_comm *comm,
				enum lagom_coll coll, enum lagom_algo algo,
				enum lagom_proto proto);

/* Precondition: lagom_call_check() and lagom_coll_config_check_nocheck()
 * pass.  lagom_coll_predict()'s time_s. */
double lagom_coll_time_s_nocheck(const struct lagom_hw *hw,
				 const struct lagom_comm *comm,
				 enum lagom_coll coll, uint64_t bytes,
				 const struct lagom_coll_config *cfg);

/* Precondition: as lagom_coll_time_s_nocheck() for cfg with each of the n
 * channel counts nchannels[i].  time_s[i] = lagom_coll_time_s_nocheck() of
 * cfg with nchannels[i]; the parts that do not depend on the channel count
 * are computed once. */
void lagom_coll_times_s_nocheck(const struct lagom_hw *hw,
				const struct lagom_comm *comm,
				enum lagom_coll coll, uint64_t bytes,
				const struct lagom_coll_config *cfg,
				const unsigned *nchannels, size_t n,
				double *time_s);

/* Precondition: lagom_hw_check(hw) == 0, kernel valid for
 * lagom_compute_time(), nchannels <= LAGOM_NCHANNELS_MAX and mem_Bps >= 0.
 * lagom_compute_time_rate()'s time_s. */
double lagom_kernel_time_s_nocheck(const struct lagom_hw *hw,
				   const struct lagom_kernel *kernel,
				   unsigned nchannels, uint64_t chunk_bytes,
				   double mem_Bps);

/*
 * Precondition: lagom_hw_check(hw) and lagom_region_check(region) pass, and
 * configs (one per collective, not NULL) passed
 * lagom_coll_config_check_nocheck().  lagom_region_time() with the
 * collectives taking coll_time_s[j] (lagom_coll_time_s_nocheck() of
 * configs[j]; not recomputed here).  -EINVAL only for a dependency cycle.
 */
int lagom_region_timeline_nocheck(const struct lagom_hw *hw,
				  const struct lagom_region *region,
				  const struct lagom_coll_config *configs,
				  const double *coll_time_s,
				  struct lagom_region_time *out,
				  struct lagom_error *err);

#endif /* LAGOM_MODEL_MODEL_FAST_H */
