/*
 * cli/calib_int.h - what `lagom calibrate` prints and decides around the
 * users' consensus (planner/consensus.h): the evidence line, one line per
 * user at a limit or with refused records, --check's influence of each
 * user, and the bound on a calibration's move without --accept.
 */
#ifndef LAGOM_CLI_CALIB_INT_H
#define LAGOM_CLI_CALIB_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"
#include "planner/consensus.h"

/* The calibration account's uid: name (a name or a number), else
 * calibration_user= of lagom's line in plugstack (NULL: the default
 * plugstack.conf, where a missing file or line means none), else
 * LAGOM_CONSENSUS_NO_UID; -1 with one lagom: line when the account is
 * unknown or the named plugstack.conf cannot be read. */
int cli_calib_trusted_uid(const char *name, const char *plugstack, long *uid);

/* lagom_consensus_meas over all users, then "lagom: calibrate: ..." lines:
 * per user refused records and limits reached, and the classes' fate;
 * with check, each user who disagrees with the others.  Returns the
 * count of m. */
size_t cli_calib_meas(const struct lagom_consensus *cs,
		      const struct lagom_hw *hw, struct lagom_net_meas *m,
		      size_t max, struct lagom_consensus_stats *st, bool check);

/* --check: per constant the fit without each user; names the most
 * influential user.  all: the fit on everyone's evidence. */
void cli_calib_influence(const struct lagom_consensus *cs,
			 const struct lagom_hw *hw,
			 const struct lagom_net_calib *all);

/* The dense form (model/netdense.h) per algorithm over the classes m
 * (all of hw's transport): each constant fitted or refused with why, one
 * line each, and its leave-one-class-out median error (linear fits:
 * cheap). */
void cli_calib_dense(const struct lagom_net_meas *m, size_t n);

/* The bound: the last calibration is last_path, else out when it exists,
 * else the built-in constants.  CLI_OK when no constant moves too far or
 * accept; else one line per reason and CLI_FAIL. */
int cli_calib_bound(const char *last_path, const char *out,
		    const struct lagom_net_calib *now, bool accept);

#endif /* LAGOM_CLI_CALIB_INT_H */
