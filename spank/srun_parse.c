/*
 * spank/srun_parse.c - what srun is asked, read from text alone
 * (spank/srun_parse.h): TRES lists, the GPU request srun builds from its
 * options, and the step's working directory from srun's command line.
 * Pure: no Slurm, no environment, no I/O.
 *
 * GPUs per node are planned only when Slurm's request fixes them on every
 * node: --gpus-per-node/--gres=gpu:G (every node G), --gpus-per-task=K with
 * the same number of tasks on every node, or --gpus=N on one node.  A
 * request that Slurm may split unevenly (--gpus=N over several nodes,
 * --gpus-per-task with uneven tasks, --gpus-per-socket) is left to NCCL on
 * every node.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "spank/srun_parse.h"

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

void lagom_gpu_request_release(struct lagom_gpu_request *req)
{
	free(req->per_node);
	free(req->per_task);
	free(req->per_step);
	free(req->per_socket);
	memset(req, 0, sizeof(*req));
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
