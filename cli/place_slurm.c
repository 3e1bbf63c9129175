/*
 * cli/place_slurm.c - `lagom place`'s view of the cluster through Slurm's
 * API (libslurm): the partition's nodes and their states, and the switch
 * tree as topology.conf text.  The only file of `lagom place` that calls
 * Slurm; cli/cmd_place.c and policy/ work on what it returns.
 *
 *   22.05 - 23.02  slurm_load_topo() fills topo_array (tree records).
 *   23.11 +        the records are plugin data (tree or block) that only
 *                  libslurmfull can unpack: the lines of `scontrol show
 *                  topology`, read back by lagom_topo_print_to_conf().
 *
 * What differs between releases is in compat/slurm_compat.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat/slurm_compat.h"

#include "cli/place_int.h"

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
/*
 * 23.11+: the records are the topology plugin's data, which libslurm.so
 * cannot unpack: the topology plugins need symbols only libslurmfull
 * exports (topo_conf on 24.11, xfree_ptr on 26.05), so slurm_load_topo()
 * fails (a crash on 24.11).  The lines come from `scontrol show topology`
 * (scontrol links libslurmfull), at most SCONTROL_MAX bytes and
 * SCONTROL_WAIT_MS.
 */
#define SCONTROL_MAX (16u << 20)
#define SCONTROL_WAIT_MS 30000

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* scontrol's output into *buf (owned, NUL-terminated); 0 or a message. */
static int scontrol_topology(char **buf)
{
	char *argv[] = { "scontrol", "show", "topology", NULL };
	posix_spawn_file_actions_t fa;
	size_t len = 0;
	struct timespec t0;
	int fds[2], status = 0, rc = 0;
	pid_t pid;

	*buf = malloc(SCONTROL_MAX + 1);
	if (!*buf || pipe2(fds, O_CLOEXEC) != 0) {
		free(*buf);
		return cli_fail(CLI_FAIL, "scontrol show topology: %s",
				strerror(errno));
	}
	unsetenv("SLURM_TOPO_LEN"); /* it would cut the printed lines */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	rc = posix_spawnp(&pid, "scontrol", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		free(*buf);
		return cli_fail(CLI_FAIL, "cannot run scontrol: %s",
				strerror(rc));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		long left = SCONTROL_WAIT_MS - ms_since(&t0);
		ssize_t got;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
			rc = ETIMEDOUT;
			break;
		}
		got = read(fds[0], *buf + len, SCONTROL_MAX - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = got < 0 ? errno : 0;
			break;
		}
		len += (size_t)got;
		if (len == SCONTROL_MAX) {
			rc = E2BIG;
			break;
		}
	}
	close(fds[0]);
	if (rc)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	(*buf)[len] = '\0';
	if (!rc && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rc = -1;
	if (rc) {
		free(*buf);
		*buf = NULL;
		if (rc < 0)
			return cli_fail(CLI_FAIL,
					"scontrol show topology failed");
		return cli_fail(CLI_FAIL, "scontrol show topology: %s",
				rc == ETIMEDOUT ? "no answer within 30 s"
				: rc == E2BIG	? "more than 16 MiB"
						: strerror(rc));
	}
	return 0;
}

static int topo_text(struct cli_place_view *v)
{
	char *buf = NULL;
	int rc = scontrol_topology(&buf);

	if (rc)
		return rc;
	/* no tree or block (topology/flat): no switch tree, said later */
	if (!strstr(buf, "SwitchName=") && !strstr(buf, "BlockName=")) {
		free(buf);
		v->topo_text = strdup("");
		return v->topo_text ? 0 : cli_fail(CLI_FAIL, "out of memory");
	}
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
