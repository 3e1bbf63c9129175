/*
 * prolog/probe_cuda.c - the single-GPU probes through the dlopen'd CUDA
 * runtime and cuBLAS: dense GEMM rate per precision and device memory
 * bandwidth (the model's compute and HBM terms, method section 1).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "prolog/probe_cuda_int.h"

#define GEMM_N 8192
#define GEMM_REPS 8
#define HBM_BYTES ((size_t)256 << 20)
#define HBM_REPS 8

int cudart_load(struct cudart *rt, struct probe_result *res)
{
	static const char *const names[] = { "libcudart.so.13",
					     "libcudart.so.12", "libcudart.so",
					     NULL };
	const struct probe_sym syms[] = {
		{ "cudaGetDeviceCount", (void **)&rt->GetDeviceCount },
		{ "cudaRuntimeGetVersion", (void **)&rt->RuntimeGetVersion },
		{ "cudaDriverGetVersion", (void **)&rt->DriverGetVersion },
		{ "cudaGetErrorString", (void **)&rt->GetErrorString },
		{ "cudaSetDevice", (void **)&rt->SetDevice },
		{ "cudaDeviceGetAttribute", (void **)&rt->DeviceGetAttribute },
		{ "cudaMalloc", (void **)&rt->Malloc },
		{ "cudaFree", (void **)&rt->Free },
		{ "cudaMemset", (void **)&rt->Memset },
		{ "cudaMemcpyAsync", (void **)&rt->MemcpyAsync },
		{ "cudaDeviceSynchronize", (void **)&rt->DeviceSynchronize },
		{ "cudaStreamCreateWithFlags",
		  (void **)&rt->StreamCreateWithFlags },
		{ "cudaStreamDestroy", (void **)&rt->StreamDestroy },
		{ "cudaStreamSynchronize", (void **)&rt->StreamSynchronize },
		{ "cudaEventCreate", (void **)&rt->EventCreate },
		{ "cudaEventRecord", (void **)&rt->EventRecord },
		{ "cudaEventSynchronize", (void **)&rt->EventSynchronize },
		{ "cudaEventElapsedTime", (void **)&rt->EventElapsedTime },
		{ "cudaEventDestroy", (void **)&rt->EventDestroy },
		{ NULL, NULL },
	};

	rt->handle = probe_dlopen(names, syms, res);
	return rt->handle ? 0 : -ENOENT;
}

int cublas_load(struct cublas *bl, struct probe_result *res)
{
	static const char *const names[] = { "libcublas.so.13",
					     "libcublas.so.12", "libcublas.so",
					     NULL };
	const struct probe_sym syms[] = {
		{ "cublasCreate_v2", (void **)&bl->Create },
		{ "cublasDestroy_v2", (void **)&bl->Destroy },
		{ "cublasSetStream_v2", (void **)&bl->SetStream },
		{ "cublasGemmEx", (void **)&bl->GemmEx },
		{ NULL, NULL },
	};

	bl->handle = probe_dlopen(names, syms, res);
	return bl->handle ? 0 : -ENOENT;
}

void cudart_unload(struct cudart *rt)
{
	if (rt->handle != NULL)
		dlclose(rt->handle);
	rt->handle = NULL;
}

void cublas_unload(struct cublas *bl)
{
	if (bl->handle != NULL)
		dlclose(bl->handle);
	bl->handle = NULL;
}

int gemm_setup(const struct cudart *rt, const struct cublas *bl, int n,
	       struct gemm_bufs *g)
{
	size_t bytes = (size_t)n * n * 4;

	memset(g, 0, sizeof(*g));
	g->n = n;
	if (rt->Malloc(&g->a, bytes) || rt->Malloc(&g->b, bytes) ||
	    rt->Malloc(&g->c, bytes) || rt->Memset(g->a, 0x3c, bytes) ||
	    rt->Memset(g->b, 0x3c, bytes) || rt->Memset(g->c, 0, bytes) ||
	    rt->StreamCreateWithFlags(&g->stream, CUDA_STREAM_NON_BLOCKING) ||
	    bl->Create(&g->blas) || bl->SetStream(g->blas, g->stream)) {
		gemm_teardown(rt, bl, g);
		return -1;
	}
	return 0;
}

void gemm_teardown(const struct cudart *rt, const struct cublas *bl,
		   struct gemm_bufs *g)
{
	if (g->blas != NULL)
		bl->Destroy(g->blas);
	if (g->stream != NULL)
		rt->StreamDestroy(g->stream);
	rt->Free(g->a);
	rt->Free(g->b);
	rt->Free(g->c);
	memset(g, 0, sizeof(*g));
}

int gemm_enqueue(const struct cublas *bl, struct gemm_bufs *g,
		 enum lagom_precision prec, int reps)
{
	const float one = 1.0f, zero = 0.0f;
	int type, compute = CUBLAS_COMPUTE_32F;

	switch (prec) {
	case LAGOM_PREC_FP32:
		type = CUDA_R_32F;
		break;
	case LAGOM_PREC_TF32:
		type = CUDA_R_32F;
		compute = CUBLAS_COMPUTE_32F_FAST_TF32;
		break;
	case LAGOM_PREC_FP16:
		type = CUDA_R_16F;
		break;
	case LAGOM_PREC_BF16:
		type = CUDA_R_16BF;
		break;
	default:
		return -1;
	}
	for (int i = 0; i < reps; i++) {
		int st = bl->GemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, g->n,
				    g->n, g->n, &one, g->a, type, g->n, g->b,
				    type, g->n, &zero, g->c, type, g->n,
				    compute, CUBLAS_GEMM_DEFAULT);
		if (st != 0)
			return st;
	}
	return 0;
}

double gemm_time_s(const struct cudart *rt, const struct cublas *bl,
		   struct gemm_bufs *g, enum lagom_precision prec, int reps)
{
	void *start = NULL, *stop = NULL;
	float ms = -1;
	int bad;

	if (rt->EventCreate(&start) || rt->EventCreate(&stop))
		return -1;
	bad = rt->EventRecord(start, g->stream) ||
	      gemm_enqueue(bl, g, prec, reps) ||
	      rt->EventRecord(stop, g->stream) || rt->EventSynchronize(stop) ||
	      rt->EventElapsedTime(&ms, start, stop);
	rt->EventDestroy(start);
	rt->EventDestroy(stop);
	return bad || ms <= 0 ? -1 : ms * 1e-3;
}

/* Dense GEMM rate per precision on device 0 (FP8 is not measured: the
 * planner takes the table's). */
static void measure_gemm(const struct cudart *rt, const struct cublas *bl,
			 struct probe_result *res, double deadline)
{
	static const enum lagom_precision precs[] = { LAGOM_PREC_BF16,
						      LAGOM_PREC_FP16,
						      LAGOM_PREC_TF32,
						      LAGOM_PREC_FP32 };
	struct gemm_bufs g;
	double flop = 2.0 * GEMM_N * GEMM_N * GEMM_N * GEMM_REPS;

	if (gemm_setup(rt, bl, GEMM_N, &g) < 0) {
		probe_note(res, "GEMM buffers or cuBLAS handle failed");
		return;
	}
	for (size_t i = 0; i < sizeof(precs) / sizeof(precs[0]); i++) {
		double t;

		if (prolog_now() > deadline) {
			probe_note(res, "GEMM sweep cut by the time budget");
			break;
		}
		gemm_time_s(rt, bl, &g, precs[i], 2); /* warm-up */
		t = gemm_time_s(rt, bl, &g, precs[i], GEMM_REPS);
		if (t > 0)
			res->meas.gemm_flops[precs[i]] =
				(struct lagom_quantity){
					flop / t, LAGOM_SOURCE_MEASURED
				};
	}
	gemm_teardown(rt, bl, &g);
}

/* Device memory bandwidth: bytes read plus bytes written per second by a
 * device-to-device copy. */
static void measure_hbm(const struct cudart *rt, struct probe_result *res)
{
	void *src = NULL, *dst = NULL, *start = NULL, *stop = NULL;
	float ms = 0;
	int bad;

	bad = rt->Malloc(&src, HBM_BYTES) || rt->Malloc(&dst, HBM_BYTES) ||
	      rt->EventCreate(&start) || rt->EventCreate(&stop) ||
	      rt->MemcpyAsync(dst, src, HBM_BYTES, CUDA_MEMCPY_DEVICE_TO_DEVICE,
			      NULL) ||
	      rt->EventRecord(start, NULL);
	for (int i = 0; i < HBM_REPS && !bad; i++)
		bad = rt->MemcpyAsync(dst, src, HBM_BYTES,
				      CUDA_MEMCPY_DEVICE_TO_DEVICE, NULL);
	bad = bad || rt->EventRecord(stop, NULL) ||
	      rt->EventSynchronize(stop) ||
	      rt->EventElapsedTime(&ms, start, stop);
	if (!bad && ms > 0)
		res->meas.hbm_bw_Bps = (struct lagom_quantity){
			2.0 * HBM_BYTES * HBM_REPS / (ms * 1e-3),
			LAGOM_SOURCE_MEASURED
		};
	else
		probe_note(res, "HBM copy failed");
	if (start)
		rt->EventDestroy(start);
	if (stop)
		rt->EventDestroy(stop);
	rt->Free(src);
	rt->Free(dst);
}

static void version_text(char *buf, size_t len, int v)
{
	if (v > 0)
		snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
}

int probe_cuda(struct probe_result *res, double deadline, bool verbose)
{
	struct cudart rt = { 0 };
	struct cublas bl = { 0 };
	int count = 0, v = 0, st;

	if (cudart_load(&rt, res) < 0)
		return -ENOENT;
	if (rt.RuntimeGetVersion(&v) == 0)
		version_text(res->cuda_runtime_version,
			     sizeof(res->cuda_runtime_version), v);
	v = 0;
	if (rt.DriverGetVersion(&v) == 0)
		version_text(res->cuda_driver_version,
			     sizeof(res->cuda_driver_version), v);
	st = rt.GetDeviceCount(&count);
	if (st != CUDA_SUCCESS_RT || count <= 0) {
		res->gpus_seen = st == CUDA_ERROR_NO_DEVICE ? 0 : -1;
		probe_note(res, "no CUDA device (%s)",
			   st ? rt.GetErrorString(st) : "count 0");
		cudart_unload(&rt);
		return -ENODEV;
	}
	res->gpus_seen = count;
	if (rt.SetDevice(0) == 0) {
		measure_hbm(&rt, res);
		if (cublas_load(&bl, res) == 0)
			measure_gemm(&rt, &bl, res, deadline);
	}
	if (verbose)
		fprintf(stderr, "lagom-prolog: CUDA probe: %d device(s)\n",
			count);
	/* The libraries stay loaded: CUDA's exit handlers expect them, and
	 * this child process ends right after the probes. */
	return 0;
}
