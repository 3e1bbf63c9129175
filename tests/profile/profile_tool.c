/*
 * tests/profile/profile_tool.c - drives profile/ from the shell tests.
 *
 *   profile_tool read FILE [UID]      validate FILE (with trust for owner UID
 *                                     when given); print "ok" or the error
 *   profile_tool load DIR NODE [UID]  the same through lagom_profile_load_node
 *   profile_tool sample NODE POINTS   print a full sample profile
 *   profile_tool write DIR NODE N     write N times, each with another size
 *   profile_tool hammer DIR NODE N    read N times; fail on anything but a
 *                                     whole, valid profile or ENOENT
 * Exit status: 0 ok, 1 profile error, 2 usage.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile.h"

static void fill_sample(struct lagom_profile *p, int points)
{
	snprintf(p->hostname, sizeof(p->hostname), "%s.example.org", p->node);
	snprintf(p->hw.cpu_model, sizeof(p->hw.cpu_model), "AMD EPYC 7742");
	p->hw.cpu_cores = 128;
	p->hw.numa_nodes = 8;
	snprintf(p->hw.gpu_model, sizeof(p->hw.gpu_model), "A100-SXM4-80GB");
	p->hw.gpu_count = 8;
	p->hw.gpu_sm_count = 108;
	p->hw.gpu_memory_bytes = 85899345920ULL;
	p->hw.intra = LAGOM_INTRA_NVSWITCH;
	p->hw.nvlinks_per_gpu = 12;
	p->hw.nic_count = 8;
	p->hw.nic_link_bw_Bps = 25e9;
	p->meas.gemm_flops[LAGOM_PREC_BF16] = (struct lagom_quantity){
		2.8e14, LAGOM_SOURCE_MEASURED
	};
	p->meas.gemm_flops[LAGOM_PREC_FP32] = (struct lagom_quantity){
		1.95e13, LAGOM_SOURCE_TABLE
	};
	p->meas.hbm_bw_Bps = (struct lagom_quantity){ 1.7e12,
						      LAGOM_SOURCE_MEASURED };
	p->meas.busbw_source = LAGOM_SOURCE_MEASURED;
	p->meas.busbw_nranks = 8;
	p->meas.n_busbw = (size_t)points;
	for (int i = 0; i < points; i++)
		p->meas.busbw[i] = (struct lagom_busbw_point){
			.collective = i % LAGOM_COLL_COUNT,
			.channels = 1 + i % 32,
			.chunk_bytes = 131072,
			.size_bytes = 1 << 28,
			.busbw_Bps = 1e9 * (1 + i),
		};
	p->meas.contention_source = LAGOM_SOURCE_MEASURED;
	p->meas.contention_precision = LAGOM_PREC_BF16;
	p->meas.n_contention = 2;
	p->meas.contention[0] = (struct lagom_contention_point){ 0, 131072, 1 };
	p->meas.contention[1] = (struct lagom_contention_point){ 16, 131072,
								 1.12 };
	snprintf(p->prov.nccl_version, sizeof(p->prov.nccl_version), "2.28.9");
	p->prov.created_unix_s = 1763700000;
}

static int report(int rc, const struct lagom_error *err)
{
	if (rc < 0) {
		printf("%s\n", err->text);
		return 1;
	}
	printf("ok\n");
	return 0;
}

static int cmd_read(int argc, char **argv, int by_node)
{
	struct lagom_trust trust = { 0 };
	struct lagom_error err = { 0 };
	struct lagom_profile *p = NULL;
	int uid_arg = by_node ? 4 : 3;
	int rc;

	if (argc > uid_arg)
		trust.owner_uid = (uid_t)strtoul(argv[uid_arg], NULL, 10);
	if (by_node)
		rc = lagom_profile_load_node(
			argv[2], argv[3], argc > 4 ? &trust : NULL, &p, &err);
	else
		rc = lagom_profile_read_file(argv[2], argc > 3 ? &trust : NULL,
					     &p, &err);
	lagom_profile_destroy(p);
	return report(rc, &err);
}

static int cmd_sample(const char *node, int points)
{
	struct lagom_profile *p = lagom_profile_create(node);
	struct lagom_error err = { 0 };
	char *text = NULL;
	int rc;

	if (p == NULL)
		return 2;
	fill_sample(p, points);
	rc = lagom_profile_to_string(p, &text, &err);
	if (rc == 0)
		fputs(text, stdout);
	free(text);
	lagom_profile_destroy(p);
	return rc < 0 ? report(rc, &err) : 0;
}

static int cmd_write(const char *dir, const char *node, int n)
{
	struct lagom_profile *p = lagom_profile_create(node);
	struct lagom_error err = { 0 };
	int rc = 0;

	if (p == NULL)
		return 2;
	for (int i = 0; i < n && rc == 0; i++) {
		fill_sample(p, 1 + (i * 37 + (int)getpid()) % 300);
		rc = lagom_profile_write_atomic(dir, p, &err);
	}
	lagom_profile_destroy(p);
	return report(rc, &err);
}

static int cmd_hammer(const char *dir, const char *node, int n)
{
	struct lagom_error err = { 0 };
	int whole = 0;

	for (int i = 0; i < n; i++) {
		struct lagom_profile *p = NULL;
		int rc = lagom_profile_load_node(dir, node, NULL, &p, &err);

		if (rc == -ENOENT)
			continue;
		if (rc < 0 || p->meas.n_busbw < 1 || p->meas.n_busbw > 300) {
			lagom_profile_destroy(p);
			return report(rc < 0 ? rc : -EINVAL, &err);
		}
		whole++;
		lagom_profile_destroy(p);
	}
	printf("ok %d whole reads\n", whole);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "read") == 0)
		return cmd_read(argc, argv, 0);
	if (argc >= 4 && strcmp(argv[1], "load") == 0)
		return cmd_read(argc, argv, 1);
	if (argc == 4 && strcmp(argv[1], "sample") == 0)
		return cmd_sample(argv[2], atoi(argv[3]));
	if (argc == 5 && strcmp(argv[1], "write") == 0)
		return cmd_write(argv[2], argv[3], atoi(argv[4]));
	if (argc == 5 && strcmp(argv[1], "hammer") == 0)
		return cmd_hammer(argv[2], argv[3], atoi(argv[4]));
	fprintf(stderr, "usage: see the comment in profile_tool.c\n");
	return 2;
}
