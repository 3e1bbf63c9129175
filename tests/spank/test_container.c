/*
 * tests/spank/test_container.c - a step in Slurm's OCI container
 * (spank/container.c): which host paths a bundle's config.json mounts at
 * the same place, and the decision from a real bundle directory: the whole
 * plan, or none with the reason in fixed words, a hostile config.json
 * (a FIFO, a link, too large) refused without blocking.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"

#include "compat/slurm_compat.h"
#include "spank/container.h"
#include "spank/remote_int.h"
#include "tests/spank/stub.h"

#define TUNER "/opt/lagom/lib/libnccl-tuner-lagom.so"

static int mounts(const char *json, const char *path)
{
	return lagom_container_mounts_path(json, strlen(json), path);
}

static void identity_bind_mounts(void **state)
{
	(void)state;
	/* the directory, the file itself, a trailing slash, rbind */
	assert_int_equal(
		mounts("{\"mounts\":[{\"destination\":\"/opt/lagom\","
		       "\"type\":\"bind\",\"source\":\"/opt/lagom\"}]}",
		       TUNER),
		1);
	assert_int_equal(mounts("{\"mounts\":[{\"destination\":\"" TUNER
				"\",\"type\":\"bind\",\"source\":\"" TUNER
				"\"}]}",
				TUNER),
			 1);
	assert_int_equal(mounts("{\"mounts\":[{\"destination\":\"/opt/\","
				"\"type\":\"none\",\"source\":\"/opt\","
				"\"options\":[\"rbind\",\"ro\"]}]}",
				TUNER),
			 1);
}

static void other_mounts_do_not(void **state)
{
	(void)state;
	assert_int_equal(mounts("{}", TUNER), 0);
	assert_int_equal(mounts("{\"mounts\":[]}", TUNER), 0);
	/* another host directory at that place: another file */
	assert_int_equal(mounts("{\"mounts\":[{\"destination\":\"/opt/lagom\","
				"\"type\":\"bind\",\"source\":\"/home/u/l\"}]}",
				TUNER),
			 0);
	/* a name that only starts the same */
	assert_int_equal(mounts("{\"mounts\":[{\"destination\":\"/opt/lag\","
				"\"type\":\"bind\",\"source\":\"/opt/lag\"}]}",
				TUNER),
			 0);
	/* a later tmpfs hides the bind mount */
	assert_int_equal(
		mounts("{\"mounts\":[{\"destination\":\"/opt\",\"type\":\"bind\","
		       "\"source\":\"/opt\"},{\"destination\":\"/opt/lagom\","
		       "\"type\":\"tmpfs\",\"source\":\"tmpfs\"}]}",
		       TUNER),
		0);
	/* a later tmpfs above it hides it too; a later bind below shows */
	assert_int_equal(
		mounts("{\"mounts\":[{\"destination\":\"/opt/lagom\",\"type\":"
		       "\"bind\",\"source\":\"/opt/lagom\"},{\"destination\":"
		       "\"/opt\",\"type\":\"tmpfs\",\"source\":\"tmpfs\"}]}",
		       TUNER),
		0);
	assert_int_equal(
		mounts("{\"mounts\":[{\"destination\":\"/opt\",\"type\":"
		       "\"tmpfs\",\"source\":\"tmpfs\"},{\"destination\":"
		       "\"/opt/lagom\",\"type\":\"bind\",\"source\":"
		       "\"/opt/lagom\"}]}",
		       TUNER),
		1);
	/* a later tmpfs however written: runc cleans it, ".." stops at "/",
	 * a relative one starts at "/" (tests/spank/mounts.sh: with runc) */
	static const char *const hiding[] = {
		"//opt/lagom",	  "/./opt/lagom",      "/x/../opt/lagom",
		"opt/lagom//lib", "opt/lagom",	       "/opt/lagom/",
		"/../../opt",	  "/opt/lagom/lib/..",
	};
	for (size_t i = 0; i < sizeof(hiding) / sizeof(hiding[0]); i++) {
		char json[256];

		snprintf(json, sizeof(json),
			 "{\"mounts\":[{\"destination\":\"/opt/lagom\","
			 "\"type\":\"bind\",\"source\":\"/opt/lagom\"},"
			 "{\"destination\":\"%s\",\"type\":\"tmpfs\"}]}",
			 hiding[i]);
		assert_int_equal(mounts(json, TUNER), 0);
	}
	/* not a bind mount */
	assert_int_equal(mounts("{\"mounts\":[{\"destination\":\"/opt\","
				"\"type\":\"overlay\",\"source\":\"/opt\"}]}",
				TUNER),
			 0);
}

static void no_oci_config(void **state)
{
	(void)state;
	assert_int_equal(mounts("not json", TUNER), -EINVAL);
	assert_int_equal(mounts("[]", TUNER), -EINVAL);
	assert_int_equal(mounts("{\"mounts\":{}}", TUNER), -EINVAL);
	assert_int_equal(mounts("{\"mounts\":[7]}", TUNER), -EINVAL);
	assert_int_equal(mounts("{\"mounts\":[{\"destination\":\"/a\"},"
				"{\"destination\":\"/a\",\"destination\":1}]}",
				TUNER),
			 -EINVAL);
}

/* A plan that sets NCCL_TUNER_PLUGIN=TUNER, on node 0 of job 7.0. */
static struct lagom_env_var vars[] = {
	{ "NCCL_MIN_CTAS", "8" },
	{ "NCCL_TUNER_PLUGIN", TUNER },
};
static struct lagom_env_item items[] = {
	{ &vars[0], LAGOM_ENV_SET },
	{ &vars[1], LAGOM_ENV_SET },
};
static struct lagom_state shared;

static void plan_state(struct lagom_stepd *st)
{
	memset(st, 0, sizeof(*st));
	memset(&shared, 0, sizeof(shared));
	st->st = &shared;
	st->planned = true;
	st->mode = LAGOM_MODE_AUTO;
	st->items = items;
	st->n_items = 2;
	st->step.job_id = 7;
	strcpy(st->step.node_name, "n1");
}

static char bundle[] = "/tmp/lagom-test-bundle.XXXXXX";

static void write_config(const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/config.json", bundle);
	unlink(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int decided(void)
{
	struct lagom_stepd st;

	plan_state(&st);
	lagom_container_decide(NULL, &st);
	return st.container.decided;
}

static void decision_from_the_bundle(void **state)
{
	char path[128], buf[160];
	struct lagom_stepd st;
	int want_ok = LAGOM_SLURM_OCI_TASK_ENV ? LAGOM_CONTAINER_APPLIED
					       : LAGOM_CONTAINER_OLD_SLURM;

	(void)state;
	assert_non_null(mkdtemp(bundle));
	stub_reset(S_CTX_REMOTE);
	/* no container: nothing changes, nothing in the comment */
	plan_state(&st);
	lagom_container_decide(NULL, &st);
	assert_int_equal(st.container.decided, LAGOM_CONTAINER_NONE);
	assert_false(lagom_container_withheld(&st));
	assert_int_equal(lagom_container_comment(&st, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");

	stub_setenv("SLURM_CONTAINER", bundle);
	snprintf(path, sizeof(path), "%s/rootfs", bundle);
	assert_int_equal(mkdir(path, 0755), 0);
	write_config("{\"root\":{\"path\":\"rootfs\"},\"mounts\":[{"
		     "\"destination\":\"/opt/lagom\",\"type\":"
		     "\"bind\",\"source\":\"/opt/lagom\"}]}");
	assert_int_equal(decided(), want_ok);
	/* a link in the root file system leads the tmpfs onto the tuner */
	snprintf(path, sizeof(path), "%s/rootfs/l", bundle);
	assert_int_equal(symlink("/opt/lagom", path), 0);
	write_config("{\"root\":{\"path\":\"rootfs\"},\"mounts\":[{"
		     "\"destination\":\"/opt/lagom\",\"type\":"
		     "\"bind\",\"source\":\"/opt/lagom\"},{\"destination\""
		     ":\"/l\",\"type\":\"tmpfs\"}]}");
	assert_int_equal(decided(), LAGOM_SLURM_OCI_TASK_ENV
					    ? LAGOM_CONTAINER_NO_TUNER
					    : LAGOM_CONTAINER_OLD_SLURM);
	unlink(path);
	/* no root file system to follow links in: withheld */
	write_config("{\"root\":{\"path\":\"none\"},\"mounts\":[{"
		     "\"destination\":\"/opt/lagom\",\"type\":"
		     "\"bind\",\"source\":\"/opt/lagom\"}]}");
	assert_int_equal(decided(), LAGOM_SLURM_OCI_TASK_ENV
					    ? LAGOM_CONTAINER_NO_ROOT
					    : LAGOM_CONTAINER_OLD_SLURM);
	write_config("{\"root\":{\"path\":\"rootfs\"},\"mounts\":[]}");
	if (LAGOM_SLURM_OCI_TASK_ENV) {
		assert_int_equal(decided(), LAGOM_CONTAINER_NO_TUNER);
		write_config("{\"mounts\":");
		assert_int_equal(decided(), LAGOM_CONTAINER_BAD_CONFIG);
		/* hostile config.json: a FIFO (never blocks), a link, 2 MiB */
		snprintf(path, sizeof(path), "%s/config.json", bundle);
		unlink(path);
		assert_int_equal(mkfifo(path, 0600), 0);
		assert_int_equal(decided(), LAGOM_CONTAINER_UNREADABLE);
		unlink(path);
		assert_int_equal(symlink("/etc/hostname", path), 0);
		assert_int_equal(decided(), LAGOM_CONTAINER_UNREADABLE);
		unlink(path);
		assert_int_equal(truncate(path, 0), -1);
		{
			int fd = open(path, O_CREAT | O_WRONLY, 0600);

			assert_true(fd >= 0);
			assert_int_equal(ftruncate(fd, 2 << 20), 0);
			close(fd);
		}
		assert_int_equal(decided(), LAGOM_CONTAINER_UNREADABLE);
		unlink(path);
		assert_int_equal(decided(), LAGOM_CONTAINER_UNREADABLE);
		stub_setenv("SLURM_CONTAINER", "relative/bundle");
		assert_int_equal(decided(), LAGOM_CONTAINER_BAD_BUNDLE);
	} else {
		assert_int_equal(decided(), LAGOM_CONTAINER_OLD_SLURM);
	}
	/* the comment: fixed words */
	plan_state(&st);
	st.container.decided = LAGOM_CONTAINER_NO_TUNER;
	assert_true(lagom_container_withheld(&st));
	lagom_container_comment(&st, buf, sizeof(buf));
	assert_string_equal(buf,
			    " container: plan withheld (tuner not mounted)");
	st.container.decided = LAGOM_CONTAINER_APPLIED;
	assert_false(lagom_container_withheld(&st));
	lagom_container_comment(&st, buf, sizeof(buf));
	assert_string_equal(buf, " container: plan files mounted (node 0)");
	assert_int_equal(lagom_container_comment(&st, buf, 5), 4);
	assert_string_equal(buf, " con");
	/* pyxis: node 0 states the rule, never an outcome it cannot know */
	st.container.decided = LAGOM_CONTAINER_PER_TASK;
	assert_false(lagom_container_withheld(&st));
	lagom_container_comment(&st, buf, sizeof(buf));
	assert_string_equal(buf, " container: pyxis, each task keeps the "
				 "plan only if it finds its files");
	snprintf(path, sizeof(path), "%s/config.json", bundle);
	unlink(path);
	snprintf(path, sizeof(path), "%s/rootfs", bundle);
	rmdir(path);
	rmdir(bundle);
	stub_reset(S_CTX_REMOTE);
}

/*
 * pyxis's task_init moves each task into the container's mount namespace:
 * lagom's task_init (listed after it) keeps the plan where the task sees
 * the tuner, the profiler and the spool, and takes every variable it set
 * back where one is missing.  Two files stand for the two namespaces.
 */
static char ns_dir[] = "/tmp/lagom-test-ns.XXXXXX";
static char ns_host[160], ns_task[160], tuner_path[160], prof_path[160];
static struct lagom_env_var ns_vars[] = {
	{ "NCCL_MIN_CTAS", "8" },
	{ "NCCL_TUNER_PLUGIN", tuner_path },
	{ "NCCL_ALGO", "ring" },
	{ "NCCL_BUFFSIZE", "4194304" },
};
static struct lagom_env_item ns_items[] = {
	{ &ns_vars[0], LAGOM_ENV_SET },
	{ &ns_vars[1], LAGOM_ENV_SET },
	{ &ns_vars[2], LAGOM_ENV_OVERRIDE }, /* the admin's override= */
	{ &ns_vars[3], LAGOM_ENV_SKIP_USER },
};

static void touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	close(fd);
}

/* One task of a planned step: task_init_privileged, then task_init with
 * the task in the namespace task_ns names; pyxis: NULL, or the name of
 * the stub entry (an option srun took, or a variable) that asks pyxis for
 * a container. */
static void run_pyxis_task(struct lagom_stepd *st, const char *task_ns,
			   bool user_spool, const char *pyxis)
{
	plan_state(st);
	st->items = ns_items;
	st->n_items = 4;
	st->spool.ready = true;
	snprintf(shared.cfg.measure.profiler,
		 sizeof(shared.cfg.measure.profiler), "%s", prof_path);
	snprintf(st->spool.dir, sizeof(st->spool.dir), "%s/spool", ns_dir);
	stub_reset(S_CTX_REMOTE);
	stub_setenv("NCCL_ALGO", "tree");	 /* the user's, overridden */
	stub_setenv("NCCL_BUFFSIZE", "1048576"); /* the user's, kept */
	if (user_spool)
		stub_setenv("LAGOM_MEASURE_DIR", "/mine"); /* theirs, kept */
	if (pyxis)
		stub_setenv(pyxis, "/images/x.sqsh");
	lagom_container_set_ns_path(ns_host);
	lagom_container_decide(NULL, st); /* user_init: no OCI container */
	assert_int_equal(st->container.decided, pyxis ? LAGOM_CONTAINER_PER_TASK
						      : LAGOM_CONTAINER_NONE);
	assert_false(lagom_container_withheld(st));
	/* task_init_privileged, as remote.c does it */
	lagom_container_task_note(NULL, st);
	for (size_t i = 0; i < 3; i++)
		spank_setenv(NULL, ns_vars[i].name, ns_vars[i].value, 1);
	spank_setenv(NULL, "NCCL_PROFILER_PLUGIN", prof_path, 0);
	spank_setenv(NULL, "LAGOM_MEASURE_DIR", st->spool.dir, 0);
	lagom_container_set_ns_path(task_ns);
	lagom_container_task_check(NULL, st);
}

static void run_task(struct lagom_stepd *st, const char *task_ns,
		     bool user_spool)
{
	run_pyxis_task(st, task_ns, user_spool, NULL);
}

static void whole_plan(void)
{
	assert_string_equal(stub_getenv("NCCL_MIN_CTAS"), "8");
	assert_string_equal(stub_getenv("NCCL_TUNER_PLUGIN"), tuner_path);
	assert_string_equal(stub_getenv("NCCL_ALGO"), "ring");
	assert_string_equal(stub_getenv("NCCL_PROFILER_PLUGIN"), prof_path);
	assert_int_equal(stub_log_count("withheld on this task"), 0);
}

static void container_namespace(void **state)
{
	char spool[192];
	struct lagom_stepd st;

	(void)state;
	assert_non_null(mkdtemp(ns_dir));
	snprintf(ns_host, sizeof(ns_host), "%s/ns-host", ns_dir);
	snprintf(ns_task, sizeof(ns_task), "%s/ns-task", ns_dir);
	snprintf(tuner_path, sizeof(tuner_path), "%s/tuner.so", ns_dir);
	snprintf(prof_path, sizeof(prof_path), "%s/profiler.so", ns_dir);
	snprintf(spool, sizeof(spool), "%s/spool", ns_dir);
	touch(ns_host);
	touch(ns_task);
	touch(prof_path);
	assert_int_equal(mkdir(spool, 0700), 0);

	/* the same namespace: untouched, even without the tuner */
	run_task(&st, ns_host, true);
	whole_plan();
	lagom_container_task_forget(&st);

	/* another namespace without the tuner: every variable lagom set goes,
	 * the user's own values stay or come back; one line, fixed words */
	run_task(&st, ns_task, true);
	assert_null(stub_getenv("NCCL_MIN_CTAS"));
	assert_null(stub_getenv("NCCL_TUNER_PLUGIN"));
	assert_string_equal(stub_getenv("NCCL_ALGO"), "tree");
	assert_string_equal(stub_getenv("NCCL_BUFFSIZE"), "1048576");
	assert_null(stub_getenv("NCCL_PROFILER_PLUGIN"));
	assert_string_equal(stub_getenv("LAGOM_MEASURE_DIR"), "/mine");
	assert_int_equal(stub_log_count("the container lacks the tuner "), 1);
	assert_int_equal(stub_log_count("plan withheld on this task"), 1);
	lagom_container_task_forget(&st);

	/* an unreadable namespace counts as a container */
	run_task(&st, "/nonexistent/ns/mnt", true);
	assert_null(stub_getenv("NCCL_MIN_CTAS"));
	lagom_container_task_forget(&st);

	/* everything reachable: the whole plan */
	touch(tuner_path);
	run_task(&st, ns_task, false);
	whole_plan();
	lagom_container_task_forget(&st);

	assert_string_equal(stub_getenv("LAGOM_MEASURE_DIR"), spool);

	/* the spool missing: none, the spool's path unsaid */
	assert_int_equal(rmdir(spool), 0);
	run_task(&st, ns_task, false);
	assert_null(stub_getenv("NCCL_TUNER_PLUGIN"));
	assert_null(stub_getenv("LAGOM_MEASURE_DIR"));
	assert_int_equal(stub_log_count("lacks the measurement spool: "), 1);
	lagom_container_task_forget(&st);
	/* a spool the user set is theirs: not checked */
	run_task(&st, ns_task, true);
	assert_string_equal(stub_getenv("NCCL_TUNER_PLUGIN"), tuner_path);
	lagom_container_task_forget(&st);

	/* a pyxis step (srun --container-image), lagom's task_init before
	 * pyxis's: the task is still in slurmstepd's namespace, the files
	 * cannot be checked, the plan goes, even with every file there */
	assert_int_equal(mkdir(spool, 0700), 0);
	run_pyxis_task(&st, ns_host, false, "--container-image");
	assert_null(stub_getenv("NCCL_MIN_CTAS"));
	assert_null(stub_getenv("NCCL_TUNER_PLUGIN"));
	assert_string_equal(stub_getenv("NCCL_ALGO"), "tree");
	assert_string_equal(stub_getenv("NCCL_BUFFSIZE"), "1048576");
	assert_null(stub_getenv("NCCL_PROFILER_PLUGIN"));
	assert_null(stub_getenv("LAGOM_MEASURE_DIR"));
	assert_int_equal(stub_log_count("not in pyxis's container yet"), 1);
	assert_int_equal(stub_log_count("plan withheld on this task"), 1);
	lagom_container_task_forget(&st);
	/* the same through pyxis's variables, or --container-name */
	run_pyxis_task(&st, ns_host, false, "PYXIS_CONTAINER_IMAGE");
	assert_null(stub_getenv("NCCL_TUNER_PLUGIN"));
	lagom_container_task_forget(&st);
	run_pyxis_task(&st, ns_host, false, "--container-name");
	assert_null(stub_getenv("NCCL_TUNER_PLUGIN"));
	lagom_container_task_forget(&st);
	/* pyxis's line first: the task is in the container, checked there */
	run_pyxis_task(&st, ns_task, false, "PYXIS_CONTAINER_NAME");
	whole_plan();
	lagom_container_task_forget(&st);
	/* an empty PYXIS_CONTAINER_IMAGE asks for nothing */
	stub_reset(S_CTX_REMOTE);
	stub_setenv("PYXIS_CONTAINER_IMAGE", "");
	assert_int_equal(decided(), LAGOM_CONTAINER_NONE);
	assert_int_equal(rmdir(spool), 0);

	lagom_container_set_ns_path(NULL);
	unlink(ns_host);
	unlink(ns_task);
	unlink(tuner_path);
	unlink(prof_path);
	rmdir(ns_dir);
	stub_reset(S_CTX_REMOTE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(identity_bind_mounts),
		cmocka_unit_test(other_mounts_do_not),
		cmocka_unit_test(no_oci_config),
		cmocka_unit_test(decision_from_the_bundle),
		cmocka_unit_test(container_namespace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
