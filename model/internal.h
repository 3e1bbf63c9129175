/*
 * model/internal.h - private helpers shared by the model's files.
 * Not part of the public API.
 */
#ifndef LAGOM_MODEL_INTERNAL_H
#define LAGOM_MODEL_INTERNAL_H

#include "model/model.h"
#include "model/netcal.h"

#define MIB (1024.0 * 1024.0)
#define GB 1e9

int lagom_comm_check(const struct lagom_hw *hw, const struct lagom_comm *comm,
		     struct lagom_error *err);
int lagom_kernel_check(const struct lagom_kernel *k, struct lagom_error *err);
/* The arguments every collective call shares: lagom_hw_check(),
 * lagom_comm_check() and a collective in range; 0 or -EINVAL. */
int lagom_call_check(const struct lagom_hw *hw, const struct lagom_comm *comm,
		     enum lagom_coll coll, struct lagom_error *err);

/* Per-GPU intra-node bandwidth (B/s per direction) a ring can use. */
double lagom_intra_Bps(const struct lagom_hw *hw, unsigned ranks_per_node);

/*
 * Unchecked entry points for callers that validated their inputs once (the
 * search, which makes tens of thousands of model calls per plan).  Each
 * computes exactly what its public, checked counterpart computes (same
 * floating-point operations, so bit-identical results); calling one with
 * inputs the checked function would reject is undefined.
 */

/* lagom_coll_supported() for hw, comm and coll that passed
 * lagom_call_check(); algo and proto may be out of range (false). */
bool lagom_coll_allowed(const struct lagom_hw *hw,
			const struct lagom_comm *comm, enum lagom_coll coll,
			enum lagom_algo algo, enum lagom_proto proto);
/* lagom_coll_predict()'s checks of bytes and the configuration, for hw,
 * comm and coll that passed lagom_call_check(); 0 or -EINVAL. */
int lagom_coll_config_check(const struct lagom_hw *hw,
			    const struct lagom_comm *comm, enum lagom_coll coll,
			    uint64_t bytes, const struct lagom_coll_config *cfg,
			    struct lagom_error *err);
/* lagom_coll_predict()'s time_s, when lagom_call_check() and
 * lagom_coll_config_check() pass. */
double lagom_coll_time_s(const struct lagom_hw *hw,
			 const struct lagom_comm *comm, enum lagom_coll coll,
			 uint64_t bytes, const struct lagom_coll_config *cfg);
/* lagom_coll_time_s() of cfg with nchannels = nchannels[i], for each of the
 * n channel counts (each valid for cfg), into time_s[i]; the parts that do
 * not depend on the channel count are computed once. */
void lagom_coll_time_nc_s(const struct lagom_hw *hw,
			  const struct lagom_comm *comm, enum lagom_coll coll,
			  uint64_t bytes, const struct lagom_coll_config *cfg,
			  const unsigned *nchannels, size_t n, double *time_s);
/* lagom_compute_time()'s result for a checked hw and kernel and
 * nchannels <= LAGOM_NCHANNELS_MAX. */
double lagom_kernel_time_s(const struct lagom_hw *hw,
			   const struct lagom_kernel *kernel,
			   unsigned nchannels, uint64_t chunk_bytes);
/* lagom_region_time()'s checks of the region itself (counts, kernels,
 * dependencies, serial time); not the collectives' communicators. */
int lagom_region_check(const struct lagom_region *region,
		       struct lagom_error *err);
/*
 * lagom_region_time() for a checked hw and region whose collectives run
 * with configs (one per collective, not NULL) and take coll_time_s[j]
 * (lagom_coll_time_s() of configs[j]; not recomputed here).  -EINVAL only
 * for a dependency cycle.
 */
int lagom_region_timeline(const struct lagom_hw *hw,
			  const struct lagom_region *region,
			  const struct lagom_coll_config *configs,
			  const double *coll_time_s,
			  struct lagom_region_time *out,
			  struct lagom_error *err);

#endif /* LAGOM_MODEL_INTERNAL_H */
