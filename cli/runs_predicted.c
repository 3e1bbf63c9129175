/*
 * cli/runs_predicted.c - the predictions of a measured step, for `lagom
 * runs` (cli/runs_int.h).  The file is the user's (it sits in the user's
 * spool), so it is read like a record (common/io.h's reader: no link,
 * regular, owned by the user, bounded), and every line must be exactly
 * in the writer's spelling (each line is printed back and compared).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/runs_int.h"
#include "measurement/record.h"
#include "measurement/predicted.h"

static void apply(const struct lagom_predicted *p, struct agg *agg,
		  size_t n_agg)
{
	for (size_t i = 0; i < n_agg; i++) {
		const struct lagom_predicted_class *c = lagom_predicted_find(
			p, lagom_rec_plan_op(agg[i].k.op),
			lagom_rec_plan_bytes(agg[i].k.op, agg[i].k.bytes,
					     agg[i].ranks),
			agg[i].ranks, agg[i].nodes);

		if (c)
			agg[i].predicted_us = (double)c->time_ns / 1e3;
	}
}

void cli_runs_predicted(int step_fd, const char *where, long uid,
			const char *plan_id, struct agg *agg, size_t n_agg,
			char *arm, char *arm_plan)
{
	static char buf[LAGOM_PREDICTED_MAX];
	static struct lagom_predicted p;
	struct lagom_error err = { 0 };
	int rc = lagom_predicted_read_at(step_fd, LAGOM_PREDICTED_FILE, uid,
					 buf, &p, &err);

	if (rc == -ENOENT)
		return;
	if (rc != 0) {
		cli_fail(CLI_FAIL, "runs: refused %s/%s: %s", where,
			 LAGOM_PREDICTED_FILE, err.text);
		return;
	}
	if (plan_id[0] && strcmp(p.plan, plan_id) != 0)
		return; /* another plan's predictions */
	memcpy(arm, p.arm, sizeof(p.arm));
	memcpy(arm_plan, p.plan, sizeof(p.plan));
	apply(&p, agg, n_agg);
}
