/*
 * tests/tuner/harness.c - see harness.h.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>

#include "tests/lib/lagom_test.h"
#include "tests/tuner/harness.h"

struct h_log h_captured;

void h_log_reset(void)
{
	memset(&h_captured, 0, sizeof(h_captured));
}

int h_log_count(int level)
{
	int i, n = 0;

	for (i = 0; i < h_captured.n; i++)
		if (h_captured.line[i].level == level)
			n++;
	return n;
}

void h_logger(lagom_nccl_log_level_t level, unsigned long flags,
	      const char *file, int line, const char *fmt, ...)
{
	struct h_log_line *l;
	va_list ap;

	if (h_captured.n == H_MAX_LOG)
		return;
	l = &h_captured.line[h_captured.n++];
	l->level = (int)level;
	l->flags = flags;
	va_start(ap, fmt);
	vsnprintf(l->text, sizeof(l->text), fmt, ap);
	va_end(ap);
}

void *h_module(void)
{
	static void *handle; /* test process only: one load for all cases */
	const char *dir = getenv("top_builddir");
	char path[4096];

	if (handle)
		return handle;
	snprintf(path, sizeof(path), "%s/.libs/libnccl-tuner-lagom.so",
		 dir ? dir : ".");
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		fail_msg("dlopen %s: %s", path, dlerror());
	return handle;
}

const void *h_symbol(int version)
{
	char name[32];

	snprintf(name, sizeof(name), "ncclTunerPlugin_v%d", version);
	return dlsym(h_module(), name);
}

/* A latency (us) + size / bandwidth (GB/s) model, enough to order cells. */
void h_fill_table(float *table, int num_algo, int num_proto, size_t n_bytes,
		  unsigned enabled)
{
	static const double lat_us[3] = { 6.8, 14.0, 8.4 };
	static const double bw_GBps[3] = { 30.0, 90.0, 110.0 };
	int a, p;

	for (a = 0; a < num_algo; a++)
		for (p = 0; p < num_proto; p++)
			table[a * num_proto + p] = LAGOM_NCCL_ALGO_PROTO_IGNORE;
	for (a = 0; a < num_algo; a++)
		for (p = 0; p < num_proto && p < 3; p++)
			if (enabled & H_CELL(a, p))
				table[a * num_proto + p] =
					(float)(lat_us[p] * (1 + a % 3) +
						(double)n_bytes /
							(bw_GBps[p] * 1e3));
}

static void fill_constants(struct lagom_nccl_tuner_constants_v5 *c)
{
	double *d = (double *)c;
	size_t i;

	for (i = 0; i < sizeof(*c) / sizeof(double); i++)
		d[i] = 0.5 + (double)i;
}

static int init_v5(const struct lagom_nccl_tuner_v5 *t, size_t n_ranks,
		   size_t n_nodes, void **ctx)
{
	struct lagom_nccl_nvl_domain_info_v5 nvl = {
		.nNvlDomains = (int)n_nodes,
		.minRanksPerNvlDomain = (int)(n_ranks / n_nodes),
		.maxRanksPerNvlDomain = (int)(n_ranks / n_nodes),
	};
	struct lagom_nccl_tuner_constants_v5 c, before;
	int rc;

	fill_constants(&c);
	before = c;
	rc = t->init(ctx, 0x1234abcdULL, n_ranks, n_nodes, h_logger, &nvl, &c);
	/* lagom leaves NCCL's model constants alone. */
	assert_memory_equal(&c, &before, sizeof(c));
	return rc;
}

int h_init(int version, size_t n_ranks, size_t n_nodes, void **ctx)
{
	const void *sym = h_symbol(version);

	assert_non_null(sym);
	*ctx = (void *)0x1; /* NCCL's slot is uninitialised: init must set it */
	if (version <= 4)
		return ((const struct lagom_nccl_tuner_v2 *)sym)
			->init(n_ranks, n_nodes, h_logger, ctx);
	return init_v5(sym, n_ranks, n_nodes, ctx);
}

/* NCCL 2.28.9's v2 wrapper (src/plugin/tuner/tuner_v2.cc). */
static int coll_v2(const struct lagom_nccl_tuner_v2 *t, void *ctx, int func,
		   size_t n_bytes, int pipe_ops, float *table, int *nchannels)
{
	int algo = LAGOM_NCCL_ALGO_UNDEF, proto = LAGOM_NCCL_PROTO_UNDEF;
	float(*cost)[H_NUM_PROTO] = (float(*)[H_NUM_PROTO])table;
	int nvls = cost[LAGOM_NCCL_ALGO_NVLS][LAGOM_NCCL_PROTO_SIMPLE] !=
			   LAGOM_NCCL_ALGO_PROTO_IGNORE ||
		   cost[LAGOM_NCCL_ALGO_NVLS_TREE][LAGOM_NCCL_PROTO_SIMPLE] !=
			   LAGOM_NCCL_ALGO_PROTO_IGNORE;
	int collnet =
		cost[LAGOM_NCCL_ALGO_COLLNET_CHAIN][LAGOM_NCCL_PROTO_SIMPLE] !=
		LAGOM_NCCL_ALGO_PROTO_IGNORE;
	int rc;

	rc = t->getCollInfo(ctx, func, n_bytes, collnet, nvls, pipe_ops, &algo,
			    &proto, nchannels);
	if (rc != 0)
		return rc;
	if (algo >= 0 && algo < H_NUM_ALGO && proto >= 0 &&
	    proto < H_NUM_PROTO && cost[algo][proto] != -1.0f)
		cost[algo][proto] = 0.0f;
	return 0;
}

int h_coll(int version, void *ctx, int func, size_t n_bytes, int pipe_ops,
	   float *table, int num_algo, int num_proto, int reg_buff,
	   int *nchannels)
{
	const void *sym = h_symbol(version);
	float **cost = (float **)table; /* NCCL passes the array cast so */

	assert_non_null(sym);
	switch (version) {
	case 2:
		assert_int_equal(num_algo, H_NUM_ALGO);
		return coll_v2(sym, ctx, func, n_bytes, pipe_ops, table,
			       nchannels);
	case 3:
		return ((const struct lagom_nccl_tuner_v3 *)sym)
			->getCollInfo(ctx, func, n_bytes, pipe_ops, cost,
				      num_algo, num_proto, nchannels);
	case 4:
		return ((const struct lagom_nccl_tuner_v4 *)sym)
			->getCollInfo(ctx, func, n_bytes, pipe_ops, cost,
				      num_algo, num_proto, reg_buff, nchannels);
	default:
		return ((const struct lagom_nccl_tuner_v5 *)sym)
			->getCollInfo(ctx, func, n_bytes, pipe_ops, cost,
				      num_algo, num_proto, reg_buff, nchannels);
	}
}

int h_finalize(int version, void *ctx)
{
	const void *sym = h_symbol(version);

	assert_non_null(sym);
	if (version <= 4)
		return ((const struct lagom_nccl_tuner_v2 *)sym)->destroy(ctx);
	return ((const struct lagom_nccl_tuner_v5 *)sym)->finalize(ctx);
}

void h_set_plan(const char *text)
{
	const char *mark = "@VERSION@";
	char buf[8192];
	const char *at = strstr(text, mark);

	if (at)
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - text), text,
			 PACKAGE_VERSION, at + strlen(mark));
	else
		snprintf(buf, sizeof(buf), "%s", text);
	assert_int_equal(setenv("LAGOM_PLAN", buf, 1), 0);
}
