/*
 * bench/gpu_common.h - what bench/nccl_pair.c and bench/nccl_contention.c
 * share: the rank, the one line a failure prints, the CUDA and NCCL status
 * checks and a bounded integer parse.  Each program is one file compiled by
 * bench/gpu_pack.sh against the CUDA toolkit; it defines GPU_PROG (its
 * name, a string literal) before including this.
 */
#ifndef LAGOM_BENCH_GPU_COMMON_H
#define LAGOM_BENCH_GPU_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#ifndef GPU_PROG
#error "define GPU_PROG (the program's name) before including gpu_common.h"
#endif

/* This process's rank, in every failure line; -1 until known. */
static int rank = -1;

/* 0 after one "GPU_PROG: rank R: " line saying what failed and why. */
static inline int failed(const char *what, const char *why)
{
	fprintf(stderr, GPU_PROG ": rank %d: %s: %s\n", rank, what, why);
	return 0;
}

static inline int cuda_ok(cudaError_t st, const char *what)
{
	return st == cudaSuccess ? 1 : failed(what, cudaGetErrorString(st));
}

static inline int nccl_ok(ncclResult_t st, const char *what)
{
	return st == ncclSuccess ? 1 : failed(what, ncclGetErrorString(st));
}

/* S as an int in LO..HI into OUT: 0, or -1 (OUT unchanged). */
static inline int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

#endif
