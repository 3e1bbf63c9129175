/*
 * spank/srun_step.h - the step as srun sees it before launch (srun_step.c):
 * srun's own state and environment, read in local_user_init.  The parsers
 * it uses are pure (spank/srun_parse.h), the round trip to slurmctld its
 * own (spank/step_query.h), the Slurm-version gate in compat/.
 */
#ifndef LAGOM_SPANK_SRUN_STEP_H
#define LAGOM_SPANK_SRUN_STEP_H

#include <stdbool.h>

#include <slurm/spank.h>

#include "common/error.h"
#include "spank/carrier.h"
#include "spank/step.h"
#include "spank/srun_parse.h"

/* How long srun waits for slurmctld's record of the step before it
 * launches the step without a plan (lagom-spank(8)). */
#define LAGOM_SRUN_STEP_WAIT_MS 5000

/*
 * Fill *step (node names owned: lagom_step_clear()) and the step's
 * identity *id in srun's slurm_spank_local_user_init.  The step's nodes and
 * GPU request come from srun's own state when it tells them exactly (and
 * query_always is false); else from one slurmctld round trip, waited for
 * at most timeout_ms (then -ETIMEDOUT), whose duration goes to
 * *slurmctld_ms (-1 when slurmctld was not asked).  node_id is 0,
 * node_name srun's host, cwd the step's working directory ("" when it
 * cannot be told).  Returns 0 or a negative errno with err filled.
 */
int lagom_srun_step_read(spank_t sp, unsigned timeout_ms, bool query_always,
			 struct lagom_step *step, struct lagom_carrier_step *id,
			 double *slurmctld_ms, struct lagom_error *err);

#endif /* LAGOM_SPANK_SRUN_STEP_H */
