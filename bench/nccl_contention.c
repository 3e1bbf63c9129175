/*
 * bench/nccl_contention.c - kernels' slowdown beside real NCCL kernels,
 * for bench/gpu_check.sh step 6.  Two processes, ranks 0 and 1 of one NCCL
 * job on one GPU (a distinct NCCL_HOSTID each, sockets over lo, as
 * bench/nccl_pair.c).  For each K (default 1 2 4 8 16 32) both ranks make
 * a new communicator with config.minCTAs = config.maxCTAs = K, and rank 0
 * times three kernels, one after the other, on a normal stream (median
 * after warm-up, CUDA events around each call): the bf16 8192x8192x8192
 * cublasGemmEx (constant operands, as in the first run; median of 10), a
 * skinny bf16 8192x1024x8192 one (M x N x K, random operands; median of
 * 20) and a memory-bound triad a = b + 0.5 c over three 1 GiB float
 * arrays (bench/gpu_kernels.h; median of 20):
 *
 *   alone   - nothing else on the GPU;
 *   idle    - beside rank 0's own 256 MiB all-reduce on a high-priority
 *             stream, launched while rank 1 has not launched its part: the
 *             NCCL kernel's CTAs stay resident, waiting, for the whole
 *             measurement (the SMs taken; no data moves, no other context);
 *   moving  - beside both ranks looping the all-reduce (data moving over
 *             the socket transport; rank 1's kernels are in another CUDA
 *             context, which time-slices with rank 0's unless MPS runs);
 *   hog     - beside the hog (bench/gpu_kernels.h): K CTAs of rank 0's
 *             own copy kernel streaming through HBM on the high-priority
 *             stream, NCCL idle; its rate alone and beside the works;
 *   after   - alone again (drift).
 *
 * The channels NCCL really used come from its TUNING line (rank 0 logs
 * one per call) in the debug file rank 0 writes to DIR/nccl0.log; its
 * INIT line on channels and any warning are echoed ("# nccl k=K: ...").
 * Rank 0 prints the table and writes it as CSV to CSV, one row per K and
 * kernel as it is measured: the 14 columns of the first run, then kernel,
 * unit (of the rates), work (FLOP or bytes per call), the alone, idle and
 * moving rates, blocks (the grid; 0 where cuBLAS chooses), hog_ms,
 * hog_slowdown, hog_GBps (its rate over its run beside the works),
 * hog_alone_GBps (one pass alone) and hog_covered.  A triad or hog that
 * fails its check (every byte of its output, once) is left out with a
 * line (the hog's columns empty); the GEMMs are still measured.  Not
 * built by make: bench/gpu_pack.sh compiles it against the CUDA toolkit's
 * headers (-lnccl -lcudart -lcublas).
 *
 *   nccl_contention RANK DIR CSV [K...]
 *   nccl_contention --ptx triad|hog    that kernel's PTX, on stdout
 *
 * Both ranks take the same DIR (fresh, empty: ids and handshakes go
 * through files there, every wait at most 30 s) and the same K list; rank 1
 * ignores CSV.  The whole program stops itself after 150 s (SIGALRM).
 * Exit status 0, 1 on a CUDA, cuBLAS or NCCL failure or a wait that ran
 * out (one "nccl_contention: " line), 2 on a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#define GPU_PROG "nccl_contention"
#include "gpu_common.h"
#include "gpu_kernels.h"

#define GEMM_N 8192
#define TP_N 1024
#define TRIAD_FLOATS ((size_t)256 << 20)
#define HOG_BYTES ((size_t)1 << 30)
#define AR_BYTES ((size_t)256 << 20)
#define REPS 20
#define NWORK 3
#define MAX_K 16
#define WAIT_S 30
#define WHOLE_S 150
#define SETTLE_MS 20

static const char *dir;

static int cublas_ok(cublasStatus_t st, const char *what)
{
	char why[32];

	if (st == CUBLAS_STATUS_SUCCESS)
		return 1;
	snprintf(why, sizeof(why), "cuBLAS status %d", (int)st);
	return failed(what, why);
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static int path_of(char *buf, size_t size, const char *name, int k)
{
	return snprintf(buf, size, "%s/%s.%d", dir, name, k) < (int)size ? 0
									 : -1;
}

/* Write LEN bytes to DIR/NAME.K whole: aside, then renamed. */
static int put(const char *name, int k, const void *data, size_t len)
{
	char path[4096], tmp[4200];
	FILE *f;
	int bad;

	if (path_of(path, sizeof(path), name, k) < 0)
		return failed(name, "path too long");
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (f == NULL)
		return failed(tmp, strerror(errno));
	bad = fwrite(data, 1, len, f) != len;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		unlink(tmp);
		return failed(path, "cannot write");
	}
	return 1;
}

/* Wait at most WAIT_S for DIR/NAME.K and read LEN bytes of it. */
static int get(const char *name, int k, void *data, size_t len)
{
	char path[4096];

	if (path_of(path, sizeof(path), name, k) < 0)
		return failed(name, "path too long");
	for (int i = 0; i < WAIT_S * 1000; i++) {
		FILE *f = fopen(path, "rb");

		if (f != NULL) {
			size_t n = fread(data, 1, len, f);

			fclose(f);
			if (n == len)
				return 1;
		}
		sleep_ms(1);
	}
	fprintf(stderr, "nccl_contention: rank %d: no %s after %d s\n", rank,
		path, WAIT_S);
	return 0;
}

struct gpu {
	void *send, *recv;
	void *a, *b, *c;    /* 8192^3: constant operands */
	void *ta, *tb, *tc; /* 8192 x 1024 x 8192: random operands */
	struct triad triad;
	struct hog hog;
	int have_hog;
	cudaStream_t ar, mm; /* the all-reduce's (high priority), the work's */
	cudaEvent_t ev[REPS + 1], ar0, ar1;
	cublasHandle_t blas;
};

/* What rank 0 times: its CSV name, the unit of its rate, the FLOP or
 * bytes of one call, the calls timed, its grid (0: cuBLAS chooses). */
struct work {
	const char *name, *unit;
	double per_call;
	int reps;
	long blocks;
};

/* The triad is last: without it (it failed its check), NWORK - 1. */
static int nwork = NWORK;

static const struct work works[NWORK] = {
	{ "gemm_bf16_8192x8192x8192", "TFLOP/s", 2.0 * GEMM_N *GEMM_N *GEMM_N,
	  10, 0 },
	{ "gemm_bf16_8192x1024x8192", "TFLOP/s", 2.0 * GEMM_N *TP_N *GEMM_N,
	  REPS, 0 },
	{ "triad_f32_3x1GiB", "GB/s", 3.0 * TRIAD_FLOATS * sizeof(float), REPS,
	  (long)(TRIAD_FLOATS / 4 / (TRIAD_THREADS * TRIAD_ITEMS)) },
};

/* CUDA first, so that a node without a driver fails before the id. */
static int setup(struct gpu *g)
{
	size_t mat = (size_t)GEMM_N * GEMM_N * 2;
	int ndev = 0, least = 0, greatest = 0;

	if (!cuda_ok(cudaGetDeviceCount(&ndev), "cudaGetDeviceCount") ||
	    !cuda_ok(cudaSetDevice(0), "cudaSetDevice") ||
	    !cuda_ok(cudaMalloc(&g->send, AR_BYTES), "cudaMalloc") ||
	    !cuda_ok(cudaMalloc(&g->recv, AR_BYTES), "cudaMalloc") ||
	    !cuda_ok(cudaMemset(g->send, 0, AR_BYTES), "cudaMemset") ||
	    !cuda_ok(cudaDeviceGetStreamPriorityRange(&least, &greatest),
		     "cudaDeviceGetStreamPriorityRange") ||
	    !cuda_ok(cudaStreamCreateWithPriority(&g->ar, cudaStreamNonBlocking,
						  greatest),
		     "cudaStreamCreateWithPriority") ||
	    !cuda_ok(cudaEventCreate(&g->ar0), "cudaEventCreate") ||
	    !cuda_ok(cudaEventCreate(&g->ar1), "cudaEventCreate"))
		return -1;
	if (rank != 0)
		return 0;
	/* Non-zero operands (bf16 0x3c3c, about 0.0115): a GEMM on zeros
	 * draws less power and can run faster than a real one.  The first
	 * run used these constants; the skinny GEMM gets random ones. */
	if (!cuda_ok(cudaMalloc(&g->a, mat), "cudaMalloc") ||
	    !cuda_ok(cudaMalloc(&g->b, mat), "cudaMalloc") ||
	    !cuda_ok(cudaMalloc(&g->c, mat), "cudaMalloc") ||
	    !cuda_ok(cudaMemset(g->a, 0x3c, mat), "cudaMemset") ||
	    !cuda_ok(cudaMemset(g->b, 0x3c, mat), "cudaMemset") ||
	    !cuda_ok(cudaMalloc(&g->ta, mat), "cudaMalloc") ||
	    !cuda_ok(cudaMalloc(&g->tb, mat / 8), "cudaMalloc") ||
	    !cuda_ok(cudaMalloc(&g->tc, mat / 8), "cudaMalloc") ||
	    random_bf16(g->ta, mat / 2, 0x9e3779b97f4a7c15ULL) < 0 ||
	    random_bf16(g->tb, mat / 16, 0xd1b54a32d192ed03ULL) < 0 ||
	    !cuda_ok(cudaStreamCreateWithPriority(&g->mm, cudaStreamNonBlocking,
						  least),
		     "cudaStreamCreateWithPriority") ||
	    !cublas_ok(cublasCreate(&g->blas), "cublasCreate") ||
	    !cublas_ok(cublasSetStream(g->blas, g->mm), "cublasSetStream"))
		return -1;
	g->triad.n = TRIAD_FLOATS;
	g->triad.s = 0.5f;
	if (triad_setup(&g->triad, g->mm) < 0) {
		/* The GEMMs are still measured; the line above says why. */
		fprintf(stderr, "nccl_contention: rank 0: the triad is left "
				"out\n");
		nwork = NWORK - 1;
		cudaGetLastError();
	}
	g->hog.bytes = HOG_BYTES;
	g->have_hog = hog_setup(&g->hog, g->mm) == 0;
	if (!g->have_hog) {
		fprintf(stderr, "nccl_contention: rank 0: the hog is left "
				"out\n");
		cudaGetLastError();
	}
	for (int i = 0; i <= REPS; i++)
		if (!cuda_ok(cudaEventCreate(&g->ev[i]), "cudaEventCreate"))
			return -1;
	return cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize") ? 0
									 : -1;
}

/* C (M x N) = A (M x K) B (K x N), column-major, bf16, fp32 compute. */
static int gemm(struct gpu *g, int m, int n, int k, void *a, void *b, void *c)
{
	const float one = 1, zero = 0;

	return cublas_ok(cublasGemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, m, n,
				      k, &one, a, CUDA_R_16BF, m, b,
				      CUDA_R_16BF, k, &zero, c, CUDA_R_16BF, m,
				      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
			 "cublasGemmEx");
}

/* One call of works[W] on the work stream. */
static int run_work(struct gpu *g, int w)
{
	switch (w) {
	case 0:
		return gemm(g, GEMM_N, GEMM_N, GEMM_N, g->a, g->b, g->c);
	case 1:
		return gemm(g, GEMM_N, TP_N, GEMM_N, g->ta, g->tb, g->tc);
	default:
		return triad_launch(&g->triad, g->mm);
	}
}

static int by_value(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* works[W].reps calls back to back, each between two events: the median
 * ms, or -1.  Waits only for the last call, not for the all-reduce
 * stream. */
static double time_work(struct gpu *g, int w)
{
	int reps = works[w].reps;
	float ms[REPS];

	if (!cuda_ok(cudaEventRecord(g->ev[0], g->mm), "cudaEventRecord"))
		return -1;
	for (int i = 0; i < reps; i++)
		if (!run_work(g, w) ||
		    !cuda_ok(cudaEventRecord(g->ev[i + 1], g->mm),
			     "cudaEventRecord"))
			return -1;
	if (!cuda_ok(cudaEventSynchronize(g->ev[reps]), "cudaEventSynchronize"))
		return -1;
	for (int i = 0; i < reps; i++)
		if (!cuda_ok(cudaEventElapsedTime(&ms[i], g->ev[i],
						  g->ev[i + 1]),
			     "cudaEventElapsedTime"))
			return -1;
	qsort(ms, reps, sizeof(ms[0]), by_value);
	return (ms[reps / 2 - 1] + ms[reps / 2]) / 2;
}

/* Every work timed once, into T[]: 0, or -1. */
static int time_all(struct gpu *g, double t[NWORK])
{
	for (int w = 0; w < nwork; w++)
		if ((t[w] = time_work(g, w)) <= 0)
			return -1;
	return 0;
}

static int allreduce(struct gpu *g, ncclComm_t comm)
{
	return nccl_ok(ncclAllReduce(g->send, g->recv, AR_BYTES / 4,
				     ncclFloat32, ncclSum, comm, g->ar),
		       "ncclAllReduce");
}

/* 1 while the all-reduce stream still has work, 0 when it is done, -1. */
static int busy(struct gpu *g)
{
	cudaError_t st = cudaStreamQuery(g->ar);

	if (st == cudaErrorNotReady)
		return 1;
	return cuda_ok(st, "cudaStreamQuery") ? 0 : -1;
}

/* What NCCL logged since *pos in its debug file: the channels, algorithm
 * and protocol of the last all-reduce of AR_BYTES; its channel lines and
 * warnings echoed. */
struct used {
	int nc;
	char algo[16], proto[16];
};

static void nccl_said(const char *log, long *pos, int k, struct used *u)
{
	char line[1024], want[64];
	FILE *f = fopen(log, "r");

	if (f == NULL)
		return;
	snprintf(want, sizeof(want), "AllReduce: %zu Bytes -> ", AR_BYTES);
	if (fseek(f, *pos, SEEK_SET) == 0) {
		while (fgets(line, sizeof(line), f) != NULL) {
			const char *at = strstr(line, want);
			const char *msg = strstr(line, "NCCL ");
			int lo, hi;

			if (at != NULL &&
			    sscanf(at + strlen(want),
				   "Algo %15s proto %15s channel{Lo..Hi}={%d..%d}",
				   u->algo, u->proto, &lo, &hi) == 4)
				u->nc = hi - lo + 1;
			else if (msg != NULL &&
				 (strstr(line, " WARN ") != NULL ||
				  strstr(line, "coll channels") != NULL ||
				  strstr(line, "CTAs") != NULL))
				printf("# nccl k=%d: %s", k, msg + 5);
		}
		*pos = ftell(f);
	}
	fclose(f);
}

struct row {
	int k, calls, held, covered;
	struct used used;
	double alone[NWORK], idle[NWORK], moving[NWORK], after[NWORK];
	double ar_ms, gbps;
	/* Beside the hog (K CTAs copying through HBM): its rate alone and
	 * on average over its run beside the works; 0 when left out. */
	double hog[NWORK], hog_alone_gbps, hog_gbps;
	int hog_covered;
};

/* works[W]'s rate at MS per call, in its unit (TFLOP/s, GB/s). */
static double rate(int w, double ms)
{
	return works[w].per_call / (ms * 1e-3) /
	       (works[w].unit[0] == 'T' ? 1e12 : 1e9);
}

/* One line and one CSV row per work. */
static void print_row(FILE *csv, const struct row *r)
{
	for (int w = 0; w < nwork; w++) {
		double a = r->alone[w], i = r->idle[w], m = r->moving[w];

		double h = r->hog[w];

		printf("%4d %4d %-6s %-7s %9.3f %9.3f %7.3f %9.3f %7.3f %9.3f "
		       "%6d %8.3f %5s %5s %-24s %8.1f %8.1f %8.1f %-7s %7.3f "
		       "%8.1f %8.1f %5s\n",
		       r->k, r->used.nc, r->used.algo, r->used.proto, a, i,
		       i / a, m, m / a, r->after[w], r->calls, r->gbps,
		       r->held ? "yes" : "no", r->covered ? "yes" : "no",
		       works[w].name, rate(w, a), rate(w, i), rate(w, m),
		       works[w].unit, h > 0 ? h / a : 0, r->hog_alone_gbps,
		       r->hog_gbps, r->hog_covered ? "yes" : "no");
		fprintf(csv,
			"%d,%d,%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%.4f,%d,"
			"%d,%s,%s,%.0f,%.2f,%.2f,%.2f,%ld,",
			r->k, r->used.nc, r->used.algo, r->used.proto, a, i,
			i / a, m, m / a, r->after[w], r->calls, r->gbps,
			r->held, r->covered, works[w].name, works[w].unit,
			works[w].per_call, rate(w, a), rate(w, i), rate(w, m),
			works[w].blocks);
		if (h > 0)
			fprintf(csv, "%.4f,%.4f,%.2f,%.2f,%d\n", h, h / a,
				r->hog_alone_gbps, r->hog_gbps, r->hog_covered);
		else
			fprintf(csv, ",,,,\n");
	}
	fflush(stdout);
	fflush(csv);
}

/* The works beside the hog with K CTAs on the high-priority stream, NCCL
 * idle: one warm-up pass, one pass timed alone (its rate alone), then
 * enough passes to last SETTLE_MS and 4 times TOTAL (the works alone, ms),
 * plus one.  0, or -1. */
static int beside_hog(struct gpu *g, struct row *r, double total)
{
	float ms = 0;
	unsigned int iters;

	if (!hog_launch(&g->hog, r->k, 1, g->ar) ||
	    !cuda_ok(cudaEventRecord(g->ar0, g->ar), "cudaEventRecord") ||
	    !hog_launch(&g->hog, r->k, 1, g->ar) ||
	    !cuda_ok(cudaEventRecord(g->ar1, g->ar), "cudaEventRecord") ||
	    !cuda_ok(cudaEventSynchronize(g->ar1), "cudaEventSynchronize") ||
	    !cuda_ok(cudaEventElapsedTime(&ms, g->ar0, g->ar1),
		     "cudaEventElapsedTime"))
		return -1;
	r->hog_alone_gbps = hog_pass_bytes(&g->hog, r->k) / (ms * 1e-3) / 1e9;
	iters = (unsigned int)((SETTLE_MS + 4 * total) / (ms > 0 ? ms : 1)) + 2;
	if (!cuda_ok(cudaEventRecord(g->ar0, g->ar), "cudaEventRecord") ||
	    !hog_launch(&g->hog, r->k, iters, g->ar) ||
	    !cuda_ok(cudaEventRecord(g->ar1, g->ar), "cudaEventRecord"))
		return -1;
	sleep_ms(SETTLE_MS);
	if (time_all(g, r->hog) < 0 || (r->hog_covered = busy(g)) < 0 ||
	    !cuda_ok(cudaEventSynchronize(g->ar1), "cudaEventSynchronize") ||
	    !cuda_ok(cudaEventElapsedTime(&ms, g->ar0, g->ar1),
		     "cudaEventElapsedTime"))
		return -1;
	r->hog_gbps = iters * hog_pass_bytes(&g->hog, r->k) / (ms * 1e-3) / 1e9;
	return 0;
}

/* Rank 0's part for one K, on a ready communicator. */
static int measure(struct gpu *g, ncclComm_t comm, const char *log, long *pos,
		   struct row *r)
{
	float ms = 0;
	double total = 0;
	int m;

	/* Warm-up (connections are made on the first call), then one call
	 * timed: how many calls cover the moving measurement. */
	if (!allreduce(g, comm) ||
	    !cuda_ok(cudaStreamSynchronize(g->ar), "cudaStreamSynchronize") ||
	    !cuda_ok(cudaEventRecord(g->ar0, g->ar), "cudaEventRecord") ||
	    !allreduce(g, comm) ||
	    !cuda_ok(cudaEventRecord(g->ar1, g->ar), "cudaEventRecord") ||
	    !cuda_ok(cudaEventSynchronize(g->ar1), "cudaEventSynchronize") ||
	    !cuda_ok(cudaEventElapsedTime(&ms, g->ar0, g->ar1),
		     "cudaEventElapsedTime"))
		return -1;
	nccl_said(log, pos, r->k, &r->used);
	for (int w = 0; w < nwork; w++)
		for (int i = 0; i < 3; i++)
			if (!run_work(g, w))
				return -1;
	if (time_all(g, r->alone) < 0)
		return -1;

	/* Idle: rank 1 launches its part only after the works. */
	if (!allreduce(g, comm))
		return -1;
	sleep_ms(SETTLE_MS);
	if (time_all(g, r->idle) < 0 || (r->held = busy(g)) < 0)
		return -1;
	m = 1;
	if (!put("idle", r->k, &m, sizeof(m)) ||
	    !cuda_ok(cudaStreamSynchronize(g->ar), "cudaStreamSynchronize"))
		return -1;

	/* Moving: M calls last at least SETTLE_MS and 4 times the works
	 * alone, plus one. */
	for (int w = 0; w < nwork; w++)
		total += works[w].reps * r->alone[w];
	m = (int)((SETTLE_MS + 4 * total) / (ms > 0 ? ms : 1)) + 2;
	m = m > 200 ? 200 : m;
	r->calls = m;
	if (!put("moving", r->k, &m, sizeof(m)) ||
	    !cuda_ok(cudaEventRecord(g->ar0, g->ar), "cudaEventRecord"))
		return -1;
	for (int i = 0; i < m; i++)
		if (!allreduce(g, comm))
			return -1;
	if (!cuda_ok(cudaEventRecord(g->ar1, g->ar), "cudaEventRecord"))
		return -1;
	sleep_ms(SETTLE_MS);
	if (time_all(g, r->moving) < 0 || (r->covered = busy(g)) < 0 ||
	    !cuda_ok(cudaEventSynchronize(g->ar1), "cudaEventSynchronize") ||
	    !cuda_ok(cudaEventElapsedTime(&ms, g->ar0, g->ar1),
		     "cudaEventElapsedTime"))
		return -1;
	r->ar_ms = ms;
	r->gbps = ms > 0 ? (double)AR_BYTES * m / (ms * 1e-3) / 1e9 : 0;
	if (g->have_hog && beside_hog(g, r, total) < 0)
		return -1;
	if (time_all(g, r->after) < 0)
		return -1;
	nccl_said(log, pos, r->k, &r->used);
	return 0;
}

/* Rank 1's part for one K: the calls rank 0 makes, when it says so. */
static int follow(struct gpu *g, ncclComm_t comm, int k)
{
	int m = 0;

	for (int i = 0; i < 2; i++)
		if (!allreduce(g, comm) ||
		    !cuda_ok(cudaStreamSynchronize(g->ar),
			     "cudaStreamSynchronize"))
			return -1;
	if (!get("idle", k, &m, sizeof(m)) || !allreduce(g, comm) ||
	    !cuda_ok(cudaStreamSynchronize(g->ar), "cudaStreamSynchronize") ||
	    !get("moving", k, &m, sizeof(m)))
		return -1;
	for (int i = 0; i < m; i++)
		if (!allreduce(g, comm))
			return -1;
	return cuda_ok(cudaStreamSynchronize(g->ar), "cudaStreamSynchronize")
		       ? 0
		       : -1;
}

int main(int argc, char **argv)
{
	static const int fallback[] = { 1, 2, 4, 8, 16, 32 };
	int ks[MAX_K], nk = 0, version = 0, rc = 0;
	char log[4096] = "";
	long pos = 0;
	FILE *csv = NULL;
	struct gpu g;

	memset(&g, 0, sizeof(g));
	if (argc == 3 && strcmp(argv[1], "--ptx") == 0 &&
	    (strcmp(argv[2], "triad") == 0 || strcmp(argv[2], "hog") == 0)) {
		fputs(argv[2][0] == 't' ? triad_ptx : hog_ptx, stdout);
		return 0;
	}
	if (argc < 4 || argc > 4 + MAX_K || parse_int(argv[1], 0, 1, &rank)) {
		fprintf(stderr, "usage: nccl_contention RANK DIR CSV [K...]\n");
		return 2;
	}
	for (int i = 4; i < argc; i++)
		if (parse_int(argv[i], 1, 64, &ks[nk++])) {
			fprintf(stderr, "usage: nccl_contention RANK DIR CSV "
					"[K...] (K from 1 to 64)\n");
			return 2;
		}
	if (nk == 0) {
		nk = (int)(sizeof(fallback) / sizeof(fallback[0]));
		memcpy(ks, fallback, sizeof(fallback));
	}
	dir = argv[2];
	alarm(WHOLE_S);
	if (rank == 0) {
		/* NCCL reads these at its first call. */
		if (snprintf(log, sizeof(log), "%s/nccl0.log", dir) >=
		    (int)sizeof(log))
			return failed(dir, "path too long") + 1;
		setenv("NCCL_DEBUG_FILE", log, 1);
		setenv("NCCL_DEBUG", "INFO", 0);
		setenv("NCCL_DEBUG_SUBSYS", "INIT,ENV,TUNING", 0);
	}
	if (setup(&g) < 0)
		return 1;
	ncclGetVersion(&version);
	if (rank == 0) {
		csv = fopen(argv[3], "w");
		if (csv == NULL)
			return failed(argv[3], strerror(errno)) + 1;
		fprintf(csv, "k,nccl_channels,algo,proto,alone_ms,idle_ms,"
			     "idle_slowdown,moving_ms,moving_slowdown,after_ms,"
			     "allreduce_calls,allreduce_GBps,held,covered,"
			     "kernel,unit,work,alone_rate,idle_rate,"
			     "moving_rate,blocks,hog_ms,hog_slowdown,hog_GBps,"
			     "hog_alone_GBps,hog_covered\n");
		printf("# nccl_contention: NCCL %d, all-reduce %zu MiB float "
		       "sum, pid %ld; per k: ",
		       version, AR_BYTES >> 20, (long)getpid());
		for (int w = 0; w < nwork; w++)
			printf("%s (median of %d)%s", works[w].name,
			       works[w].reps, w + 1 < nwork ? ", " : "\n");
		printf("%4s %4s %-6s %-7s %9s %9s %7s %9s %7s %9s %6s %8s %5s "
		       "%5s %-24s %8s %8s %8s %-7s %7s %8s %8s %5s\n",
		       "k", "nc", "algo", "proto", "alone_ms", "idle_ms",
		       "idle_x", "moving_ms", "move_x", "after_ms", "calls",
		       "ar_GB/s", "held", "cover", "kernel", "alone", "idle",
		       "moving", "rate", "hog_x", "hog_GB/s", "beside",
		       "cover");
		fflush(stdout);
	}
	for (int i = 0; i < nk && rc == 0; i++) {
		ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
		ncclComm_t comm = NULL;
		ncclUniqueId id;
		struct row r;

		memset(&r, 0, sizeof(r));
		r.k = ks[i];
		r.used.nc = -1;
		strcpy(r.used.algo, "?");
		strcpy(r.used.proto, "?");
		config.minCTAs = config.maxCTAs = ks[i];
		if (rank == 0) {
			if (!nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId") ||
			    !put("id", ks[i], &id, sizeof(id)))
				return 1;
		} else if (!get("id", ks[i], &id, sizeof(id))) {
			return 1;
		}
		if (!nccl_ok(
			    ncclCommInitRankConfig(&comm, 2, id, rank, &config),
			    "ncclCommInitRankConfig"))
			return 1;
		rc = rank == 0 ? measure(&g, comm, log, &pos, &r)
			       : follow(&g, comm, ks[i]);
		if (rc == 0 && rank == 0)
			print_row(csv, &r);
		if (!nccl_ok(ncclCommDestroy(comm), "ncclCommDestroy"))
			rc = -1;
	}
	if (csv != NULL && fclose(csv) != 0)
		rc = failed(argv[3], "cannot write") - 1;
	if (rc == 0)
		printf("# rank %d: done\n", rank);
	return rc == 0 ? 0 : 1;
}
