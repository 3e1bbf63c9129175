/*
 * spank/srun_step.c - the step as srun sees it in slurm_spank_local_user_init
 * (doc/consistency.md): job and step ids, node and task counts from
 * spank_get_item; tasks per node from srun's own SLURM_TASKS_PER_NODE,
 * checked against the counts; the step's working directory from srun's
 * -D/--chdir; the step's node list and its GPU request from srun itself
 * where srun's own state tells them exactly (srun_knows_step() below), else
 * from slurmctld (one slurm_get_job_steps() call, which srun waits for at
 * most LAGOM_SRUN_STEP_WAIT_MS).
 *
 * GPUs per node are planned only when Slurm's request fixes them on every
 * node: --gpus-per-node/--gres=gpu:G (every node G), --gpus-per-task=K with
 * the same number of tasks on every node, or --gpus=N on one node.  A
 * request that Slurm may split unevenly (--gpus=N over several nodes,
 * --gpus-per-task with uneven tasks, --gpus-per-socket) is left to NCCL on
 * every node.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <fcntl.h>
#include <strings.h>
#include <time.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "compat/slurm_compat.h"
#include "spank/lagom.h"
#include "spank/srun_step.h"
#include "spank/step.h"
#include "placement/placement.h"

/* One TRES list entry naming the GPU count: "gres:gpu:4", "gres:gpu:a100:4",
 * "gres/gpu:4", "gres/gpu=4" or "gpu:4".  1 and *count when found, 0 when
 * absent, -1 when malformed. */
static int tres_gpu_entry(const char *e, size_t len, unsigned long *count)
{
	const char *p = e, *end = e + len, *num;
	char *stop;
	unsigned long v;

	if (len > 5 &&
	    (strncmp(p, "gres:", 5) == 0 || strncmp(p, "gres/", 5) == 0))
		p += 5;
	if ((size_t)(end - p) < 4 || strncmp(p, "gpu", 3) != 0 ||
	    (p[3] != ':' && p[3] != '='))
		return 0;
	num = end;
	while (num > p + 3 && num[-1] >= '0' && num[-1] <= '9')
		num--;
	if (num == end || (num[-1] != ':' && num[-1] != '='))
		return -1;
	v = strtoul(num, &stop, 10);
	if (stop != end || v > 4096)
		return -1;
	*count = v;
	return 1;
}

int lagom_tres_gpus(const char *list, unsigned long *count)
{
	const char *p = list;

	if (!list)
		return 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int rc = tres_gpu_entry(p, len, count);

		if (rc != 0)
			return rc;
		p += len + (p[len] == ',');
	}
	return 0;
}

int lagom_step_gpus(const struct lagom_gpu_request *req,
		    const struct lagom_tasks_per_node *tpn, unsigned *gpus,
		    struct lagom_error *err)
{
	unsigned long n = 0;
	int rc;

	if ((rc = lagom_tres_gpus(req->per_node, &n)) != 0) {
		if (rc < 0)
			goto malformed;
		*gpus = (unsigned)n;
		return 0;
	}
	if ((rc = lagom_tres_gpus(req->per_task, &n)) != 0) {
		if (rc < 0)
			goto malformed;
		if (tpn->min_tasks != tpn->max_tasks)
			return lagom_errprintf(
				err, EINVAL,
				"GPUs per task with %u to %u tasks per node: "
				"GPUs differ between nodes, left to NCCL",
				tpn->min_tasks, tpn->max_tasks);
		*gpus = (unsigned)(n * tpn->max_tasks);
		return 0;
	}
	if ((rc = lagom_tres_gpus(req->per_socket, &n)) != 0)
		return lagom_errprintf(err, EINVAL,
				       "GPUs per socket: the count per node is "
				       "not known before launch, left to NCCL");
	if ((rc = lagom_tres_gpus(req->per_step, &n)) != 0) {
		if (rc < 0)
			goto malformed;
		if (tpn->nodes > 1 && n > 0)
			return lagom_errprintf(
				err, EINVAL,
				"--gpus=%lu over %u nodes: Slurm may split it "
				"unevenly (use --gpus-per-node), left to NCCL",
				n, tpn->nodes);
		*gpus = (unsigned)n;
		return 0;
	}
	*gpus = 0;
	return 0;
malformed:
	return lagom_errprintf(err, EINVAL,
			       "cannot read the step's GPU "
			       "request");
}

/* The step's record from slurmctld: node list and GPU request.  SHOW_LOCAL
 * skips the federation lookup slurm_get_job_steps() makes first otherwise
 * (a second round trip): the step is on srun's cluster, or on the one -M
 * named, which libslurm asks then. */
static int fetch_step(uint32_t job_id, uint32_t step_id, char **nodes,
		      struct lagom_gpu_request *req, struct lagom_error *err)
{
	job_step_info_response_msg_t *resp = NULL;
	job_step_info_t *s;
	int rc = 0;

	if (lagom_slurm_get_job_steps(job_id, step_id, &resp,
				      SHOW_ALL | SHOW_LOCAL) != 0 ||
	    !resp)
		return lagom_errprintf(err, EIO,
				       "cannot read step %u.%u from slurmctld",
				       job_id, step_id);
	if (resp->job_step_count != 1) {
		rc = lagom_errprintf(err, EINVAL,
				     "a heterogeneous step (%u components): "
				     "left to NCCL",
				     resp->job_step_count);
		goto out;
	}
	s = &resp->job_steps[0];
	if (s->step_id.step_het_comp != NO_VAL) {
		rc = lagom_errprintf(err, EINVAL,
				     "a heterogeneous step: left "
				     "to NCCL");
		goto out;
	}
	*nodes = s->nodes ? strdup(s->nodes) : NULL;
	req->per_node = s->tres_per_node ? strdup(s->tres_per_node) : NULL;
	req->per_task = s->tres_per_task ? strdup(s->tres_per_task) : NULL;
	req->per_step = s->tres_per_step ? strdup(s->tres_per_step) : NULL;
	req->per_socket = s->tres_per_socket ? strdup(s->tres_per_socket)
					     : NULL;
	if (!*nodes)
		rc = lagom_errprintf(err, ENOENT, "step %u.%u has no nodes",
				     job_id, step_id);
out:
	slurm_free_job_step_info_response_msg(resp);
	return rc;
}

void lagom_gpu_request_release(struct lagom_gpu_request *req)
{
	free(req->per_node);
	free(req->per_task);
	free(req->per_step);
	free(req->per_socket);
	memset(req, 0, sizeof(*req));
}

/*
 * fetch_step() in a thread that srun waits for at most timeout_ms
 * (lagom_bounded_*, pin.c): a stalled slurmctld must not hold the launch.
 * When the time is up the thread is left to finish on its own and frees
 * what it got.
 */
struct step_rpc {
	uint32_t job_id, step_id;
	int rc;
	char *nodes;
	struct lagom_gpu_request req;
	struct lagom_error err;
};

static void step_rpc_free(void *arg)
{
	struct step_rpc *r = arg;

	free(r->nodes);
	lagom_gpu_request_release(&r->req);
	free(r);
}

static void step_rpc_run(void *arg)
{
	struct step_rpc *r = arg;

	r->rc = fetch_step(r->job_id, r->step_id, &r->nodes, &r->req, &r->err);
}

static int fetch_step_bounded(uint32_t job_id, uint32_t step_id,
			      unsigned timeout_ms, char **nodes,
			      struct lagom_gpu_request *req,
			      struct lagom_error *err)
{
	struct step_rpc *r = calloc(1, sizeof(*r));
	struct lagom_bounded *b;
	int rc;

	if (!r)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	r->job_id = job_id;
	r->step_id = step_id;
	if (!(b = lagom_bounded_start(step_rpc_run, step_rpc_free, r))) {
		step_rpc_free(r);
		return lagom_errprintf(err, EAGAIN, "cannot start a thread");
	}
	if (lagom_bounded_wait(b, timeout_ms) < 0)
		return lagom_errprintf(err, ETIMEDOUT,
				       "slurmctld did not answer within %.1f s "
				       "(the step's nodes and GPUs)",
				       timeout_ms / 1000.0);
	rc = r->rc;
	if (rc < 0)
		*err = r->err;
	*nodes = r->nodes;
	*req = r->req;
	r->nodes = NULL;
	memset(&r->req, 0, sizeof(r->req));
	step_rpc_free(r);
	return rc;
}

/*
 * The step's GPU request without slurmctld.  srun 22.05 builds it from its
 * options (launch.c launch_common_create_job_step: xfmt_tres() of --gpus,
 * --gpus-per-node, --gpus-per-socket and --gpus-per-task, and --gres, else
 * SLURM_STEP_GRES, after the per-node GPUs), and slurmctld keeps it as sent
 * unless it names no GRES at all (step_mgr.c _copy_job_tres_to_step: "none"
 * clears the GRES; a request naming "gres" loses its zero counts; any other
 * request is replaced by the job's, which only slurmctld knows).
 */

/* *dest (owned, may be NULL) followed by ",", unless empty, then prefix
 * and the len bytes of text; -ENOMEM. */
static int append(char **dest, const char *prefix, const char *text, size_t len)
{
	size_t old = *dest ? strlen(*dest) : 0;
	size_t need = old + 1 + strlen(prefix) + len + 1;
	char *s = realloc(*dest, need);

	if (!s)
		return -ENOMEM;
	snprintf(s + old, need - old, "%s%s%.*s", old ? "," : "", prefix,
		 (int)len, text);
	*dest = s;
	return 0;
}

/* *dest followed by "prefix" and tok for every non-empty comma-separated
 * tok of src, as Slurm's xfmt_tres() (strtok_r); -ENOMEM. */
static int tres_fmt(char **dest, const char *prefix, const char *src)
{
	const char *p = src;

	while (p && *p) {
		size_t len = strcspn(p, ",");

		if (len > 0 && append(dest, prefix, p, len) < 0)
			return -ENOMEM;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* Drop the entries whose text after the last ':' reads as the number 0
 * (strtoll to its end, as slurmctld's _clear_zero_tres()); an empty result
 * is NULL. */
static void clear_zero(char **spec)
{
	char *w = *spec;
	const char *p = *spec;

	if (!p)
		return;
	while (*p) {
		size_t len = strcspn(p, ",");
		char small[256], *tok, *end = NULL, *colon;
		bool keep = len > 0;

		tok = len < sizeof(small) ? small : malloc(len + 1);
		if (keep && tok) {
			memcpy(tok, p, len);
			tok[len] = '\0';
			if ((colon = strrchr(tok, ':')) &&
			    strtoll(colon + 1, &end, 10) == 0 && *end == '\0')
				keep = false;
		}
		if (tok != small)
			free(tok);
		if (keep) {
			if (w != *spec)
				*w++ = ',';
			memmove(w, p, len);
			w += len;
		}
		p += len + (p[len] == ',');
	}
	*w = '\0';
	if (w == *spec) {
		free(*spec);
		*spec = NULL;
	}
}

int lagom_srun_gpu_request(const struct lagom_srun_gpu_opts *o,
			   struct lagom_gpu_request *req,
			   struct lagom_error *err)
{
	const char *add = o->gres ? o->gres : o->step_gres_env;
	const char *gpu = o->slurm24 ? "gres/gpu:" : "gres:gpu:";
	char **all[] = { &req->per_step, &req->per_node, &req->per_socket,
			 &req->per_task };
	bool names_gres = false;
	/* 24.11+: --gres=none is sent alone, without --gpus-per-node */
	bool per_node = !(o->slurm24 && add && strcasecmp(add, "none") == 0);
	const char *tpt = o->tres_per_task;

	memset(req, 0, sizeof(*req));
	/* --gres (or SLURM_STEP_GRES) goes after the GPUs per node, as is */
	if (tres_fmt(&req->per_step, gpu, o->gpus) < 0 ||
	    (per_node && tres_fmt(&req->per_node, gpu, o->gpus_per_node) < 0) ||
	    (add && append(&req->per_node, "", add, strlen(add)) < 0) ||
	    tres_fmt(&req->per_socket, gpu, o->gpus_per_socket) < 0 ||
	    (o->slurm24
		     ? tpt && append(&req->per_task, "", tpt, strlen(tpt)) < 0
		     : tres_fmt(&req->per_task, gpu, o->gpus_per_task) < 0)) {
		lagom_gpu_request_release(req);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	/* compared as srun sends it (slurmctld's xstrcasecmp) */
	if (req->per_node && strcasecmp(req->per_node, "none") == 0) {
		lagom_gpu_request_release(req); /* --gres=none: no GRES */
		return 1;
	}
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		names_gres |= *all[i] && strstr(*all[i], "gres") != NULL;
	if (!names_gres) {
		lagom_gpu_request_release(req); /* slurmctld copies the job's */
		return 0;
	}
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		clear_zero(all[i]);
	return 1;
}

/* The Slurm releases whose srun srun_gpu_opts() was checked against (on
 * a cluster of each, by tests/integration/step_source.sh): 22.05, 24.11
 * and 26.05, and only the release lagom was built for (the request rules
 * are compiled in); elsewhere srun asks slurmctld. */
static bool srun_opts_verified(spank_t sp)
{
	static const char *const verified[] = { "22.05", "24.11", "26.05" };
	const char *major = NULL, *minor = NULL;
	char built[16], running[16];
	int n;

	if (spank_get_item(sp, S_SLURM_VERSION_MAJOR, &major) !=
		    ESPANK_SUCCESS ||
	    spank_get_item(sp, S_SLURM_VERSION_MINOR, &minor) !=
		    ESPANK_SUCCESS ||
	    !major || !minor)
		return false;
	n = snprintf(running, sizeof(running), "%s.%s", major, minor);
	if (n < 0 || (size_t)n >= sizeof(running))
		return false;
	snprintf(built, sizeof(built), "%02d.%02d",
		 SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		 SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
	if (strcmp(running, built) != 0)
		return false;
	for (size_t i = 0; i < sizeof(verified) / sizeof(verified[0]); i++)
		if (strcmp(running, verified[i]) == 0)
			return true;
	return false;
}

/* dl_iterate_phdr() visits the program itself first: is addr inside one
 * of its loaded segments? */
struct in_program {
	const void *addr;
	bool first, inside;
};

static int in_program_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct in_program *q = arg;
	uintptr_t a = (uintptr_t)q->addr;

	(void)size;
	if (!q->first)
		return 1; /* only the program itself */
	q->first = false;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = (uintptr_t)info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && a >= lo && a - lo < ph->p_memsz)
			q->inside = true;
	}
	return 1;
}

/* A symbol srun itself defines, not one of the same name from a library
 * or another plugin (that would not be a slurm_opt_t). */
static bool defined_by_srun(const void *addr)
{
	struct in_program q = { .addr = addr, .first = true };

	dl_iterate_phdr(in_program_cb, &q);
	return q.inside;
}

typedef char *(*lagom_option_get_fn)(void *opt, const char *name);
typedef void (*lagom_xfree_fn)(void **item);

/*
 * srun's own GPU options, read through Slurm's option table: srun's global
 * slurm_opt_t `opt` and libslurm's slurm_option_get(), both exported to the
 * plugins srun loads.  1 with *req filled, 0 when srun's state cannot tell
 * (another Slurm release, a symbol missing, a heterogeneous step, a step
 * that leaves its GPUs to the job's request), -ENOMEM.
 */
static int srun_gpu_opts(spank_t sp, struct lagom_gpu_request *req,
			 struct lagom_error *err)
{
	static const char *const names[] = { "gres",
					     "gpus",
					     "gpus-per-node",
					     "gpus-per-task",
					     "gpus-per-socket",
					     LAGOM_SLURM_SRUN_TRES_PER_TASK
						     ? "tres-per-task"
						     : "gpus-per-task" };
	char *v[sizeof(names) / sizeof(names[0])] = { NULL };
	struct lagom_srun_gpu_opts o;
	lagom_option_get_fn get;
	lagom_xfree_fn xfree_fn;
	void *opt, **opt_list;
	int rc;

	if (!srun_opts_verified(sp))
		return 0;
	opt = dlsym(RTLD_DEFAULT, "opt");
	opt_list = dlsym(RTLD_DEFAULT, "opt_list");
	*(void **)&get = dlsym(RTLD_DEFAULT, "slurm_option_get");
	*(void **)&xfree_fn = dlsym(RTLD_DEFAULT, "slurm_xfree");
	/* srun keeps a list of options only for a heterogeneous step */
	if (!opt || !opt_list || !get || !xfree_fn || !defined_by_srun(opt) ||
	    !defined_by_srun(opt_list) || *opt_list)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		v[i] = get(opt, names[i]);
	o = (struct lagom_srun_gpu_opts){
		.gres = v[0],
		.gpus = v[1],
		.gpus_per_node = v[2],
		.gpus_per_task = v[3],
		.gpus_per_socket = v[4],
		.step_gres_env = getenv("SLURM_STEP_GRES"),
		.slurm24 = LAGOM_SLURM_SRUN_TRES_PER_TASK,
		.tres_per_task = v[5],
	};
	rc = lagom_srun_gpu_request(&o, req, err);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (v[i])
			xfree_fn((void **)&v[i]);
	return rc;
}

/* srun 22.05's short options that take an argument (slurm_opt.c): the
 * rest of the word, or the next word where one is required. */
#define SRUN_SHORT_REQUIRED "ABCDFGJLMNSTWabcdeimnopqrtwx"
#define SRUN_SHORT_OPTIONAL "IKk"

int lagom_srun_chdir(int argc, char *const argv[], int command_argc,
		     const char *remote_cwd, const char *working_dir,
		     const char *cwd, char *out, size_t size,
		     struct lagom_error *err)
{
	/* srun reads its environment in its table's order (opt.c's
	 * env_vars): SLURM_WORKING_DIR comes after SLURM_REMOTE_CWD */
	const char *dir = working_dir ? working_dir : remote_cwd;
	int end = argc - command_argc;
	int n;

	if (command_argc < 0 || end < 1)
		return lagom_errprintf(err, EINVAL,
				       "cannot find srun's options in its "
				       "command line");
	for (int i = 1; i < end; i++) {
		const char *w = argv[i];

		if (strcmp(w, "--") == 0)
			break;
		if (strncmp(w, "--ch", 4) == 0) {
			/* --chdir, or a prefix of it that getopt takes */
			size_t len = strcspn(w + 2, "=");

			if (strncmp(w + 2, "chdir", len) != 0 || len > 5)
				continue;
			if (w[2 + len] == '=')
				dir = w + 3 + len;
			else if (i + 1 < end)
				dir = argv[++i];
			continue;
		}
		if (w[0] != '-' || w[1] == '-')
			continue; /* a value, or another long option */
		for (const char *p = w + 1; *p; p++) {
			if (*p == 'D') {
				if (p[1])
					dir = p + 1;
				else if (i + 1 < end)
					dir = argv[++i];
				break;
			}
			if (strchr(SRUN_SHORT_REQUIRED, *p)) {
				i += !p[1];
				break;
			}
			if (strchr(SRUN_SHORT_OPTIONAL, *p))
				break;
		}
	}
	if (!dir)
		n = snprintf(out, size, "%s", cwd);
	else if (dir[0] == '/')
		n = snprintf(out, size, "%s", dir);
	else
		n = snprintf(out, size, "%s/%s", cwd, dir);
	if (n < 0 || (size_t)n >= size)
		return lagom_errprintf(err, ENAMETOOLONG,
				       "the step's working directory is too "
				       "long");
	return 0;
}

/* At most this much of srun's command line is read. */
#define CMDLINE_MAX (256 * 1024)

/* srun's own argv (/proc/self/cmdline): *buf holds the words. */
static int read_cmdline(char **buf, char ***words, int *count,
			struct lagom_error *err)
{
	size_t len = 0, n = 0;
	ssize_t got;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	*buf = fd < 0 ? NULL : malloc(CMDLINE_MAX + 1);
	*words = NULL;
	if (!*buf) {
		if (fd >= 0)
			close(fd);
		return lagom_errprintf(err, EIO,
				       "cannot read srun's command line");
	}
	while (len < CMDLINE_MAX &&
	       (got = read(fd, *buf + len, CMDLINE_MAX - len)) > 0)
		len += (size_t)got;
	close(fd);
	if (len == 0 || len >= CMDLINE_MAX || (*buf)[len - 1] != '\0')
		return lagom_errprintf(err, E2BIG,
				       "cannot read srun's command line");
	for (size_t i = 0; i < len; i++)
		n += (*buf)[i] == '\0';
	*words = calloc(n + 1, sizeof(char *));
	if (!*words)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (size_t i = 0, w = 0; i < len; i += strlen(*buf + i) + 1)
		(*words)[w++] = *buf + i;
	*count = (int)n;
	return 0;
}

/* The step's working directory: srun's -D/--chdir, else
 * SLURM_WORKING_DIR, else SLURM_REMOTE_CWD, else srun's. */
static int step_cwd(spank_t sp, struct lagom_step *step,
		    struct lagom_error *err)
{
	char here[sizeof(step->cwd)], *buf = NULL, **words = NULL;
	char **command = NULL;
	int command_argc = 0, count = 0, rc;

	if (spank_get_item(sp, S_JOB_ARGV, &command_argc, &command) !=
	    ESPANK_SUCCESS)
		return lagom_errprintf(err, EIO, "cannot read the step's argv");
	if (!getcwd(here, sizeof(here)))
		return lagom_errprintf(err, errno,
				       "cannot read srun's "
				       "directory");
	rc = read_cmdline(&buf, &words, &count, err);
	if (rc == 0)
		rc = lagom_srun_chdir(count, words, command_argc,
				      getenv("SLURM_REMOTE_CWD"),
				      getenv("SLURM_WORKING_DIR"), here,
				      step->cwd, sizeof(step->cwd), err);
	free(words);
	free(buf);
	return rc;
}

static int get_ids(spank_t sp, struct lagom_step *step,
		   struct lagom_carrier_step *id, struct lagom_error *err)
{
	if (spank_get_item(sp, S_JOB_ID, &step->job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step->step_id) !=
		    ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NNODES, &step->nnodes) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &id->ntasks) !=
		    ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &step->uid) != ESPANK_SUCCESS)
		return lagom_errprintf(err, EIO, "cannot read the step's ids");
	/* 23.02+: Slurm's "nobody", srun's own user meant (learn.c) */
	step->uid = lagom_slurm_srun_uid(step->uid);
	id->job_id = step->job_id;
	id->step_id = step->step_id;
	id->nnodes = step->nnodes;
	return 0;
}

/* Tasks per node from srun's SLURM_TASKS_PER_NODE (the step's), which
 * must add up to the counts Slurm gave the plugin. */
static int tasks_per_node(struct lagom_step *step,
			  struct lagom_carrier_step *id,
			  struct lagom_tasks_per_node *tpn,
			  struct lagom_error *err)
{
	const char *s = getenv("SLURM_TASKS_PER_NODE");

	if (!s || strlen(s) >= sizeof(id->tpn))
		return lagom_errprintf(err, ENOENT,
				       "SLURM_TASKS_PER_NODE not set");
	if (lagom_tasks_per_node_parse(s, tpn, err) < 0)
		return lagom_error_prefix(err, "SLURM_TASKS_PER_NODE");
	if (tpn->nodes != id->nnodes || tpn->tasks != id->ntasks)
		return lagom_errprintf(err, EINVAL,
				       "SLURM_TASKS_PER_NODE=%s does not match "
				       "%u tasks on %u nodes",
				       s, id->ntasks, id->nnodes);
	strcpy(id->tpn, s);
	step->ranks_per_node = tpn->max_tasks;
	return 0;
}

/*
 * The step's nodes and GPU request from srun itself: 1 when srun's state
 * tells them exactly, 0 when only slurmctld can.  The nodes come from
 * SLURM_NODELIST, which srun sets in its own environment (setup_env()) to
 * its allocation's list before this hook: the step's list only when the
 * step has as many nodes as the allocation (srun -N2 in an allocation of 3
 * does not).  Every node checks the node list against its own
 * SLURM_STEP_NODELIST, so a wrong guess can only leave the whole step
 * untuned (carrier.c), never split it.
 */
static int srun_knows_step(spank_t sp, struct lagom_step *step,
			   struct lagom_gpu_request *req,
			   struct lagom_error *err)
{
	const char *list = getenv("SLURM_NODELIST");
	int rc;

	if (!list || (rc = srun_gpu_opts(sp, req, err)) <= 0)
		return list ? rc : 0;
	if (lagom_step_expand_nodes(list, step, err) < 0 ||
	    step->node_count != step->nnodes) {
		lagom_step_clear_nodes(step);
		lagom_gpu_request_release(req);
		lagom_error_clear(err);
		return 0;
	}
	return 1;
}

int lagom_srun_step_read(spank_t sp, unsigned timeout_ms, bool query_always,
			 struct lagom_step *step, struct lagom_carrier_step *id,
			 double *slurmctld_ms, struct lagom_error *err)
{
	struct lagom_tasks_per_node tpn = { 0 };
	struct lagom_gpu_request req = { 0 };
	struct timespec t0;
	char *nodes = NULL;
	int rc;

	memset(step, 0, sizeof(*step));
	memset(id, 0, sizeof(*id));
	*slurmctld_ms = -1;
	if ((rc = get_ids(sp, step, id, err)) < 0)
		return rc;
	if (gethostname(step->node_name, sizeof(step->node_name) - 1) < 0)
		strcpy(step->node_name, "srun");
	if (step_cwd(sp, step, err) < 0) {
		/* only a relative workload file needs it (plan.c) */
		step->cwd[0] = '\0';
		lagom_error_clear(err);
	}
	if ((rc = tasks_per_node(step, id, &tpn, err)) < 0)
		goto out;
	rc = query_always ? 0 : srun_knows_step(sp, step, &req, err);
	if (rc < 0)
		goto out;
	if (rc == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if ((rc = fetch_step_bounded(id->job_id, id->step_id,
					     timeout_ms, &nodes, &req, err)) <
			    0 ||
		    (rc = lagom_step_expand_nodes(nodes, step, err)) < 0)
			goto out;
		*slurmctld_ms = lagom_ms_since(&t0);
	}
	if ((rc = lagom_step_gpus(&req, &tpn, &step->gpus_per_node, err)) < 0)
		goto out;
	if (step->node_count != id->nnodes) {
		rc = lagom_errprintf(err, EINVAL,
				     "slurmctld lists %zu nodes for a step of "
				     "%u",
				     step->node_count, id->nnodes);
		goto out;
	}
	id->nodes_hash = lagom_nodes_hash((const char *const *)step->node_names,
					  step->node_count);
out:
	free(nodes);
	lagom_gpu_request_release(&req);
	lagom_tasks_per_node_release(&tpn);
	return rc;
}
