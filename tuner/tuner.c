/*
 * tuner/tuner.c - libnccl-tuner-lagom.so: applies lagom's plan per collective
 * inside stock NCCL through the tuner-plugin ABI (v2..v6, see
 * tuner/nccl_tuner_abi.h).
 *
 * Method, part "apply": the plan (doc/plan-format.md) names, per collective
 * class and communicator shape, a channel count (CTAs, hence SMs taken from
 * compute), an algorithm/protocol and a chunk size.  NCCL asks the tuner per
 * call; the tuner answers from the plan and otherwise leaves NCCL alone.
 *
 * Fail open: init never fails because of the plan; getCollInfo always
 * returns success; one log line per communicator, through NCCL's logger.
 * No globals: all state hangs off the per-communicator context.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "tuner/tuner_int.h"

#define LOG_LINE_MAX 320

/* Scratch of one init: the raw text and the parsed plan (about 80 KiB). */
struct plan_work {
	char text[LAGOM_PLAN_MAX_BYTES + 1];
	struct lagom_plan_wire plan;
};

__attribute__((format(printf, 3, 4))) static void tuner_log(
	lagom_nccl_logger_t log, lagom_nccl_log_level_t level, const char *fmt,
	...)
{
	char line[LOG_LINE_MAX];
	va_list ap;

	if (!log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log(level, LAGOM_NCCL_SUBSYS_INIT | LAGOM_NCCL_SUBSYS_TUNING, __FILE__,
	    __LINE__, "lagom tuner: %s", line);
}

/* Read at most cap bytes of a regular file; *len > cap - 1 means too big. */
static int read_plan_file(const char *path, char *buf, size_t cap, size_t *len,
			  struct lagom_error *err)
{
	struct lagom_read_rule rule = { .max_bytes = cap - 1, .follow = true };
	int rc;

	if (path[0] != '/')
		return lagom_errprintf(err, EINVAL,
				       "LAGOM_PLAN=@%.64s: not absolute", path);
	rc = lagom_read_file_at(AT_FDCWD, path, &rule, buf, len, NULL, err);
	if (rc == -EFBIG) {
		*len = cap; /* too big: the caller says so */
		return 0;
	}
	return rc ? lagom_error_prefix(err, "LAGOM_PLAN=@%.128s", path) : 0;
}

/* Fetch the plan text from LAGOM_PLAN (inline text or "@/path"). */
static int load_plan_text(struct plan_work *w, size_t *len,
			  struct lagom_error *err)
{
	const char *env = getenv("LAGOM_PLAN");
	size_t n;

	if (!env || !env[0])
		return lagom_errprintf(err, ENOENT, "LAGOM_PLAN is not set");
	if (env[0] == '@')
		return read_plan_file(env + 1, w->text, sizeof(w->text), len,
				      err);
	n = strnlen(env, sizeof(w->text));
	memcpy(w->text, env, n);
	*len = n;
	return 0;
}

/* Load, parse and check the plan against this lagom and this job. */
static int plan_acquire(struct plan_work *w, struct lagom_error *err)
{
	const char *slurm_job = getenv("SLURM_JOB_ID");
	uint64_t job;
	size_t len = 0;
	int rc;

	rc = load_plan_text(w, &len, err);
	if (rc < 0)
		return rc;
	rc = lagom_plan_wire_decode(w->text, len, &w->plan, err);
	if (rc < 0)
		return rc;
	if (strcmp(w->plan.lagom_version, PACKAGE_VERSION) != 0)
		return lagom_errprintf(
			err, EINVAL,
			"plan written by lagom %s, this is lagom %s",
			w->plan.lagom_version, PACKAGE_VERSION);
	if (w->plan.job_id != 0 && slurm_job &&
	    (lagom_plan_parse_u64(slurm_job, strlen(slurm_job), &job) < 0 ||
	     job != w->plan.job_id))
		return lagom_errprintf(
			err, EINVAL,
			"plan is for job %llu, SLURM_JOB_ID is %.24s",
			(unsigned long long)w->plan.job_id, slurm_job);
	return 0;
}

static size_t count_shape(const struct lagom_plan_wire *plan, uint64_t n_ranks,
			  uint64_t n_nodes)
{
	size_t i, n = 0;

	for (i = 0; i < plan->ncolls; i++)
		if (plan->colls[i].ranks == n_ranks &&
		    plan->colls[i].nodes == n_nodes)
			n++;
	return n;
}

/* Keep the n entries of this communicator's shape (n > 0); NULL on ENOMEM. */
static struct lagom_tuner *tuner_create(const struct lagom_plan_wire *plan,
					size_t n, uint64_t n_ranks,
					uint64_t n_nodes)
{
	struct lagom_tuner *t;
	size_t i;

	t = malloc(sizeof(*t) + n * sizeof(t->colls[0]));
	if (!t)
		return NULL;
	t->n_ranks = n_ranks;
	t->n_nodes = n_nodes;
	t->ncolls = 0;
	for (i = 0; i < plan->ncolls; i++)
		if (plan->colls[i].ranks == n_ranks &&
		    plan->colls[i].nodes == n_nodes)
			t->colls[t->ncolls++] = plan->colls[i];
	return t;
}

static void plan_report(lagom_nccl_logger_t log,
			const struct lagom_plan_wire *plan,
			const struct lagom_tuner *t, uint64_t n_ranks,
			uint64_t n_nodes)
{
	if (t)
		tuner_log(log, LAGOM_NCCL_LOG_INFO,
			  "plan %016llx applies %zu entries to this "
			  "communicator (ranks=%llu nodes=%llu; env ctas=%u-%u "
			  "buffsize=%llu nthreads=%u ctapolicy=%s)",
			  (unsigned long long)plan->plan_id, t->ncolls,
			  (unsigned long long)n_ranks,
			  (unsigned long long)n_nodes, plan->env.min_ctas,
			  plan->env.max_ctas,
			  (unsigned long long)plan->env.buffsize_bytes,
			  plan->env.nthreads,
			  lagom_cta_policy_names[plan->env.cta_policy]);
	else
		tuner_log(log, LAGOM_NCCL_LOG_INFO,
			  "plan %016llx has no entry for ranks=%llu "
			  "nodes=%llu; leaving NCCL's choices alone",
			  (unsigned long long)plan->plan_id,
			  (unsigned long long)n_ranks,
			  (unsigned long long)n_nodes);
}

lagom_nccl_result_t tuner_init(void **context, size_t n_ranks, size_t n_nodes,
			       lagom_nccl_logger_t log)
{
	struct lagom_error err = { 0 };
	struct plan_work *w;
	struct lagom_tuner *t = NULL;
	size_t n;

	if (!context)
		return LAGOM_NCCL_SUCCESS;
	*context = NULL;
	w = malloc(sizeof(*w));
	if (!w) {
		tuner_log(log, LAGOM_NCCL_LOG_WARN,
			  "out of memory; leaving NCCL's choices alone");
		return LAGOM_NCCL_SUCCESS;
	}
	if (plan_acquire(w, &err) < 0) {
		tuner_log(log, LAGOM_NCCL_LOG_WARN,
			  "%s; leaving NCCL's choices alone", err.text);
	} else if (n_ranks > w->plan.ranks || n_nodes > w->plan.nodes) {
		tuner_log(log, LAGOM_NCCL_LOG_WARN,
			  "communicator ranks=%zu nodes=%zu exceeds the plan's "
			  "ranks=%llu nodes=%llu; leaving NCCL's choices alone",
			  n_ranks, n_nodes, (unsigned long long)w->plan.ranks,
			  (unsigned long long)w->plan.nodes);
	} else if ((n = count_shape(&w->plan, n_ranks, n_nodes)) == 0) {
		plan_report(log, &w->plan, NULL, n_ranks, n_nodes);
	} else {
		t = tuner_create(&w->plan, n, n_ranks, n_nodes);
		if (t)
			plan_report(log, &w->plan, t, n_ranks, n_nodes);
		else
			tuner_log(log, LAGOM_NCCL_LOG_WARN,
				  "out of memory; leaving NCCL's choices "
				  "alone");
	}
	free(w);
	*context = t;
	return LAGOM_NCCL_SUCCESS;
}

const struct lagom_plan_wire_coll *tuner_lookup(const struct lagom_tuner *t,
						int coll_type, size_t n_bytes)
{
	if (!t)
		return NULL;
	return lagom_plan_wire_find(t->colls, t->ncolls, coll_type, n_bytes,
				    t->n_ranks, t->n_nodes);
}

void tuner_free(struct lagom_tuner *t)
{
	free(t);
}
