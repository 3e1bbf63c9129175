/*
 * bench/gpu_kernels.h - the memory-bound kernels (the triad, the hog) and
 * the random operands of bench/nccl_contention.c.  Included once, by
 * that file only (it needs gpu_common.h first).
 *
 * The kernel is a STREAM-style triad, a = b + s * c over float4s, written
 * here in PTX and loaded with cudaLibraryLoadData (CUDA 12.0+ runtime; the
 * driver compiles it for the GPU at load time), so the pack needs no nvcc:
 * gpu_pack.sh compiles nccl_contention.c with the C compiler alone.  Each
 * thread moves TRIAD_ITEMS float4s of each array, TRIAD_THREADS apart (a
 * warp's accesses are 512 contiguous bytes), loads all of them before the
 * first use, 16-byte loads and stores, no bounds check: the element count
 * must be a multiple of TRIAD_THREADS * TRIAD_ITEMS float4s.  The grid is
 * one block per TRIAD_THREADS * TRIAD_ITEMS float4s, many waves on any GPU,
 * as a framework's elementwise kernels are launched.  ptxas (CUDA 13.0,
 * sm_90): 32 registers, no stack, no spills.
 *
 * The hog is the traffic a collective would put on HBM, at a rate it
 * measures: a grid of exactly K blocks of HOG_THREADS threads (K CTAs
 * resident, as NCCL's K channels), each copying its own slice of a 1 GiB
 * buffer into another, ITERS times over, 16-byte loads and stores, four
 * in flight per thread.  Its rate with K CTAs, over the GPU's (the
 * triad's) HBM rate, is the model's x (doc/model.md section 4).  ptxas
 * (CUDA 13.0, sm_90): 32 registers, no stack, no spills.
 */
#ifndef LAGOM_BENCH_GPU_KERNELS_H
#define LAGOM_BENCH_GPU_KERNELS_H

#include <stdint.h>
#include <string.h>

#define TRIAD_THREADS 256
#define TRIAD_ITEMS 4
#define HOG_THREADS 512

static const char triad_ptx[] =
	".version 7.0\n"
	".target sm_80\n"
	".address_size 64\n"
	"\n"
	".visible .entry lagom_triad(.param .u64 pa, .param .u64 pb,\n"
	"\t.param .u64 pc, .param .f32 ps)\n"
	"{\n"
	"\t.reg .b32 %r<4>;\n"
	"\t.reg .b64 %d<16>;\n"
	"\t.reg .f32 %s, %b<16>, %c<16>;\n"
	"\n"
	"\tld.param.u64 %d0, [pa];\n"
	"\tld.param.u64 %d1, [pb];\n"
	"\tld.param.u64 %d2, [pc];\n"
	"\tld.param.f32 %s, [ps];\n"
	"\tcvta.to.global.u64 %d0, %d0;\n"
	"\tcvta.to.global.u64 %d1, %d1;\n"
	"\tcvta.to.global.u64 %d2, %d2;\n"
	/* d3: this thread's first byte offset, (block * ntid * 4 + tid) * 16;
	 * d5: the stride between its items, ntid * 16 bytes. */
	"\tmov.u32 %r0, %ctaid.x;\n"
	"\tmov.u32 %r1, %ntid.x;\n"
	"\tmov.u32 %r2, %tid.x;\n"
	"\tmul.wide.u32 %d3, %r0, %r1;\n"
	"\tshl.b64 %d3, %d3, 2;\n"
	"\tcvt.u64.u32 %d4, %r2;\n"
	"\tadd.u64 %d3, %d3, %d4;\n"
	"\tshl.b64 %d3, %d3, 4;\n"
	"\tmul.wide.u32 %d5, %r1, 16;\n"
	"\tadd.u64 %d6, %d1, %d3;\n"
	"\tadd.u64 %d7, %d6, %d5;\n"
	"\tadd.u64 %d8, %d7, %d5;\n"
	"\tadd.u64 %d9, %d8, %d5;\n"
	"\tadd.u64 %d10, %d2, %d3;\n"
	"\tadd.u64 %d11, %d10, %d5;\n"
	"\tadd.u64 %d12, %d11, %d5;\n"
	"\tadd.u64 %d13, %d12, %d5;\n"
	"\tld.global.v4.f32 {%b0, %b1, %b2, %b3}, [%d6];\n"
	"\tld.global.v4.f32 {%b4, %b5, %b6, %b7}, [%d7];\n"
	"\tld.global.v4.f32 {%b8, %b9, %b10, %b11}, [%d8];\n"
	"\tld.global.v4.f32 {%b12, %b13, %b14, %b15}, [%d9];\n"
	"\tld.global.v4.f32 {%c0, %c1, %c2, %c3}, [%d10];\n"
	"\tld.global.v4.f32 {%c4, %c5, %c6, %c7}, [%d11];\n"
	"\tld.global.v4.f32 {%c8, %c9, %c10, %c11}, [%d12];\n"
	"\tld.global.v4.f32 {%c12, %c13, %c14, %c15}, [%d13];\n"
	"\tfma.rn.f32 %b0, %c0, %s, %b0;\n"
	"\tfma.rn.f32 %b1, %c1, %s, %b1;\n"
	"\tfma.rn.f32 %b2, %c2, %s, %b2;\n"
	"\tfma.rn.f32 %b3, %c3, %s, %b3;\n"
	"\tfma.rn.f32 %b4, %c4, %s, %b4;\n"
	"\tfma.rn.f32 %b5, %c5, %s, %b5;\n"
	"\tfma.rn.f32 %b6, %c6, %s, %b6;\n"
	"\tfma.rn.f32 %b7, %c7, %s, %b7;\n"
	"\tfma.rn.f32 %b8, %c8, %s, %b8;\n"
	"\tfma.rn.f32 %b9, %c9, %s, %b9;\n"
	"\tfma.rn.f32 %b10, %c10, %s, %b10;\n"
	"\tfma.rn.f32 %b11, %c11, %s, %b11;\n"
	"\tfma.rn.f32 %b12, %c12, %s, %b12;\n"
	"\tfma.rn.f32 %b13, %c13, %s, %b13;\n"
	"\tfma.rn.f32 %b14, %c14, %s, %b14;\n"
	"\tfma.rn.f32 %b15, %c15, %s, %b15;\n"
	"\tadd.u64 %d6, %d0, %d3;\n"
	"\tadd.u64 %d7, %d6, %d5;\n"
	"\tadd.u64 %d8, %d7, %d5;\n"
	"\tadd.u64 %d9, %d8, %d5;\n"
	"\tst.global.v4.f32 [%d6], {%b0, %b1, %b2, %b3};\n"
	"\tst.global.v4.f32 [%d7], {%b4, %b5, %b6, %b7};\n"
	"\tst.global.v4.f32 [%d8], {%b8, %b9, %b10, %b11};\n"
	"\tst.global.v4.f32 [%d9], {%b12, %b13, %b14, %b15};\n"
	"\tret;\n"
	"}\n";

static const char hog_ptx[] =
	".version 7.0\n"
	".target sm_80\n"
	".address_size 64\n"
	"\n"
	".visible .entry lagom_hog(.param .u64 pdst, .param .u64 psrc,\n"
	"\t.param .u64 pslice, .param .u32 piters)\n"
	"{\n"
	"\t.reg .pred %p<2>;\n"
	"\t.reg .b32 %r<5>, %v<16>;\n"
	"\t.reg .b64 %d<16>;\n"
	"\n"
	"\tld.param.u64 %d0, [pdst];\n"
	"\tld.param.u64 %d1, [psrc];\n"
	"\tld.param.u64 %d2, [pslice];\n"
	"\tld.param.u32 %r0, [piters];\n"
	"\tcvta.to.global.u64 %d0, %d0;\n"
	"\tcvta.to.global.u64 %d1, %d1;\n"
	"\tmov.u32 %r1, %ctaid.x;\n"
	"\tmov.u32 %r2, %ntid.x;\n"
	"\tmov.u32 %r3, %tid.x;\n"
	"\tcvt.u64.u32 %d3, %r1;\n"
	"\tmul.lo.u64 %d3, %d3, %d2;\n"
	"\tshl.b64 %d3, %d3, 4;\n"
	"\tadd.u64 %d4, %d0, %d3;\n"
	"\tadd.u64 %d5, %d1, %d3;\n"
	"\tshl.b64 %d6, %d2, 4;\n"
	"\tmul.wide.u32 %d7, %r2, 16;\n"
	"\tshl.b64 %d8, %d7, 2;\n"
	"\tmul.wide.u32 %d9, %r3, 16;\n"
	"\tmov.u32 %r4, 0;\n"
	"OUTER:\n"
	"\tsetp.ge.u32 %p0, %r4, %r0;\n"
	"\t@%p0 bra DONE;\n"
	"\tmov.u64 %d10, %d9;\n"
	"INNER:\n"
	"\tsetp.ge.u64 %p1, %d10, %d6;\n"
	"\t@%p1 bra NEXT;\n"
	"\tadd.u64 %d11, %d5, %d10;\n"
	"\tadd.u64 %d12, %d11, %d7;\n"
	"\tadd.u64 %d13, %d12, %d7;\n"
	"\tadd.u64 %d14, %d13, %d7;\n"
	"\tld.global.v4.u32 {%v0, %v1, %v2, %v3}, [%d11];\n"
	"\tld.global.v4.u32 {%v4, %v5, %v6, %v7}, [%d12];\n"
	"\tld.global.v4.u32 {%v8, %v9, %v10, %v11}, [%d13];\n"
	"\tld.global.v4.u32 {%v12, %v13, %v14, %v15}, [%d14];\n"
	"\tadd.u64 %d11, %d4, %d10;\n"
	"\tadd.u64 %d12, %d11, %d7;\n"
	"\tadd.u64 %d13, %d12, %d7;\n"
	"\tadd.u64 %d14, %d13, %d7;\n"
	"\tst.global.v4.u32 [%d11], {%v0, %v1, %v2, %v3};\n"
	"\tst.global.v4.u32 [%d12], {%v4, %v5, %v6, %v7};\n"
	"\tst.global.v4.u32 [%d13], {%v8, %v9, %v10, %v11};\n"
	"\tst.global.v4.u32 [%d14], {%v12, %v13, %v14, %v15};\n"
	"\tadd.u64 %d10, %d10, %d8;\n"
	"\tbra INNER;\n"
	"NEXT:\n"
	"\tadd.u32 %r4, %r4, 1;\n"
	"\tbra OUTER;\n"
	"DONE:\n"
	"\tret;\n"
	"}\n";

struct triad {
	float *a, *b, *c;
	size_t n; /* floats per array */
	float s;
	cudaKernel_t kernel;
};

static dim3 dim3_of(size_t x)
{
	dim3 d = { (unsigned int)x, 1, 1 };

	return d;
}

static int triad_launch(struct triad *t, cudaStream_t stream)
{
	void *args[] = { &t->a, &t->b, &t->c, &t->s };
	size_t blocks = t->n / 4 / (TRIAD_THREADS * TRIAD_ITEMS);

	return cuda_ok(cudaLaunchKernel((const void *)t->kernel,
					dim3_of(blocks), dim3_of(TRIAD_THREADS),
					args, 0, stream),
		       "cudaLaunchKernel (triad)") &&
	       cuda_ok(cudaGetLastError(), "triad launch");
}

struct hog {
	void *dst, *src;
	size_t bytes; /* of each buffer */
	cudaKernel_t kernel;
};

/* The float4s each of K blocks copies: its share of the buffer, rounded
 * down to a multiple of one loop step (4 float4s per thread). */
static unsigned long long hog_slice(const struct hog *h, int k)
{
	unsigned long long step = 4 * HOG_THREADS;

	return h->bytes / 16 / (unsigned long long)k / step * step;
}

/* Bytes one pass of K blocks reads and writes. */
static double hog_pass_bytes(const struct hog *h, int k)
{
	return 2.0 * 16 * (double)hog_slice(h, k) * k;
}

static int hog_launch(struct hog *h, int k, unsigned int iters,
		      cudaStream_t stream)
{
	unsigned long long slice = hog_slice(h, k);
	void *args[] = { &h->dst, &h->src, &slice, &iters };

	return cuda_ok(cudaLaunchKernel((const void *)h->kernel, dim3_of(k),
					dim3_of(HOG_THREADS), args, 0, stream),
		       "cudaLaunchKernel (hog)") &&
	       cuda_ok(cudaGetLastError(), "hog launch");
}

/* Load the hog, fill src with 0x5a bytes and poison dst (0xff), run it
 * once with 3 blocks and check on the host that it copied exactly their
 * slices.  0, or -1 after one line. */
static int hog_setup(struct hog *h, cudaStream_t stream)
{
	cudaLibrary_t lib;
	size_t done = 16 * hog_slice(h, 3) * 3;
	unsigned char *host;
	int ok = 1;

	if (!cuda_ok(cudaLibraryLoadData(&lib, hog_ptx, NULL, NULL, 0, NULL,
					 NULL, 0),
		     "cudaLibraryLoadData (hog PTX)") ||
	    !cuda_ok(cudaLibraryGetKernel(&h->kernel, lib, "lagom_hog"),
		     "cudaLibraryGetKernel") ||
	    !cuda_ok(cudaMalloc(&h->dst, h->bytes), "cudaMalloc") ||
	    !cuda_ok(cudaMalloc(&h->src, h->bytes), "cudaMalloc") ||
	    !cuda_ok(cudaMemset(h->src, 0x5a, h->bytes), "cudaMemset") ||
	    !cuda_ok(cudaMemset(h->dst, 0xff, h->bytes), "cudaMemset") ||
	    !hog_launch(h, 3, 1, stream) ||
	    !cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize"))
		return -1;
	host = malloc(h->bytes);
	if (host == NULL)
		return failed("hog check", "out of memory") - 1;
	if (!cuda_ok(cudaMemcpy(host, h->dst, h->bytes, cudaMemcpyDeviceToHost),
		     "cudaMemcpy (hog check)")) {
		free(host);
		return -1;
	}
	for (size_t i = 0; i < h->bytes && ok; i++)
		if (host[i] != (i < done ? 0x5a : 0xff)) {
			char why[96];

			snprintf(why, sizeof(why),
				 "byte %zu of %zu copied is 0x%02x: wrong "
				 "result",
				 i, done, host[i]);
			ok = failed("hog check", why);
		}
	free(host);
	return ok ? 0 : -1;
}

/* x in [-1, 1) from a 64-bit xorshift state. */
static float uniform(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (float)((int64_t)(*x >> 11) - ((int64_t)1 << 52)) /
	       (float)((int64_t)1 << 52);
}

/* N bf16 values drawn at random in [-1, 1) into the device buffer DST
 * (round to nearest even from float).  0, or -1 after one line. */
static int random_bf16(void *dst, size_t n, uint64_t seed)
{
	uint16_t *host = malloc(n * sizeof(*host));
	uint64_t x = seed | 1;
	int ok;

	if (host == NULL)
		return failed("random operands", "out of memory") - 1;
	for (size_t i = 0; i < n; i++) {
		float f = uniform(&x);
		uint32_t u;

		memcpy(&u, &f, sizeof(u));
		u += 0x7fff + ((u >> 16) & 1);
		host[i] = (uint16_t)(u >> 16);
	}
	ok = cuda_ok(cudaMemcpy(dst, host, n * sizeof(*host),
				cudaMemcpyHostToDevice),
		     "cudaMemcpy (operands)");
	free(host);
	return ok ? 0 : -1;
}

/* Load the triad, fill b and c with constants (the result is one value),
 * poison a (all-ones bits: NaN), run it once (s must be 0.5), and check
 * every element of a on the host.  0, or -1 after one line. */
static int triad_setup(struct triad *t, cudaStream_t stream)
{
	cudaLibrary_t lib;
	size_t bytes = t->n * sizeof(float);
	float want, *host;
	int ok = 1;

	if (!cuda_ok(cudaLibraryLoadData(&lib, triad_ptx, NULL, NULL, 0, NULL,
					 NULL, 0),
		     "cudaLibraryLoadData (triad PTX)") ||
	    !cuda_ok(cudaLibraryGetKernel(&t->kernel, lib, "lagom_triad"),
		     "cudaLibraryGetKernel") ||
	    !cuda_ok(cudaMalloc((void **)&t->a, bytes), "cudaMalloc") ||
	    !cuda_ok(cudaMalloc((void **)&t->b, bytes), "cudaMalloc") ||
	    !cuda_ok(cudaMalloc((void **)&t->c, bytes), "cudaMalloc") ||
	    !cuda_ok(cudaMemset(t->b, 0x3f, bytes), "cudaMemset") ||
	    !cuda_ok(cudaMemset(t->c, 0x40, bytes), "cudaMemset") ||
	    !cuda_ok(cudaMemset(t->a, 0xff, bytes), "cudaMemset") ||
	    !triad_launch(t, stream) ||
	    !cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize"))
		return -1;
	host = malloc(bytes);
	if (host == NULL)
		return failed("triad check", "out of memory") - 1;
	if (!cuda_ok(cudaMemcpy(host, t->a, bytes, cudaMemcpyDeviceToHost),
		     "cudaMemcpy (triad check)")) {
		free(host);
		return -1;
	}
	{
		float b, c;

		/* s is 0.5: c * s is exact, so the fused and the unfused
		 * sums are the same float. */
		memset(&b, 0x3f, sizeof(b));
		memset(&c, 0x40, sizeof(c));
		want = b + c * t->s;
	}
	for (size_t i = 0; i < t->n && ok; i++)
		if (memcmp(&host[i], &want, sizeof(want)) != 0) {
			char why[96];

			snprintf(why, sizeof(why),
				 "element %zu is %g, not %g: wrong result", i,
				 (double)host[i], (double)want);
			ok = failed("triad check", why);
		}
	free(host);
	return ok ? 0 : -1;
}

#endif
