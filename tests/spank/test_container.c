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
	return st.container;
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
	assert_int_equal(st.container, LAGOM_CONTAINER_NONE);
	assert_false(lagom_container_withheld(&st));
	assert_int_equal(lagom_container_comment(&st, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");

	stub_setenv("SLURM_CONTAINER", bundle);
	write_config("{\"mounts\":[{\"destination\":\"/opt/lagom\",\"type\":"
		     "\"bind\",\"source\":\"/opt/lagom\"}]}");
	assert_int_equal(decided(), want_ok);
	write_config("{\"mounts\":[]}");
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
	st.container = LAGOM_CONTAINER_NO_TUNER;
	assert_true(lagom_container_withheld(&st));
	lagom_container_comment(&st, buf, sizeof(buf));
	assert_string_equal(buf,
			    " container: plan withheld (tuner not mounted)");
	st.container = LAGOM_CONTAINER_APPLIED;
	assert_false(lagom_container_withheld(&st));
	lagom_container_comment(&st, buf, sizeof(buf));
	assert_string_equal(buf, " container: plan applied");
	assert_int_equal(lagom_container_comment(&st, buf, 5), 4);
	assert_string_equal(buf, " con");
	snprintf(path, sizeof(path), "%s/config.json", bundle);
	unlink(path);
	rmdir(bundle);
	stub_reset(S_CTX_REMOTE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(identity_bind_mounts),
		cmocka_unit_test(other_mounts_do_not),
		cmocka_unit_test(no_oci_config),
		cmocka_unit_test(decision_from_the_bundle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
