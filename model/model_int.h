/*
 * model/model_int.h - private helpers shared by the model's files.
 * Not part of the public API.
 */
#ifndef LAGOM_MODEL_INTERNAL_H
#define LAGOM_MODEL_INTERNAL_H

#include "model/model.h"
#include "model/model_fast.h"
#include "model/model_fit.h"
#include "model/netcal_int.h"

#define MIB (1024.0 * 1024.0)
#define GB 1e9

int lagom_comm_check(const struct lagom_hw *hw, const struct lagom_comm *comm,
		     struct lagom_error *err);
int lagom_kernel_check(const struct lagom_kernel *k, struct lagom_error *err);

/* Per-GPU intra-node bandwidth (B/s per direction) a ring can use. */
double lagom_intra_Bps(const struct lagom_hw *hw, unsigned ranks_per_node);

/* lagom_nccl_comm_channels() of checked arguments. */
unsigned lagom_nccl_comm_channels_nocheck(const struct lagom_hw *hw,
					  const struct lagom_comm *comm);

/* One channel's intra-node Simple rate (lagom_channel_Bps()) of checked
 * arguments, and the architecture's per-CTA copy ceiling. */
double lagom_channel_Bps_nocheck(const struct lagom_hw *hw,
				 const struct lagom_comm *comm);
double lagom_channel_ceiling_Bps(unsigned sm_arch);

/* The unchecked fast path (lagom_*_nocheck(), lagom_call_check(),
 * lagom_region_check()) is public: model/model.h. */

#endif /* LAGOM_MODEL_INTERNAL_H */
