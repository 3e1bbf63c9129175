/*
 * prolog/prolog.h - private to lagom-prolog (doc/lagom-prolog.8).
 *
 * lagom-prolog measures one node and writes its profile (profile/profile.h)
 * into the admin's profile directory.  It runs from Slurm's Prolog, where a
 * non-zero exit drains the node, so everything that can go wrong at run time
 * is logged and ends in exit status 0; only a command-line usage error
 * exits 2.
 *
 * Parts:
 *   main.c              options, configuration, cache check, writing
 *   hwinfo.c            the profile's hardware section (topology/, sysfs):
 *                       measured facts only, no spec-table values
 *   plugstack.c         lagom's line of plugstack.conf -> struct lagom_config
 *   probe.c             runs the GPU probes in a child under a time budget
 *   probe_cuda.c        dlopen'd CUDA runtime + cuBLAS: GEMM rate, HBM
 *   probe_contention.c  GEMM beside a kernel holding k CTAs (driver API)
 *   probe_nccl.c        dlopen'd NCCL: busbw over channels and chunk sizes
 */
#ifndef LAGOM_PROLOG_PROLOG_H
#define LAGOM_PROLOG_PROLOG_H

#include <stdbool.h>

#include "common/error.h"
#include "plugstack/plugstack.h"
#include "profile/profile.h"

/* Fill the hardware section of the local node from topology/ (hwloc) and
 * sysfs.  Always fills what it can; returns -errno and a reason in err when
 * the topology could not be read (hw then holds only the CPU part) or its
 * GPUs differ (hw then has no gpu_model: no table values, no plan). */
int prolog_hwinfo(struct lagom_profile_hw *hw, struct lagom_error *err);

/* The GPU, fabric and NIC fields of hw (NUMA too) from a topology: what
 * the topology shows, nothing from the spec table's rates (SM count and
 * memory stay 0; the planner's translation, lagom_profile_to_hw(), adds the
 * table's values at plan time); the CPU fields are left as they are.  0,
 * or -EINVAL when the GPUs differ (hw then has no gpu_model). */
struct lagom_node_topo;
int prolog_hw_from_topo(const struct lagom_node_topo *t,
			struct lagom_profile_hw *hw, struct lagom_error *err);

/* Read lagom's arguments from plugstack.conf at path into cfg (defaults
 * first).  -ENOENT when the file or lagom's line is missing, -EINVAL (err
 * says why) when the line does not parse or path is not a regular file,
 * -EFBIG when it is larger than 256 KiB (never read past that). */
int prolog_read_plugstack(const char *path, struct lagom_config *cfg,
			  struct lagom_error *err);

/* What the probes found: plain data, copied whole through a pipe. */
struct probe_result {
	struct lagom_profile_measurements meas;
	char nccl_version[32];
	char cuda_runtime_version[32];
	char cuda_driver_version[32];
	int gpus_seen; /* CUDA devices, -1 when CUDA could not be asked */
	char note[LAGOM_PROFILE_TEXT_MAX + 1]; /* why something is missing */
};

struct probe_opts {
	double budget_s;	/* wall-clock limit for all probes together */
	int gpus_per_node_hint; /* GPUs topology/ saw (decides the NCCL grid) */
	bool verbose;
};

/* Run the probes in a child process and wait at most budget_s for it; kill
 * it when late.  Fills *res (note says what was skipped and why). */
void probe_run(const struct probe_opts *opts, struct probe_result *res);

/* The probes themselves (run inside the child).  Each fills what it
 * measured in res and returns 0, or returns -errno with a short reason in
 * res->note.  deadline is CLOCK_MONOTONIC seconds. */
int probe_cuda(struct probe_result *res, double deadline, bool verbose);
int probe_contention(struct probe_result *res, double deadline, bool verbose);
int probe_nccl(struct probe_result *res, int gpus_per_node, double deadline,
	       bool verbose);

/* A symbol to resolve: *addr = dlsym(handle, name). */
struct probe_sym {
	const char *name;
	void **addr;
};

/* dlopen the first loadable of names (NULL-terminated) and resolve every
 * symbol of syms (terminated by a NULL name).  NULL, with the reason noted
 * in res, when no library loads or a symbol is missing. */
void *probe_dlopen(const char *const *names, const struct probe_sym *syms,
		   struct probe_result *res);

/* PTX of the contention probe's resident kernel (probe_contention.c). */
extern const char lagom_hold_ptx[];

/* CLOCK_MONOTONIC in seconds. */
double prolog_now(void);

/* Append ", text" (or text when empty) to res->note. */
void probe_note(struct probe_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* LAGOM_PROLOG_PROLOG_H */
