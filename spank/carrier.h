/*
 * spank/carrier.h - the plan of a job step on its way from srun to every
 * slurmstepd of the step (doc/consistency.md).
 *
 * srun plans once per step (slurm_spank_local_user_init) and puts the
 * outcome into its own environment as LAGOM_CARRIER_VAR; srun copies its
 * environment into the step's launch message, so every node of the step
 * receives the same bytes.  The name starts with "SLURM" so that it also
 * crosses `srun --export=NONE` (Slurm keeps SLURM* variables there).  The
 * remote plugin checks the text against the step it runs in and applies the
 * variables, or applies nothing; it never plans.
 *
 * Text (ASCII, lines end in '\n'):
 *
 *	lagom-step 1
 *	job=J step=S nodes=N tasks=T tpn=TPN gpus=G nodes_hash=H mode=M plan=ID
 *	summary TEXT
 *	var NAME=VALUE          (zero or more)
 *	end CHECK
 *
 * J, S, N, T unsigned decimal; TPN the step's SLURM_STEP_TASKS_PER_NODE;
 * G the GPUs per node planned for; H lagom_nodes_hash() of the step's node
 * names as 16 lowercase hex digits; M "auto", "explain", "measure" (the
 * user's --lagom=measure), "control" (srun's control pick, doc/report.md:
 * plan made, not applied, step measured) or "revert" (the same: the
 * class measured slower under this plan); ID the plan id
 * (16 lowercase hex digits); TEXT the job comment's lagom text; CHECK the
 * 64-bit FNV-1a of every byte before "end ", as 16 hex digits.  TEXT, TPN,
 * names and values are printable ASCII without '\n'.  Anything else, a
 * truncated text, a bad check or more than LAGOM_CARRIER_MAX_VARS
 * variables makes the whole text invalid.
 *
 * Trust (doc/consistency.md "Trust"): srun runs as the user, and a user
 * can send any text here (an srun that loads no lagom, with their own
 * slurm.conf).  A node cannot tell a forged text from srun's, so it treats
 * every text as the user's input: lagom_carrier_vet() accepts only the
 * variables lagom sets, each with a value of its kind (what the user could
 * export anyway; the tuner only at the admin's own path), and
 * lagom_carrier_comment() composes the job comment from validated fields
 * (numbers, ids, enumerated names), never copying the text.  An error
 * message never quotes the text either: root logs it.
 *
 * Pure: no I/O, no environment.  Errors: 0 or a negative errno (-EINVAL,
 * -E2BIG, -ENOMEM) with one line in err (NULL allowed); nothing written to
 * out-parameters on failure.
 */
#ifndef LAGOM_SPANK_CARRIER_H
#define LAGOM_SPANK_CARRIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "plan/plan.h" /* struct lagom_env_var */
#include "plugstack/plugstack.h"

#define LAGOM_CARRIER_VAR "SLURM_LAGOM_STEP_PLAN"
/* Below Slurm's 256 KiB limit on one environment value (ENV_BUFSIZE). */
#define LAGOM_CARRIER_MAX (192u * 1024u)
#define LAGOM_CARRIER_MAX_VARS 32
#define LAGOM_CARRIER_TPN_MAX 1024
#define LAGOM_CARRIER_SUMMARY_MAX 1024

/* What identifies a step: the same on every node of the step. */
struct lagom_carrier_step {
	uint32_t job_id, step_id;
	uint32_t nnodes, ntasks;
	char tpn[LAGOM_CARRIER_TPN_MAX]; /* SLURM_STEP_TASKS_PER_NODE */
	uint64_t nodes_hash;		 /* lagom_nodes_hash() */
};

struct lagom_carrier {
	struct lagom_carrier_step step;
	unsigned gpus_per_node;
	enum lagom_mode mode; /* AUTO, EXPLAIN, MEASURE or CONTROL */
	char plan_id[17];
	char summary[LAGOM_CARRIER_SUMMARY_MAX];
	size_t nvars;
	struct lagom_env_var vars[LAGOM_CARRIER_MAX_VARS]; /* owned */
};

/*
 * 64-bit FNV-1a over the names in the order given, each followed by '\n'.
 * srun hashes the node list slurmctld gives it, slurmstepd the expansion of
 * SLURM_STEP_NODELIST; both are in Slurm's node order.
 */
uint64_t lagom_nodes_hash(const char *const *names, size_t n);

/* Copy name and value into c (-E2BIG past LAGOM_CARRIER_MAX_VARS,
 * -EINVAL for a bad name or value). */
int lagom_carrier_add(struct lagom_carrier *c, const char *name,
		      const char *value, struct lagom_error *err);

/* The text of c, NUL-terminated, to free() in *out. */
int lagom_carrier_encode(const struct lagom_carrier *c, char **out,
			 struct lagom_error *err);

/* Parse text into *out (zeroed first; release with
 * lagom_carrier_release()). */
int lagom_carrier_decode(const char *text, struct lagom_carrier *out,
			 struct lagom_error *err);

/*
 * Does every variable of c pass what a node applies?  Only the names the
 * planner sets (NCCL_MIN_CTAS, NCCL_MAX_CTAS, NCCL_BUFFSIZE, NCCL_NTHREADS,
 * NCCL_CTA_POLICY: unsigned decimals; NCCL_ALGO, NCCL_PROTO: NCCL's names;
 * NCCL_TUNER_PLUGIN: exactly tuner, the admin's tuner= here ("" or NULL:
 * none allowed), and then with LAGOM_PLAN ("lagom-plan ..."), both or
 * neither; TORCH_NCCL_HIGH_PRIORITY, CUDA_DEVICE_MAX_CONNECTIONS: "1";
 * LAGOM_PLAN_ID: the step line's plan id; LAGOM_PREDICTED_SPEEDUP: N.NN),
 * each at most once.  0, or -EPERM with err naming the line (never its
 * text).
 */
int lagom_carrier_vet(const struct lagom_carrier *c, const char *tuner,
		      struct lagom_error *err);

/*
 * The job comment's text for c into out (len > 0; cut to fit), composed
 * from the summary's validated fields in this order, each only when the
 * summary has it in lagom's form:
 *   lagom VERSION (this lagom's own) plan=ID (the step line's)
 *   workload=W (a catalog name in the catalog's spelling, catalog-worst-case,
 *     (file), measured-JOB.STEP; any other name: "file")
 *   channels= chunk= algo= speedup= corrected=... from=JOB.STEP
 *   fallback=REASON (one of the planner's own reasons)
 * Anything else in the summary is left out.  Returns strlen(out).
 */
size_t lagom_carrier_comment(const struct lagom_carrier *c, char *out,
			     size_t len);

/* Free the variables of c and zero it.  NULL does nothing. */
void lagom_carrier_release(struct lagom_carrier *c);

/*
 * Does c belong to the step here?  Compares every field of
 * struct lagom_carrier_step.  Returns 0, or -ESRCH with err naming the
 * first field that differs.
 */
int lagom_carrier_matches(const struct lagom_carrier *c,
			  const struct lagom_carrier_step *here,
			  struct lagom_error *err);

#endif /* LAGOM_SPANK_CARRIER_H */
