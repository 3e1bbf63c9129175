/*
 * tests/tuner/test_tuner_abi.c - the built libnccl-tuner-lagom.so, loaded
 * with dlopen and driven through every exported ABI version (v2..v6) as
 * NCCL does: the channel counts and cost-table edits a plan asks for, -1
 * cells that stay -1, and calls no entry matches that change nothing.
 */
#include "config.h"

#include <string.h>

#include "tests/lib/lagom_test.h"
#include "tests/tuner/harness.h"

#define MAXB "18446744073709551615"

/* A valid plan for a 16-rank, 2-node step ("@VERSION@" = this lagom). */
static const char plan_text[] =
	"lagom-plan 1 @VERSION@ 3f2a9c0d11e4b7a5 job=4242 ranks=16 nodes=2;"
	"env tuner=1 ctas=2-16 buffsize=0 nthreads=0 algo=any proto=any;"
	"coll allreduce 0 1048575 ranks=16 nodes=2 algo=ring proto=ll128 "
	"nc=8 chunk=131072;"
	"coll allreduce 1048576 " MAXB " ranks=16 nodes=2 algo=tree "
	"proto=any nc=16 chunk=0;"
	"coll allgather 0 " MAXB " ranks=16 nodes=2 algo=any proto=any nc=2 "
	"chunk=0;"
	"coll reducescatter 0 " MAXB " ranks=16 nodes=2 algo=any "
	"proto=simple nc=4 chunk=700416;"
	"coll broadcast 0 " MAXB " ranks=16 nodes=2 algo=nvls proto=simple "
	"nc=6 chunk=0;"
	"coll reduce 0 " MAXB " ranks=16 nodes=2 algo=pat proto=simple nc=5 "
	"chunk=0;"
	"coll allreduce 0 " MAXB " ranks=8 nodes=1 algo=ring proto=simple "
	"nc=3 chunk=0;"
	"end";

/* Tree and Ring in every protocol: a 2-node H100 step without NVLS. */
#define BASIC (H_ROW(LAGOM_NCCL_ALGO_TREE) | H_ROW(LAGOM_NCCL_ALGO_RING))
#define CELL(t, a, p) ((t)[(a)*H_NUM_PROTO + (p)])

static int version_of(void **state)
{
	return *(int *)*state;
}

static void *open_ctx(int version, size_t ranks, size_t nodes)
{
	void *ctx = NULL;

	h_set_plan(plan_text);
	unsetenv("SLURM_JOB_ID");
	h_log_reset();
	assert_int_equal(h_init(version, ranks, nodes, &ctx), 0);
	assert_int_equal(h_captured.n, 1);
	assert_int_equal(h_log_count(LAGOM_NCCL_LOG_INFO), 1);
	return ctx;
}

/* One call; returns nChannels, the table is edited in place. */
static int call(int version, void *ctx, int func, size_t n_bytes, float *table,
		unsigned enabled, int reg_buff)
{
	int nchannels = 0;

	h_fill_table(table, H_NUM_ALGO, H_NUM_PROTO, n_bytes, enabled);
	assert_int_equal(h_coll(version, ctx, func, n_bytes, 4, table,
				H_NUM_ALGO, H_NUM_PROTO, reg_buff, &nchannels),
			 0);
	return nchannels;
}

/* table equals NCCL's fill except for the cells in changed. */
static void assert_same_except(const float *table, size_t n_bytes,
			       unsigned enabled, unsigned changed)
{
	float ref[H_CELLS];
	int i;

	h_fill_table(ref, H_NUM_ALGO, H_NUM_PROTO, n_bytes, enabled);
	for (i = 0; i < H_CELLS; i++)
		if (!(changed & (1u << i)))
			assert_true(table[i] == ref[i]);
}

static void t_algo_and_proto(void **state)
{
	int v = version_of(state), reg;
	void *ctx = open_ctx(v, 16, 2);
	float t[H_CELLS];

	for (reg = 0; reg <= 1; reg++) {
		/* 1048575 is the last byte of the first entry. */
		assert_int_equal(call(v, ctx, LAGOM_NCCL_FUNC_ALLREDUCE,
				      1048575, t, BASIC, reg),
				 8);
		assert_true(CELL(t, 1, 1) == 0.0f);
		assert_same_except(t, 1048575, BASIC, H_CELL(1, 1));
	}
	assert_int_equal(h_finalize(v, ctx), 0);
}

static void t_algo_only(void **state)
{
	int v = version_of(state);
	void *ctx = open_ctx(v, 16, 2);
	float t[H_CELLS];
	int nc = call(v, ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 1048576, t, BASIC, 0);
	int p;

	if (v == 2) { /* v2 can only name both: the entry is dropped */
		assert_int_equal(nc, 0);
		assert_same_except(t, 1048576, BASIC, 0);
	} else {
		assert_int_equal(nc, 16);
		for (p = 0; p < H_NUM_PROTO; p++)
			assert_true(CELL(t, 1, p) == -1.0f);
		assert_same_except(t, 1048576, BASIC, H_ROW(1));
	}
	assert_int_equal(h_finalize(v, ctx), 0);
}

static void t_proto_only(void **state)
{
	int v = version_of(state);
	void *ctx = open_ctx(v, 16, 2);
	float t[H_CELLS];
	int nc = call(v, ctx, LAGOM_NCCL_FUNC_REDUCESCATTER, 1 << 20, t, BASIC,
		      1);
	unsigned ll_cols = H_CELL(0, 0) | H_CELL(0, 1) | H_CELL(1, 0) |
			   H_CELL(1, 1);
	int a;

	if (v == 2) {
		assert_int_equal(nc, 0);
		assert_same_except(t, 1 << 20, BASIC, 0);
	} else {
		assert_int_equal(nc, 4);
		for (a = 0; a < 2; a++) {
			assert_true(CELL(t, a, 0) == -1.0f);
			assert_true(CELL(t, a, 1) == -1.0f);
			assert_true(CELL(t, a, 2) > 0.0f);
		}
		assert_same_except(t, 1 << 20, BASIC, ll_cols);
	}
	assert_int_equal(h_finalize(v, ctx), 0);
}

static void t_channels_only(void **state)
{
	int v = version_of(state);
	void *ctx = open_ctx(v, 16, 2);
	float t[H_CELLS];

	assert_int_equal(
		call(v, ctx, LAGOM_NCCL_FUNC_ALLGATHER, 123456, t, BASIC, 0),
		2);
	assert_same_except(t, 123456, BASIC, 0);
	assert_int_equal(h_finalize(v, ctx), 0);
}

/* The plan's cell is -1: nothing changes, the -1 stays. */
static void t_unavailable_stays(void **state)
{
	int v = version_of(state);
	void *ctx = open_ctx(v, 16, 2);
	unsigned no_ll128 = BASIC & ~(H_CELL(0, 1) | H_CELL(1, 1));
	float t[H_CELLS];

	assert_int_equal(
		call(v, ctx, LAGOM_NCCL_FUNC_BROADCAST, 4096, t, BASIC, 0), 0);
	assert_true(CELL(t, LAGOM_NCCL_ALGO_NVLS, 2) == -1.0f);
	assert_same_except(t, 4096, BASIC, 0);
	/*
	 * As with NCCL_PROTO=^LL128: ring/LL128 is -1.  v2 cannot see the
	 * table (NCCL keeps the -1 itself), so its channel count still goes.
	 */
	assert_int_equal(
		call(v, ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 4096, t, no_ll128, 0),
		v == 2 ? 8 : 0);
	assert_true(CELL(t, 1, 1) == -1.0f);
	assert_same_except(t, 4096, no_ll128, 0);
	assert_int_equal(h_finalize(v, ctx), 0);
}

static void t_nvls_available(void **state)
{
	int v = version_of(state);
	void *ctx = open_ctx(v, 16, 2);
	unsigned en = BASIC | H_ROW(LAGOM_NCCL_ALGO_NVLS);
	float t[H_CELLS];

	assert_int_equal(
		call(v, ctx, LAGOM_NCCL_FUNC_BROADCAST, 4096, t, en, 0), 6);
	assert_true(CELL(t, LAGOM_NCCL_ALGO_NVLS, 2) == 0.0f);
	assert_same_except(t, 4096, en, H_CELL(LAGOM_NCCL_ALGO_NVLS, 2));
	assert_int_equal(h_finalize(v, ctx), 0);
}

/* No entry for the collective, the size or the shape: nothing changes. */
static void t_no_match(void **state)
{
	int v = version_of(state);
	void *ctx = open_ctx(v, 16, 2);
	float t[H_CELLS];

	assert_int_equal(
		call(v, ctx, LAGOM_NCCL_FUNC_SENDRECV, 4096, t, BASIC, 0), 0);
	assert_same_except(t, 4096, BASIC, 0);
	assert_int_equal(h_finalize(v, ctx), 0);

	ctx = open_ctx(v, 4, 1); /* no entry has this shape */
	assert_null(ctx);
	assert_non_null(strstr(h_captured.line[0].text, "no entry"));
	assert_int_equal(
		call(v, ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 4096, t, BASIC, 0), 0);
	assert_same_except(t, 4096, BASIC, 0);
	assert_int_equal(h_finalize(v, ctx), 0);
}

/* The same plan on an 8-rank, 1-node sub-communicator. */
static void t_shape_selects(void **state)
{
	int v = version_of(state);
	void *ctx = open_ctx(v, 8, 1);
	float t[H_CELLS];

	assert_int_equal(
		call(v, ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 4096, t, BASIC, 0), 3);
	assert_true(CELL(t, 1, 2) == 0.0f);
	assert_same_except(t, 4096, BASIC, H_CELL(1, 2));
	assert_int_equal(
		call(v, ctx, LAGOM_NCCL_FUNC_ALLGATHER, 4096, t, BASIC, 0), 0);
	assert_same_except(t, 4096, BASIC, 0);
	assert_int_equal(h_finalize(v, ctx), 0);
}

/*
 * NCCL 2.22 passes 6 algorithms: strides follow numAlgo/numProto.  (v3+:
 * v2 never sees a table.)
 */
static void t_six_algorithms(void **state)
{
	int v = version_of(state);
	void *ctx;
	float t[6 * H_NUM_PROTO], ref[6 * H_NUM_PROTO];
	int nc = 0;

	ctx = open_ctx(v, 16, 2);
	h_fill_table(t, 6, H_NUM_PROTO, 4096, BASIC);
	assert_int_equal(h_coll(v, ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 4096, 1, t,
				6, H_NUM_PROTO, 0, &nc),
			 0);
	assert_int_equal(nc, 8);
	assert_true(t[1 * H_NUM_PROTO + 1] == 0.0f);
	/* algo=pat does not exist in a 6-algorithm table. */
	nc = 0;
	h_fill_table(t, 6, H_NUM_PROTO, 4096, BASIC);
	memcpy(ref, t, sizeof(t));
	assert_int_equal(h_coll(v, ctx, LAGOM_NCCL_FUNC_REDUCE, 4096, 1, t, 6,
				H_NUM_PROTO, 0, &nc),
			 0);
	assert_int_equal(nc, 0);
	assert_memory_equal(t, ref, sizeof(t));
	assert_int_equal(h_finalize(v, ctx), 0);
}

static void t_null_context(void **state)
{
	int v = version_of(state);
	float t[H_CELLS];

	assert_int_equal(
		call(v, NULL, LAGOM_NCCL_FUNC_ALLREDUCE, 4096, t, BASIC, 0), 0);
	assert_same_except(t, 4096, BASIC, 0);
	assert_int_equal(h_finalize(v, NULL), 0);
}

static size_t chunk(const struct lagom_nccl_tuner_v6 *t, void *ctx, int func,
		    size_t n_bytes, int algo, int proto)
{
	size_t c = 12345;

	assert_int_equal(
		t->getChunkSize(ctx, func, n_bytes, algo, proto, 8, &c), 0);
	return c;
}

/* v6 getChunkSize: the plan's chunk when NCCL runs the plan's choice. */
static void t_chunk_v6(void **state)
{
	const struct lagom_nccl_tuner_v6 *t = h_symbol(6);
	void *ctx = open_ctx(6, 16, 2);

	assert_non_null(t);
	assert_non_null(t->getChunkSize);
	assert_int_equal(chunk(t, ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 4096, 1, 1),
			 131072);
	assert_int_equal(chunk(t, ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 4096, 0, 1),
			 12345);
	assert_int_equal(
		chunk(t, ctx, LAGOM_NCCL_FUNC_REDUCESCATTER, 4096, 6, 2),
		700416);
	assert_int_equal(
		chunk(t, ctx, LAGOM_NCCL_FUNC_REDUCESCATTER, 4096, 1, 0),
		12345);
	assert_int_equal(chunk(t, ctx, LAGOM_NCCL_FUNC_ALLGATHER, 4096, 1, 2),
			 12345);
	assert_int_equal(chunk(t, NULL, LAGOM_NCCL_FUNC_ALLREDUCE, 4096, 1, 1),
			 12345);
	assert_int_equal(h_finalize(6, ctx), 0);
}

static void t_names(void **state)
{
	int v;

	for (v = 2; v <= 6; v++) {
		const struct lagom_nccl_tuner_v2 *t = h_symbol(v);

		assert_non_null(t);
		assert_string_equal(t->name, "lagom");
	}
	assert_null(h_symbol(1)); /* NCCL 2.19/2.20's v1 is not offered */
	assert_null(h_symbol(7));
}

/* A plan of a newer format minor (keys this tuner does not know, in the
 * env record and after chunk=) and a 1.1 key: still applied. */
static void t_newer_minor(void **state)
{
	static const char newer[] =
		"lagom-plan 1.9 @VERSION@ 3f2a9c0d11e4b7a5 job=4242 ranks=16 "
		"nodes=2;env proto=any algo=any ctapolicy=efficiency tuner=1 "
		"smcap=12 ctas=2-16 buffsize=0 nthreads=0;"
		"coll allreduce 0 " MAXB " ranks=16 nodes=2 algo=ring "
		"proto=simple nc=7 chunk=0 nvlsctas=4;end";
	int v = version_of(state);
	void *ctx = NULL;
	float t[H_CELLS];

	h_set_plan(newer);
	unsetenv("SLURM_JOB_ID");
	h_log_reset();
	assert_int_equal(h_init(v, 16, 2, &ctx), 0);
	assert_non_null(ctx);
	assert_int_equal(h_log_count(LAGOM_NCCL_LOG_INFO), 1);
	assert_int_equal(
		call(v, ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 4096, t, BASIC, 0), 7);
	assert_int_equal(h_finalize(v, ctx), 0);
}

static int versions[H_VERSIONS] = { 2, 3, 4, 5, 6 };

#define AT(f, i)                                            \
	{                                                   \
#f " v" #i, f, NULL, NULL, &versions[(i)-2] \
	}
#define V2_TO_V6(f) AT(f, 2), AT(f, 3), AT(f, 4), AT(f, 5), AT(f, 6)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_names),    V2_TO_V6(t_algo_and_proto),
		V2_TO_V6(t_algo_only),	      V2_TO_V6(t_proto_only),
		V2_TO_V6(t_channels_only),    V2_TO_V6(t_unavailable_stays),
		V2_TO_V6(t_nvls_available),   V2_TO_V6(t_no_match),
		V2_TO_V6(t_shape_selects),    AT(t_six_algorithms, 3),
		AT(t_six_algorithms, 4),      AT(t_six_algorithms, 5),
		AT(t_six_algorithms, 6),      V2_TO_V6(t_null_context),
		cmocka_unit_test(t_chunk_v6), V2_TO_V6(t_newer_minor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
