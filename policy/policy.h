/*
 * policy/policy.h - communication-aware placement: what a job loses when
 * Slurm spreads it over the spine instead of packing it under one leaf
 * switch, the longest wait for one leaf worth taking, and the placement
 * options of `lagom place` (doc/scheduler.md).
 *
 * Part of the pure core: no I/O, no environment, no clock, no Slurm.  The
 * callers (cli/cmd_policy.c, cli/cmd_place.c) read profiles, topology.conf
 * and Slurm's node states and write the policy file (doc/policy-format.md).
 *
 * Errors: 0 or a negative errno with one line in err (NULL allowed):
 *   -EINVAL  bad arguments (names the field), errors of the model/search;
 *   -ENOMEM  out of memory.
 * Nothing is written to out-parameters on failure.
 */
#ifndef LAGOM_POLICY_POLICY_H
#define LAGOM_POLICY_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "model/model.h"

/* Version of the policy file (first line "lagom-policy 1"). */
#define LAGOM_POLICY_FORMAT_VERSION 1
/* Limits the writer keeps and the Lua reader enforces. */
#define LAGOM_POLICY_MAX_BYTES (1u << 20)
#define LAGOM_POLICY_MAX_ENTRIES 20000
#define LAGOM_POLICY_NAME_MAX 128
#define LAGOM_POLICY_MAX_NODES 4096
/* Slurm's default SchedulerParameters=max_switch_wait (seconds). */
#define LAGOM_POLICY_SLURM_MAX_SWITCH_WAIT_S 300

/*
 * The admin's parameters.
 *  run_s        a typical run length (seconds of iterations in one leaf);
 *  max_wait_s   the longest wait ever asked for (Slurm caps --switches
 *               waits at max_switch_wait, 300 s by default);
 *  min_loss     a job losing less than this fraction spread over the spine
 *               is insensitive: left alone;
 *  spine_taper  >= 1: a node's share of its NIC bandwidth left when its
 *               traffic crosses the spine is 1 / spine_taper (1 = a
 *               non-blocking fat tree: crossing only adds latency).
 */
struct lagom_policy_params {
	double run_s;
	double max_wait_s;
	double min_loss;
	double spine_taper;
};

/* 0 or -EINVAL naming the bad field (run_s > 0, max_wait_s >= 0,
 * 0 <= min_loss < 10, 1 <= spine_taper <= 64, all finite). */
int lagom_policy_params_check(const struct lagom_policy_params *p,
			      struct lagom_error *err);

/* Predicted iteration times of one workload on nodes x gpus ranks. */
struct lagom_placement_cost {
	double leaf_s;	 /* every node under one leaf, lagom's plan */
	double spread_s; /* across the spine, lagom's plan */
	double loss;	 /* spread_s / leaf_s - 1 (>= 0 in practice) */
};

/*
 * Plan w twice with search/ (as the plugin would after placement): with
 * every multi-node collective's hops set to SAME_LEAF, and set to SPINE on
 * hardware whose NIC bandwidth is divided by spine_taper.  w is borrowed and
 * not changed (a copy is planned).  nodes >= 2.
 */
int lagom_placement_cost(const struct lagom_hw *hw,
			 const struct lagom_workload *w, unsigned nodes,
			 unsigned gpus_per_node, double spine_taper,
			 struct lagom_placement_cost *out,
			 struct lagom_error *err);

enum lagom_policy_reason {
	LAGOM_POLICY_PACK,	  /* switches=1: worth waiting for a leaf */
	LAGOM_POLICY_INSENSITIVE, /* loss below min_loss: leave alone */
	LAGOM_POLICY_WIDER,	  /* more nodes than the largest leaf holds */
};

/* "pack" "insensitive" "wider-than-leaf". */
const char *lagom_policy_reason_name(enum lagom_policy_reason r);

struct lagom_policy_decision {
	unsigned switches; /* 0: leave the job's placement alone */
	unsigned wait_s;   /* with switches=1: the longest wait worth taking */
	enum lagom_policy_reason reason;
};

/*
 * The decision for a job of nodes nodes on a cluster whose largest leaf
 * holds leaf_nodes nodes:
 *   nodes > leaf_nodes        -> WIDER (no single leaf can hold it);
 *   cost->loss < min_loss     -> INSENSITIVE;
 *   otherwise                 -> PACK, switches 1, wait_s the break-even
 *     wait: a job that runs run_s inside one leaf runs run_s * (1 + loss)
 *     spread, so waiting w for a leaf finishes first while
 *     w < loss * run_s.  wait_s = floor(min(loss * run_s, max_wait_s)),
 *     at least 1.
 * run_s_override > 0 replaces p->run_s (the Lua module does the same with
 * the job's time limit).
 */
void lagom_policy_decide(const struct lagom_policy_params *p, unsigned nodes,
			 unsigned leaf_nodes,
			 const struct lagom_placement_cost *cost,
			 double run_s_override,
			 struct lagom_policy_decision *out);

/* ------------------------------------------------------------------ */
/* `lagom place`: the options for a job given the cluster's state now.  */
/* ------------------------------------------------------------------ */

/* One leaf switch of the partition. */
struct lagom_place_leaf {
	const char *name; /* borrowed */
	unsigned usable;  /* nodes of the partition not down/drained */
	unsigned idle;	  /* of those, free now */
};

enum lagom_place_kind {
	LAGOM_PLACE_PACK_NOW,	  /* a leaf has enough idle nodes */
	LAGOM_PLACE_WAIT_LEAF,	  /* a leaf has enough usable nodes */
	LAGOM_PLACE_SPREAD_NOW,	  /* enough idle nodes over several leaves */
	LAGOM_PLACE_SPREAD_LATER, /* enough usable nodes, not idle now */
	LAGOM_PLACE_KIND_COUNT
};

/* "pack-now" "wait-for-leaf" "spread-now" "spread-later". */
const char *lagom_place_kind_name(enum lagom_place_kind k);

struct lagom_place_option {
	enum lagom_place_kind kind;
	bool possible;	   /* the cluster's state allows it */
	double iter_s;	   /* predicted iteration time */
	int leaf;	   /* index of the leaf (PACK_NOW, WAIT_LEAF), or -1 */
	unsigned switches; /* --switches value to ask for (0: none) */
	unsigned wait_s;   /* --switches=N@wait_s (WAIT_LEAF) */
};

/*
 * Fill out[0..LAGOM_PLACE_KIND_COUNT) (one per kind, in enum order) for a
 * job of nodes nodes.  PACK_NOW picks the leaf with the fewest idle nodes
 * that still fit (best fit, as Slurm's tree plugin does); WAIT_LEAF the leaf
 * with the most idle nodes among those with enough usable ones.  wait_s of
 * WAIT_LEAF comes from decision (or max_wait_s when the decision is not
 * PACK).  *best: the kind to recommend: PACK_NOW if possible; else
 * WAIT_LEAF when the decision is PACK; else SPREAD_NOW if possible; else
 * the first possible; LAGOM_PLACE_KIND_COUNT when nothing is possible.
 */
int lagom_place_options(unsigned nodes, const struct lagom_place_leaf *leaves,
			size_t nleaves, const struct lagom_placement_cost *cost,
			const struct lagom_policy_decision *decision,
			unsigned max_wait_s, struct lagom_place_option *out,
			enum lagom_place_kind *best, struct lagom_error *err);

/* ------------------------------------------------------------------ */
/* Slurm's printed topology (scontrol show topology) as topology.conf.  */
/* ------------------------------------------------------------------ */

enum lagom_topo_kind {
	LAGOM_TOPO_TREE,  /* topology/tree: SwitchName= lines */
	LAGOM_TOPO_BLOCK, /* topology/block (23.11+): BlockName= lines */
};

/*
 * Turn the lines slurm_print_topo_info_msg() prints ("SwitchName=s Level=0
 * LinkSpeed=1 Nodes=n[1-2]", "SwitchName=t Level=1 ... Nodes=...
 * Switches=s,u", "BlockName=b1 BlockIndex=0 Nodes=n[1-4] ...") into
 * topology.conf text lagom_switch_tree_parse() reads: a switch with
 * Switches= keeps only those, a leaf its Nodes=, a block becomes a leaf
 * switch of its nodes (no spine: a job beyond one block crosses blocks).
 * Other keys are dropped.  *out is new (free()); -EINVAL for text with
 * neither kind of line or mixed kinds, -E2BIG over 16 MiB.
 */
int lagom_topo_print_to_conf(const char *printed, char **out,
			     enum lagom_topo_kind *kind);

#endif /* LAGOM_POLICY_POLICY_H */
