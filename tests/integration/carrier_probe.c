/*
 * tests/integration/carrier_probe.c - a SPANK plugin for the many-node test
 * (tests/integration/many_nodes.sh): listed before lagom in plugstack.conf,
 * it logs, in each slurmstepd's user_init (before lagom's, which takes the
 * carrier out of the step's environment), the size and a hash of the plan
 * carrier that node received:
 *
 *	lagom-probe: job JOB.STEP node NODE_ID carrier LEN bytes fnv HASH
 *
 * so the test sees that every node got the same bytes and how many.  It
 * never fails a step.
 */
#include <stdint.h>
#include <stdlib.h>

#include <slurm/spank.h>

SPANK_PLUGIN(lagom_probe, 1)

#define PROBE_VAR "SLURM_LAGOM_STEP_PLAN"
#define PROBE_MAX (1024 * 1024)

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	char *buf;
	uint32_t job = 0, step = 0, node = 0, hash = 2166136261u;
	size_t len = 0;

	(void)ac;
	(void)av;
	if (!spank_remote(sp))
		return 0;
	buf = malloc(PROBE_MAX);
	if (!buf)
		return 0;
	spank_get_item(sp, S_JOB_ID, &job);
	spank_get_item(sp, S_JOB_STEPID, &step);
	spank_get_item(sp, S_JOB_NODEID, &node);
	if (spank_getenv(sp, PROBE_VAR, buf, PROBE_MAX) != ESPANK_SUCCESS)
		buf[0] = '\0';
	for (; buf[len]; len++)
		hash = (hash ^ (unsigned char)buf[len]) * 16777619u;
	slurm_info("lagom-probe: job %u.%u node %u carrier %zu bytes fnv %08x",
		   (unsigned)job, (unsigned)step, (unsigned)node, len,
		   (unsigned)hash);
	free(buf);
	return 0;
}
