/*
 * tuner/nccl_tuner_abi.h - NCCL's tuner-plugin ABI, declared by lagom.
 *
 * NCCL installs no tuner header, so a plugin declares the structures itself
 * (NCCL's ext-tuner/README.md asks implementers to do so); what the profiler
 * uses too is in common/nccl_abi.h.  Every name here carries a lagom_ prefix
 * so that this header can sit next to <nccl.h> in one translation unit (the
 * ABI test does that to compare values).
 *
 * Facts (NCCL's src/include/plugin/tuner/tuner_v*.h, tags v2.21..v2.30):
 *   v2  NCCL 2.21+  init(nRanks, nNodes, log, ctx*), getCollInfo returns an
 *                   (algo, proto) pair, destroy(ctx)
 *   v3  NCCL 2.22+  getCollInfo edits a float cost table [numAlgo][numProto]
 *   v4  NCCL 2.24+  v3 plus regBuff
 *   v5  NCCL 2.28+  init(ctx*, commId, nRanks, nNodes, log, nvlDomain*,
 *                   constants*), finalize(ctx)
 *   v6  NCCL 2.30+  v5 plus getChunkSize (optional callback)
 * NCCL 2.28.9 looks up v5, v4, v3, v2 in that order; 2.30 starts with v6.
 *
 * Rules a plugin must keep (all from NCCL's own code):
 *   - the cost table is contiguous float[numAlgo][numProto], passed cast to
 *     float**; use the numAlgo/numProto arguments, never compile-time counts
 *     (NCCL 2.22 had 6 algorithms, 2.23+ has 7);
 *   - an entry of LAGOM_NCCL_ALGO_PROTO_IGNORE (-1.0) is unavailable;
 *   - never rely on sizeof(struct lagom_nccl_tuner_constants_v5): the struct
 *     is only ever reached through NCCL's pointer.
 */
#ifndef LAGOM_TUNER_NCCL_TUNER_ABI_H
#define LAGOM_TUNER_NCCL_TUNER_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "common/nccl_abi.h"

/* The result, logger, ncclFunc_t and the algorithm and protocol indices
 * are shared with the profiler: common/nccl_abi.h. */

#define LAGOM_NCCL_ALGO_PROTO_IGNORE (-1.0f)

/* ncclNvlDomainInfo_v5_t (12 bytes). */
struct lagom_nccl_nvl_domain_info_v5 {
	int nNvlDomains;
	int minRanksPerNvlDomain;
	int maxRanksPerNvlDomain;
};

/* ncclTunerConstants_v5_t (1152 bytes in NCCL 2.28.9; see the rule above). */
struct lagom_nccl_tuner_constants_v5 {
	double baseLatencies[7][3];
	double hwLatencies[3][7][3];
	double llMaxBws[4][3];
	double perChMaxRingLL128Bws[4][3];
	double perChMaxTreeLL128Bws[4][3];
	double perChMaxTreeBws[4][3];
	double perChMaxNVLSTreeBws[4][3];
};

/* ncclTuner_v2_t .. v4 share init and destroy. */
typedef lagom_nccl_result_t (*lagom_tuner_init_v2_fn)(
	size_t nRanks, size_t nNodes, lagom_nccl_logger_t logFunction,
	void **context);

struct lagom_nccl_tuner_v2 {
	const char *name;
	lagom_tuner_init_v2_fn init;
	lagom_nccl_result_t (*getCollInfo)(void *context, int collType,
					   size_t nBytes, int collNetSupport,
					   int nvlsSupport, int numPipeOps,
					   int *algorithm, int *protocol,
					   int *nChannels);
	lagom_nccl_result_t (*destroy)(void *context);
};

struct lagom_nccl_tuner_v3 {
	const char *name;
	lagom_tuner_init_v2_fn init;
	lagom_nccl_result_t (*getCollInfo)(void *context, int collType,
					   size_t nBytes, int numPipeOps,
					   float **collCostTable, int numAlgo,
					   int numProto, int *nChannels);
	lagom_nccl_result_t (*destroy)(void *context);
};

/* getCollInfo of v4, v5 and v6. */
typedef lagom_nccl_result_t (*lagom_tuner_coll_info_v4_fn)(
	void *context, int collType, size_t nBytes, int numPipeOps,
	float **collCostTable, int numAlgo, int numProto, int regBuff,
	int *nChannels);

struct lagom_nccl_tuner_v4 {
	const char *name;
	lagom_tuner_init_v2_fn init;
	lagom_tuner_coll_info_v4_fn getCollInfo;
	lagom_nccl_result_t (*destroy)(void *context);
};

/* init of v5 and v6. */
typedef lagom_nccl_result_t (*lagom_tuner_init_v5_fn)(
	void **context, uint64_t commId, size_t nRanks, size_t nNodes,
	lagom_nccl_logger_t logFunction,
	struct lagom_nccl_nvl_domain_info_v5 *nvlDomainInfo,
	struct lagom_nccl_tuner_constants_v5 *constants);

struct lagom_nccl_tuner_v5 {
	const char *name;
	lagom_tuner_init_v5_fn init;
	lagom_tuner_coll_info_v4_fn getCollInfo;
	lagom_nccl_result_t (*finalize)(void *context);
};

/* ncclTuner_v6_t: constants and NVL domain info are the v5 ones. */
struct lagom_nccl_tuner_v6 {
	const char *name;
	lagom_tuner_init_v5_fn init;
	lagom_tuner_coll_info_v4_fn getCollInfo;
	lagom_nccl_result_t (*finalize)(void *context);
	lagom_nccl_result_t (*getChunkSize)(void *context, int collType,
					    size_t nBytes, int algo, int proto,
					    int nChannels, size_t *chunkSize);
};

#endif /* LAGOM_TUNER_NCCL_TUNER_ABI_H */
