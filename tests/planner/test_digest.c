/*
 * tests/planner/test_digest.c - the cluster digest (profile/digest.h) and
 * the planner's use of it: the entry format (golden), the same plan and
 * hardware with and without the digest, a stale entry read from its
 * profile, and an untrusted, corrupt or oversized digest refused with one
 * line while the plan is made from the profiles.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/lib/lagom_test.h"
#include "tests/lib/write_profile.h"
#include "planner/planner.h"
#include "profile/digest.h"
#include "profile/profile.h"

struct fx {
	char dir[64];
	char path[128]; /* the digest */
};

static const char *const nodes[] = { "gpu001", "gpu002", "gpu003", "slow001" };
#define NNODES (sizeof(nodes) / sizeof(nodes[0]))

/* A profile with every field the conversion reads, hbm per node. */
static struct lagom_profile *profile(const char *node, const char *gpu,
				     double hbm_Bps)
{
	struct lagom_profile *p = lagom_profile_create(node);
	struct lagom_profile_measurements *m;

	assert_non_null(p);
	m = &p->meas;
	snprintf(p->hostname, sizeof(p->hostname), "%s.example.org", node);
	snprintf(p->hw.cpu_model, sizeof(p->hw.cpu_model),
		 "AMD EPYC 9654 96-Core (r) 100%%");
	p->hw.cpu_cores = 192;
	p->hw.numa_nodes = 2;
	snprintf(p->hw.gpu_model, sizeof(p->hw.gpu_model), "%s", gpu);
	p->hw.gpu_count = 8;
	p->hw.gpu_sm_count = 132;
	p->hw.gpu_memory_bytes = 85899345920ull;
	p->hw.intra = LAGOM_INTRA_NVSWITCH;
	p->hw.nvlinks_per_gpu = 18;
	if (strcmp(node, "slow001") == 0) {
		/* format 1.1: the topology did not show the fabric */
		p->hw.intra = LAGOM_INTRA_DEFAULT;
		p->hw.nvlinks_per_gpu = 0;
	}
	p->hw.nic_count = 8;
	p->hw.nic_rdma = 1;
	p->hw.gpus_per_nic = 1;
	p->hw.nic_link_bw_Bps = 50e9;
	m->gemm_flops[LAGOM_PREC_BF16] = (struct lagom_quantity){
		700.25e12, LAGOM_SOURCE_MEASURED
	};
	m->gemm_flops[LAGOM_PREC_FP32] = (struct lagom_quantity){
		60e12, LAGOM_SOURCE_TABLE
	};
	m->hbm_bw_Bps = (struct lagom_quantity){ hbm_Bps,
						 LAGOM_SOURCE_MEASURED };
	m->intra_bw_Bps = (struct lagom_quantity){ 370.1e9,
						   LAGOM_SOURCE_MEASURED };
	m->nic_bw_Bps = (struct lagom_quantity){ 48.3e9,
						 LAGOM_SOURCE_MEASURED };
	m->contention_source = LAGOM_SOURCE_MEASURED;
	m->contention_precision = LAGOM_PREC_BF16;
	m->n_contention = 3;
	m->contention[0] = (struct lagom_contention_point){ 1, 65536, 1.004 };
	m->contention[1] = (struct lagom_contention_point){ 8, 131072, 1.031 };
	m->contention[2] = (struct lagom_contention_point){ 32, 524288,
							    1.1234567 };
	snprintf(p->prov.lagom_version, sizeof(p->prov.lagom_version), "0.1.0");
	/* the oldest NCCL of the step is the planner's (NCCL_CTA_POLICY) */
	snprintf(p->prov.nccl_version, sizeof(p->prov.nccl_version), "%s",
		 strcmp(node, "slow001") == 0 ? "2.27.3" : "2.28.9");
	p->prov.created_unix_s = 1700000000;
	return p;
}

static void write_profile(const char *dir, const char *node, const char *gpu,
			  double hbm_Bps)
{
	lagom_test_profile_save(dir, profile(node, gpu, hbm_Bps));
}

static void sync_digest(const struct fx *f)
{
	struct lagom_trust trust = { .owner_uid = getuid() };
	struct lagom_digest_sync_report rep;
	struct lagom_error err = { 0 };

	if (lagom_digest_sync(f->dir, &trust, 5, &rep, &err) != 0)
		fail_msg("sync: %s", err.text);
	assert_int_equal(rep.nodes, NNODES);
}

static int setup(void **state)
{
	static struct fx f;

	snprintf(f.dir, sizeof(f.dir), "/tmp/lagom-digest-XXXXXX");
	if (!mkdtemp(f.dir) || chmod(f.dir, 0755) < 0)
		return -1;
	snprintf(f.path, sizeof(f.path), "%s/%s", f.dir, LAGOM_DIGEST_FILE);
	write_profile(f.dir, "gpu001", "H100-SXM", 3000e9);
	write_profile(f.dir, "gpu002", "H100-SXM", 3000e9);
	write_profile(f.dir, "gpu003", "H100-SXM", 2900.5e9);
	write_profile(f.dir, "slow001", "A100-SXM", 1900e9);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char path[160];

	for (size_t i = 0; i < NNODES; i++) {
		snprintf(path, sizeof(path), "%s/%s.json", f->dir, nodes[i]);
		unlink(path);
	}
	unlink(f->path);
	snprintf(path, sizeof(path), "%s/%s", f->dir, LAGOM_DIGEST_LOCK_FILE);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", f->dir, LAGOM_DIGEST_DIR);
	rmdir(path);
	rmdir(f->dir);
	return 0;
}

struct outcome {
	int rc;
	char plan_id[17];
	char *plan_text;
	struct lagom_hw hw;
	size_t from_digest;
	unsigned nccl_version;
	char notice[512];
	char err[LAGOM_ERROR_TEXT_MAX];
};

static void plan(const struct fx *f, struct outcome *o)
{
	struct lagom_planner_input in = {
		.profile_dir = f->dir,
		.enforce_trust = true,
		.trusted_uid = getuid(),
		.node_names = nodes,
		.node_count = NNODES,
		.ranks_per_node = 8,
		.workload_name = "llama-3.1-8b:fsdp",
		.job_id = 7,
	};
	struct lagom_planner_result *res = NULL;
	struct lagom_planner_inputs g;
	struct lagom_error err = { 0 };

	memset(o, 0, sizeof(*o));
	o->rc = lagom_planner_gather(&in, &g, &err);
	if (o->rc == 0) {
		o->from_digest = g.digest_nodes;
		lagom_planner_inputs_release(&g);
		o->rc = lagom_planner_run(&in, &res, &err);
	}
	snprintf(o->err, sizeof(o->err), "%s", err.text);
	if (o->rc != 0)
		return;
	memcpy(o->plan_id, res->plan_id, sizeof(o->plan_id));
	o->plan_text = strdup(res->plan_text);
	o->hw = *res->hw;
	o->nccl_version = res->nccl_version;
	snprintf(o->notice, sizeof(o->notice), "%s",
		 res->notice ? res->notice : "");
	lagom_planner_result_destroy(res);
}

static void assert_same_plan(const struct outcome *a, const struct outcome *b)
{
	assert_int_equal(a->rc, 0);
	assert_int_equal(b->rc, 0);
	assert_string_equal(a->plan_id, b->plan_id);
	assert_string_equal(a->plan_text, b->plan_text);
	assert_memory_equal(&a->hw, &b->hw, sizeof(a->hw));
	assert_int_equal(a->nccl_version, b->nccl_version);
}

/* The entry's text is the format: a change here is a format change
 * (doc/profile-format.md, LAGOM_DIGEST_VERSION). */
static void test_entry_golden(void **state)
{
	struct lagom_profile *p = profile("gpu001", "H100-SXM", 3000e9);
	struct stat st = { .st_ino = 42, .st_size = 2332 };
	struct lagom_error err = { 0 };
	char golden[4096], *line = NULL;
	char path[512];
	FILE *g;
	size_t n;

	(void)state;
	st.st_mtim.tv_sec = 1700000000;
	st.st_mtim.tv_nsec = 123456789;
	st.st_ctim.tv_sec = 1700000001;
	st.st_ctim.tv_nsec = 5;
	assert_int_equal(lagom_digest_format_entry(p, &st, &line, &err), 0);
	snprintf(path, sizeof(path), "%s/../profile/digest/entry.golden",
		 getenv("LAGOM_FIXTURES") ? getenv("LAGOM_FIXTURES")
					  : "tests/fixtures");
	g = fopen(path, "r");
	if (!g)
		fail_msg("cannot read %s", path);
	n = fread(golden, 1, sizeof(golden) - 1, g);
	fclose(g);
	golden[n] = '\0';
	golden[strcspn(golden, "\n")] = '\0';
	assert_string_equal(line, golden);
	free(line);
	lagom_profile_destroy(p);
}

/* Every node from the digest, the same hardware and plan as without. */
static void test_same_plan(void **state)
{
	struct fx *f = *state;
	struct outcome without, with;

	unlink(f->path);
	plan(f, &without);
	assert_int_equal(without.from_digest, 0);
	sync_digest(f);
	plan(f, &with);
	assert_int_equal(with.from_digest, NNODES);
	assert_string_equal(with.notice, "");
	assert_same_plan(&without, &with);
	assert_int_equal(with.nccl_version, 22703); /* slow001's */
	free(without.plan_text);
	free(with.plan_text);
}

/* A profile replaced after the digest: that node is read from its file,
 * and the plan is the one its new profile gives. */
static void test_stale_entry(void **state)
{
	struct fx *f = *state;
	struct outcome with, without;

	sync_digest(f);
	write_profile(f->dir, "gpu002", "H100-SXM", 1500e9);
	plan(f, &with);
	assert_int_equal(with.from_digest, NNODES - 1);
	unlink(f->path);
	plan(f, &without);
	assert_same_plan(&without, &with);
	assert_true(with.hw.gpu.hbm_Bps <= 1500e9);
	/* the next sync takes the new profile in */
	free(with.plan_text);
	sync_digest(f);
	plan(f, &with);
	assert_int_equal(with.from_digest, NNODES);
	free(without.plan_text);
	free(with.plan_text);
	write_profile(f->dir, "gpu002", "H100-SXM", 3000e9);
}

/* gpu002's profile with another HBM rate written over the old bytes of
 * the same file (same inode, same size), its modification time put back:
 * only the change time shows it. */
static void rewrite_in_place(const struct fx *f, double hbm_Bps)
{
	struct lagom_profile *p = profile("gpu002", "H100-SXM", hbm_Bps);
	struct lagom_error err = { 0 };
	struct timespec times[2];
	struct stat before, after;
	char path[160], *text = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/gpu002.json", f->dir);
	assert_int_equal(lagom_profile_to_string(p, &text, &err), 0);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &before), 0);
	assert_int_equal((size_t)before.st_size, strlen(text));
	assert_int_equal(pwrite(fd, text, strlen(text), 0),
			 (ssize_t)strlen(text));
	times[0].tv_nsec = UTIME_OMIT;
	times[1] = before.st_mtim;
	assert_int_equal(futimens(fd, times), 0);
	assert_int_equal(fstat(fd, &after), 0);
	close(fd);
	assert_int_equal(after.st_ino, before.st_ino);
	assert_int_equal(after.st_size, before.st_size);
	assert_int_equal(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
	assert_int_equal(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
	free(text);
	lagom_profile_destroy(p);
}

/* Whether the digest of f, read as the planner reads it, is sealed. */
static bool sealed(const struct fx *f)
{
	struct lagom_trust trust = { .owner_uid = getuid() };
	struct lagom_digest *d = NULL;
	int dfd = lagom_profile_dir_open(f->dir, &trust, NULL);
	bool yes;

	assert_true(dfd >= 0);
	assert_int_equal(lagom_digest_read_at(dfd, f->dir, &trust, &d, NULL),
			 0);
	yes = lagom_digest_sealed(d);
	lagom_digest_destroy(d);
	close(dfd);
	return yes;
}

/* The seal: a digest just synced is sealed (no stat per node); anything
 * renamed, created or removed in the profile directory unseals it, and the
 * next sync seals it again. */
static void test_seal(void **state)
{
	struct fx *f = *state;
	char path[160];
	int fd;

	sync_digest(f);
	assert_true(sealed(f));
	snprintf(path, sizeof(path), "%s/unrelated", f->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_false(sealed(f));
	sync_digest(f);
	assert_true(sealed(f));
	unlink(path);
	assert_false(sealed(f));
	sync_digest(f);
	assert_true(sealed(f));
}

/* The herd's shortcut: a prolog whose profile a sync already listed
 * leaves without rebuilding; one whose profile came after the seal
 * rebuilds. */
static void test_sync_for(void **state)
{
	struct fx *f = *state;
	struct lagom_trust trust = { .owner_uid = getuid() };
	struct lagom_digest_sync_report rep;
	struct lagom_error err = { 0 };

	sync_digest(f);
	assert_int_equal(
		lagom_digest_sync_for(f->dir, &trust, "gpu001", 5, &rep, &err),
		0);
	assert_true(rep.already);
	assert_false(rep.written);
	usleep(20 * 1000);
	write_profile(f->dir, "gpu002", "H100-SXM", 2800e9);
	assert_false(sealed(f));
	assert_int_equal(
		lagom_digest_sync_for(f->dir, &trust, "gpu002", 5, &rep, &err),
		0);
	assert_false(rep.already);
	assert_true(rep.written);
	assert_int_equal(rep.read, 1);
	assert_true(sealed(f));
	assert_int_equal(
		lagom_digest_sync_for(f->dir, &trust, "gpu002", 5, &rep, &err),
		0);
	assert_true(rep.already);
	/* a node without a profile is never "in": a full sync */
	assert_int_equal(
		lagom_digest_sync_for(f->dir, &trust, "nosuch", 5, &rep, &err),
		0);
	assert_false(rep.already);
	write_profile(f->dir, "gpu002", "H100-SXM", 3000e9);
}

/*
 * A profile rewritten in place with its timestamp restored leaves the
 * profile directory alone (doc/profile-format.md "Cluster digest"): while
 * the digest is sealed, srun plans from its entry; once anything else
 * unseals it, the entry's stat shows the change (read from the file: the
 * plan the new profile gives); and the next sync takes it in.
 */
static void test_rewritten_in_place(void **state)
{
	struct fx *f = *state;
	struct outcome with, without;
	char path[160];
	int fd;

	sync_digest(f);
	plan(f, &without);
	usleep(20 * 1000); /* the change time moves on, however coarse */
	rewrite_in_place(f, 4000e9);
	assert_true(sealed(f));
	plan(f, &with);
	assert_int_equal(with.from_digest, NNODES);
	assert_same_plan(&without, &with);
	free(with.plan_text);
	free(without.plan_text);
	/* unsealed: the stat of each entry */
	snprintf(path, sizeof(path), "%s/unrelated", f->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	plan(f, &with);
	assert_int_equal(with.from_digest, NNODES - 1);
	unlink(f->path);
	plan(f, &without);
	assert_same_plan(&without, &with);
	free(with.plan_text);
	free(without.plan_text);
	/* the next sync (lagom-prolog --digest) takes it in, sealed */
	sync_digest(f);
	assert_true(sealed(f));
	plan(f, &with);
	assert_int_equal(with.from_digest, NNODES);
	unlink(f->path);
	plan(f, &without);
	assert_same_plan(&without, &with);
	free(with.plan_text);
	free(without.plan_text);
	write_profile(f->dir, "gpu002", "H100-SXM", 3000e9);
}

/* A profile removed after the digest: the same error as without. */
static void test_removed_profile(void **state)
{
	struct fx *f = *state;
	struct outcome with, without;
	char path[160];

	sync_digest(f);
	snprintf(path, sizeof(path), "%s/gpu003.json", f->dir);
	unlink(path);
	plan(f, &with);
	unlink(f->path);
	plan(f, &without);
	assert_int_equal(with.rc, -ENOENT);
	assert_int_equal(without.rc, -ENOENT);
	assert_string_equal(with.err, without.err);
	write_profile(f->dir, "gpu003", "H100-SXM", 2900.5e9);
}

/* A digest that is there but refused: one line, no "\n", and the plan of
 * the profiles. */
static void refused(struct fx *f, const char *expect)
{
	struct outcome with, without;
	char saved[sizeof(with.notice)];

	plan(f, &with);
	snprintf(saved, sizeof(saved), "%s", with.notice);
	assert_int_equal(with.from_digest, 0);
	if (!strstr(saved, expect) || strchr(saved, '\n') ||
	    !strstr(saved, "reading each node's profile instead"))
		fail_msg("notice \"%s\" does not say \"%s\"", saved, expect);
	unlink(f->path);
	plan(f, &without);
	assert_same_plan(&without, &with);
	free(without.plan_text);
	free(with.plan_text);
}

static void test_untrusted(void **state)
{
	struct fx *f = *state;
	char dir[160];

	sync_digest(f);
	assert_int_equal(chmod(f->path, 0666), 0);
	refused(f, "file digest is writable by group or others");
	sync_digest(f);
	unlink(f->path);
	assert_int_equal(symlink("/etc/hostname", f->path), 0);
	refused(f, "a symbolic link");
	unlink(f->path);
	sync_digest(f);
	snprintf(dir, sizeof(dir), "%s/%s", f->dir, LAGOM_DIGEST_DIR);
	assert_int_equal(chmod(dir, 0777), 0);
	refused(f, LAGOM_DIGEST_DIR " is writable by group or others");
	assert_int_equal(chmod(dir, 0755), 0);
}

/* Rewrite the digest with one change (the text from `from` on replaced
 * by to, or the file cut to len bytes when to is NULL). */
/* The digest synced now, its text (malloc'd) and its length. */
static char *synced_text(struct fx *f, size_t *len)
{
	char *buf = malloc(1 << 20);
	FILE *d;

	sync_digest(f);
	assert_non_null(buf);
	d = fopen(f->path, "r");
	assert_non_null(d);
	*len = fread(buf, 1, (1 << 20) - 1, d);
	fclose(d);
	buf[*len] = '\0';
	return buf;
}

static void corrupt(struct fx *f, const char *from, const char *to, size_t cut)
{
	size_t n;
	char *buf = synced_text(f, &n), *at;
	FILE *d;

	unlink(f->path); /* replaced, not written through */
	d = fopen(f->path, "w");
	assert_non_null(d);
	if (to) {
		at = strstr(buf, from);
		assert_non_null(at);
		fprintf(d, "%.*s%s%s", (int)(at - buf), buf, to,
			at + strlen(from));
	} else {
		assert_true(cut < n);
		fwrite(buf, 1, n - cut, d);
	}
	fclose(d);
	chmod(f->path, 0644);
	free(buf);
}

static void test_corrupt(void **state)
{
	struct fx *f = *state;

	corrupt(f, "numa_nodes=2", "numa_nodes=3", 0);
	refused(f, "line 2: fingerprint: does not match the hardware");
	corrupt(f, "lagom-digest 4", "lagom-digest 3", 0);
	refused(f, "line 1: not \"lagom-digest 4 seal=...\"");
	corrupt(f, " seal=", " seal=x", 0);
	refused(f, "line 1: seal: expected INODE:SECONDS.NANOSECONDS or -");
	corrupt(f, " ctime=", " ctime=x", 0);
	refused(f, "line 2: ctime: expected SECONDS.NANOSECONDS");
	corrupt(f, " nccl_version=2.27.3", "", 0);
	refused(f, "line 5: nccl_version: missing");
	corrupt(f, "end 4", "end 5", 0);
	refused(f, "\"end N\" must close the digest with its entry count");
	corrupt(f, NULL, NULL, 40); /* the last 40 bytes gone */
	refused(f, "no newline at the end");
	corrupt(f, "node gpu002", "node gpu000", 0);
	refused(f, "line 3: node names not in strictly increasing order");
	corrupt(f, "AMD%20EPYC", "AMD%2", 0);
	refused(f, "bad %XX escape");
	corrupt(f, "hbm_bw_Bps=measured:", "hbm_bw_Bps=guessed:", 0);
	refused(f, "line 2: hbm_bw_Bps: expected - or SOURCE");
}

/* One line of the synced digest changed (the first `from` in the line
 * of node replaced by to), parsed from memory: the error it gives. */
static void line_refused(struct fx *f, const char *node, const char *from,
			 const char *to, const char *expect)
{
	size_t n;
	char *buf = synced_text(f, &n), *text = malloc(1 << 20), *line, *at;
	char head[64];
	struct lagom_digest *d = NULL;
	struct lagom_error err = { 0 };

	assert_non_null(text);
	snprintf(head, sizeof(head), "\nnode %s ", node);
	line = strstr(buf, head);
	assert_non_null(line);
	at = strstr(line + 1, from);
	assert_true(at && at < strchr(line + 1, '\n'));
	snprintf(text, 1 << 20, "%.*s%s%s", (int)(at - buf), buf, to,
		 at + strlen(from));
	assert_int_equal(lagom_digest_parse(text, strlen(text), &d, &err),
			 -EINVAL);
	assert_null(d);
	assert_string_equal(err.text, expect);
	free(buf);
	free(text);
}

/* Lines that share the previous line's machine part (gpu002, gpu003),
 * its whole hardware text (gpu002) or neither (slow001) are checked as
 * strictly as the first: each error names its own line and key. */
static void test_shared_parts(void **state)
{
	struct fx *f = *state;

	line_refused(f, "gpu002", " numa_nodes=2", " numa_nodes=3",
		     "line 3: fingerprint: does not match the hardware");
	line_refused(f, "gpu003", "hbm_bw_Bps=measured:", "hbm_bw_Bps=x:",
		     "line 4: hbm_bw_Bps: expected - or SOURCE:16 hex "
		     "digits of a value > 0");
	line_refused(f, "gpu003", " nccl_version=", " nccl_version=%",
		     "line 4: nccl_version: bad %XX escape");
	line_refused(f, "slow001", " gemm_fp32=", " gemmfp32=",
		     "line 5: gemm_fp32: expected here");
	line_refused(f, "slow001", " numa_nodes=2", " numa_nodes=",
		     "line 5: numa_nodes: not a number in range");
	line_refused(f, "gpu002", " nccl_version=2.28.9", "",
		     "line 3: nccl_version: missing");
}

static void test_huge(void **state)
{
	struct fx *f = *state;
	int fd;

	unlink(f->path);
	fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)LAGOM_DIGEST_MAX_BYTES + 1), 0);
	close(fd);
	refused(f, "67108865 bytes, over the 67108864 byte limit");
}

/* A writer waits for the lock another process holds, and gives up after
 * its wait with one line (the next sync takes its profile in). */
static void test_lock(void **state)
{
	struct fx *f = *state;
	struct lagom_trust trust = { .owner_uid = getuid() };
	struct lagom_error err = { 0 };
	int ready[2], status;
	char path[160], c;
	pid_t pid;

	sync_digest(f); /* creates the lock file */
	snprintf(path, sizeof(path), "%s/%s", f->dir, LAGOM_DIGEST_LOCK_FILE);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		int fd = open(path, O_RDWR);

		if (fd < 0 || fcntl(fd, F_SETLK, &fl) < 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		usleep(600 * 1000);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(lagom_digest_sync(f->dir, &trust, 0.1, NULL, &err),
			 -EAGAIN);
	assert_non_null(strstr(err.text, "another writer held the lock"));
	assert_int_equal(lagom_digest_sync(f->dir, &trust, 10, NULL, &err), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	close(ready[0]);
	close(ready[1]);
}

/* The digest file of f, parsed: how many entries (-1: refused). */
static long digest_entries(const struct fx *f, char *why, size_t size)
{
	static char text[1 << 16];
	struct lagom_digest *d = NULL;
	struct lagom_error err = { 0 };
	FILE *in = fopen(f->path, "r");
	size_t n;
	long count;

	assert_non_null(in);
	n = fread(text, 1, sizeof(text), in);
	fclose(in);
	assert_true(n < sizeof(text));
	if (lagom_digest_parse(text, n, &d, &err) != 0) {
		snprintf(why, size, "%s", err.text);
		return -1;
	}
	count = (long)lagom_digest_count(d);
	lagom_digest_destroy(d);
	return count;
}

/* A profile at every bound its parser allows makes an entry the digest's
 * reader takes (the same bounds). */
static void test_bounds(void **state)
{
	struct fx *f = *state;
	struct lagom_profile *p = profile("gpu001", "H100-SXM", 3000e9);
	struct lagom_error err = { 0 };
	char why[LAGOM_ERROR_TEXT_MAX] = "";

	p->hw.cpu_cores = LAGOM_PROFILE_CPU_CORES_MAX;
	p->hw.numa_nodes = LAGOM_PROFILE_NUMA_NODES_MAX;
	p->hw.gpu_count = LAGOM_PROFILE_GPU_COUNT_MAX;
	p->hw.gpu_sm_count = LAGOM_PROFILE_GPU_SM_COUNT_MAX;
	p->hw.gpu_memory_bytes = (uint64_t)LAGOM_PROFILE_GPU_MEMORY_MAX;
	p->hw.nvlinks_per_gpu = LAGOM_PROFILE_LINK_COUNT_MAX;
	p->hw.nvlink_peers = LAGOM_PROFILE_LINK_COUNT_MAX;
	p->hw.pcie_gen = LAGOM_PROFILE_PCIE_GEN_MAX;
	p->hw.pcie_lanes = LAGOM_PROFILE_PCIE_LANES_MAX;
	p->hw.gpus_per_pcie_switch = LAGOM_PROFILE_LINK_COUNT_MAX;
	p->hw.nic_count = LAGOM_PROFILE_LINK_COUNT_MAX;
	p->hw.gpus_per_nic = LAGOM_PROFILE_LINK_COUNT_MAX;
	p->hw.nic_transport = LAGOM_NET_COUNT - 1;
	p->hw.nvl_domain_nodes = LAGOM_PROFILE_NVL_DOMAIN_NODES_MAX;
	if (lagom_profile_write_atomic(f->dir, p, &err) != 0)
		fail_msg("writing gpu001: %s", err.text);
	lagom_profile_destroy(p);
	sync_digest(f); /* every profile read: gpu001's is valid */
	if (digest_entries(f, why, sizeof(why)) != (long)NNODES)
		fail_msg("the digest's reader refused it: %s", why);
	write_profile(f->dir, "gpu001", "H100-SXM", 3000e9);
}

/* A digest its readers would refuse for its size is written empty, with
 * one line; srun then plans from the profiles, the same plan. */
static void test_too_big(void **state)
{
	struct fx *f = *state;
	struct lagom_trust trust = { .owner_uid = getuid() };
	struct lagom_digest_sync_report rep;
	struct lagom_error err = { 0 };
	struct outcome with, without;
	char why[LAGOM_ERROR_TEXT_MAX] = "";

	unlink(f->path);
	assert_int_equal(
		lagom_digest_sync_max(f->dir, &trust, 5, 2000, &rep, &err),
		-EFBIG);
	assert_non_null(strstr(err.text, LAGOM_DIGEST_FILE ": 4 nodes need "));
	assert_non_null(strstr(err.text, "over the 2000 byte limit: written "
					 "empty, srun reads each node's "
					 "profile"));
	assert_null(strchr(err.text, '\n'));
	assert_true(rep.written);
	assert_int_equal(digest_entries(f, why, sizeof(why)), 0);
	plan(f, &with);
	assert_int_equal(with.from_digest, 0);
	assert_string_equal(with.notice, "");
	unlink(f->path);
	plan(f, &without);
	assert_same_plan(&without, &with);
	free(without.plan_text);
	free(with.plan_text);
	/* within the limit, the next sync fills it again */
	sync_digest(f);
	assert_int_equal(digest_entries(f, why, sizeof(why)), (long)NNODES);
}

/* Parsing alone: errors are one line naming the line. */
static void test_parse(void **state)
{
	static const char empty[] = "lagom-digest 4 seal=-\nend 0\n";
	static const char bad[] = "lagom-digest 4 seal=-\nnode x\nend 1\n";
	struct lagom_digest *d = NULL;
	struct lagom_error err = { 0 };

	(void)state;
	assert_int_equal(lagom_digest_parse(empty, strlen(empty), &d, &err), 0);
	assert_int_equal(lagom_digest_count(d), 0);
	lagom_digest_destroy(d);
	assert_int_equal(lagom_digest_parse("{}", 2, &d, &err),
			 -EPROTONOSUPPORT);
	assert_string_equal(err.text, "not a lagom cluster digest");
	assert_int_equal(lagom_digest_parse(bad, strlen(bad), &d, &err),
			 -EINVAL);
	assert_string_equal(err.text, "line 2: ino: missing");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_golden),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_same_plan),
		cmocka_unit_test(test_stale_entry),
		cmocka_unit_test(test_seal),
		cmocka_unit_test(test_sync_for),
		cmocka_unit_test(test_rewritten_in_place),
		cmocka_unit_test(test_removed_profile),
		cmocka_unit_test(test_untrusted),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_shared_parts),
		cmocka_unit_test(test_huge),
		cmocka_unit_test(test_lock),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_too_big),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
