/*
 * placement/placement.h - where a step runs: its nodes, tasks and GPUs, the
 * communicator shape they imply, and the switch hops between its nodes.
 *
 * Built into libplacement.la.  Node lists and topology.conf hostlists are
 * expanded with Slurm's own hostlist functions (slurm_hostlist_create,
 * _count, _shift, _destroy): inside slurmstepd/srun the host process
 * provides them; programs and tests link -lslurm.  The other parsers here
 * are pure string functions.  Nothing here reads the environment: the
 * caller passes SLURM_STEP_NODELIST, SLURM_STEP_TASKS_PER_NODE,
 * CUDA_VISIBLE_DEVICES, ... in.
 *
 * Errors: 0 or a negative errno, with one line in err (NULL allowed).
 *   -EINVAL  malformed input (the message says what and where)
 *   -E2BIG   input over the caps below
 *   -ENOENT  a node that is not in the switch tree; a missing file
 *   -ENOMEM  out of memory
 * Constructors return NULL on failure (err says why).  On failure nothing is
 * written to out-parameters.  All functions are reentrant.
 */
#ifndef LAGOM_PLACEMENT_PLACEMENT_H
#define LAGOM_PLACEMENT_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "model/model.h" /* enum lagom_hops, struct lagom_comm */

#define LAGOM_PLACEMENT_MAX_NODES 100000
#define LAGOM_PLACEMENT_MAX_TASKS_PER_NODE 65536
#define LAGOM_PLACEMENT_MAX_GPUS 64	     /* GPUs visible to one task */
#define LAGOM_PLACEMENT_MAX_INPUT (1u << 20) /* bytes of any one string */
#define LAGOM_HOSTNAME_MAX 255

/* ------------------------------------------------------------------ */
/* Node lists (Slurm hostlist expressions: "gpu[001-004,010],login1").  */
/* ------------------------------------------------------------------ */

struct lagom_nodelist; /* opaque; owns its names */

/*
 * Expand expr.  Accepted: what slurm_hostlist_create() accepts, limited to
 * host names of letters, digits, '-', '_' and '.', brackets that do not
 * nest, ',' or white space between entries.  Errors: empty expansion,
 * more than LAGOM_PLACEMENT_MAX_NODES hosts, a host named twice, a name
 * longer than LAGOM_HOSTNAME_MAX.  Free with lagom_nodelist_destroy().
 */
struct lagom_nodelist *lagom_nodelist_create(const char *expr,
					     struct lagom_error *err);
void lagom_nodelist_destroy(struct lagom_nodelist *nl); /* NULL: no-op */
size_t lagom_nodelist_count(const struct lagom_nodelist *nl);
/* Name i in Slurm's order (borrowed, lives as long as nl); NULL if out of
 * range. */
const char *lagom_nodelist_name(const struct lagom_nodelist *nl, size_t i);
/* Position of name in nl, or -1. */
long lagom_nodelist_find(const struct lagom_nodelist *nl, const char *name);

/* ------------------------------------------------------------------ */
/* Tasks per node ("2(x3),1" as in SLURM_STEP_TASKS_PER_NODE).          */
/* ------------------------------------------------------------------ */

struct lagom_tpn_group {
	uint32_t tasks; /* tasks on each node of the group */
	uint32_t nodes; /* consecutive nodes with that many tasks */
};

/* Run-length form of a tasks-per-node string; owns groups. */
struct lagom_tasks_per_node {
	struct lagom_tpn_group *groups;
	size_t ngroups;
	uint32_t nodes;	    /* sum of groups[].nodes */
	uint64_t tasks;	    /* sum of tasks over all nodes */
	uint32_t min_tasks; /* fewest tasks on a node */
	uint32_t max_tasks; /* most tasks on a node */
};

/*
 * Parse "N[(xR)]" entries separated by ','.  N in 1..65536 (a node of a
 * step always runs a task), R in 1..100000, total nodes at most
 * LAGOM_PLACEMENT_MAX_NODES.  Fills *out; release with
 * lagom_tasks_per_node_release().
 */
int lagom_tasks_per_node_parse(const char *s, struct lagom_tasks_per_node *out,
			       struct lagom_error *err);
/* Frees out->groups and zeroes *out; NULL allowed. */
void lagom_tasks_per_node_release(struct lagom_tasks_per_node *tpn);
/* Tasks on node i (0-based), 0 when i is out of range. */
uint32_t lagom_tasks_per_node_at(const struct lagom_tasks_per_node *tpn,
				 uint32_t i);

/* ------------------------------------------------------------------ */
/* GPUs of a task (CUDA_VISIBLE_DEVICES, SLURM_STEP_GPUS).              */
/* ------------------------------------------------------------------ */

struct lagom_gpu_list {
	unsigned count;
	/* Device index, or -1 for an entry given by UUID ("GPU-...",
	 * "MIG-..."). */
	int index[LAGOM_PLACEMENT_MAX_GPUS];
};

/*
 * Parse a comma list of indices ("0,1,3"), ranges ("0-3") or UUIDs.  ""
 * is a valid list of no GPUs.  Indices 0..1023, no duplicates.  Slurm's
 * "NoDevFiles" gives -ENODEV (GPUs allocated, device files unknown).
 */
int lagom_gpu_list_parse(const char *s, struct lagom_gpu_list *out,
			 struct lagom_error *err);

/* ------------------------------------------------------------------ */
/* The communicator shape a step implies.                               */
/* ------------------------------------------------------------------ */

struct lagom_step_shape {
	unsigned ranks; /* tasks x ranks_per_task */
	unsigned nodes;
	unsigned ranks_per_node_min;
	unsigned ranks_per_node_max;
	bool uniform;		/* the same number of ranks on every node */
	unsigned gpus_per_rank; /* GPUs one rank sees (0: none / unknown) */
};

/*
 * ranks_per_task: 1 when srun starts the ranks; the GPUs per task when a
 * launcher such as torchrun starts one rank per GPU inside each task
 * (0 means 1).  gpus_per_task: the count from lagom_gpu_list_parse() for
 * one task.  -E2BIG when ranks would exceed UINT32_MAX / 2.
 */
int lagom_step_shape(const struct lagom_tasks_per_node *tpn,
		     unsigned ranks_per_task, unsigned gpus_per_task,
		     struct lagom_step_shape *out, struct lagom_error *err);

/* The model's communicator for the whole step; -EINVAL unless uniform. */
int lagom_step_comm(const struct lagom_step_shape *shape, enum lagom_hops hops,
		    struct lagom_comm *out, struct lagom_error *err);

/* ------------------------------------------------------------------ */
/* Switch tree (topology.conf of TopologyPlugin=topology/tree) or       */
/* blocks (topology/block, Slurm 23.11+).                               */
/* ------------------------------------------------------------------ */

#define LAGOM_SWITCH_MAX 65536
#define LAGOM_SWITCH_MAX_LEVELS 16
#define LAGOM_SWITCH_CONF_MAX_BYTES (16u << 20)
#define LAGOM_BLOCK_SIZES_MAX 16

struct lagom_switch_tree; /* opaque */

/*
 * Parse topology.conf text: lines "SwitchName=S Nodes=HOSTLIST" or
 * "SwitchName=S Switches=HOSTLIST", optional LinkSpeed=, '#' comments,
 * keys case-insensitive.  Errors name the line: unknown keys, a switch
 * with both or neither of Nodes/Switches, a switch defined twice, an
 * undefined child switch, a switch with two parents, a node under two
 * leaves, a cycle, more than LAGOM_SWITCH_MAX_LEVELS levels.
 *
 * Or topology/block: lines "BlockName=B Nodes=HOSTLIST" and at most one
 * line "BlockSizes=N[,N...]" (increasing node counts; the 23.11 form
 * "BlockLevels=" is accepted and ignored).  Each block is a leaf with no
 * switch above it; the fabric between blocks counts as one switch (hops
 * below).  Errors as above, and BlockName= and SwitchName= lines mixed,
 * a block without Nodes= or with Switches=, a BlockSizes= list that does
 * not increase or shares its line.
 */
struct lagom_switch_tree *lagom_switch_tree_parse(const char *text, size_t len,
						  struct lagom_error *err);
/* Read and parse the file at path. */
struct lagom_switch_tree *lagom_switch_tree_load(const char *path,
						 struct lagom_error *err);
void lagom_switch_tree_destroy(struct lagom_switch_tree *tree);
size_t lagom_switch_tree_nodes(const struct lagom_switch_tree *tree);
size_t lagom_switch_tree_switches(const struct lagom_switch_tree *tree);
/* Levels: 1 for leaves only, 2 for leaf + spine, ... */
unsigned lagom_switch_tree_levels(const struct lagom_switch_tree *tree);
/* Node i of the tree (0 .. nodes-1, sorted by name) and the name of its
 * leaf switch, both borrowed from tree; -ENOENT when i is out of range.
 * Either out-pointer may be NULL. */
int lagom_switch_tree_node(const struct lagom_switch_tree *tree, size_t i,
			   const char **node, const char **leaf);

/*
 * Distance between two nodes.  *cls: SAME_NODE (a == b), SAME_LEAF, or
 * SPINE (through any switch above the leaves).  *switch_hops: switches a
 * message crosses: 0 same node, 1 same leaf, 3 leaf-spine-leaf, 5 across
 * a 3-level tree's core; blocks: 1 inside one, 3 between two.  -ENOENT for a node not in the tree or two nodes
 * whose switches have no common ancestor (never for blocks).
 */
int lagom_switch_tree_hops(const struct lagom_switch_tree *tree, const char *a,
			   const char *b, enum lagom_hops *cls,
			   unsigned *switch_hops, struct lagom_error *err);

/*
 * The farthest pair of a step's n nodes (distinct names, in any order):
 * class (SAME_NODE for one node, SAME_LEAF, SPINE), switch hops and the
 * number of leaf switches the step spans.  Linear in the number of nodes.
 * Errors as lagom_switch_tree_hops(); -EINVAL for no tree or no nodes.
 */
int lagom_switch_tree_span(const struct lagom_switch_tree *tree,
			   const char *const *names, size_t n,
			   enum lagom_hops *cls, unsigned *switch_hops,
			   unsigned *leaves, struct lagom_error *err);

/* true for a topology/block file. */
bool lagom_switch_tree_is_block(const struct lagom_switch_tree *tree);
/* topology/block's base block size: the first BlockSizes= value, else
 * (as Slurm) the smallest block's node count; 0 for a tree. */
unsigned lagom_switch_tree_block_size(const struct lagom_switch_tree *tree);

/*
 * How a step's n nodes (distinct names, in any order) fill the leaves (the
 * blocks of topology/block) they sit under: *leaves touched, and the
 * fewest and the most of the n under one of them.  Linear in n plus the
 * switches.  Errors as lagom_switch_tree_span().
 */
int lagom_switch_tree_fill(const struct lagom_switch_tree *tree,
			   const char *const *names, size_t n, unsigned *leaves,
			   unsigned *fewest, unsigned *most,
			   struct lagom_error *err);

/*
 * The same classes from two SLURM_TOPOLOGY_ADDR values ("spine.leaf1.n1"):
 * equal strings are the same node, equal paths but the last part the same
 * leaf, otherwise the spine; hops as above from the shared prefix.  -EINVAL
 * for empty parts or addresses of different depth; -ENOENT for an address
 * without a switch (a bare node name: no topology plugin).
 */
int lagom_topology_addr_hops(const char *addr_a, const char *addr_b,
			     enum lagom_hops *cls, unsigned *switch_hops,
			     struct lagom_error *err);

#endif /* LAGOM_PLACEMENT_PLACEMENT_H */
