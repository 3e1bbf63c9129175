/*
 * tests/integration/oci_tuner_load.c - what NCCL does with
 * NCCL_TUNER_PLUGIN at communicator init, inside a task (tests/integration/
 * oci.sh runs it in a Slurm OCI container): dlopen the path with
 * RTLD_NOW | RTLD_LOCAL, take ncclTunerPlugin_v4 (NCCL 2.22 to 2.27
 * look for it), else _v2 (NCCL 2.19 to 2.21), init it for N ranks on M nodes
 * with a logger, ask once for an allreduce, destroy.  Prints one
 * "tuner: ..." line per step and the plugin's own log lines.
 *
 * Usage: oci_tuner_load RANKS NODES.  Exit status 0 when the plugin loaded
 * and its init succeeded, 3 when it could not be loaded (NCCL would go on
 * without it), 2 on a usage error.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/nccl_tuner_abi.h"

#define N_ALGO 7 /* NCCL 2.23 .. 2.30 */

static void logger(lagom_nccl_log_level_t level, unsigned long flags,
		   const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void logger(lagom_nccl_log_level_t level, unsigned long flags,
		   const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	(void)flags;
	(void)file;
	(void)line;
	fputs("tuner-log: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static int run_v2(const struct lagom_nccl_tuner_v2 *t, size_t ranks,
		  size_t nodes)
{
	int algo = -1, proto = -1, nc = 0;
	void *ctx = NULL;

	if (t->init(ranks, nodes, logger, &ctx) != LAGOM_NCCL_SUCCESS)
		return 1;
	t->getCollInfo(ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 1 << 20, 0, 0, 1, &algo,
		       &proto, &nc);
	printf("tuner: allreduce 1 MiB nChannels=%d\n", nc);
	t->destroy(ctx);
	return 0;
}

static int run_v4(const struct lagom_nccl_tuner_v4 *t, size_t ranks,
		  size_t nodes)
{
	float cells[N_ALGO * 3];
	float *table[N_ALGO];
	void *ctx = NULL;
	int nc = 0;

	for (int a = 0; a < N_ALGO; a++) {
		table[a] = &cells[a * 3];
		for (int p = 0; p < 3; p++)
			cells[a * 3 + p] = 10.0f + (float)(a + p);
	}
	if (t->init(ranks, nodes, logger, &ctx) != LAGOM_NCCL_SUCCESS)
		return 1;
	t->getCollInfo(ctx, LAGOM_NCCL_FUNC_ALLREDUCE, 1 << 20, 1, table,
		       N_ALGO, 3, 0, &nc);
	printf("tuner: allreduce 1 MiB nChannels=%d\n", nc);
	t->destroy(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = getenv("NCCL_TUNER_PLUGIN");
	const void *sym;
	size_t ranks, nodes;
	void *h;

	if (argc != 3) {
		fprintf(stderr, "usage: oci_tuner_load RANKS NODES\n");
		return 2;
	}
	ranks = strtoul(argv[1], NULL, 10);
	nodes = strtoul(argv[2], NULL, 10);
	if (!path || !path[0]) {
		printf("tuner: NCCL_TUNER_PLUGIN not set\n");
		return 3;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("tuner: cannot load %s: %s\n", path, dlerror());
		return 3;
	}
	if ((sym = dlsym(h, "ncclTunerPlugin_v4"))) {
		printf("tuner: loaded %s (v4)\n", path);
		return run_v4(sym, ranks, nodes);
	}
	if ((sym = dlsym(h, "ncclTunerPlugin_v2"))) {
		printf("tuner: loaded %s (v2)\n", path);
		return run_v2(sym, ranks, nodes);
	}
	printf("tuner: %s exports no tuner NCCL knows\n", path);
	return 3;
}
