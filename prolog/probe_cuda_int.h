/*
 * prolog/probe_cuda_int.h - private to the probes: the slice of the CUDA
 * runtime and cuBLAS ABI lagom-prolog calls through dlopen, so that one
 * binary runs on nodes with and without CUDA.  Values are those of CUDA
 * 12/13's headers (cudaError_t, cudaDataType, cublasComputeType_t).
 */
#ifndef LAGOM_PROLOG_PROBE_CUDA_H
#define LAGOM_PROLOG_PROBE_CUDA_H

#include <stddef.h>

#include "prolog/prolog.h"

#define CUDA_SUCCESS_RT 0
#define CUDA_ERROR_INSUFFICIENT_DRIVER 35
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_MEMCPY_DEVICE_TO_DEVICE 3
#define CUDA_STREAM_NON_BLOCKING 1
#define CUDA_DEV_ATTR_SM_COUNT 16
#define CUDA_R_32F 0
#define CUDA_R_16F 2
#define CUDA_R_16BF 14
#define CUBLAS_OP_N 0
#define CUBLAS_COMPUTE_32F 68
#define CUBLAS_COMPUTE_32F_FAST_TF32 77
#define CUBLAS_GEMM_DEFAULT (-1)

struct cudart {
	void *handle;
	int (*GetDeviceCount)(int *count);
	int (*RuntimeGetVersion)(int *version);
	int (*DriverGetVersion)(int *version);
	const char *(*GetErrorString)(int error);
	int (*SetDevice)(int dev);
	int (*DeviceGetAttribute)(int *value, int attr, int dev);
	int (*Malloc)(void **ptr, size_t bytes);
	int (*Free)(void *ptr);
	int (*Memset)(void *ptr, int value, size_t bytes);
	int (*MemcpyAsync)(void *dst, const void *src, size_t bytes, int kind,
			   void *stream);
	int (*DeviceSynchronize)(void);
	int (*StreamCreateWithFlags)(void **stream, unsigned flags);
	int (*StreamDestroy)(void *stream);
	int (*StreamSynchronize)(void *stream);
	int (*EventCreate)(void **event);
	int (*EventRecord)(void *event, void *stream);
	int (*EventSynchronize)(void *event);
	int (*EventElapsedTime)(float *ms, void *start, void *end);
	int (*EventDestroy)(void *event);
};

struct cublas {
	void *handle;
	int (*Create)(void **handle);
	int (*Destroy)(void *handle);
	int (*SetStream)(void *handle, void *stream);
	int (*GemmEx)(void *handle, int transa, int transb, int m, int n, int k,
		      const void *alpha, const void *A, int Atype, int lda,
		      const void *B, int Btype, int ldb, const void *beta,
		      void *C, int Ctype, int ldc, int computeType, int algo);
};

/* dlopen libcudart / libcublas; 0 or -ENOENT (reason noted in res). */
int cudart_load(struct cudart *rt, struct probe_result *res);
int cublas_load(struct cublas *bl, struct probe_result *res);
void cudart_unload(struct cudart *rt);
void cublas_unload(struct cublas *bl);

/* Square n x n GEMM operands on the current device, for any precision. */
struct gemm_bufs {
	int n;
	void *a, *b, *c;
	void *blas; /* cublasHandle_t */
	void *stream;
};

int gemm_setup(const struct cudart *rt, const struct cublas *bl, int n,
	       struct gemm_bufs *g);
void gemm_teardown(const struct cudart *rt, const struct cublas *bl,
		   struct gemm_bufs *g);
/* Enqueue reps GEMMs of precision prec on g->stream; 0 or a CUDA/cuBLAS
 * status.  prec FP8 is not supported through cublasGemmEx (-1). */
int gemm_enqueue(const struct cublas *bl, struct gemm_bufs *g,
		 enum lagom_precision prec, int reps);
/* Seconds that reps GEMMs take on g->stream (events), or -1 on error. */
double gemm_time_s(const struct cudart *rt, const struct cublas *bl,
		   struct gemm_bufs *g, enum lagom_precision prec, int reps);

#endif /* LAGOM_PROLOG_PROBE_CUDA_H */
