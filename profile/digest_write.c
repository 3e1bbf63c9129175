/*
 * profile/digest_write.c - lagom_digest_sync(): the prologs keep the
 * cluster digest up to date.  See digest.h.
 *
 * Every writer, under one fcntl lock, rebuilds the whole digest from the
 * directory: an entry whose profile has not changed is copied from the old
 * digest, a new or changed profile is read.  So a writer that could not get
 * the lock in time loses nothing for good: the next sync, by any node,
 * picks its profile up; and when many prologs write at once, the first to
 * get the lock takes in every profile written so far and the others find
 * nothing left to do.
 *
 * The seal (digest.h): under the lock, the writer reads the profile
 * directory's change time, touches the lock file until the file system's
 * clock has passed it (a change in the same clock tick would not show),
 * and only then lists the directory.  The digest goes into its own
 * directory, so writing it leaves the profile directory's seal intact.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"
#include "profile/digest.h"
#include "profile/profile_int.h"

/* The lock, waiting at most wait_s: a descriptor, or a negative errno. */
static int take_lock(int dfd, double wait_s, struct lagom_error *err)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	long tries = (long)(wait_s / 0.02) + 1;
	int rc, fd = lagom_open_at(dfd, LAGOM_DIGEST_LOCK_FILE,
				   O_RDWR | O_CREAT, 0600, NULL);

	if (fd < 0)
		return lagom_errprintf(
			err, -fd, "lock %s: %s", LAGOM_DIGEST_LOCK_FILE,
			fd == -EINVAL ? "not a regular file" : strerror(-fd));
	for (long i = 0; i < tries; i++) {
		if (fcntl(fd, F_SETLK, &fl) == 0)
			return fd;
		if (errno != EACCES && errno != EAGAIN && errno != EINTR)
			break;
		nanosleep(&pause, NULL);
	}
	if (errno == EACCES || errno == EAGAIN || errno == EINTR)
		rc = lagom_errprintf(err, EAGAIN,
				     "another writer held the lock for %.1f s",
				     wait_s);
	else
		rc = lagom_errprintf(err, errno, "lock %s: %s",
				     LAGOM_DIGEST_LOCK_FILE, strerror(errno));
	close(fd);
	return rc; /* err may be NULL (digest.h) */
}

/* The directory of the digest, made when missing (mode 0755 whatever the
 * umask: srun reads it as the user), then opened as its readers open it. */
static int digest_dir(int dfd, const char *dir, const struct lagom_trust *trust,
		      struct lagom_error *err)
{
	char path[4096];
	struct stat st;
	int fd;

	if (mkdirat(dfd, LAGOM_DIGEST_DIR, 0755) < 0 && errno != EEXIST)
		return lagom_errprintf(err, errno, "%s: %s", LAGOM_DIGEST_DIR,
				       strerror(errno));
	fd = openat(dfd, LAGOM_DIGEST_DIR,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 ||
	    ((st.st_mode & 07777) != 0755 && fchmod(fd, 0755) < 0)) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return lagom_errprintf(err, e, "%s: %s", LAGOM_DIGEST_DIR,
				       strerror(e));
	}
	if (!trust)
		return fd;
	close(fd);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
			     LAGOM_DIGEST_DIR) >= sizeof(path))
		return lagom_errprintf(err, ENAMETOOLONG, "path too long");
	return lagom_profile_dir_open(path, trust, err);
}

static bool later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/*
 * The seal of the profile directory dfd: its inode and change time, once
 * the file system's clock (the lock file's change time, touched) is past
 * that time, so that whatever changes the directory after the listing
 * begins gives it another change time.  Waits at most about 0.2 s; no
 * seal (valid false) when the clock never moved on.
 */
static struct lagom_digest_seal measure_seal(int dfd, int lock)
{
	struct timespec pause = { 0, 1000 * 1000 };
	struct stat d, l;

	for (int i = 0; i < 200; i++) {
		if (fstat(dfd, &d) < 0 || futimens(lock, NULL) < 0 ||
		    fstat(lock, &l) < 0)
			break;
		if (later(&l.st_ctim, &d.st_ctim))
			return (struct lagom_digest_seal){
				.valid = true,
				.ino = (uint64_t)d.st_ino,
				.ctime_s = (int64_t)d.st_ctim.tv_sec,
				.ctime_ns = (long)d.st_ctim.tv_nsec,
			};
		nanosleep(&pause, NULL);
	}
	return (struct lagom_digest_seal){ 0 };
}

struct line {
	char *name; /* the node */
	char *text; /* without the newline */
	size_t len;
};

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->name,
		      ((const struct line *)b)->name);
}

/* The node of a directory entry "<node>.json", or 0. */
static int node_of(const char *file, char *node, size_t size)
{
	size_t n = strlen(file);

	if (n <= 5 || n - 5 >= size || strcmp(file + n - 5, ".json") != 0)
		return 0;
	memcpy(node, file, n - 5);
	node[n - 5] = '\0';
	return lagom_profile_node_name_ok(node);
}

/* The entry of one profile: kept from old, else read. 1 added, 0 skipped,
 * -ENOMEM. */
static int one_entry(int dfd, const char *dir, const char *node,
		     const struct lagom_trust *trust,
		     const struct lagom_digest *old, struct line *out,
		     struct lagom_digest_sync_report *rep)
{
	char base[LAGOM_PROFILE_NAME_MAX + 8];
	struct lagom_profile *p = NULL;
	struct stat st;
	const char *kept;
	size_t len;
	int rc;

	snprintf(base, sizeof(base), "%s.json", node);
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    lagom_profile_trust_stat(&st, trust, base, NULL) < 0) {
		rep->skipped++;
		return 0;
	}
	if (!(out->name = strdup(node)))
		return -ENOMEM;
	if (lagom_digest_entry_line(old, node, &st, &kept, &len)) {
		if (!(out->text = strndup(kept, len)))
			return -ENOMEM;
		out->len = len;
		rep->kept++;
		return 1;
	}
	/* the stat that goes into the entry is the one of the file read */
	rc = lagom_profile_load_node_at(dfd, dir, node, trust, &p, &st, NULL);
	if (rc == 0)
		rc = lagom_digest_format_entry(p, &st, &out->text, NULL);
	lagom_profile_destroy(p);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		free(out->name);
		out->name = NULL;
		rep->skipped++;
		return 0;
	}
	out->len = strlen(out->text);
	rep->read++;
	return 1;
}

/* Every "<node>.json" of the directory, as sorted lines. */
static int collect(int dfd, const char *dir, const struct lagom_trust *trust,
		   const struct lagom_digest *old, struct line **out, size_t *n,
		   struct lagom_digest_sync_report *rep,
		   struct lagom_error *err)
{
	char node[LAGOM_PROFILE_NAME_MAX + 1];
	struct line *lines = NULL;
	size_t cap = 0;
	struct dirent *e;
	int fd = dup(dfd), rc = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	*n = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return lagom_errprintf(err, errno, "cannot list %s: %s", dir,
				       strerror(errno));
	}
	while (rc >= 0 && (e = readdir(d)) != NULL) {
		if (!node_of(e->d_name, node, sizeof(node)))
			continue;
		if (*n == LAGOM_DIGEST_MAX_NODES) {
			rep->skipped++;
			continue;
		}
		if (*n == cap) {
			struct line *nl;

			cap = cap ? cap * 2 : 64;
			if (!(nl = realloc(lines, cap * sizeof(*lines)))) {
				rc = -ENOMEM;
				break;
			}
			lines = nl;
		}
		lines[*n] = (struct line){ 0 };
		rc = one_entry(dfd, dir, node, trust, old, &lines[*n], rep);
		if (rc != 0) /* added, or the half-made line is freed below */
			(*n)++;
	}
	closedir(d);
	if (rc < 0) {
		*out = lines;
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	qsort(lines, *n, sizeof(*lines), cmp_lines);
	*out = lines;
	return 0;
}

static void free_lines(struct line *lines, size_t n)
{
	for (size_t i = 0; lines && i < n; i++) {
		free(lines[i].name);
		free(lines[i].text);
	}
	free(lines);
}

/* The first line, with its newline, into buf (size at least 96). */
static size_t header(char *buf, size_t size,
		     const struct lagom_digest_seal *seal)
{
	if (!seal->valid)
		return (size_t)snprintf(buf, size, "%s %d seal=-\n",
					LAGOM_DIGEST_FORMAT,
					LAGOM_DIGEST_VERSION);
	return (size_t)snprintf(buf, size,
				"%s %d seal=%" PRIu64 ":%" PRId64 ".%09ld\n",
				LAGOM_DIGEST_FORMAT, LAGOM_DIGEST_VERSION,
				seal->ino, seal->ctime_s, seal->ctime_ns);
}

/* The length of the digest's text of n lines. */
static size_t rendered_len(const struct line *lines, size_t n,
			   const struct lagom_digest_seal *seal)
{
	char head[96];
	size_t len = header(head, sizeof(head), seal) +
		     (size_t)snprintf(NULL, 0, "end %zu\n", n);

	for (size_t i = 0; i < n; i++)
		len += lines[i].len + 1;
	return len;
}

/* The digest's text from sorted lines. */
static char *render(const struct line *lines, size_t n,
		    const struct lagom_digest_seal *seal, size_t *len)
{
	size_t size = rendered_len(lines, n, seal) + 1;
	char *text, *p;

	if (!(text = malloc(size)))
		return NULL;
	p = text + header(text, size, seal);
	for (size_t i = 0; i < n; i++) {
		memcpy(p, lines[i].text, lines[i].len);
		p += lines[i].len;
		*p++ = '\n';
	}
	p += sprintf(p, "end %zu\n", n);
	*len = (size_t)(p - text);
	return text;
}

/*
 * A digest over max_bytes would be refused by every reader: an empty one
 * replaces it instead (valid, and newer than the profiles), so srun reads
 * every node's profile, all alike, and the prologs do not rebuild it until
 * a profile changes.
 */
static int write_digest(int ddfd, const struct line *lines, size_t n,
			const struct lagom_digest_seal *seal, size_t max_bytes,
			struct lagom_digest_sync_report *rep,
			struct lagom_error *err)
{
	size_t want = rendered_len(lines, n, seal), len = 0;
	bool over = want > max_bytes;
	char *text = render(lines, over ? 0 : n, seal, &len);
	int rc;

	if (!text)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	rc = lagom_profile_replace_at(ddfd, LAGOM_DIGEST_NAME, text, len, err);
	rep->written = rc == 0;
	free(text);
	if (rc == 0 && over)
		rc = lagom_errprintf(err, EFBIG,
				     "%zu nodes need %zu bytes, over the %zu "
				     "byte limit: written empty, srun reads "
				     "each node's profile",
				     n, want, max_bytes);
	return rc;
}

/* The seal on the first line of the digest in ddfd, reading that line
 * alone (the whole digest of a big cluster is megabytes): 0, or -1 when
 * there is none or it cannot be read. */
static int read_seal(int ddfd, const struct lagom_trust *trust,
		     struct lagom_digest_seal *seal)
{
	char head[128], want[32];
	struct stat st;
	ssize_t got;
	char *nl;
	int fd = openat(ddfd, LAGOM_DIGEST_NAME,
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	size_t wl = (size_t)snprintf(want, sizeof(want),
				     "%s %d seal=", LAGOM_DIGEST_FORMAT,
				     LAGOM_DIGEST_VERSION);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 ||
	    lagom_profile_trust_stat(&st, trust, LAGOM_DIGEST_NAME, NULL) < 0 ||
	    (got = pread(fd, head, sizeof(head) - 1, 0)) <= 0) {
		close(fd);
		return -1;
	}
	close(fd);
	head[got] = '\0';
	if (!(nl = strchr(head, '\n')) || (size_t)(nl - head) < wl ||
	    memcmp(head, want, wl) != 0)
		return -1;
	*nl = '\0';
	return lagom_digest_parse_seal(head + wl, seal) < 0 || !seal->valid ? -1
									    : 0;
}

/*
 * The herd's shortcut: node's profile is in the digest already when a
 * sync began its listing after the profile was put in place, that is when
 * the profile's change time (set by its rename) is not after the seal of
 * the digest in ddfd.  One stat and one short read, under the lock.
 */
static bool already_in(int dfd, int ddfd, const struct lagom_trust *trust,
		       const char *node)
{
	char base[LAGOM_PROFILE_NAME_MAX + 8];
	struct lagom_digest_seal seal;
	struct stat d, p;

	if (!node || !lagom_profile_node_name_ok(node) ||
	    read_seal(ddfd, trust, &seal) < 0 || fstat(dfd, &d) < 0 ||
	    (uint64_t)d.st_ino != seal.ino)
		return false;
	snprintf(base, sizeof(base), "%s.json", node);
	if (fstatat(dfd, base, &p, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	return p.st_ctim.tv_sec < seal.ctime_s ||
	       (p.st_ctim.tv_sec == seal.ctime_s &&
		p.st_ctim.tv_nsec <= seal.ctime_ns);
}

static int sync_locked(int dfd, int lock, const char *dir, const char *node,
		       const struct lagom_trust *trust, size_t max_bytes,
		       struct lagom_digest_sync_report *rep,
		       struct lagom_error *err)
{
	struct lagom_error old_err = { 0 };
	struct lagom_digest_seal seal;
	struct lagom_digest *old = NULL;
	struct line *lines = NULL;
	size_t n = 0;
	int rc, ddfd = digest_dir(dfd, dir, trust, err);

	if (ddfd < 0)
		return ddfd;
	if (already_in(dfd, ddfd, trust, node)) {
		rep->already = true;
		close(ddfd);
		return 0;
	}
	seal = measure_seal(dfd, lock);
	rc = lagom_digest_read_at(dfd, dir, trust, &old, &old_err);
	if (rc == -ENOMEM) {
		close(ddfd);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	if (rc < 0 && rc != -ENOENT)
		memcpy(rep->note, old_err.text, sizeof(rep->note));
	rc = collect(dfd, dir, trust, old, &lines, &n, rep, err);
	rep->nodes = n;
	if (rc == 0 && old && rep->kept == n && lagom_digest_count(old) == n &&
	    lagom_digest_has_seal(old, &seal)) {
		rc = 0; /* nothing changed: leave the file alone */
	} else if (rc == 0) {
		rc = write_digest(ddfd, lines, n, &seal, max_bytes, rep, err);
	}
	free_lines(lines, n);
	lagom_digest_destroy(old);
	close(ddfd);
	return rc;
}

static int sync_max(const char *dir, const struct lagom_trust *trust,
		    const char *node, double lock_wait_s, size_t max_bytes,
		    struct lagom_digest_sync_report *rep,
		    struct lagom_error *err);

int lagom_digest_sync(const char *dir, const struct lagom_trust *trust,
		      double lock_wait_s, struct lagom_digest_sync_report *rep,
		      struct lagom_error *err)
{
	return sync_max(dir, trust, NULL, lock_wait_s, LAGOM_DIGEST_MAX_BYTES,
			rep, err);
}

int lagom_digest_sync_for(const char *dir, const struct lagom_trust *trust,
			  const char *node, double lock_wait_s,
			  struct lagom_digest_sync_report *rep,
			  struct lagom_error *err)
{
	return sync_max(dir, trust, node, lock_wait_s, LAGOM_DIGEST_MAX_BYTES,
			rep, err);
}

int lagom_digest_sync_max(const char *dir, const struct lagom_trust *trust,
			  double lock_wait_s, size_t max_bytes,
			  struct lagom_digest_sync_report *rep,
			  struct lagom_error *err)
{
	return sync_max(dir, trust, NULL, lock_wait_s, max_bytes, rep, err);
}

static int sync_max(const char *dir, const struct lagom_trust *trust,
		    const char *node, double lock_wait_s, size_t max_bytes,
		    struct lagom_digest_sync_report *rep,
		    struct lagom_error *err)
{
	struct lagom_digest_sync_report dummy;
	int dfd, lock, rc;

	if (!rep)
		rep = &dummy;
	*rep = (struct lagom_digest_sync_report){ 0 };
	dfd = lagom_profile_dir_open(dir, trust, err);
	if (dfd < 0)
		return lagom_error_prefix(err, "cluster digest %s/%s", dir,
					  LAGOM_DIGEST_FILE);
	lock = take_lock(dfd, lock_wait_s, err);
	if (lock < 0) {
		rc = lock;
	} else {
		rc = sync_locked(dfd, lock, dir, node, trust, max_bytes, rep,
				 err);
		close(lock); /* releases the lock */
	}
	close(dfd);
	if (rc < 0)
		return lagom_error_prefix(err, "cluster digest %s/%s", dir,
					  LAGOM_DIGEST_FILE);
	return 0;
}
