/*
 * prolog/probe_contention.c - the contention curve (method section 1,
 * "computation under contention"): how much a dense GEMM slows down while a
 * kernel holds k CTAs resident and streams data through L2 and HBM in
 * chunk-sized pieces, as k NCCL channels do.  The resident kernel is PTX
 * embedded below and loaded with the driver API (cuModuleLoadData), so no
 * CUDA compiler is needed to build lagom.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "prolog/probe_cuda_int.h"

#define CONT_GEMM_N 8192
#define CONT_GEMM_REPS 4
#define HOLD_THREADS 256
#define MAX_CTAS 32
#define MAX_CHUNK ((size_t)2 << 20)
/* Faster than any one CTA copies: sizes the hold kernel to outlast the
 * GEMMs it runs beside. */
#define CTA_COPY_BPS_MAX 100e9

/*
 * lagom_hold(src, dst, nvec, iters): CTA b copies its nvec 16-byte vectors
 * src[b*nvec ...] -> dst[b*nvec ...], iters times, through L2 (.cg), the way
 * a channel moves a chunk.  Checked with ptxas by tests/prolog/ptx.sh.
 */
const char lagom_hold_ptx[] =
	".version 7.0\n"
	".target sm_75\n"
	".address_size 64\n"
	"\n"
	".visible .entry lagom_hold(\n"
	"\t.param .u64 p_src,\n"
	"\t.param .u64 p_dst,\n"
	"\t.param .u64 p_nvec,\n"
	"\t.param .u32 p_iters)\n"
	"{\n"
	"\t.reg .pred %p<3>;\n"
	"\t.reg .b32 %r<8>;\n"
	"\t.reg .b32 %v<4>;\n"
	"\t.reg .b64 %rd<12>;\n"
	"\n"
	"\tld.param.u64 %rd1, [p_src];\n"
	"\tld.param.u64 %rd2, [p_dst];\n"
	"\tld.param.u64 %rd3, [p_nvec];\n"
	"\tld.param.u32 %r1, [p_iters];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tcvta.to.global.u64 %rd2, %rd2;\n"
	"\tmov.u32 %r2, %ctaid.x;\n"
	"\tmov.u32 %r3, %tid.x;\n"
	"\tmov.u32 %r4, %ntid.x;\n"
	"\tcvt.u64.u32 %rd4, %r2;\n"
	"\tmul.lo.u64 %rd4, %rd4, %rd3;\n"
	"\tcvt.u64.u32 %rd9, %r4;\n"
	"\tmov.u32 %r5, 0;\n"
	"LOOP_IT:\n"
	"\tsetp.ge.u32 %p1, %r5, %r1;\n"
	"\t@%p1 bra DONE;\n"
	"\tcvt.u64.u32 %rd5, %r3;\n"
	"LOOP_I:\n"
	"\tsetp.ge.u64 %p2, %rd5, %rd3;\n"
	"\t@%p2 bra NEXT_IT;\n"
	"\tadd.u64 %rd6, %rd4, %rd5;\n"
	"\tshl.b64 %rd6, %rd6, 4;\n"
	"\tadd.u64 %rd7, %rd1, %rd6;\n"
	"\tadd.u64 %rd8, %rd2, %rd6;\n"
	"\tld.global.cg.v4.u32 {%v0, %v1, %v2, %v3}, [%rd7];\n"
	"\tst.global.cg.v4.u32 [%rd8], {%v0, %v1, %v2, %v3};\n"
	"\tadd.u64 %rd5, %rd5, %rd9;\n"
	"\tbra LOOP_I;\n"
	"NEXT_IT:\n"
	"\tadd.u32 %r5, %r5, 1;\n"
	"\tbra LOOP_IT;\n"
	"DONE:\n"
	"\tret;\n"
	"}\n";

struct cudrv {
	void *handle;
	int (*Init)(unsigned flags);
	int (*DeviceGet)(int *dev, int ordinal);
	int (*PrimaryCtxRetain)(void **ctx, int dev);
	int (*CtxSetCurrent)(void *ctx);
	int (*ModuleLoadData)(void **module, const void *image);
	int (*ModuleGetFunction)(void **fn, void *module, const char *name);
	int (*LaunchKernel)(void *fn, unsigned gx, unsigned gy, unsigned gz,
			    unsigned bx, unsigned by, unsigned bz,
			    unsigned shared_bytes, void *stream, void **params,
			    void **extra);
};

static int cudrv_load(struct cudrv *d, struct probe_result *res)
{
	static const char *const names[] = { "libcuda.so.1", NULL };
	const struct probe_sym syms[] = {
		{ "cuInit", (void **)&d->Init },
		{ "cuDeviceGet", (void **)&d->DeviceGet },
		{ "cuDevicePrimaryCtxRetain", (void **)&d->PrimaryCtxRetain },
		{ "cuCtxSetCurrent", (void **)&d->CtxSetCurrent },
		{ "cuModuleLoadData", (void **)&d->ModuleLoadData },
		{ "cuModuleGetFunction", (void **)&d->ModuleGetFunction },
		{ "cuLaunchKernel", (void **)&d->LaunchKernel },
		{ NULL, NULL },
	};

	d->handle = probe_dlopen(names, syms, res);
	return d->handle ? 0 : -ENOENT;
}

/* The resident kernel as a launchable function in device 0's context. */
static int load_hold(const struct cudrv *d, void **fn)
{
	void *ctx = NULL, *module = NULL;
	int dev = 0;

	if (d->Init(0) || d->DeviceGet(&dev, 0) ||
	    d->PrimaryCtxRetain(&ctx, dev) || d->CtxSetCurrent(ctx) ||
	    d->ModuleLoadData(&module, lagom_hold_ptx) ||
	    d->ModuleGetFunction(fn, module, "lagom_hold"))
		return -1;
	return 0;
}

struct hold {
	const struct cudrv *d;
	void *fn;
	void *src, *dst; /* MAX_CTAS * MAX_CHUNK bytes each */
	void *stream;
};

/* One point: GEMM time beside k CTAs copying chunk bytes, over alone. */
static double slowdown_at(const struct cudart *rt, const struct cublas *bl,
			  struct gemm_bufs *g, struct hold *h, int k,
			  size_t chunk, double alone_s)
{
	uint64_t src = (uintptr_t)h->src, dst = (uintptr_t)h->dst;
	uint64_t nvec = chunk / 16;
	double iters_d = 3 * alone_s * CTA_COPY_BPS_MAX / (2.0 * chunk);
	unsigned iters = iters_d > 1e6 ? 1000000u : (unsigned)iters_d + 1;
	void *params[] = { &src, &dst, &nvec, &iters };
	double with_s;

	if (h->d->LaunchKernel(h->fn, (unsigned)k, 1, 1, HOLD_THREADS, 1, 1, 0,
			       h->stream, params, NULL))
		return -1;
	with_s = gemm_time_s(rt, bl, g, LAGOM_PREC_BF16, CONT_GEMM_REPS);
	if (rt->StreamSynchronize(h->stream) || with_s <= 0)
		return -1;
	return with_s / alone_s;
}

static void sweep(const struct cudart *rt, const struct cublas *bl,
		  struct gemm_bufs *g, struct hold *h, struct probe_result *res,
		  double deadline)
{
	static const size_t chunks[] = { 128 << 10, 512 << 10, 2 << 20 };
	static const int ctas[] = { 1, 2, 4, 8, 16, 32 };
	struct lagom_profile_measurements *m = &res->meas;
	double alone_s;

	gemm_time_s(rt, bl, g, LAGOM_PREC_BF16, 2);
	alone_s = gemm_time_s(rt, bl, g, LAGOM_PREC_BF16, CONT_GEMM_REPS);
	if (alone_s <= 0) {
		probe_note(res, "contention: GEMM failed");
		return;
	}
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		for (size_t i = 0; i < sizeof(ctas) / sizeof(ctas[0]); i++) {
			double s;

			if (prolog_now() > deadline) {
				probe_note(res, "contention curve cut by the "
						"time budget");
				return;
			}
			s = slowdown_at(rt, bl, g, h, ctas[i], chunks[c],
					alone_s);
			if (s <= 0 ||
			    m->n_contention >= LAGOM_PROFILE_MAX_POINTS)
				continue;
			m->contention[m->n_contention++] =
				(struct lagom_contention_point){ ctas[i],
								 chunks[c], s };
		}
	}
}

int probe_contention(struct probe_result *res, double deadline, bool verbose)
{
	struct cudart rt = { 0 };
	struct cublas bl = { 0 };
	struct cudrv d = { 0 };
	struct gemm_bufs g;
	struct hold h = { .d = &d };
	size_t bytes = MAX_CTAS * MAX_CHUNK;

	if (cudart_load(&rt, res) < 0 || cublas_load(&bl, res) < 0 ||
	    cudrv_load(&d, res) < 0)
		return -ENOENT;
	if (rt.SetDevice(0) || load_hold(&d, &h.fn)) {
		probe_note(res, "contention: resident kernel did not load");
		return -EIO;
	}
	if (rt.Malloc(&h.src, bytes) || rt.Malloc(&h.dst, bytes) ||
	    rt.StreamCreateWithFlags(&h.stream, CUDA_STREAM_NON_BLOCKING) ||
	    gemm_setup(&rt, &bl, CONT_GEMM_N, &g) < 0) {
		probe_note(res, "contention: out of device memory");
		return -ENOMEM;
	}
	sweep(&rt, &bl, &g, &h, res, deadline);
	if (res->meas.n_contention > 0) {
		res->meas.contention_source = LAGOM_SOURCE_MEASURED;
		res->meas.contention_precision = LAGOM_PREC_BF16;
	}
	if (verbose)
		fprintf(stderr, "lagom-prolog: contention: %zu points\n",
			res->meas.n_contention);
	gemm_teardown(&rt, &bl, &g);
	return 0;
}
