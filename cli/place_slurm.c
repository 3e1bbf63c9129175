/*
 * cli/place_slurm.c - `lagom place`'s view of the cluster through Slurm's
 * API (libslurm): the partition's nodes and their states, and the switch
 * tree as topology.conf text.  The only file of `lagom place` that calls
 * Slurm; cli/cmd_place.c and policy/ work on what it returns.
 *
 *   22.05 - 23.02  slurm_load_topo() fills topo_array (tree records).
 *   23.11 +        the records are plugin data (tree or block): printed
 *                  with slurm_print_topo_info_msg() and read back by
 *                  lagom_topo_print_to_conf().
 *
 * What differs between releases is in compat/slurm_compat.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/slurm_compat.h"

#include "cli/cli_place.h"

static int slurm_fail(const char *what)
{
	return cli_fail(CLI_FAIL, "%s: %s", what, lagom_slurm_error_text());
}

/* libslurm's API, ready: a SLURM_CONF that cannot be read is refused at
 * once (slurm_init() of 24.05 and newer would retry it for a minute). */
static int api_init(void)
{
	const char *conf = NULL;
	int rc = lagom_slurm_api_init(&conf);

	if (rc < 0)
		return cli_fail(CLI_FAIL, "cannot read SLURM_CONF=%s: %s", conf,
				strerror(-rc));
	return 0;
}

#if !LAGOM_SLURM_TOPO_PRINTED
static int topo_text(struct cli_place_view *v)
{
	topo_info_response_msg_t *msg = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (slurm_load_topo(&msg) != SLURM_SUCCESS)
		return slurm_fail("slurm_load_topo");
	f = open_memstream(&buf, &len);
	if (!f) {
		slurm_free_topo_info_msg(msg);
		return cli_fail(CLI_FAIL, "out of memory");
	}
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const topo_info_t *t = &msg->topo_array[i];

		if (t->level == 0 && t->nodes && t->nodes[0])
			fprintf(f, "SwitchName=%s Nodes=%s\n", t->name,
				t->nodes);
		else if (t->switches && t->switches[0])
			fprintf(f, "SwitchName=%s Switches=%s\n", t->name,
				t->switches);
	}
	fclose(f);
	slurm_free_topo_info_msg(msg);
	v->topo_text = buf;
	v->topo_kind = LAGOM_TOPO_TREE;
	return buf ? 0 : cli_fail(CLI_FAIL, "out of memory");
}
#else
static int topo_text(struct cli_place_view *v)
{
	topo_info_response_msg_t *msg = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	rc = lagom_slurm_load_topo(&msg);
	if (rc != SLURM_SUCCESS)
		return slurm_fail("slurm_load_topo");
	f = open_memstream(&buf, &len);
	if (!f) {
		slurm_free_topo_info_msg(msg);
		return cli_fail(CLI_FAIL, "out of memory");
	}
	unsetenv("SLURM_TOPO_LEN"); /* it would cut the printed lines */
	lagom_slurm_print_topo(f, msg);
	fclose(f);
	slurm_free_topo_info_msg(msg);
	if (!buf)
		return cli_fail(CLI_FAIL, "out of memory");
	rc = lagom_topo_print_to_conf(buf, &v->topo_text, &v->topo_kind);
	free(buf);
	return rc ? cli_fail(CLI_FAIL, "cannot read Slurm's topology") : 0;
}
#endif

/* Usable: up and not drained or failing; idle: free of any job now. */
static void node_state(const node_info_t *n, bool *usable, bool *idle)
{
	uint32_t base = n->node_state & NODE_STATE_BASE;
	uint32_t flags = n->node_state & NODE_STATE_FLAGS;

	*usable = (base == NODE_STATE_IDLE || base == NODE_STATE_ALLOCATED ||
		   base == NODE_STATE_MIXED) &&
		  !(flags & (NODE_STATE_DRAIN | NODE_STATE_FAIL |
			     NODE_STATE_NO_RESPOND));
	*idle = *usable && base == NODE_STATE_IDLE &&
		!(flags & (NODE_STATE_COMPLETING | NODE_STATE_POWERED_DOWN));
}

static int partition_nodes(const char *name, struct cli_place_view *v)
{
	partition_info_msg_t *msg = NULL;
	int rc = -1;

	if (slurm_load_partitions((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS)
		return slurm_fail("slurm_load_partitions");
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const partition_info_t *p = &msg->partition_array[i];

		if (name ? strcmp(p->name, name) != 0
			 : !(p->flags & PART_FLAG_DEFAULT))
			continue;
		v->partition = strdup(p->name);
		v->part_nodes = strdup(p->nodes ? p->nodes : "");
		rc = v->partition && v->part_nodes ? 0 : -ENOMEM;
		break;
	}
	slurm_free_partition_info_msg(msg);
	if (rc == -ENOMEM)
		return cli_fail(CLI_FAIL, "out of memory");
	if (rc)
		return cli_fail(CLI_USAGE, "%s%s%s",
				name ? "no partition '"
				     : "no default partition",
				name ? name : "", name ? "'" : "");
	return 0;
}

static int node_states(struct cli_place_view *v)
{
	node_info_msg_t *msg = NULL;

	if (slurm_load_node((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS)
		return slurm_fail("slurm_load_node");
	v->nodes = calloc(msg->record_count ? msg->record_count : 1,
			  sizeof(*v->nodes));
	if (!v->nodes) {
		slurm_free_node_info_msg(msg);
		return cli_fail(CLI_FAIL, "out of memory");
	}
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const node_info_t *n = &msg->node_array[i];
		struct cli_place_node *d = &v->nodes[v->count];

		if (!n->name)
			continue;
		d->name = strdup(n->name);
		if (!d->name)
			break;
		node_state(n, &d->usable, &d->idle);
		v->count++;
	}
	slurm_free_node_info_msg(msg);
	return 0;
}

int cli_place_view_load(const char *partition, struct cli_place_view *v)
{
	int rc;

	*v = (struct cli_place_view){ 0 };
	if ((rc = api_init()))
		return rc;
	if ((rc = partition_nodes(partition, v)) || (rc = node_states(v)) ||
	    (rc = topo_text(v)))
		cli_place_view_fini(v);
	return rc;
}

void cli_place_view_fini(struct cli_place_view *v)
{
	for (size_t i = 0; v->nodes && i < v->count; i++)
		free(v->nodes[i].name);
	free(v->nodes);
	free(v->partition);
	free(v->part_nodes);
	free(v->topo_text);
	*v = (struct cli_place_view){ 0 };
	lagom_slurm_api_fini();
}
