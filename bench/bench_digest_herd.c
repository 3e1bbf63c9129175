/*
 * bench/bench_digest_herd.c - a re-profiling herd on one cluster digest
 * (profile/digest.h): NODES profiles in a trusted directory with their
 * digest, then WRITERS processes at once each replace their node's profile
 * (another measured HBM rate, as a re-profile after an upgrade gives) and
 * bring the digest up to date as lagom-prolog does, with its lock wait
 * (10 s).  Meanwhile a reader process reads the digest as srun does, over
 * and over, and checks each read: never torn (the strict reader accepts
 * it), and, when sealed (no stat per node), never stale: for every
 * writer's node the digest's hardware is the one its profile gives, checked
 * while the directory kept the seal.
 *
 * Prints the herd's wall time, each writer's sync time (min, median, max),
 * how many syncs rebuilt the digest, found their node in, or gave up, the
 * reader's counts, and whether the final digest is sealed and holds every
 * new profile.  A benchmark: it fails only when a read was torn or stale,
 * or a profile is missing at the end.
 *
 *   bench/bench_digest_herd [PROFILE.json [NODES [WRITERS]]]
 *   default: tests/fixtures/../profile/valid/a100-full.json 16384 1024
 *   LAGOM_HERD_PLAIN=1: every writer runs the full sync (lagom_digest_sync,
 *   the behaviour before lagom_digest_sync_for), for comparison.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"
#include "profile/digest.h"
#include "profile/profile.h"

#define LOCK_WAIT_S 10.0

struct result {
	double sync_ms;
	int rc;
	int written, already;
};

struct reader_counts {
	long reads, sealed, torn, stale, checked;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Node i's profile: the fixture, its name and its HBM rate (version v). */
static int write_profile(const char *dir, const char *fixture, unsigned i,
			 unsigned v)
{
	const char *at = strstr(fixture, "\"gpu001\"");
	const char *hbm = strstr(fixture, "1700000000000.0");
	char path[4096], tmp[4096], name[16];
	FILE *f;

	if (!at || !hbm || hbm < at)
		return -1;
	snprintf(name, sizeof(name), "gpu%05u", i);
	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	if (!(f = fopen(tmp, "w")))
		return -1;
	fprintf(f, "%.*s\"%s\"%.*s%.1f%s", (int)(at - fixture), fixture, name,
		(int)(hbm - at - strlen("\"gpu001\"")),
		at + strlen("\"gpu001\""), 1700000000000.0 - v * 1e9,
		hbm + strlen("1700000000000.0"));
	if (fclose(f) != 0 || chmod(tmp, 0644) < 0)
		return -1;
	return rename(tmp, path); /* as every profile writer: a new inode */
}

/* The hardware of node from its profile, as srun reads it without
 * a digest. */
static int profile_hw(int dfd, const char *dir, const char *node,
		      const struct lagom_trust *t, struct lagom_hw *hw)
{
	struct lagom_profile *p = NULL;
	int rc = lagom_profile_load_node_at(dfd, dir, node, t, &p, NULL, NULL);

	if (rc == 0)
		rc = lagom_profile_to_hw(p, hw, NULL);
	lagom_profile_destroy(p);
	return rc;
}

static bool same_ctime(const struct stat *a, const struct stat *b)
{
	return a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* One read as srun reads, checked. */
static void read_once(const char *dir, const struct lagom_trust *t,
		      unsigned writers, struct reader_counts *c)
{
	struct lagom_digest *d = NULL;
	struct lagom_error err = { 0 };
	struct stat before, after;
	int dfd = lagom_profile_dir_open(dir, t, NULL), rc;
	bool stale = false;

	if (dfd < 0)
		return;
	rc = lagom_digest_read_at(dfd, dir, t, &d, &err);
	c->reads++;
	if (rc < 0 && rc != -ENOENT) {
		c->torn++;
		fprintf(stderr, "bench_digest_herd: torn read: %s\n", err.text);
	}
	if (rc == 0 && lagom_digest_sealed(d) && fstat(dfd, &before) == 0) {
		c->sealed++;
		for (unsigned i = 0; i < writers; i++) {
			struct lagom_hw a, b;
			char node[16];

			snprintf(node, sizeof(node), "gpu%05u", i);
			if (lagom_digest_node_hw(d, dfd, t, node, &a) != 1 ||
			    profile_hw(dfd, dir, node, t, &b) != 0 ||
			    memcmp(&a, &b, sizeof(a)) != 0)
				stale = true;
		}
		/* a profile renamed during the check unseals: not counted */
		if (fstat(dfd, &after) == 0 && same_ctime(&before, &after) &&
		    lagom_digest_seal_matches(
			    &(struct lagom_digest_seal){
				    .valid = true,
				    .ino = (uint64_t)before.st_ino,
				    .ctime_s = (int64_t)before.st_ctim.tv_sec,
				    .ctime_ns = (long)before.st_ctim.tv_nsec },
			    &after)) {
			c->checked++;
			c->stale += stale;
		}
	}
	lagom_digest_destroy(d);
	close(dfd);
}

static void reader(const char *dir, const struct lagom_trust *t,
		   unsigned writers, int stop_fd, int out_fd)
{
	struct reader_counts c = { 0 };
	char x;

	fcntl(stop_fd, F_SETFL, O_NONBLOCK);
	while (read(stop_fd, &x, 1) < 0 && errno == EAGAIN)
		read_once(dir, t, writers, &c);
	if (write(out_fd, &c, sizeof(c)) != (ssize_t)sizeof(c))
		_exit(1);
	_exit(0);
}

static void writer(const char *dir, const char *fixture,
		   const struct lagom_trust *t, unsigned i, int go_fd,
		   int out_fd, bool plain)
{
	struct lagom_digest_sync_report rep = { 0 };
	struct result r = { 0 };
	char node[16], x;
	double t0;

	if (read(go_fd, &x, 1) != 1)
		_exit(1);
	snprintf(node, sizeof(node), "gpu%05u", i);
	r.rc = write_profile(dir, fixture, i, 1 + i);
	t0 = now_ms();
	if (r.rc == 0)
		r.rc = plain ? lagom_digest_sync(dir, t, LOCK_WAIT_S, &rep,
						 NULL)
			     : lagom_digest_sync_for(dir, t, node, LOCK_WAIT_S,
						     &rep, NULL);
	r.sync_ms = now_ms() - t0;
	r.written = rep.written;
	r.already = rep.already;
	if (write(out_fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(1);
	_exit(0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Every writer's node has its new profile in the final digest. */
static unsigned final_check(const char *dir, const struct lagom_trust *t,
			    unsigned writers, bool *sealed)
{
	struct lagom_digest *d = NULL;
	unsigned ok = 0;
	int dfd = lagom_profile_dir_open(dir, t, NULL);

	*sealed = false;
	if (dfd < 0 || lagom_digest_read_at(dfd, dir, t, &d, NULL) < 0) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	*sealed = lagom_digest_sealed(d);
	for (unsigned i = 0; i < writers; i++) {
		struct lagom_hw a, b;
		char node[16];

		snprintf(node, sizeof(node), "gpu%05u", i);
		if (lagom_digest_node_hw(d, dfd, t, node, &a) == 1 &&
		    profile_hw(dfd, dir, node, t, &b) == 0 &&
		    memcmp(&a, &b, sizeof(a)) == 0)
			ok++;
	}
	lagom_digest_destroy(d);
	close(dfd);
	return ok;
}

static void cleanup(const char *dir, unsigned nodes)
{
	char path[4096];

	for (unsigned i = 0; i < nodes; i++) {
		snprintf(path, sizeof(path), "%s/gpu%05u.json", dir, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, LAGOM_DIGEST_FILE);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, LAGOM_DIGEST_DIR);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/%s", dir, LAGOM_DIGEST_LOCK_FILE);
	unlink(path);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	const char *plain_env = getenv("LAGOM_HERD_PLAIN");
	bool plain = plain_env && strcmp(plain_env, "1") == 0;
	unsigned nodes = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10)
				  : 16384;
	unsigned writers = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10)
				    : 1024;
	struct lagom_trust trust = { .owner_uid = getuid() };
	struct lagom_digest_sync_report rep;
	struct reader_counts rc = { 0 };
	char tmpl[] = "/tmp/lagom-bench-herd.XXXXXX", fx_path[4096];
	int go[2], res[2], stop[2], rout[2], bad = 0;
	unsigned written = 0, already = 0, failed = 0, got = 0, ok;
	char *fixture = NULL, *dir;
	/* the fixture, read whole (the invoker names it: any owner, a link
	 * followed) with common/io.h's one reader */
	const struct lagom_read_rule fixture_rule = { .max_bytes = 64 << 20,
						      .owner = LAGOM_OWNER_ANY,
						      .follow = true };
	size_t fixture_len = 0;
	double t0, herd_ms, *lat;
	pid_t rpid;
	bool sealed;

	if (argc > 1) {
		snprintf(fx_path, sizeof(fx_path), "%s", argv[1]);
	} else {
		const char *fx = getenv("LAGOM_FIXTURES");

		snprintf(fx_path, sizeof(fx_path),
			 "%s/../profile/valid/a100-full.json",
			 fx ? fx : "tests/fixtures");
	}
	if (nodes == 0 || nodes > 65536 || writers == 0 || writers > nodes ||
	    lagom_read_file_alloc_at(AT_FDCWD, fx_path, &fixture_rule, &fixture,
				     &fixture_len, NULL, NULL) != 0) {
		fprintf(stderr, "usage: bench_digest_herd [PROFILE.json "
				"[NODES [WRITERS]]] (WRITERS <= NODES <= "
				"65536)\n");
		return 2;
	}
	if (!(dir = mkdtemp(tmpl)) || chmod(dir, 0755) < 0) {
		perror("bench_digest_herd: mkdtemp");
		return 1;
	}
	for (unsigned i = 0; i < nodes; i++)
		if (write_profile(dir, fixture, i, 0) < 0) {
			perror("bench_digest_herd: profile");
			cleanup(dir, nodes);
			return 1;
		}
	t0 = now_ms();
	if (lagom_digest_sync(dir, &trust, LOCK_WAIT_S, &rep, NULL) < 0) {
		fprintf(stderr, "bench_digest_herd: first sync failed\n");
		cleanup(dir, nodes);
		return 1;
	}
	printf("bench_digest_herd: %u profiles in %s; one full sync: %.0f ms\n",
	       nodes, dir, now_ms() - t0);
	printf("  %u writers at once, %s, lock wait %.0f s:\n", writers,
	       plain ? "each a full sync (LAGOM_HERD_PLAIN)"
		     : "lagom_digest_sync_for (as lagom-prolog)",
	       LOCK_WAIT_S);
	fflush(stdout);
	if (pipe(go) < 0 || pipe(res) < 0 || pipe(stop) < 0 || pipe(rout) < 0)
		return 1;
	if ((rpid = fork()) == 0) {
		close(stop[1]);
		close(res[1]); /* the writers' results end when they do */
		close(go[1]);
		reader(dir, &trust, writers, stop[0], rout[1]);
	}
	for (unsigned i = 0; i < writers; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(go[1]);
			writer(dir, fixture, &trust, i, go[0], res[1], plain);
		}
		if (pid < 0) {
			perror("bench_digest_herd: fork");
			writers = i;
			break;
		}
	}
	close(go[0]);
	close(res[1]);
	lat = calloc(writers, sizeof(*lat));
	t0 = now_ms();
	for (unsigned i = 0; i < writers; i++) /* all at once */
		if (write(go[1], "g", 1) != 1)
			return 1;
	for (struct result r;
	     got < writers && read(res[0], &r, sizeof(r)) == (ssize_t)sizeof(r);
	     got++) {
		lat[got] = r.sync_ms;
		written += r.written;
		already += r.already;
		failed += r.rc < 0;
	}
	herd_ms = now_ms() - t0;
	close(stop[1]);
	if (read(rout[0], &rc, sizeof(rc)) != (ssize_t)sizeof(rc))
		bad = 1;
	waitpid(rpid, NULL, 0);
	while (wait(NULL) > 0)
		;
	qsort(lat, got, sizeof(*lat), cmp_double);
	printf("    herd: %.0f ms wall for %u writers; sync time per writer "
	       "min %.0f / median %.0f / max %.0f ms\n",
	       herd_ms, got, got ? lat[0] : 0, got ? lat[got / 2] : 0,
	       got ? lat[got - 1] : 0);
	printf("    syncs: %u rebuilt the digest, %u found their node in, "
	       "%u gave up (lock wait) or failed, %u died\n",
	       written, already, failed, writers - got);
	printf("    srun's reads meanwhile: %ld, %ld sealed (%ld checked "
	       "against %u profiles), %ld torn, %ld stale\n",
	       rc.reads, rc.sealed, rc.checked, writers, rc.torn, rc.stale);
	ok = final_check(dir, &trust, writers, &sealed);
	printf("    after: the digest holds %u of %u new profiles, %s\n", ok,
	       writers,
	       sealed ? "sealed" : "not sealed (srun stats each node)");
	if (failed) { /* the next sync by anyone takes them in */
		t0 = now_ms();
		lagom_digest_sync(dir, &trust, LOCK_WAIT_S, &rep, NULL);
		ok = final_check(dir, &trust, writers, &sealed);
		printf("    one more sync (%.0f ms): %u of %u, %s\n",
		       now_ms() - t0, ok, writers,
		       sealed ? "sealed" : "not sealed");
	}
	if (rc.torn || rc.stale || ok != writers)
		bad = 1;
	cleanup(dir, nodes);
	free(lat);
	free(fixture);
	return bad;
}
