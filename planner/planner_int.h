/*
 * planner/planner_int.h - private to planner/.
 */
#ifndef LAGOM_PLANNER_PLANNER_INT_H
#define LAGOM_PLANNER_PLANNER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "model/model.h"
#include "planner/calib.h"

/* What planner_load_hw() read. */
struct planner_load_report {
	size_t from_digest; /* nodes whose hardware came from the digest */
	char notice[LAGOM_ERROR_TEXT_MAX + 64]; /* a refused digest, or "" */
	/* The oldest NCCL the nodes' profiles recorded, as NCCL_VERSION_CODE;
	 * 0 when one of them recorded none (or one lagom cannot read). */
	unsigned nccl_version;
	/* The profile directory's calibration file, when there is one
	 * that passed the trust rules and the strict reader. */
	bool calibrated;
	struct lagom_calibration calibration;
};

/* "2.28.9" as NCCL_VERSION_CODE (22809; releases before 2.9: X*1000 +
 * Y*100 + Z); 0 for "" or text that is not a version. */
unsigned planner_nccl_version_code(const char *text);

/*
 * Load the profile of every node in names (n entries) from dir (or, when
 * path is set, the one file at path for all of them) through profile/'s
 * reader (trust rules when enforce_trust) and turn each into the model's
 * hardware (lagom_profile_to_hw) in hws (room for n), *nhws of them: each
 * hardware the digest gives once, however many nodes share it (the
 * weakest of them does not depend on repeats), so the planner's cost
 * follows the distinct hardware, not the nodes.  Errors from profile/ pass
 * through, with the node named.  With dir, the cluster digest of dir
 * (profile/digest.h) gives the hardware of every node whose profile has
 * not changed since: the same values, without reading the profile.  rep
 * (NULL allowed) says how many nodes came from the digest, why a digest
 * that was there was refused, and the oldest NCCL of the nodes.
 */
int planner_load_hw(const char *dir, const char *path, bool enforce_trust,
		    uid_t trusted_uid, const char *const *names, size_t n,
		    struct lagom_hw *hws, size_t *nhws,
		    struct planner_load_report *rep, struct lagom_error *err);

/*
 * planner_load_hw() for the weakest hardware of the step, and no copy of
 * what the digest holds: the weakest of the distinct hardware of names
 * (planner_weakest_hw_of()) into out.
 */
int planner_load_weakest_hw(const char *dir, const char *path,
			    bool enforce_trust, uid_t trusted_uid,
			    const char *const *names, size_t n,
			    struct lagom_hw *out,
			    struct planner_load_report *rep,
			    struct lagom_error *err);

/*
 * The hardware every node plans for: hws combined field by field, taking the
 * weakest value (lowest rate and count, highest latency and contention).
 * The result does not depend on the order of hws.
 */
int planner_weakest_hw(const struct lagom_hw *hws, size_t n,
		       struct lagom_hw *out, struct lagom_error *err);

/* The same over pointers (borrowed): hardware shared by many nodes is
 * neither copied nor repeated. */
int planner_weakest_hw_of(const struct lagom_hw *const *hws, size_t n,
			  struct lagom_hw *out, struct lagom_error *err);

/*
 * The farthest network distance between the step's nodes (names sorted)
 * from Slurm's topology.conf at path: SAME_NODE for one node, SAME_LEAF or
 * SPINE.  path NULL: one switch (SAME_LEAF for several nodes).  With a
 * topology/block file and hw (NULL allowed) in a multi-node NVLink domain,
 * hw->nvl_domain_nodes becomes the fewest of the step's nodes in one block
 * when that is less: the blocks say which nodes share a domain.
 */
int planner_step_hops(const char *path, const char *const *names, size_t n,
		      enum lagom_hops *out, struct lagom_hw *hw,
		      struct lagom_error *err);

struct lagom_planner_measured;
struct lagom_planner_result;
/*
 * The measured correction (correct.c): set comm.time_scale of every
 * collective of w whose class has a measured counterpart, and list the
 * corrections in res (corrections, ncorrections, corrected_from).
 * measured NULL: nothing.  0 or -ENOMEM.
 */
int planner_correct(const struct lagom_planner_measured *measured,
		    const struct lagom_hw *hw, struct lagom_workload *w,
		    struct lagom_planner_result *res, struct lagom_error *err);

#endif /* LAGOM_PLANNER_PLANNER_INT_H */
