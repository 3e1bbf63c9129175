/*
 * tests/trace/test_trace.c - trace/'s rules on their own: resident blocks
 * per SM by the CUDA occupancy rules (cases whose answer Kineto's own
 * occupancy estimate confirms in the fixture traces), the kernel-class
 * memory-bound share, and the importer on in-memory traces (the seed
 * corpus, hostile buffers).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "tests/lib/lagom_test.h"
#include "trace/trace.h"
#include "trace/trace_int.h" /* tr_nccl_proto */

static const struct lagom_trace_device a100 = { .sm_arch = 80,
						.sms = 108,
						.max_threads_per_sm = 2048,
						.regs_per_sm = 65536,
						.smem_per_sm = 167936,
						.warp_size = 32 };
static const struct lagom_trace_device v100 = { .sm_arch = 70,
						.sms = 80,
						.max_threads_per_sm = 2048,
						.regs_per_sm = 65536,
						.smem_per_sm = 98304,
						.warp_size = 32 };

static void test_occupancy(void **state)
{
	(void)state;
	/* cudnn bn_bw: registers limit to 3 blocks (Kineto: 75 %) */
	assert_int_equal(lagom_trace_blocks_per_sm(&a100, 512, 40, 400), 3);
	/* cutlass 128 threads, 90 registers, 48 KiB: shared memory, 3 */
	assert_int_equal(lagom_trace_blocks_per_sm(&a100, 128, 90, 49152), 3);
	/* 120 KiB opt-in shared memory + 1 KiB reserved: 1 block */
	assert_int_equal(lagom_trace_blocks_per_sm(&a100, 128, 192, 122880), 1);
	/* small elementwise kernel: the 32-block limit... then 16 by warps */
	assert_int_equal(lagom_trace_blocks_per_sm(&a100, 128, 16, 0), 16);
	/* volta_sgemm 256 threads, 57 registers, 16 KiB: registers, 4 */
	assert_int_equal(lagom_trace_blocks_per_sm(&v100, 256, 57, 16384), 4);
	/* without reservation on 7.0: 98304 / 32768 = 3 */
	assert_int_equal(lagom_trace_blocks_per_sm(&v100, 128, 86, 32768), 3);
	assert_int_equal(lagom_trace_blocks_per_sm(&a100, 0, 16, 0), 0);
	assert_int_equal(lagom_trace_blocks_per_sm(&a100, 2048, 16, 0), 0);
	assert_int_equal(lagom_trace_blocks_per_sm(NULL, 128, 16, 0), 0);
	/* a block that does not fit in the register file */
	assert_int_equal(lagom_trace_blocks_per_sm(&a100, 1024, 255, 0), 0);
}

static void test_mem_bound_class(void **state)
{
	(void)state;
	assert_double_near(lagom_trace_mem_bound_class("volta_sgemm_128x32_nt"),
			   0.2, 0);
	assert_double_near(
		lagom_trace_mem_bound_class("void flash_fwd_kernel<...>"), 0.4,
		0);
	assert_double_near(lagom_trace_mem_bound_class(
				   "void at::native::vectorized_elementwise_"
				   "kernel<4, ...>"),
			   0.9, 0);
	assert_double_near(lagom_trace_mem_bound_class("my_custom_kernel"), 0.5,
			   0);
	assert_double_near(lagom_trace_mem_bound_class(NULL), 0.5, 0);
}

static char *slurp(const char *rel, size_t *len)
{
	char path[1024];
	const char *src = getenv("top_srcdir");
	FILE *f;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s", src ? src : ".", rel);
	f = fopen(path, "rb");
	assert_non_null(f);
	buf = malloc(1 << 20);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

/* The protocol of an NCCL kernel from its name and threads
 * (doc/workload-import.md): the collective's threads decide, a SendRecv
 * kernel's name; anything else is unknown. */
static void test_nccl_proto(void **state)
{
	static const struct {
		const char *name;
		unsigned block;
		enum lagom_proto want;
	} cases[] = {
		{ "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, "
		  "unsigned long, ncclWork*)",
		  544, LAGOM_PROTO_SIMPLE },
		{ "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 640,
		  LAGOM_PROTO_LL128 },
		{ "ncclKernel_AllReduce_RING_LL_Sum_float", 512,
		  LAGOM_PROTO_LL },
		{ "ncclDevKernel_AllGather_RING_LL(ncclDevComm*)", 544,
		  LAGOM_PROTO_SIMPLE },
		/* one channel (NCCL halves the threads), Tree/Simple (672),
		 * NCCL_NTHREADS set (288): not told */
		{ "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*)", 96,
		  LAGOM_PROTO_COUNT },
		{ "ncclKernel_AllReduce_TREE_LL_Sum_float(x)", 672,
		  LAGOM_PROTO_COUNT },
		{ "ncclKernel_AllReduce_RING_LL_Sum_float(x)", 288,
		  LAGOM_PROTO_COUNT },
		/* point-to-point: built for Simple alone, whatever the threads */
		{ "void ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)",
		  640, LAGOM_PROTO_SIMPLE },
		{ "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
		  640, LAGOM_PROTO_COUNT },
		{ "ncclDevKernel_SendRecv(SIMPLE)", 544, LAGOM_PROTO_COUNT },
		/* not NCCL */
		{ "at::native::reduce_kernel_RING_LL", 544, LAGOM_PROTO_COUNT },
		{ NULL, 544, LAGOM_PROTO_COUNT },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (tr_nccl_proto(cases[i].name, cases[i].block) !=
		    cases[i].want)
			fail_msg("case %zu: %s with %u threads", i,
				 cases[i].name ? cases[i].name : "(null)",
				 cases[i].block);
	assert_string_equal(lagom_trace_proto_name(LAGOM_PROTO_LL128), "ll128");
	assert_string_equal(lagom_trace_proto_name(LAGOM_PROTO_COUNT),
			    "unknown");
}

static void test_import_seed(void **state)
{
	struct lagom_trace_import *imp = NULL;
	struct lagom_error err = { 0 };
	const struct lagom_region *r;
	size_t len;
	char *buf = slurp("tests/fuzz/corpus/trace/mini.json", &len);
	(void)state;

	assert_int_equal(lagom_trace_import_buffer(buf, len, &imp, &err), 0);
	assert_int_equal(imp->workload->nregions, 1);
	r = &imp->workload->regions[0];
	assert_int_equal(r->ncolls, 1);
	assert_int_equal(r->colls[0].coll, LAGOM_COLL_ALLREDUCE);
	assert_int_equal(r->colls[0].bytes, 4u << 20); /* 1 Mi floats */
	assert_int_equal(r->colls[0].comm.ranks, 2);
	assert_int_equal(imp->cinfo[0].channels, 8);
	assert_int_equal(imp->cinfo[0].threads, 544);
	assert_string_equal(imp->cinfo[0].comm, "pg-0");
	/* 6 gemms start in the collective's segment: one super-kernel with
	 * the GPU's occupancy for 256 threads x 32 registers, then idle */
	assert_int_equal(r->nkernels, 2);
	assert_int_equal(r->kernels[0].grid_blocks, 256);
	assert_int_equal(r->kernels[0].blocks_per_sm, 8);
	assert_double_near(r->kernels[0].mem_bound, 0.2, 1e-12);
	assert_true(imp->kinfo[1].idle);
	assert_int_equal(r->kernels[1].grid_blocks, 1);
	/* the step is 1 ms: regions + serial time add up to its window */
	assert_double_rel(r->kernels[0].time_s + r->kernels[1].time_s +
				  imp->workload->serial_s,
			  imp->rep_window_s, 1e-9);
	lagom_trace_import_destroy(imp);
	free(buf);
}

static void expect_refused(const void *data, size_t len, const char *needle)
{
	struct lagom_trace_import *imp = NULL;
	struct lagom_error err = { 0 };

	assert_int_equal(lagom_trace_import_buffer(data, len, &imp, &err),
			 -EINVAL);
	assert_null(imp);
	if (!strstr(err.text, needle))
		fail_msg("message '%s' lacks '%s'", err.text, needle);
}

static void test_hostile_buffers(void **state)
{
	static char deep[100000];
	unsigned char gz[4096];
	uLongf gzlen = sizeof(gz);
	size_t len;
	char *buf = slurp("tests/fuzz/corpus/trace/mini.json", &len);
	(void)state;

	memset(deep, '[', sizeof(deep));
	expect_refused(deep, sizeof(deep), "nesting deeper than 64");
	expect_refused("", 0, "not JSON");
	expect_refused("{\"traceEvents\": [}", 18, "not JSON");
	expect_refused("[]", 2, "not a profiler trace");
	/* a gzip header and a few compressed bytes of a real trace */
	{
		z_stream z = { 0 };
		assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 31, 8,
					      Z_DEFAULT_STRATEGY),
				 Z_OK);
		z.next_in = (unsigned char *)buf;
		z.avail_in = (uInt)len;
		z.next_out = gz;
		z.avail_out = (uInt)gzlen;
		assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
		gzlen = z.total_out;
		deflateEnd(&z);
	}
	expect_refused(gz, gzlen / 2, "truncated gzip");
	free(buf);
}

struct seen {
	unsigned calls;
	uint64_t last_done, last_total;
	bool grew;
};

static void count_progress(void *ctx, const char *path, uint64_t done,
			   uint64_t total)
{
	struct seen *s = ctx;

	assert_non_null(strstr(path, "hta-v100-2rank"));
	s->grew = s->calls == 0 || done >= s->last_done;
	s->calls++;
	s->last_done = done;
	s->last_total = total;
}

/* The progress of a file's reading: growing, and done == total (the file's
 * size) at the end; the import is the same as without a callback. */
static void test_progress(void **state)
{
	const char *src = getenv("top_srcdir");
	char path[1024];
	const char *paths[] = { path };
	struct lagom_trace_import *a = NULL, *b = NULL;
	struct lagom_error err = { 0 };
	struct seen seen = { 0 };
	struct stat st;
	(void)state;

	snprintf(
		path, sizeof(path),
		"%s/tests/fixtures/traces/hta-v100-2rank-trace_diff_test.json.gz",
		src ? src : ".");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(lagom_trace_import_progress(paths, 1, count_progress,
						     &seen, &a, &err),
			 0);
	assert_true(seen.calls >= 2);
	assert_true(seen.grew);
	assert_int_equal(seen.last_done, (uint64_t)st.st_size);
	assert_int_equal(seen.last_total, (uint64_t)st.st_size);
	assert_int_equal(lagom_trace_import(paths, 1, &b, &err), 0);
	assert_int_equal(a->nrows, b->nrows);
	assert_double_near(a->rep_window_s, b->rep_window_s, 0);
	lagom_trace_import_destroy(a);
	lagom_trace_import_destroy(b);
}

/* A string (or a number) of exactly the limit is read; one byte more is
 * refused, escapes counted, across the reader's 64 KiB chunks. */
static void test_token_guard(void **state)
{
	size_t n = TR_MAX_TOKEN, len;
	char *buf = malloc(n + 128 * 1024), *p;
	(void)state;

	assert_non_null(buf);
	for (int extra = 0; extra < 2; extra++) {
		p = buf + sprintf(buf, "{\"x\": \"");
		for (size_t i = 0; i + 2 <= n; i += 2) /* \" pairs */
			*p++ = '\\', *p++ = '"';
		if (n % 2 || extra)
			*p++ = 'a';
		len = (size_t)(p - buf) + (size_t)sprintf(p, "\"}");
		expect_refused(buf, len,
			       extra ? "a JSON string longer than 1 MiB"
				     : "not a profiler trace");
	}
	/* the long token begun after others in its first chunk (its length
	 * carried from that chunk's end), escaped backslashes at its end */
	for (int extra = 0; extra < 2; extra++) {
		p = buf + sprintf(buf, "{\"pad\": [");
		for (int i = 0; i < 5000; i++)
			p += sprintf(p, "\"a\\\"b\", 12, ");
		p += sprintf(p, "0], \"x\": \"");
		for (size_t i = 0; i + 2 <= n; i += 2) /* \\ pairs */
			*p++ = '\\', *p++ = '\\';
		if (extra)
			*p++ = 'a';
		len = (size_t)(p - buf) + (size_t)sprintf(p, "\"}");
		expect_refused(buf, len,
			       extra ? "a JSON string longer than 1 MiB"
				     : "not a profiler trace");
	}
	for (int extra = 0; extra < 2; extra++) {
		p = buf + sprintf(buf, "{\"x\": ");
		memset(p, '7', n + (size_t)extra);
		p += n + (size_t)extra;
		len = (size_t)(p - buf) + (size_t)sprintf(p, "}");
		expect_refused(buf, len,
			       extra ? "a JSON token longer than 1 MiB"
				     : "not a profiler trace");
	}
	free(buf);
}

static void same_as_strtod(const char *text)
{
	double a = tr_to_double(text), b = strtod(text, NULL);

	if (memcmp(&a, &b, sizeof(a)) != 0)
		fail_msg("%s: %.17g, strtod %.17g", text, a, b);
}

/* The fast path of the importer's numbers gives strtod's very bits. */
static void test_to_double(void **state)
{
	static const char *const fixed[] = {
		"0",
		"-0",
		"0.0",
		"-0.0",
		"1",
		"-1",
		"0.1",
		"0.3",
		"1700000000000.0",
		"123456789012345",
		"1234567890123456",
		"12345678901234567",
		"9007199254740993",
		"0.000000000000000001",
		"1.0000000000000002",
		"1e5",
		"1E-5",
		"-2.5e+300",
		"4.35",
		"123.4567890123456789",
		"0.1234567890123456789012",
		"999999999999999.9",
		"1759834120384312.250",
		"1661938466265032",
		"1661938466265032.125",
		"9007199254740992",
		"900719925474099.3",
		"-9007199254740.993",
		"18446744073709551615",
		"1.",
		"-",
	};
	uint64_t x = 88172645463325252ull;
	char text[64];
	(void)state;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		same_as_strtod(fixed[i]);
	for (int i = 0; i < 200000; i++) {
		unsigned digits, point;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		digits = 1 + (unsigned)(x % 19);
		point = (unsigned)((x >> 8) % (digits + 1));
		snprintf(text, sizeof(text), "%s%.*llu",
			 (x >> 40) & 1 ? "-" : "", (int)digits,
			 (unsigned long long)((x >> 3) %
					      10000000000000000000ull));
		if (point && point < strlen(text)) {
			size_t l = strlen(text);

			memmove(text + l - point + 1, text + l - point,
				point + 1);
			text[l - point] = '.';
		}
		same_as_strtod(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_occupancy),
		cmocka_unit_test(test_mem_bound_class),
		cmocka_unit_test(test_nccl_proto),
		cmocka_unit_test(test_import_seed),
		cmocka_unit_test(test_hostile_buffers),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_token_guard),
		cmocka_unit_test(test_to_double),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
