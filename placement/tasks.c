/*
 * placement/tasks.c - the strings Slurm gives a step, parsed: tasks per node,
 * GPUs per task, SLURM_TOPOLOGY_ADDR; and the communicator shape they
 * imply.  Pure string functions (no Slurm calls, no environment).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "placement/placement.h"
#include "placement/placement_int.h"

#define MAX_DIGITS 10

int lagom_parse_count(const char **p, uint64_t max, bool allow_zero,
		      uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	while (*s >= '0' && *s <= '9') {
		if (++digits > MAX_DIGITS)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s++ - '0');
	}
	if (digits == 0)
		return -EINVAL;
	if (v > max || (v == 0 && !allow_zero))
		return -ERANGE;
	*p = s;
	*out = v;
	return 0;
}

static int tpn_error(struct lagom_error *err, int rc, const char *s,
		     const char *at)
{
	return lagom_errprintf(err, rc == -ERANGE ? ERANGE : EINVAL,
			       "tasks per node '%.48s': %s at offset %zu", s,
			       rc == -ERANGE ? "count out of range"
					     : "expected N or N(xR)",
			       (size_t)(at - s));
}

/* One entry "N" or "N(xR)"; advances *p. */
static int tpn_entry(const char **p, uint64_t *tasks, uint64_t *repeat)
{
	int rc = lagom_parse_count(p, LAGOM_PLACEMENT_MAX_TASKS_PER_NODE, false,
				   tasks);

	*repeat = 1;
	if (rc)
		return rc;
	if (strncmp(*p, "(x", 2) != 0)
		return 0;
	*p += 2;
	rc = lagom_parse_count(p, LAGOM_PLACEMENT_MAX_NODES, false, repeat);
	if (rc)
		return rc;
	if (**p != ')')
		return -EINVAL;
	(*p)++;
	return 0;
}

static void tpn_add(struct lagom_tasks_per_node *t, uint64_t tasks,
		    uint64_t repeat)
{
	struct lagom_tpn_group *last = t->ngroups ? &t->groups[t->ngroups - 1]
						  : NULL;

	if (last && last->tasks == tasks) {
		last->nodes += (uint32_t)repeat;
	} else {
		t->groups[t->ngroups].tasks = (uint32_t)tasks;
		t->groups[t->ngroups++].nodes = (uint32_t)repeat;
	}
	t->nodes += (uint32_t)repeat;
	t->tasks += tasks * repeat;
	if (t->min_tasks == 0 || tasks < t->min_tasks)
		t->min_tasks = (uint32_t)tasks;
	if (tasks > t->max_tasks)
		t->max_tasks = (uint32_t)tasks;
}

static int tpn_parse_into(const char *s, struct lagom_tasks_per_node *t,
			  struct lagom_error *err)
{
	const char *p = s;

	for (;;) {
		uint64_t tasks, repeat;
		const char *at = p;
		int rc = tpn_entry(&p, &tasks, &repeat);

		if (rc)
			return tpn_error(err, rc, s, at);
		if (repeat > LAGOM_PLACEMENT_MAX_NODES - t->nodes)
			return lagom_errprintf(err, E2BIG,
					       "tasks per node '%.48s': more "
					       "than %d nodes",
					       s, LAGOM_PLACEMENT_MAX_NODES);
		tpn_add(t, tasks, repeat);
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return tpn_error(err, -EINVAL, s, p);
		p++;
	}
}

/* Groups needed at most: one per entry, and entries are >= 2 bytes apart. */
int lagom_tasks_per_node_parse(const char *s, struct lagom_tasks_per_node *out,
			       struct lagom_error *err)
{
	struct lagom_tasks_per_node t = { 0 };
	size_t len;
	int rc;

	if (!s || !*s)
		return lagom_errprintf(err, EINVAL, "tasks per node is empty");
	len = strnlen(s, LAGOM_PLACEMENT_MAX_INPUT + 1);
	if (len > LAGOM_PLACEMENT_MAX_INPUT)
		return lagom_errprintf(err, E2BIG,
				       "tasks per node longer than %u bytes",
				       LAGOM_PLACEMENT_MAX_INPUT);
	t.groups = calloc(len / 2 + 1, sizeof(*t.groups));
	if (!t.groups)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	rc = tpn_parse_into(s, &t, err);
	if (rc) {
		free(t.groups);
		return rc;
	}
	*out = t;
	return 0;
}

void lagom_tasks_per_node_release(struct lagom_tasks_per_node *tpn)
{
	if (!tpn)
		return;
	free(tpn->groups);
	memset(tpn, 0, sizeof(*tpn));
}

uint32_t lagom_tasks_per_node_at(const struct lagom_tasks_per_node *tpn,
				 uint32_t i)
{
	for (size_t g = 0; tpn && g < tpn->ngroups; g++) {
		if (i < tpn->groups[g].nodes)
			return tpn->groups[g].tasks;
		i -= tpn->groups[g].nodes;
	}
	return 0;
}

static bool uuid_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '/';
}

static int gpu_push(struct lagom_gpu_list *l, int index, const char *s,
		    struct lagom_error *err)
{
	if (l->count == LAGOM_PLACEMENT_MAX_GPUS)
		return lagom_errprintf(err, E2BIG,
				       "GPU list '%.48s': more than %d GPUs", s,
				       LAGOM_PLACEMENT_MAX_GPUS);
	for (unsigned i = 0; index >= 0 && i < l->count; i++)
		if (l->index[i] == index)
			return lagom_errprintf(err, EINVAL,
					       "GPU list '%.48s' names GPU %d "
					       "twice",
					       s, index);
	l->index[l->count++] = index;
	return 0;
}

/* "GPU-..." or "MIG-...": a device named by UUID, index unknown. */
static int gpu_uuid(const char **p, struct lagom_gpu_list *l, const char *s,
		    struct lagom_error *err)
{
	const char *q = *p;

	if (strncmp(q, "GPU-", 4) != 0 && strncmp(q, "MIG-", 4) != 0)
		return lagom_errprintf(err, EINVAL,
				       "GPU list '%.48s': bad entry at offset "
				       "%zu",
				       s, (size_t)(q - s));
	while (uuid_char(*q))
		q++;
	*p = q;
	return gpu_push(l, -1, s, err);
}

/* "N" or "A-B" with indices 0..1023. */
static int gpu_range(const char **p, struct lagom_gpu_list *l, const char *s,
		     struct lagom_error *err)
{
	uint64_t lo, hi;
	int rc = lagom_parse_count(p, 1023, true, &lo);

	hi = lo;
	if (rc == 0 && **p == '-') {
		(*p)++;
		rc = lagom_parse_count(p, 1023, true, &hi);
	}
	if (rc || hi < lo)
		return lagom_errprintf(err, EINVAL,
				       "GPU list '%.48s': bad index or range "
				       "at offset %zu",
				       s, (size_t)(*p - s));
	for (uint64_t i = lo; i <= hi; i++)
		if ((rc = gpu_push(l, (int)i, s, err)) != 0)
			return rc;
	return 0;
}

int lagom_gpu_list_parse(const char *s, struct lagom_gpu_list *out,
			 struct lagom_error *err)
{
	struct lagom_gpu_list l = { 0 };
	const char *p = s;
	int rc;

	if (!s)
		return lagom_errprintf(err, EINVAL, "no GPU list");
	if (strcmp(s, "NoDevFiles") == 0)
		return lagom_errprintf(err, ENODEV,
				       "GPUs allocated but Slurm knows no "
				       "device files (NoDevFiles)");
	while (*p) {
		rc = (*p >= '0' && *p <= '9') ? gpu_range(&p, &l, s, err)
					      : gpu_uuid(&p, &l, s, err);
		if (rc)
			return rc;
		if (*p == ',' && p[1] != '\0')
			p++;
		else if (*p != '\0')
			return lagom_errprintf(err, EINVAL,
					       "GPU list '%.48s': unexpected "
					       "'%c' at offset %zu",
					       s, *p, (size_t)(p - s));
	}
	*out = l;
	return 0;
}

/* The communicator shape of a step (method: the comm of struct lagom_comm). */
int lagom_step_shape(const struct lagom_tasks_per_node *tpn,
		     unsigned ranks_per_task, unsigned gpus_per_task,
		     struct lagom_step_shape *out, struct lagom_error *err)
{
	const uint64_t cap = UINT32_MAX / 2;
	uint64_t rpt = ranks_per_task ? ranks_per_task : 1;

	if (!tpn || tpn->nodes == 0)
		return lagom_errprintf(err, EINVAL, "step has no nodes");
	if (rpt > LAGOM_PLACEMENT_MAX_GPUS)
		return lagom_errprintf(
			err, EINVAL, "ranks per task %u above %d",
			ranks_per_task, LAGOM_PLACEMENT_MAX_GPUS);
	if (tpn->tasks > cap / rpt)
		return lagom_errprintf(err, E2BIG, "step has too many ranks");
	*out = (struct lagom_step_shape){
		.ranks = (unsigned)(tpn->tasks * rpt),
		.nodes = tpn->nodes,
		.ranks_per_node_min = (unsigned)(tpn->min_tasks * rpt),
		.ranks_per_node_max = (unsigned)(tpn->max_tasks * rpt),
		.uniform = tpn->min_tasks == tpn->max_tasks,
		.gpus_per_rank = (unsigned)(gpus_per_task / rpt),
	};
	return 0;
}

int lagom_step_comm(const struct lagom_step_shape *shape, enum lagom_hops hops,
		    struct lagom_comm *out, struct lagom_error *err)
{
	if (!shape || shape->nodes == 0)
		return lagom_errprintf(err, EINVAL, "step has no nodes");
	if (!shape->uniform)
		return lagom_errprintf(err, EINVAL,
				       "step has %u to %u ranks per node; the "
				       "model needs the same on every node",
				       shape->ranks_per_node_min,
				       shape->ranks_per_node_max);
	if (shape->nodes == 1)
		hops = LAGOM_HOPS_SAME_NODE;
	*out = (struct lagom_comm){
		.ranks = shape->ranks,
		.nodes = shape->nodes,
		.ranks_per_node = shape->ranks_per_node_max,
		.hops = hops,
	};
	return 0;
}

/* Split an address into parts; -EINVAL for an empty part. */
static int addr_parts(const char *addr, const char **parts, size_t *lens,
		      unsigned *n, struct lagom_error *err)
{
	const char *p = addr;

	*n = 0;
	for (;;) {
		size_t len = strcspn(p, ".");

		if (len == 0 || *n == LAGOM_SWITCH_MAX_LEVELS + 1)
			return lagom_errprintf(err, EINVAL,
					       "topology address '%.64s' is "
					       "malformed",
					       addr);
		parts[*n] = p;
		lens[(*n)++] = len;
		if (p[len] == '\0')
			return 0;
		p += len + 1;
	}
}

/* SLURM_TOPOLOGY_ADDR: hops from the shared prefix of two paths. */
int lagom_topology_addr_hops(const char *addr_a, const char *addr_b,
			     enum lagom_hops *cls, unsigned *switch_hops,
			     struct lagom_error *err)
{
	const char *pa[LAGOM_SWITCH_MAX_LEVELS + 1],
		*pb[LAGOM_SWITCH_MAX_LEVELS + 1];
	size_t la[LAGOM_SWITCH_MAX_LEVELS + 1], lb[LAGOM_SWITCH_MAX_LEVELS + 1];
	unsigned na, nb, shared = 0;
	int rc;

	if (!addr_a || !addr_b)
		return lagom_errprintf(err, EINVAL, "no topology address");
	rc = addr_parts(addr_a, pa, la, &na, err);
	if (rc == 0)
		rc = addr_parts(addr_b, pb, lb, &nb, err);
	if (rc)
		return rc;
	if (na == 1 || nb == 1)
		return lagom_errprintf(err, ENOENT,
				       "topology address '%.48s' has no switch "
				       "(no topology plugin)",
				       na == 1 ? addr_a : addr_b);
	if (na != nb)
		return lagom_errprintf(err, EINVAL,
				       "topology addresses '%.48s' and '%.48s' "
				       "differ in depth",
				       addr_a, addr_b);
	while (shared < na && la[shared] == lb[shared] &&
	       memcmp(pa[shared], pb[shared], la[shared]) == 0)
		shared++;
	if (shared == na) {
		*cls = LAGOM_HOPS_SAME_NODE;
		*switch_hops = 0;
	} else {
		unsigned up = na - 1 - shared; /* switch levels below the LCA */

		*cls = up == 0 ? LAGOM_HOPS_SAME_LEAF : LAGOM_HOPS_SPINE;
		*switch_hops = 2 * up + 1;
	}
	return 0;
}
