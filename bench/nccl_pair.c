/*
 * bench/nccl_pair.c - one rank of a small NCCL job, for bench/gpu_check.sh:
 * all-reduce and all-gather at 64 KiB .. 64 MiB, each size ITERS times
 * (after 2 warm-up calls), timed with CUDA events on the rank's stream.
 * Rank 0 prints the table.  Not built by make: bench/gpu_pack.sh compiles
 * it against the CUDA toolkit's nccl.h and cuda_runtime_api.h, and the
 * device finds libnccl.so.2 and libcudart through LD_LIBRARY_PATH.
 *
 *   nccl_pair RANK NRANKS IDFILE [ITERS]
 *
 * Rank 0 writes NCCL's unique id to IDFILE (written aside, then renamed);
 * the other ranks wait for it (at most 60 s).  Every rank uses device
 * RANK % (devices): on one GPU, two processes need different NCCL_HOSTID
 * values, or NCCL refuses them ("Duplicate GPU detected").  Exit status 0,
 * 1 on a CUDA or NCCL failure (one "nccl_pair: " line), 2 on a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#define GPU_PROG "nccl_pair"
#include "gpu_common.h"

#define MAX_BYTES ((size_t)64 << 20)
#define WARMUP 2
#define ID_WAIT_S 60

static int write_id(const char *path, const ncclUniqueId *id)
{
	char tmp[4096];
	FILE *f;
	int bad;

	if (snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return -1;
	f = fopen(tmp, "wb");
	if (f == NULL)
		return -1;
	bad = fwrite(id, sizeof(*id), 1, f) != 1;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int read_id(const char *path, ncclUniqueId *id)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < ID_WAIT_S * 100; i++) {
		FILE *f = fopen(path, "rb");

		if (f != NULL) {
			size_t n = fread(id, sizeof(*id), 1, f);

			fclose(f);
			if (n == 1)
				return 0;
		}
		nanosleep(&pause, NULL);
	}
	return -1;
}

struct bufs {
	void *send, *recv;
	cudaStream_t stream;
	cudaEvent_t start, stop;
};

/* count elements of float per rank (all-gather) or in all (all-reduce). */
static int launch(int allgather, const struct bufs *b, size_t count,
		  ncclComm_t comm)
{
	if (allgather)
		return nccl_ok(ncclAllGather(b->send, b->recv, count,
					     ncclFloat32, comm, b->stream),
			       "ncclAllGather");
	return nccl_ok(ncclAllReduce(b->send, b->recv, count, ncclFloat32,
				     ncclSum, comm, b->stream),
		       "ncclAllReduce");
}

/* Seconds per call of one size, or -1. */
static double time_one(int allgather, const struct bufs *b, size_t bytes,
		       int nranks, int iters, ncclComm_t comm)
{
	size_t count = allgather ? bytes / 4 / (size_t)nranks : bytes / 4;
	float ms = 0;

	for (int i = 0; i < WARMUP; i++)
		if (!launch(allgather, b, count, comm))
			return -1;
	if (!cuda_ok(cudaEventRecord(b->start, b->stream), "cudaEventRecord"))
		return -1;
	for (int i = 0; i < iters; i++)
		if (!launch(allgather, b, count, comm))
			return -1;
	if (!cuda_ok(cudaEventRecord(b->stop, b->stream), "cudaEventRecord") ||
	    !cuda_ok(cudaEventSynchronize(b->stop), "cudaEventSynchronize") ||
	    !cuda_ok(cudaEventElapsedTime(&ms, b->start, b->stop),
		     "cudaEventElapsedTime"))
		return -1;
	return ms * 1e-3 / iters;
}

static int sweep(const struct bufs *b, int nranks, int iters, ncclComm_t comm)
{
	static const char *const names[] = { "allreduce", "allgather" };

	if (rank == 0)
		printf("%-10s %10s %6s %12s %12s %12s\n", "coll", "bytes",
		       "iters", "time_us", "algbw_GB/s", "busbw_GB/s");
	for (int c = 0; c < 2; c++) {
		for (size_t bytes = (size_t)64 << 10; bytes <= MAX_BYTES;
		     bytes *= 4) {
			double t = time_one(c, b, bytes, nranks, iters, comm);
			double alg, factor = (double)(nranks - 1) / nranks;

			if (t <= 0)
				return -1;
			alg = (double)bytes / t;
			factor *= c == 0 ? 2 : 1;
			if (rank == 0)
				printf("%-10s %10zu %6d %12.1f %12.3f %12.3f\n",
				       names[c], bytes, iters, t * 1e6,
				       alg / 1e9, alg * factor / 1e9);
			fflush(stdout);
		}
	}
	return 0;
}

/* CUDA first, so that a node without a driver fails before the id. */
static int setup(struct bufs *b, int *dev)
{
	int ndev = 0;

	if (!cuda_ok(cudaGetDeviceCount(&ndev), "cudaGetDeviceCount"))
		return -1;
	*dev = rank % ndev;
	if (!cuda_ok(cudaSetDevice(*dev), "cudaSetDevice") ||
	    !cuda_ok(cudaMalloc(&b->send, MAX_BYTES), "cudaMalloc") ||
	    !cuda_ok(cudaMalloc(&b->recv, MAX_BYTES), "cudaMalloc") ||
	    !cuda_ok(cudaMemset(b->send, 0, MAX_BYTES), "cudaMemset") ||
	    !cuda_ok(cudaStreamCreateWithFlags(&b->stream,
					       cudaStreamNonBlocking),
		     "cudaStreamCreate") ||
	    !cuda_ok(cudaEventCreate(&b->start), "cudaEventCreate") ||
	    !cuda_ok(cudaEventCreate(&b->stop), "cudaEventCreate"))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct bufs b = { 0 };
	ncclUniqueId id;
	ncclComm_t comm = NULL;
	int nranks = 0, iters = 20, dev = 0, version = 0, rc;
	char busid[32] = "?";

	if ((argc != 4 && argc != 5) || parse_int(argv[1], 0, 1023, &rank) ||
	    parse_int(argv[2], 1, 1024, &nranks) || rank >= nranks ||
	    (argc == 5 && parse_int(argv[4], 1, 100000, &iters))) {
		fprintf(stderr,
			"usage: nccl_pair RANK NRANKS IDFILE [ITERS]\n");
		return 2;
	}
	if (setup(&b, &dev) < 0)
		return 1;
	cudaDeviceGetPCIBusId(busid, sizeof(busid), dev);
	ncclGetVersion(&version);
	if (rank == 0) {
		if (!nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId"))
			return 1;
		if (write_id(argv[3], &id) < 0) {
			fprintf(stderr, "nccl_pair: rank 0: cannot write %s\n",
				argv[3]);
			return 1;
		}
	} else if (read_id(argv[3], &id) < 0) {
		fprintf(stderr, "nccl_pair: rank %d: no id in %s after %d s\n",
			rank, argv[3], ID_WAIT_S);
		return 1;
	}
	printf("# rank %d of %d: device %d (%s), NCCL %d, pid %ld\n", rank,
	       nranks, dev, busid, version, (long)getpid());
	fflush(stdout);
	if (!nccl_ok(ncclCommInitRank(&comm, nranks, id, rank),
		     "ncclCommInitRank"))
		return 1;
	rc = sweep(&b, nranks, iters, comm);
	if (!nccl_ok(ncclCommDestroy(comm), "ncclCommDestroy"))
		rc = -1;
	cudaFree(b.send);
	cudaFree(b.recv);
	if (rc == 0)
		printf("# rank %d: done\n", rank);
	return rc == 0 ? 0 : 1;
}
