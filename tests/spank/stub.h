/*
 * tests/spank/stub.h - a fake SPANK host for lagom's callbacks.
 *
 * stub.c defines the spank_*, slurm_* (logging, hostlist, job comment) and
 * planner-adapter functions the plugin calls, backed by the struct below, so
 * the callbacks run in a plain test program.  One environment stands for the
 * step's (what the user exported) and the task's.
 */
#ifndef LAGOM_TESTS_SPANK_STUB_H
#define LAGOM_TESTS_SPANK_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slurm/spank.h>

#include "spank/srun_planner.h"

#define STUB_MAX 64
#define STUB_LINE 1100

struct stub {
	spank_context_t ctx;
	/* spank_option_register */
	int n_opts;
	struct spank_option opts[STUB_MAX];
	bool register_fails;
	/* spank_get_item (remote, and the local subset) */
	uint32_t job_id, step_id, node_id, nnodes, ntasks;
	uid_t uid;
	gid_t gid;
	/* environment: "NAME=VALUE" strings (owned) */
	char *env[STUB_MAX];
	int n_setenv; /* spank_setenv calls that changed something */
	/* log lines, "info: ...", "error: ...", "spank: ..." (owned) */
	char *log[STUB_MAX];
	int n_log;
	/* the planner adapter */
	int plan_rc; /* < 0: lagom_srun_plan fails with this */
	int plan_calls;
	char plan_workload[1100]; /* the workload it was given ("" = NULL) */
	char plan_cwd[1100];	  /* and the step's working directory */
	unsigned plan_ranks, plan_gpus;
	bool plan_registered; /* the step's registered_buffers */
	size_t plan_nodes;
	/* slurm_load_job / slurm_update_job: the job's comment */
	char comment[2048];
	char admin_comment[2048];
	int updates;
	uint16_t load_flags, step_flags; /* show_flags of the last calls */
	bool load_fails;
	/* slurm_load_job (load_gate) or slurm_update_job (update_gate) waits
	 * (up to 5 s) while its gate is set, until stub_open_gate(): shows
	 * whether the caller waits for it. */
	bool load_gate, update_gate;
	bool gate_timed_out;
	int loads; /* slurm_load_job calls that returned */
	/* slurm_get_job_steps: the step's record (strings borrowed); waits
	 * while steps_gate is set, like the gates above */
	int step_calls;
	int steps_returned; /* calls that returned (atomic) */
	bool steps_gate;
	bool steps_fail;
	unsigned step_records;	/* 0 means 1 */
	uint32_t step_het_comp; /* 0 means NO_VAL (not heterogeneous) */
	const char *step_nodes, *tres_per_node, *tres_per_task, *tres_per_step;
};

extern struct stub stub;

/* Reset everything (frees env and log). */
void stub_reset(spank_context_t ctx);
void stub_setenv(const char *name, const char *value);
/* Value of name in the stub environment, or NULL.  spank_option_getopt()
 * finds an option srun took (--NAME=VALUE) as the entry "--NAME". */
const char *stub_getenv(const char *name);
/* Clear both gates and wake whoever waits on them. */
void stub_open_gate(void);
/* stub_open_gate() from another thread after delay_ms. */
void stub_open_gate_later(unsigned delay_ms);
/* Number of log lines containing needle. */
int stub_log_count(const char *needle);

#endif /* LAGOM_TESTS_SPANK_STUB_H */
