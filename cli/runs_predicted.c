/*
 * cli/runs_predicted.c - the predictions of a measured step, for `lagom
 * runs` (cli/runs_int.h).  The file is the user's (it sits in the user's
 * spool), so it is read like a record: no link, regular, owned by the
 * user, bounded, and every line must be exactly in the writer's spelling
 * (each line is printed back and compared).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/runs_int.h"
#include "measurement/record.h"
#include "measurement/predicted.h"

static int read_small(const char *path, long uid, char *buf, size_t cap,
		      size_t *len)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uid >= 0 && st.st_uid != (uid_t)uid) || st.st_size >= (off_t)cap) {
		close(fd);
		return -EINVAL;
	}
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0 || (size_t)n >= cap - 1)
		return -EINVAL;
	buf[n] = '\0';
	*len = (size_t)n;
	return 0;
}

static void apply(const struct lagom_measure_pred *p, struct agg *agg,
		  size_t n_agg)
{
	for (size_t i = 0; i < n_agg; i++) {
		const struct lagom_measure_pred_class *c =
			lagom_measure_pred_find(
				p, lagom_rec_plan_op(agg[i].k.op),
				lagom_rec_plan_bytes(agg[i].k.op,
						     agg[i].k.bytes,
						     agg[i].ranks),
				agg[i].ranks, agg[i].nodes);

		if (c)
			agg[i].predicted_us = (double)c->time_ns / 1e3;
	}
}

void cli_runs_predicted(const char *step_dir, long uid, const char *plan_id,
			struct agg *agg, size_t n_agg, char *arm,
			char *arm_plan)
{
	static char buf[LAGOM_MEASURE_PRED_MAX];
	static struct lagom_measure_pred p;
	struct lagom_error err = { 0 };
	char path[4200];
	size_t len = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", step_dir,
		 LAGOM_MEASURE_PRED_FILE);
	rc = read_small(path, uid, buf, sizeof(buf), &len);
	if (rc == -ENOENT)
		return;
	if (rc != 0) {
		cli_fail(CLI_FAIL,
			 "runs: refused %s: not a regular file of "
			 "the user's under %d bytes",
			 path, LAGOM_MEASURE_PRED_MAX);
		return;
	}
	if (lagom_measure_pred_parse(buf, len, &p, &err) != 0) {
		cli_fail(CLI_FAIL, "runs: refused %s: %s", path, err.text);
		return;
	}
	if (plan_id[0] && strcmp(p.plan, plan_id) != 0)
		return; /* another plan's predictions */
	memcpy(arm, p.arm, sizeof(p.arm));
	memcpy(arm_plan, p.plan, sizeof(p.plan));
	apply(&p, agg, n_agg);
}
