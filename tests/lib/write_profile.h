/*
 * tests/lib/write_profile.h - a node profile written into a test's profile
 * directory, for the CMocka tests that plan from profiles (tests/planner/,
 * tests/spank/).  One writer instead of a copy per test: a test names the
 * fields it varies in a struct lagom_test_profile.
 *
 * Header only (the allocation-failure tests wrap malloc at link time);
 * include after tests/lib/lagom_test.h.  Needs libprofile.
 */
#ifndef LAGOM_TEST_WRITE_PROFILE_H
#define LAGOM_TEST_WRITE_PROFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/profile.h"

/* A node with NVSwitch, measured on 2023-11-14 (created_unix_s). */
struct lagom_test_profile {
	const char *node; /* file name and hostname */
	const char *gpu;  /* hw.gpu_model */
	int gpus, sms,
		nvlinks;      /* hw.gpu_count, gpu_sm_count, nvlinks_per_gpu */
	int nics, nic_rdma;   /* hw.nic_count, nic_rdma */
	double nic_Bps;	      /* hw.nic_link_bw_Bps, 0: unknown */
	int nvl_domain_nodes; /* hw.nvl_domain_nodes */
	bool measured;	      /* table values for bf16_flops and hbm_Bps */
	double bf16_flops, hbm_Bps;
	const char *nccl;    /* prov.nccl_version, NULL: none */
	const char *version; /* prov.lagom_version, NULL: this lagom's */
};

/* Write p into dir atomically (the profile writer's own rules) and free
 * it; the test fails when it cannot. */
static inline void lagom_test_profile_save(const char *dir,
					   struct lagom_profile *p)
{
	struct lagom_error err = { 0 };

	assert_non_null(p);
	if (lagom_profile_write_atomic(dir, p, &err) != 0)
		fail_msg("writing %s: %s", p->node, err.text);
	lagom_profile_destroy(p);
}

/* The profile of s, new (lagom_profile_destroy()). */
static inline struct lagom_profile *lagom_test_profile_new(
	const struct lagom_test_profile *s)
{
	struct lagom_profile *p = lagom_profile_create(s->node);

	assert_non_null(p);
	snprintf(p->hostname, sizeof(p->hostname), "%s", s->node);
	snprintf(p->hw.gpu_model, sizeof(p->hw.gpu_model), "%s", s->gpu);
	p->hw.gpu_count = s->gpus;
	p->hw.gpu_sm_count = s->sms;
	p->hw.intra = LAGOM_INTRA_NVSWITCH;
	p->hw.nvlinks_per_gpu = s->nvlinks;
	p->hw.nic_count = s->nics;
	p->hw.nic_rdma = s->nic_rdma;
	p->hw.nic_link_bw_Bps = s->nic_Bps;
	p->hw.nvl_domain_nodes = s->nvl_domain_nodes;
	if (s->measured) {
		p->meas.gemm_flops[LAGOM_PREC_BF16].value = s->bf16_flops;
		p->meas.gemm_flops[LAGOM_PREC_BF16].source = LAGOM_SOURCE_TABLE;
		p->meas.hbm_bw_Bps.value = s->hbm_Bps;
		p->meas.hbm_bw_Bps.source = LAGOM_SOURCE_TABLE;
	}
	if (s->version)
		snprintf(p->prov.lagom_version, sizeof(p->prov.lagom_version),
			 "%s", s->version);
	if (s->nccl)
		snprintf(p->prov.nccl_version, sizeof(p->prov.nccl_version),
			 "%s", s->nccl);
	p->prov.created_unix_s = 1700000000;
	return p;
}

/* dir/NODE.json for s. */
static inline void lagom_test_write_profile(const char *dir,
					    const struct lagom_test_profile *s)
{
	lagom_test_profile_save(dir, lagom_test_profile_new(s));
}

#endif /* LAGOM_TEST_WRITE_PROFILE_H */
