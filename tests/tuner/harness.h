/*
 * tests/tuner/harness.h - drives libnccl-tuner-lagom.so the way NCCL 2.28.9
 * (v2..v5) and 2.30 (v6) do: dlopen, dlsym("ncclTunerPlugin_vN"), init per
 * communicator with a logger, getCollInfo with a float[numAlgo][numProto]
 * cost table pre-filled with -1 and then NCCL's modelled times, nChannels
 * starting at 0, and for v2 NCCL's own wrapper (support flags derived from
 * the table, the returned pair turned into "cell = 0" unless the cell is -1).
 */
#ifndef LAGOM_TESTS_TUNER_HARNESS_H
#define LAGOM_TESTS_TUNER_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "tuner/nccl_tuner_abi.h"

#define H_NUM_ALGO 7 /* NCCL 2.23 .. 2.30 */
#define H_NUM_PROTO 3
#define H_CELLS (H_NUM_ALGO * H_NUM_PROTO)
#define H_MAX_LOG 16
#define H_VERSIONS 5 /* v2 .. v6 */

/* Cells NCCL enables, as bits (1 << (algo * 3 + proto)). */
#define H_CELL(a, p) (1u << ((a)*H_NUM_PROTO + (p)))
#define H_ROW(a) (H_CELL(a, 0) | H_CELL(a, 1) | H_CELL(a, 2))

struct h_log_line {
	int level;
	unsigned long flags;
	char text[512];
};

/* Lines the module logged through the logger since h_log_reset(). */
struct h_log {
	int n;
	struct h_log_line line[H_MAX_LOG];
};

extern struct h_log h_captured;

void h_log_reset(void);
int h_log_count(int level);
/* The logger handed to init; appends to h_captured. */
void h_logger(lagom_nccl_log_level_t level, unsigned long flags,
	      const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* dlopen the built module (top_builddir/.libs); fails the test otherwise. */
void *h_module(void);

/* Exported symbol of ABI version 2..6, or NULL. */
const void *h_symbol(int version);

/*
 * NCCL's fill: every cell -1, then for the cells in enabled a time in
 * microseconds from a latency + bytes/bandwidth model.  num_proto is the
 * row stride.
 */
void h_fill_table(float *table, int num_algo, int num_proto, size_t n_bytes,
		  unsigned enabled);

/* init / getCollInfo / finalize through ABI version 2..6. */
int h_init(int version, size_t n_ranks, size_t n_nodes, void **ctx);
int h_coll(int version, void *ctx, int func, size_t n_bytes, int pipe_ops,
	   float *table, int num_algo, int num_proto, int reg_buff,
	   int *nchannels);
int h_finalize(int version, void *ctx);

/* setenv LAGOM_PLAN to text with "@VERSION@" replaced by PACKAGE_VERSION. */
void h_set_plan(const char *text);

#endif /* LAGOM_TESTS_TUNER_HARNESS_H */
