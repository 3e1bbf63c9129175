/*
 * planner/consensus.h - the evidence `lagom calibrate` fits, as the
 * users' consensus rather than the records' volume (doc/model.md 2.7,
 * issue 33).
 *
 * A record is written by its user's own process: untrusted in content,
 * not only in form.  So:
 *
 *  - each record is first held to physical bounds
 *    (lagom_consensus_rec_check): a record outside them is refused whole,
 *    counted against its user;
 *  - a run is keyed by (owner uid, job, step), the uid being the owner of
 *    the spool directory the record lies in (the caller's walk says it),
 *    never by the record's own text: records naming another user's job
 *    ids stay their writer's runs;
 *  - per class (operation, plan bytes, ranks, nodes, algorithm,
 *    protocol, channels) each run keeps its fastest call (the minimum
 *    over its tasks), each user the median over their runs, and the
 *    class the median of the users' medians;
 *  - a class moves a constant only when it has runs of the trusted
 *    calibration account (then its median alone is the class's time), or
 *    runs of at least LAGOM_CONSENSUS_MIN_USERS users of whom a strict
 *    majority lie within a factor LAGOM_CONSENSUS_AGREE of that median:
 *    two users who disagree (one honest, one not) move nothing;
 *  - every limit (records, runs, classes, samples) is per user, counted
 *    against that user, and never drops another user's evidence.
 *
 * Pure: parsed records and uids in, model inputs out; no I/O, no clock.
 * The handle owns everything it holds; lagom_consensus_destroy frees it.
 */
#ifndef LAGOM_PLANNER_CONSENSUS_H
#define LAGOM_PLANNER_CONSENSUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "model/model.h"
#include "model/model_fit.h"

struct lagom_rec;
struct lagom_consensus;

/* Physical bounds of one record (doc/calibration-format.md). */
#define LAGOM_PHYS_MIN_NS 1000ULL	   /* no NCCL kernel ends within 1 us */
#define LAGOM_PHYS_MAX_NS 3600000000000ULL /* one call within an hour */
#define LAGOM_PHYS_MAX_BYTES (1ULL << 40)  /* 1 TiB: above any GPU's memory */
#define LAGOM_PHYS_MAX_NODES 65536U
#define LAGOM_PHYS_MAX_RANKS (1U << 20)
#define LAGOM_PHYS_MAX_CHANNELS 64U
/* bytes over the fastest call: 100 TB/s, above any GPU's links together */
#define LAGOM_PHYS_MAX_BPS 1e14

/* Per-user limits: beyond them that user's further evidence is dropped
 * and counted against that user. */
#define LAGOM_CONSENSUS_USER_RECORDS 65536
#define LAGOM_CONSENSUS_USER_RUNS 4096
#define LAGOM_CONSENSUS_USER_CLASSES 4096
#define LAGOM_CONSENSUS_USER_SAMPLES 65536 /* (run, class) pairs */
#define LAGOM_CONSENSUS_MAX_USERS 4096

/* Users a class needs (without the trusted account), and how far a
 * user's median may lie from the class's median and still agree. */
#define LAGOM_CONSENSUS_MIN_USERS 2
#define LAGOM_CONSENSUS_AGREE 1.5

/* A calibration moves no constant further than this from the last one
 * without --accept: a factor, and at least this share of its range. */
#define LAGOM_CONSENSUS_MOVE_FACTOR 1.5
#define LAGOM_CONSENSUS_MOVE_RANGE 0.05

/* No trusted account. */
#define LAGOM_CONSENSUS_NO_UID (-1L)

/*
 * 0 when every communicator and timed class of r lies within the
 * physical bounds above (nodes 1..LAGOM_PHYS_MAX_NODES, ranks from nodes
 * to LAGOM_PHYS_MAX_RANKS; bytes at most LAGOM_PHYS_MAX_BYTES; channels
 * at most 64 and at most one per byte; timed calls at least 1 us, at most
 * an hour, no faster than LAGOM_PHYS_MAX_BPS; gpu_n <= count), else
 * -ERANGE with "comm N class M: why" in err.
 */
int lagom_consensus_rec_check(const struct lagom_rec *r,
			      struct lagom_error *err);

/* trusted_uid: the calibration account's uid, or LAGOM_CONSENSUS_NO_UID.
 * NULL when out of memory. */
struct lagom_consensus *lagom_consensus_create(long trusted_uid);
void lagom_consensus_destroy(struct lagom_consensus *cs);

/*
 * Add r, written in the spool of uid.  0 (taken, or counted against uid
 * when one of uid's limits is reached); -ERANGE (outside the physical
 * bounds: refused, counted, err says why); -EUSERS (more users than
 * LAGOM_CONSENSUS_MAX_USERS: not taken); -ENOMEM.
 */
int lagom_consensus_add(struct lagom_consensus *cs, uint32_t uid,
			const struct lagom_rec *r, struct lagom_error *err);

/* What one user gave (in the order users were first seen). */
struct lagom_consensus_user {
	uint32_t uid;
	size_t records; /* taken */
	size_t refused; /* outside the physical bounds */
	size_t runs, classes, samples;
	/* dropped at a limit: records, and (run, class) pairs */
	size_t over_records, over_runs, over_classes, over_samples;
};
size_t lagom_consensus_users(const struct lagom_consensus *cs);
const struct lagom_consensus_user *lagom_consensus_user(
	const struct lagom_consensus *cs, size_t i);

/* What lagom_consensus_meas made of the classes. */
struct lagom_consensus_stats {
	size_t classes;	 /* distinct classes in the evidence */
	size_t used;	 /* multi-node classes returned */
	size_t trusted;	 /* of which from the trusted account */
	size_t one_user; /* classes with runs of fewer users than needed */
	size_t disputed; /* users disagree, no majority */
	size_t one_node; /* not across nodes: nothing to fit */
	size_t refused;	 /* the model refuses them on hw */
	size_t beyond;	 /* beyond max */
	size_t runs;	 /* the runs of the users behind used classes */
	size_t users;	 /* distinct users behind used classes */
};

/*
 * The classes that may move a constant, as the model's measurements on hw
 * (its net_site cleared), hops SAME_LEAF, into m (max entries), sorted by
 * class: independent of the order records were added in.  exclude_uid
 * (or LAGOM_CONSENSUS_NO_UID): the evidence without that user (what
 * --check's influence shows).  st may be NULL.  Returns the count, or
 * (size_t)-1 when out of memory.
 */
size_t lagom_consensus_meas(const struct lagom_consensus *cs,
			    const struct lagom_hw *hw, long exclude_uid,
			    struct lagom_net_meas *m, size_t max,
			    struct lagom_consensus_stats *st);

/*
 * Per user (lagom_consensus_user's order, nusers entries): in how many
 * multi-node classes with runs of two users or more the user's median
 * lies further than LAGOM_CONSENSUS_AGREE from the class's median of
 * user medians (dissent), and the median over those classes of the
 * user's median over the class's (ratio; 1 when none).  Names the user
 * who disagrees; with two users only, both do: nobody can tell who is
 * right.  0 or -ENOMEM.
 */
int lagom_consensus_dissent(const struct lagom_consensus *cs, size_t *dissent,
			    double *ratio);

/*
 * A constant's move from last to now is too far when the larger over the
 * smaller exceeds LAGOM_CONSENSUS_MOVE_FACTOR and the change exceeds
 * LAGOM_CONSENSUS_MOVE_RANGE of its range (an unset constant counts at
 * its built-in value).  Returns how many moved too far; the first few as
 * "ib 2 ch_net_Bps 1.15e+10 -> 4e+09, ..." in why (len bytes).
 */
size_t lagom_consensus_moves(const struct lagom_net_calib *last,
			     const struct lagom_net_calib *now, char *why,
			     size_t len);

#endif /* LAGOM_PLANNER_CONSENSUS_H */
