/*
 * cli/plan_step.c - the step `lagom plan` plans for: node names (from
 * --nodelist, the profile directory, or invented for a single profile
 * file), GPUs per node, and the workload.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/plan_int.h"
#include "cli/workload_int.h"
#include "workload/workload.h"
#include "placement/placement.h"
#include "catalog/catalog.h"

static int add_name(struct cli_step *s, const char *name, size_t len)
{
	char **n = realloc(s->names, (s->count + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	s->names = n;
	n[s->count] = strndup(name, len);
	if (!n[s->count])
		return -ENOMEM;
	s->count++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * --nodelist: a Slurm hostlist ("gpu[001-004],b001"), expanded and checked
 * by placement/placement.h exactly as the plugin expands the step's nodes
 * (a host named twice is refused there).  An empty entry, which Slurm would
 * skip, is refused here.
 */
static int names_from_list(const char *list, struct cli_step *s)
{
	struct lagom_error err = { 0 };
	struct lagom_nodelist *nl;
	size_t len = strlen(list), i;

	if (len == 0 || list[0] == ',' || list[len - 1] == ',' ||
	    strstr(list, ",,"))
		return cli_fail(CLI_USAGE,
				"--nodelist: empty node name in '%s'", list);
	nl = lagom_nodelist_create(list, &err);
	if (!nl)
		return cli_fail(err.errnum == ENOMEM ? CLI_FAIL : CLI_USAGE,
				"--nodelist: %s", err.text);
	for (i = 0; i < lagom_nodelist_count(nl); i++) {
		const char *name = lagom_nodelist_name(nl, i);

		if (add_name(s, name, strlen(name))) {
			lagom_nodelist_destroy(nl);
			return cli_fail(CLI_FAIL, "out of memory");
		}
	}
	lagom_nodelist_destroy(nl);
	return 0;
}

/* The first n NODE.json files of dir, by name. */
static int names_from_dir(const char *dir, unsigned n, struct cli_step *s)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t i;

	if (!d)
		return cli_fail(CLI_FAIL, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > 5 && e->d_name[0] != '.' &&
		    strcmp(e->d_name + len - 5, ".json") == 0 &&
		    add_name(s, e->d_name, len - 5)) {
			closedir(d);
			return cli_fail(CLI_FAIL, "out of memory");
		}
	}
	closedir(d);
	if (s->count < n)
		return cli_fail(CLI_USAGE,
				"--profile: %s holds %zu profiles, fewer than "
				"--nodes %u",
				dir, s->count, n);
	qsort(s->names, s->count, sizeof(*s->names), cmp_str);
	for (i = n; i < s->count; i++)
		free(s->names[i]);
	s->count = n;
	return 0;
}

static int names_invented(unsigned n, struct cli_step *s)
{
	char name[32];
	unsigned i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "node%u", i);
		if (add_name(s, name, strlen(name)))
			return cli_fail(CLI_FAIL, "out of memory");
	}
	return 0;
}

/* The first node's hardware: GPUs per node and workload validation. */
static int first_hw(const struct plan_opts *o, struct cli_step *s)
{
	struct lagom_error err = { 0 };
	char *path = NULL;
	int rc;

	if (s->is_dir &&
	    asprintf(&path, "%s/%s.json", o->profile, s->names[0]) < 0)
		return cli_fail(CLI_FAIL, "out of memory");
	rc = lagom_planner_profile_hw(path ? path : o->profile, false, 0,
				      &s->hw, &err);
	free(path);
	if (rc)
		return cli_fail(CLI_FAIL, "plan: %s", err.text);
	if (o->gpus_per_node > s->hw.gpus_per_node)
		return cli_fail(CLI_USAGE,
				"--gpus-per-node %u: the profile lists %u GPUs",
				o->gpus_per_node, s->hw.gpus_per_node);
	s->gpus_per_node = o->gpus_per_node ? o->gpus_per_node
					    : s->hw.gpus_per_node;
	return 0;
}

int cli_plan_step(const struct plan_opts *o, struct cli_step *s)
{
	struct stat st;
	int rc;

	if (stat(o->profile, &st) != 0)
		return cli_fail(CLI_USAGE, "--profile: %s: %s", o->profile,
				strerror(errno));
	s->is_dir = S_ISDIR(st.st_mode);
	if (o->nodelist)
		rc = names_from_list(o->nodelist, s);
	else if (s->is_dir)
		rc = names_from_dir(o->profile, o->nodes, s);
	else
		rc = names_invented(o->nodes, s);
	if (rc)
		return rc;
	if (o->nodes && o->nodes != s->count)
		return cli_fail(CLI_USAGE,
				"--nodes %u but --nodelist names %zu nodes",
				o->nodes, s->count);
	return first_hw(o, s);
}

int cli_plan_workload(const struct plan_opts *o, struct cli_step *s)
{
	struct lagom_error err = { 0 };
	struct lagom_workload *w = NULL;

	if (!o->workload)
		return 0;
	/* The plugin's rule (workload/workload.h), so `lagom plan` shows
	 * the plan a job with the same --lagom-workload gets. */
	if (lagom_workload_is_file(o->workload)) {
		return cli_workload_read(o->workload, &s->hw,
					 (unsigned)s->count, s->gpus_per_node,
					 &s->workload);
	}
	if (lagom_workload_from_name(o->workload, &s->hw, (unsigned)s->count,
				     s->gpus_per_node, &w, &err))
		return cli_fail(CLI_USAGE,
				"--workload: %s (see 'lagom workloads')",
				err.text);
	lagom_workload_destroy(w);
	return 0;
}

void cli_step_fini(struct cli_step *s)
{
	size_t i;

	for (i = 0; i < s->count; i++)
		free(s->names[i]);
	free(s->names);
	lagom_workload_destroy(s->workload);
	memset(s, 0, sizeof(*s));
}
