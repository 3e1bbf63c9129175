/*
 * trace/rules.c - the documented derivation rules that need no trace state
 * (doc/workload-import.md): CUDA occupancy, the kernel-class memory-bound
 * share, collective and dtype names.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trace/trace_int.h"

/* Largest resident blocks per SM by compute capability (CUDA guide,
 * "Technical Specifications per Compute Capability"). */
static unsigned max_blocks_per_sm(unsigned arch)
{
	switch (arch) {
	case 75:
		return 16;
	case 86:
	case 87:
		return 16;
	case 89:
		return 24;
	default:
		return arch >= 50 ? 32 : 16;
	}
}

/*
 * Resident blocks per SM (the CUDA occupancy calculator's rules): the
 * minimum of the block limit, the warp limit, the register limit (registers
 * allocated per warp in units of 256) and the shared-memory limit (allocated
 * in units of 128 bytes, plus 1 KiB the system reserves per block from
 * compute capability 8.0).  0 when the block does not fit or the device is
 * unknown.
 */
unsigned lagom_trace_blocks_per_sm(const struct lagom_trace_device *dev,
				   unsigned block_threads, unsigned regs,
				   unsigned smem_bytes)
{
	unsigned warp = dev && dev->warp_size ? dev->warp_size : 32;
	unsigned warps, limit, by_warps, by_regs, by_smem;

	if (!dev || !dev->max_threads_per_sm || !block_threads ||
	    block_threads > 1024)
		return 0;
	warps = (block_threads + warp - 1) / warp;
	limit = max_blocks_per_sm(dev->sm_arch);
	by_warps = dev->max_threads_per_sm / warp / warps;
	if (by_warps < limit)
		limit = by_warps;
	if (regs && dev->regs_per_sm) {
		unsigned per_warp = (regs * warp + 255) / 256 * 256;
		by_regs = dev->regs_per_sm / per_warp / warps;
		if (by_regs < limit)
			limit = by_regs;
	}
	if (dev->smem_per_sm) {
		unsigned reserved = dev->sm_arch >= 80 ? 1024 : 0;
		unsigned alloc = (smem_bytes + reserved + 127) / 128 * 128;
		if (alloc) {
			by_smem = dev->smem_per_sm / alloc;
			if (by_smem < limit)
				limit = by_smem;
		}
	}
	return limit > 64 ? 64 : limit;
}

static bool has(const char *name, const char *const *words)
{
	for (size_t i = 0; words[i]; i++)
		if (strcasestr(name, words[i]))
			return true;
	return false;
}

/*
 * Memory-bound share by kernel class (doc/workload-import.md): matrix
 * engines (GEMM, convolution, FFT) 0.2; attention 0.4; elementwise,
 * normalisation, reduction, copy, indexing and optimizer kernels 0.9;
 * anything else 0.5.
 */
double lagom_trace_mem_bound_class(const char *name)
{
	static const char *const gemm[] = {
		"gemm",	  "conv",    "xmma",	"cutlass", "cublas", "hmma",
		"wgrad",  "dgrad",   "fprop",	"fft",	   "sm80_",  "sm90_",
		"volta_", "turing_", "ampere_", "hopper_", NULL
	};
	static const char *const attn[] = { "flash", "fmha", "attention",
					    "attn", NULL };
	static const char *const mem[] = {
		"elementwise", "reduce",    "norm",	  "bn_",
		"softmax",     "copy",	    "fill",	  "cat",
		"index",       "scatter",   "gather",	  "embedding",
		"adam",	       "sgd",	    "adagrad",	  "dropout",
		"pool",	       "transpose", "nchwtonhwc", "nhwctonchw",
		"memset",      "memcpy",    "unroll",	  "vectorized",
		"segment",     "sort",	    "permute",	  "bias",
		"relu",	       "gelu",	    NULL
	};

	if (!name)
		return 0.5;
	if (has(name, attn))
		return 0.4;
	if (has(name, gemm))
		return 0.2;
	if (has(name, mem))
		return 0.9;
	return 0.5;
}

static void squash(const char *s, char *out, size_t cap)
{
	size_t k = 0;

	for (; *s && k + 1 < cap; s++)
		if (isalnum((unsigned char)*s))
			out[k++] = (char)tolower((unsigned char)*s);
	out[k] = '\0';
}

/*
 * The collective from a name, ignoring case, '_' and spaces: PyTorch's
 * record_param_comms names (allreduce, all_to_all, _allgather_base,
 * reduce_scatter_tensor...), nccl:all_reduce annotations, and an NCCL
 * kernel's collective word (ncclKernel_AllReduce_..., ncclDevKernel_
 * SendRecv): only the collective, never the algorithm or protocol words.
 */
bool tr_coll_from_name(const char *s, enum lagom_coll *out)
{
	static const struct {
		const char *word;
		enum lagom_coll coll;
	} map[] = {
		{ "allreduce", LAGOM_COLL_ALLREDUCE },
		{ "alltoall", LAGOM_COLL_ALLTOALL },
		{ "reducescatter", LAGOM_COLL_REDUCESCATTER },
		{ "allgather", LAGOM_COLL_ALLGATHER },
		{ "broadcast", LAGOM_COLL_BROADCAST },
		{ "sendrecv", LAGOM_COLL_SENDRECV },
		{ "send", LAGOM_COLL_SENDRECV },
		{ "recv", LAGOM_COLL_SENDRECV },
		{ "reduce", LAGOM_COLL_REDUCE },
	};
	char buf[64];
	const char *w;

	if (!s)
		return false;
	if (strncmp(s, "void ", 5) == 0)
		s += 5;
	if (strncmp(s, "ncclKernel_", 11) == 0 ||
	    strncmp(s, "ncclDevKernel_", 14) == 0) {
		char word[32];
		size_t k = 0;
		s = strchr(s, '_') + 1;
		while (s[k] && s[k] != '_' && s[k] != '(' && k + 1 < 32)
			k++;
		memcpy(word, s, k);
		word[k] = '\0';
		squash(word, buf, sizeof(buf));
	} else
		squash(s, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		w = strstr(buf, map[i].word);
		if (w) {
			*out = map[i].coll;
			return true;
		}
	}
	return false;
}

/* Whether the NCCL kernel name s holds the word w between '_' (before its
 * argument list). */
static bool name_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	const char *end = strchr(s, '(');

	if (!end)
		end = s + strlen(s);
	for (const char *p = s; p + n <= end; p++)
		if ((p == s || p[-1] == '_') && strncmp(p, w, n) == 0 &&
		    (p + n == end || p[n] == '_'))
			return true;
	return false;
}

/*
 * The protocol an NCCL kernel ran, from its name and block size
 * (doc/workload-import.md, "Contention table"); LAGOM_PROTO_COUNT when
 * they do not tell.  A collective's kernel is named for one protocol
 * (ncclKernel_AllReduce_RING_LL_...) whatever it runs; its threads tell:
 * 544 Ring/Simple (512 and a synchronisation warp), 640 LL128, 512 LL, on
 * the NCCL versions of the fixtures with their default NCCL_NTHREADS.
 * Other sizes (one channel, where NCCL halves the threads; Tree/Simple;
 * NCCL_NTHREADS set) are unknown.  Point-to-point kernels
 * (ncclKernel_SendRecv_RING_SIMPLE_...) are built for Simple alone: the
 * name's SIMPLE says it, whatever the threads (640 in the V100 trace).
 */
enum lagom_proto tr_nccl_proto(const char *name, unsigned block)
{
	if (!name)
		return LAGOM_PROTO_COUNT;
	if (strncmp(name, "void ", 5) == 0)
		name += 5;
	if (strncmp(name, "ncclKernel_", 11) != 0 &&
	    strncmp(name, "ncclDevKernel_", 14) != 0)
		return LAGOM_PROTO_COUNT;
	if (name_word(name, "SendRecv") || name_word(name, "Send") ||
	    name_word(name, "Recv"))
		return name_word(name, "SIMPLE") ? LAGOM_PROTO_SIMPLE
						 : LAGOM_PROTO_COUNT;
	switch (block) {
	case 544:
		return LAGOM_PROTO_SIMPLE;
	case 640:
		return LAGOM_PROTO_LL128;
	case 512:
		return LAGOM_PROTO_LL;
	default:
		return LAGOM_PROTO_COUNT;
	}
}

const char *lagom_trace_proto_name(enum lagom_proto proto)
{
	return (int)proto >= 0 && proto < LAGOM_PROTO_COUNT
		       ? lagom_proto_name(proto)
		       : "unknown";
}

/* Bytes of a PyTorch dtype as Kineto prints it ("Float", "c10::BFloat16",
 * "long int"...); 0 when unknown. */
unsigned tr_dtype_bytes(const char *s)
{
	static const struct {
		const char *word;
		unsigned bytes;
	} map[] = {
		{ "bfloat16", 2 }, { "half", 2 },    { "float16", 2 },
		{ "double", 8 },   { "float64", 8 }, { "complexfloat", 8 },
		{ "float8", 1 },   { "float", 4 },   { "long", 8 },
		{ "int64", 8 },	   { "short", 2 },   { "int16", 2 },
		{ "int8", 1 },	   { "uint8", 1 },   { "byte", 1 },
		{ "char", 1 },	   { "bool", 1 },    { "int", 4 },
	};
	char buf[64];

	if (!s || !*s)
		return 0;
	squash(s, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strstr(buf, map[i].word))
			return map[i].bytes;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double tr_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
