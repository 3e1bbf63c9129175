/*
 * tests/spank/stub.c - the fake SPANK host (see stub.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "compat/slurm_compat.h"

#include "spank/step.h"
#include "tests/spank/stub.h"

struct stub stub;

/* A failed libslurm call: errno (24.11 and newer), slurm_get_errno()
 * before. */
static void stub_fail(int err)
{
	errno = err;
}
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;

void stub_open_gate(void)
{
	pthread_mutex_lock(&gate_mu);
	stub.load_gate = false;
	stub.update_gate = false;
	stub.steps_gate = false;
	pthread_cond_broadcast(&gate_cv);
	pthread_mutex_unlock(&gate_mu);
}

static void *open_later(void *arg)
{
	usleep((useconds_t)(uintptr_t)arg * 1000);
	stub_open_gate();
	return NULL;
}

void stub_open_gate_later(unsigned delay_ms)
{
	pthread_t t;

	pthread_create(&t, NULL, open_later, (void *)(uintptr_t)delay_ms);
	pthread_detach(t);
}

static void wait_gate(bool *gate)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	pthread_mutex_lock(&gate_mu);
	while (*gate && !stub.gate_timed_out)
		if (pthread_cond_timedwait(&gate_cv, &gate_mu, &deadline) ==
		    ETIMEDOUT)
			stub.gate_timed_out = true;
	pthread_mutex_unlock(&gate_mu);
}

void stub_reset(spank_context_t ctx)
{
	for (int i = 0; i < STUB_MAX; i++) {
		free(stub.env[i]);
		free(stub.log[i]);
	}
	memset(&stub, 0, sizeof(stub));
	stub.ctx = ctx;
	stub.job_id = 42;
	stub.nnodes = 3;
	stub.ntasks = 6;
	stub.uid = 1000;
	stub.gid = 1000;
	stub.step_nodes = "n1,n2,n3";
	stub.tres_per_node = "gres:gpu:4";
}

static int env_find(const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < STUB_MAX; i++)
		if (stub.env[i] && strncmp(stub.env[i], name, n) == 0 &&
		    stub.env[i][n] == '=')
			return i;
	return -1;
}

void stub_setenv(const char *name, const char *value)
{
	int i = env_find(name);
	char *kv = malloc(strlen(name) + strlen(value) + 2);

	sprintf(kv, "%s=%s", name, value);
	if (i < 0)
		for (i = 0; stub.env[i]; i++)
			;
	free(stub.env[i]);
	stub.env[i] = kv;
}

const char *stub_getenv(const char *name)
{
	int i = env_find(name);

	return i < 0 ? NULL : strchr(stub.env[i], '=') + 1;
}

int stub_log_count(const char *needle)
{
	int n = 0;

	for (int i = 0; i < stub.n_log; i++)
		n += strstr(stub.log[i], needle) != NULL;
	return n;
}

static void add_log(const char *kind, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static void add_log(const char *kind, const char *fmt, va_list ap)
{
	char line[STUB_LINE];
	int n = snprintf(line, sizeof(line), "%s: ", kind);

	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	if (stub.n_log < STUB_MAX)
		stub.log[stub.n_log++] = strdup(line);
}

#define LOGGER(fn, kind)                \
	void fn(const char *fmt, ...)   \
	{                               \
		va_list ap;             \
		va_start(ap, fmt);      \
		add_log(kind, fmt, ap); \
		va_end(ap);             \
	}
LOGGER(slurm_info, "info")
LOGGER(slurm_error, "error")
LOGGER(slurm_verbose, "verbose")
LOGGER(slurm_debug, "debug")
LOGGER(slurm_spank_log, "spank")

spank_context_t spank_context(void)
{
	return stub.ctx;
}

const char *spank_strerror(spank_err_t err)
{
	return err == ESPANK_SUCCESS ? "Success" : "stub error";
}

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	if (stub.register_fails || !opt->usage || stub.n_opts == STUB_MAX)
		return ESPANK_BAD_ARG;
	stub.opts[stub.n_opts++] = *opt;
	return ESPANK_SUCCESS;
}

/* An option srun took: the stub environment's entry "--NAME" (a name no
 * variable has), found by name whichever plugin registered it, as
 * Slurm's option list does. */
spank_err_t spank_option_getopt(spank_t sp, struct spank_option *opt,
				char **value)
{
	char key[128];
	const char *v;

	if (stub.ctx != S_CTX_REMOTE && stub.ctx != S_CTX_LOCAL)
		return ESPANK_NOT_AVAIL;
	snprintf(key, sizeof(key), "--%s", opt->name);
	v = stub_getenv(key);
	if (!v)
		return ESPANK_ERROR;
	if (value)
		*value = (char *)v;
	return ESPANK_SUCCESS;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	va_list ap;
	spank_err_t rc = ESPANK_SUCCESS;

	if (stub.ctx != S_CTX_REMOTE && stub.ctx != S_CTX_LOCAL)
		return ESPANK_NOT_AVAIL;
	if (stub.ctx == S_CTX_LOCAL && item == S_JOB_NODEID)
		return ESPANK_NOT_REMOTE;
	va_start(ap, item);
	switch (item) {
	case S_JOB_ID:
		*va_arg(ap, uint32_t *) = stub.job_id;
		break;
	case S_JOB_STEPID:
		*va_arg(ap, uint32_t *) = stub.step_id;
		break;
	case S_JOB_NODEID:
		*va_arg(ap, uint32_t *) = stub.node_id;
		break;
	case S_JOB_NNODES:
		*va_arg(ap, uint32_t *) = stub.nnodes;
		break;
	case S_JOB_TOTAL_TASK_COUNT:
		*va_arg(ap, uint32_t *) = stub.ntasks;
		break;
	case S_JOB_UID:
		*va_arg(ap, uid_t *) = stub.uid;
		break;
	case S_JOB_GID:
		*va_arg(ap, gid_t *) = stub.gid;
		break;
	case S_JOB_ARGV:
		*va_arg(ap, int *) = 0; /* srun's argv is the program's */
		*va_arg(ap, char ***) = NULL;
		break;
	default:
		rc = ESPANK_BAD_ARG;
	}
	va_end(ap);
	return rc;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	const char *v = stub_getenv(var);

	if (stub.ctx != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	if (!v)
		return ESPANK_ENV_NOEXIST;
	if ((int)strlen(v) >= len)
		return ESPANK_NOSPACE;
	strcpy(buf, v);
	return ESPANK_SUCCESS;
}

spank_err_t spank_setenv(spank_t sp, const char *var, const char *val,
			 int overwrite)
{
	if (stub.ctx != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	if (stub_getenv(var) && !overwrite)
		return ESPANK_ENV_EXISTS;
	stub_setenv(var, val);
	stub.n_setenv++;
	return ESPANK_SUCCESS;
}

spank_err_t spank_unsetenv(spank_t sp, const char *var)
{
	int i = env_find(var);

	if (stub.ctx != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	if (i >= 0) {
		free(stub.env[i]);
		stub.env[i] = NULL;
	}
	return ESPANK_SUCCESS;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

#if LAGOM_SLURM_STEP_ID_API
int slurm_get_job_steps(slurm_step_id_t *id,
			job_step_info_response_msg_t **resp,
			uint16_t show_flags)
{
	uint32_t job_id = id ? id->job_id : NO_VAL;
	uint32_t step_id = id ? id->step_id : NO_VAL;
#else
int slurm_get_job_steps(time_t update_time, uint32_t job_id, uint32_t step_id,
			job_step_info_response_msg_t **resp,
			uint16_t show_flags)
{
#endif
	job_step_info_response_msg_t *msg;
	unsigned n = stub.step_records ? stub.step_records : 1;

	stub.step_calls++;
	stub.step_flags = show_flags;
	wait_gate(&stub.steps_gate);
	if (stub.steps_fail || job_id != stub.job_id ||
	    step_id != stub.step_id) {
		stub_fail(ESLURM_INVALID_JOB_ID);
		__atomic_add_fetch(&stub.steps_returned, 1, __ATOMIC_SEQ_CST);
		return -1;
	}
	msg = calloc(1, sizeof(*msg));
	msg->job_step_count = n;
	msg->job_steps = calloc(n, sizeof(*msg->job_steps));
	for (unsigned i = 0; i < n; i++) {
		job_step_info_t *s = &msg->job_steps[i];

		s->step_id.job_id = job_id;
		s->step_id.step_id = step_id;
		s->step_id.step_het_comp = stub.step_het_comp
						   ? stub.step_het_comp
						   : NO_VAL;
		s->nodes = dup_or_null(stub.step_nodes);
		s->tres_per_node = dup_or_null(stub.tres_per_node);
		s->tres_per_task = dup_or_null(stub.tres_per_task);
		s->tres_per_step = dup_or_null(stub.tres_per_step);
	}
	*resp = msg;
	/* the last access to stub */
	__atomic_add_fetch(&stub.steps_returned, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void slurm_free_job_step_info_response_msg(job_step_info_response_msg_t *msg)
{
	if (!msg)
		return;
	for (unsigned i = 0; i < msg->job_step_count; i++) {
		free(msg->job_steps[i].nodes);
		free(msg->job_steps[i].tres_per_node);
		free(msg->job_steps[i].tres_per_task);
		free(msg->job_steps[i].tres_per_step);
	}
	free(msg->job_steps);
	free(msg);
}

/* Hostlists: comma-separated names only (no brackets). */
struct hostlist {
	char *names;
	char *next;
};

lagom_hostlist_t slurm_hostlist_create(const char *list)
{
	struct hostlist *hl = calloc(1, sizeof(*hl));

	hl->names = strdup(list);
	hl->next = hl->names;
	return hl;
}

int slurm_hostlist_count(lagom_hostlist_t hl)
{
	int n = *hl->names ? 1 : 0;

	for (const char *c = hl->names; *c; c++)
		n += *c == ',';
	return n;
}

char *slurm_hostlist_shift(lagom_hostlist_t hl)
{
	char *comma;
	char *name;

	if (!hl->next || !*hl->next)
		return NULL;
	comma = strchr(hl->next, ',');
	name = comma ? strndup(hl->next, (size_t)(comma - hl->next))
		     : strdup(hl->next);
	hl->next = comma ? comma + 1 : NULL;
	return name;
}

void slurm_hostlist_destroy(lagom_hostlist_t hl)
{
	free(hl->names);
	free(hl);
}

#if LAGOM_SLURM_HAS_GET_ERRNO
int slurm_get_errno(void)
{
	return errno;
}
#endif

char *slurm_strerror(int errnum)
{
	return "stub slurm error";
}

#if LAGOM_SLURM_LOAD_JOB_STEP_ID
int slurm_load_job(job_info_msg_t **resp, slurm_step_id_t id, uint16_t flags)
{
	uint32_t job_id = id.job_id;
#else
int slurm_load_job(job_info_msg_t **resp, uint32_t job_id, uint16_t flags)
{
#endif
	job_info_msg_t *msg;

	wait_gate(&stub.load_gate);
	__atomic_store_n(&stub.load_flags, flags, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&stub.loads, 1, __ATOMIC_SEQ_CST);
	if (stub.load_fails || job_id != stub.job_id) {
		stub_fail(ESLURM_INVALID_JOB_ID);
		return -1;
	}
	msg = calloc(1, sizeof(*msg));
	msg->record_count = 1;
	msg->job_array = calloc(1, sizeof(*msg->job_array));
	msg->job_array[0].comment = stub.comment[0] ? strdup(stub.comment)
						    : NULL;
	msg->job_array[0].admin_comment = stub.admin_comment[0]
						  ? strdup(stub.admin_comment)
						  : NULL;
	*resp = msg;
	return 0;
}

void slurm_free_job_info_msg(job_info_msg_t *msg)
{
	if (!msg)
		return;
	free(msg->job_array[0].comment);
	free(msg->job_array[0].admin_comment);
	free(msg->job_array);
	free(msg);
}

void slurm_init_job_desc_msg(job_desc_msg_t *desc)
{
	memset(desc, 0, sizeof(*desc));
	lagom_job_desc_set_job(desc, NO_VAL);
}

static uint32_t desc_job(const job_desc_msg_t *desc)
{
#if LAGOM_SLURM_STEP_ID_API
	return desc->step_id.job_id;
#else
	return desc->job_id;
#endif
}

int slurm_update_job(job_desc_msg_t *desc)
{
	wait_gate(&stub.update_gate);
	if (desc_job(desc) != stub.job_id ||
	    strlen(desc->comment ? desc->comment : "") > 1024 ||
	    strlen(desc->admin_comment ? desc->admin_comment : "") > 1024) {
		stub_fail(ESLURM_PATHNAME_TOO_LONG);
		return -1;
	}
	if (desc->comment)
		snprintf(stub.comment, sizeof(stub.comment), "%s",
			 desc->comment);
	if (desc->admin_comment)
		snprintf(stub.admin_comment, sizeof(stub.admin_comment), "%s",
			 desc->admin_comment);
	__atomic_add_fetch(&stub.updates, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* Planning from measurements: the stub never learns anything. */
int lagom_srun_plan_learned(const struct lagom_config *cfg,
			    const struct lagom_step *step, const char *workload,
			    const struct lagom_learned *learned,
			    struct lagom_planner_result **out,
			    struct lagom_error *err)
{
	return lagom_srun_plan(cfg, step, workload, out, err);
}

/* The planner adapter: a fixed three-variable plan unless plan_rc < 0. */
int lagom_srun_plan(const struct lagom_config *cfg,
		    const struct lagom_step *step, const char *workload,
		    struct lagom_planner_result **out, struct lagom_error *err)
{
	static const char *const vars[][2] = {
		{ "NCCL_MAX_CTAS", "8" },
		{ "NCCL_ALGO", "ring" },
		{ "LAGOM_PLAN_ID", "0123456789abcdef" },
	};
	struct lagom_planner_result *res;

	stub.plan_calls++;
	snprintf(stub.plan_workload, sizeof(stub.plan_workload), "%s",
		 workload ? workload : "");
	snprintf(stub.plan_cwd, sizeof(stub.plan_cwd), "%s", step->cwd);
	stub.plan_ranks = step->ranks_per_node;
	stub.plan_gpus = step->gpus_per_node;
	stub.plan_registered = step->registered_buffers;
	stub.plan_nodes = step->node_count;
	if (stub.plan_rc < 0)
		return lagom_errprintf(err, -stub.plan_rc,
				       "stub planner says no");
	res = calloc(1, sizeof(*res));
	res->nodes = (unsigned)step->node_count;
	res->gpus_per_node = step->gpus_per_node;
	res->env_count = 3;
	res->env = calloc(3, sizeof(*res->env));
	for (size_t i = 0; i < 3; i++) {
		res->env[i].name = strdup(vars[i][0]);
		res->env[i].value = strdup(vars[i][1]);
	}
	strcpy(res->plan_id, "0123456789abcdef");
	res->summary = strdup(
		"lagom 0.1.0 plan=0123456789abcdef workload=phi-2:fsdp "
		"channels=8 chunk=default algo=ring speedup=1.10x");
	res->explanation = strdup("line one\nline two\n");
	*out = res;
	return 0;
}

void lagom_planner_result_destroy(struct lagom_planner_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->env_count; i++) {
		free(res->env[i].name);
		free(res->env[i].value);
	}
	free(res->env);
	free(res->summary);
	free(res->explanation);
	free(res);
}
