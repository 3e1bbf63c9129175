/*
 * measurement/spool.c - the spool's walk (spool.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/io.h"
#include "measurement/spool.h"

#define DEF_SCAN_MAX 100000
#define DEF_USERS_MAX 100000
#define DEF_STEPS_MAX 4096
#define DEF_RECORDS_MAX 4096
#define DEF_USER_RECORDS_MAX 1000000UL
#define DEF_USER_SCAN_MAX 4000000UL
#define LEVEL_SCAN 4096 /* entries lagom_spool_level() looks at */

typedef char spool_name[LAGOM_SPOOL_NAME_MAX];

/* The first max names of a directory by the spool's order: a max-heap
 * while scanning (the largest kept on top, replaced by any smaller), then
 * sorted. */
struct names {
	spool_name *v;
	int sign; /* 1: the first by name; -1: the last, latest first */
	size_t n, cap, max;
	size_t found;	/* names that passed the filter */
	bool scan_full; /* scan_max entries looked at, more left */
};

struct walk {
	const struct lagom_spool_walk *w;
	struct lagom_spool_limits lim;
	struct lagom_spool_at at;
	unsigned long user_records;
	unsigned long user_budget; /* entries the user's walk may look at */
	unsigned long root_budget;
	bool user_full; /* user_records_max said */
	bool stop;
};

int lagom_spool_cmp(const char *a, const char *b)
{
	return strverscmp(a, b);
}

bool lagom_spool_dir_name_ok(const char *name)
{
	size_t i;

	if (name[0] == '.' || name[0] == '\0')
		return false;
	for (i = 0; name[i]; i++)
		if (!lagom_rec_token_char((unsigned char)name[i]) ||
		    i + 1 >= LAGOM_SPOOL_NAME_MAX)
			return false;
	return true;
}

static void heap_swap(spool_name *v, size_t a, size_t b)
{
	spool_name t;

	memcpy(t, v[a], sizeof(t));
	memcpy(v[a], v[b], sizeof(t));
	memcpy(v[b], t, sizeof(t));
}

static void heap_up(spool_name *v, int sign, size_t i)
{
	while (i > 0 && sign * lagom_spool_cmp(v[(i - 1) / 2], v[i]) < 0) {
		heap_swap(v, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_down(spool_name *v, int sign, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, top = i;

		if (l < n && sign * lagom_spool_cmp(v[l], v[top]) > 0)
			top = l;
		if (r < n && sign * lagom_spool_cmp(v[r], v[top]) > 0)
			top = r;
		if (top == i)
			return;
		heap_swap(v, i, top);
		i = top;
	}
}

/* Room for one more name below max (the list grows as it fills, so a
 * small directory under a large limit stays small): false when none. */
static bool names_room(struct names *ns)
{
	size_t cap = ns->cap ? ns->cap * 2 : 64;
	spool_name *v;

	if (ns->n < ns->cap)
		return true;
	cap = cap > ns->max ? ns->max : cap;
	v = cap > ns->cap ? realloc(ns->v, cap * sizeof(*v)) : NULL;
	if (!v)
		return false;
	ns->v = v;
	ns->cap = cap;
	return true;
}

static void names_add(struct names *ns, const char *name)
{
	ns->found++;
	if (ns->n < ns->max && names_room(ns)) {
		snprintf(ns->v[ns->n], LAGOM_SPOOL_NAME_MAX, "%s", name);
		heap_up(ns->v, ns->sign, ns->n++);
	} else if (ns->max && ns->sign * lagom_spool_cmp(name, ns->v[0]) < 0) {
		snprintf(ns->v[0], LAGOM_SPOOL_NAME_MAX, "%s", name);
		heap_down(ns->v, ns->sign, ns->n, 0);
	}
}

static int cmp_entry(const void *a, const void *b, void *sign)
{
	return *(const int *)sign * lagom_spool_cmp(a, b);
}

enum kind {
	KIND_DIR,
	KIND_RECORD,
	KIND_FILE
};

/* Whether entry e of fd is of kind (a directory: not a link). */
static bool entry_is(int fd, const struct dirent *e, enum kind kind)
{
	struct stat st;
	size_t len = strlen(e->d_name);

	if (len >= LAGOM_SPOOL_NAME_MAX || !strcmp(e->d_name, ".") ||
	    !strcmp(e->d_name, ".."))
		return false;
	if (kind == KIND_FILE)
		return true;
	if (kind == KIND_RECORD)
		return lagom_rec_is_name(e->d_name);
	if (!lagom_spool_dir_name_ok(e->d_name))
		return false;
	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(st.st_mode);
}

/* The names of kind in the directory fd (not closed), the first max by
 * the spool's order of its first scan_max entries.  0 or -errno. */
static int list(int fd, enum kind kind, size_t max, unsigned scan_max,
		unsigned long *budget, bool last, struct names *ns)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;
	unsigned seen = 0;

	memset(ns, 0, sizeof(*ns));
	if (!d) {
		int rc = -errno;

		if (dup_fd >= 0)
			close(dup_fd);
		return rc;
	}
	rewinddir(d);
	ns->sign = last ? -1 : 1;
	ns->max = max;
	while ((e = readdir(d)) != NULL) {
		if (seen++ == scan_max || *budget == 0) {
			ns->scan_full = true;
			break;
		}
		--*budget;
		if (entry_is(fd, e, kind))
			names_add(ns, e->d_name);
	}
	closedir(d);
	if (ns->n > 1)
		qsort_r(ns->v, ns->n, sizeof(*ns->v), cmp_entry, &ns->sign);
	return 0;
}

static void say(struct walk *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct walk *k, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!k->w->say)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	k->w->say(k->w->ctx, line);
}

/* One line per limit a listing reached; what names the directory
 * (escaped). */
static void say_limits(struct walk *k, const struct names *ns, const char *what)
{
	char user[LAGOM_SPOOL_NAME_MAX * 4];

	lagom_escape(k->at.user[0] ? k->at.user : "-", user, sizeof(user));
	if (ns->scan_full)
		say(k,
		    "spool: user %s: %s: more entries than the walk looks at "
		    "(%u in a directory, %lu for a user): of those listed "
		    "first, by name",
		    user, what, k->lim.scan_max, k->lim.user_scan_max);
	if (ns->found > ns->n)
		say(k,
		    "spool: user %s: %s: %zu found, the %s %zu by name "
		    "read",
		    user, what, ns->found, ns->sign < 0 ? "last" : "first",
		    ns->n);
}

static void say_user_full(struct walk *k)
{
	char user[LAGOM_SPOOL_NAME_MAX * 4];

	lagom_escape(k->at.user[0] ? k->at.user : "-", user, sizeof(user));
	say(k, "spool: user %s: more than %lu records: the rest not read", user,
	    k->lim.user_records_max);
}

static int call(struct walk *k,
		int (*cb)(void *, const struct lagom_spool_at *))
{
	int rc = cb ? cb(k->w->ctx, &k->at) : LAGOM_SPOOL_NEXT;

	if (rc == LAGOM_SPOOL_STOP)
		k->stop = true;
	return rc;
}

/* The records of the step open at k->at.step_fd. */
static int walk_records(struct walk *k)
{
	const struct lagom_spool_walk *w = k->w;
	enum kind kind = w->every_file ? KIND_FILE : KIND_RECORD;
	struct names ns;
	int rc = list(k->at.step_fd, kind, k->lim.records_max, k->lim.scan_max,
		      &k->user_budget, false, &ns);

	if (rc < 0)
		return rc;
	k->at.found = ns.found;
	k->at.kept = ns.n;
	k->at.name = NULL;
	if (!w->every_file) {
		char what[LAGOM_SPOOL_NAME_MAX * 4 + 16] = "records of step ";

		lagom_escape(k->at.step, what + strlen(what),
			     sizeof(what) - strlen(what));
		say_limits(k, &ns, what);
	}
	if (call(k, w->on_step) != LAGOM_SPOOL_NEXT)
		goto free_names;
	for (size_t i = 0; i < ns.n && !k->stop; i++) {
		if (!w->every_file &&
		    k->user_records++ >= k->lim.user_records_max) {
			if (!k->user_full)
				say_user_full(k);
			k->user_full = true;
			break;
		}
		k->at.name = ns.v[i];
		call(k, w->on_record);
	}
	k->at.name = NULL;
	if (w->on_step_end && !k->stop)
		w->on_step_end(w->ctx, &k->at);
free_names:
	free(ns.v);
	return 0;
}

/* on_step_open for the step open at k->at.step_fd. */
static int step_opened(struct walk *k)
{
	k->at.found = k->at.kept = 0;
	k->at.name = NULL;
	return call(k, k->w->on_step_open);
}

static void walk_one_step(struct walk *k, int dfd, const char *step)
{
	int fd = lagom_open_at(dfd, step, O_RDONLY | O_DIRECTORY, 0, NULL);

	if (fd < 0)
		return; /* gone, or not a directory: not a step */
	k->at.step = step;
	k->at.step_fd = fd;
	if (step_opened(k) == LAGOM_SPOOL_NEXT)
		walk_records(k);
	close(fd);
	k->at.step = NULL;
	k->at.step_fd = -1;
}

/* The steps of the user open at k->at.user_fd. */
static int walk_steps(struct walk *k)
{
	struct names ns;
	int rc;

	k->user_records = 0;
	k->user_full = false;
	k->user_budget = k->lim.user_scan_max;
	rc = list(k->at.user_fd, KIND_DIR, k->lim.steps_max, k->lim.scan_max,
		  &k->user_budget, k->w->latest_first, &ns);
	if (rc < 0)
		return rc;
	say_limits(k, &ns, "steps");
	for (size_t i = 0; i < ns.n && !k->stop && !k->user_full; i++)
		walk_one_step(k, k->at.user_fd, ns.v[i]);
	free(ns.v);
	return 0;
}

static void walk_init(struct walk *k, const struct lagom_spool_walk *w)
{
	memset(k, 0, sizeof(*k));
	k->w = w;
	k->lim = w->lim;
	if (!k->lim.scan_max)
		k->lim.scan_max = DEF_SCAN_MAX;
	if (!k->lim.users_max)
		k->lim.users_max = DEF_USERS_MAX;
	if (!k->lim.steps_max)
		k->lim.steps_max = DEF_STEPS_MAX;
	if (!k->lim.records_max)
		k->lim.records_max = DEF_RECORDS_MAX;
	if (!k->lim.user_records_max)
		k->lim.user_records_max = DEF_USER_RECORDS_MAX;
	if (!k->lim.user_scan_max)
		k->lim.user_scan_max = DEF_USER_SCAN_MAX;
	k->at.user = "";
	k->at.user_fd = -1;
	k->at.step_fd = -1;
}

/* The user's directory fd: its owner is the user. */
static int enter_user(struct walk *k, int fd, const char *user)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -errno;
	k->at.uid = st.st_uid;
	k->at.user = user;
	k->at.user_fd = fd;
	k->at.step = NULL;
	k->at.found = k->at.kept = 0;
	if (call(k, k->w->on_user) != LAGOM_SPOOL_NEXT)
		return 0;
	return walk_steps(k);
}

int lagom_spool_walk_user(int user_fd, const char *user,
			  const struct lagom_spool_walk *w)
{
	struct walk k;

	walk_init(&k, w);
	return enter_user(&k, user_fd, user ? user : "");
}

int lagom_spool_walk_root(int root_fd, const struct lagom_spool_walk *w)
{
	struct walk k;
	struct names ns;
	int rc;

	walk_init(&k, w);
	k.root_budget = k.lim.scan_max;
	rc = list(root_fd, KIND_DIR, k.lim.users_max, k.lim.scan_max,
		  &k.root_budget, false, &ns);
	if (rc < 0)
		return rc;
	say_limits(&k, &ns, "users of the spool");
	for (size_t i = 0; i < ns.n && !k.stop; i++) {
		int fd = lagom_open_at(root_fd, ns.v[i], O_RDONLY | O_DIRECTORY,
				       0, NULL);

		if (fd < 0)
			continue;
		enter_user(&k, fd, ns.v[i]);
		close(fd);
	}
	free(ns.v);
	return 0;
}

int lagom_spool_walk_step(int dfd, const char *step, uid_t uid,
			  const struct lagom_spool_walk *w)
{
	struct walk k;
	int fd, rc;

	walk_init(&k, w);
	fd = lagom_open_at(dfd, step, O_RDONLY | O_DIRECTORY, 0, NULL);
	if (fd < 0)
		return fd;
	k.at.uid = uid;
	k.at.step = step;
	k.at.step_fd = fd;
	k.user_budget = k.lim.user_scan_max;
	rc = step_opened(&k) == LAGOM_SPOOL_NEXT ? walk_records(&k) : 0;
	close(fd);
	return rc;
}

/* Whether the directory fd holds a record among its first LEVEL_SCAN
 * entries; with deep, a step directory there that does. */
static bool holds_records(int fd, bool deep)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;
	bool found = false;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return false;
	}
	rewinddir(d);
	for (unsigned seen = 0; !found && seen < LEVEL_SCAN && (e = readdir(d));
	     seen++) {
		int sub;

		if (!deep) {
			found = lagom_rec_is_name(e->d_name);
			continue;
		}
		if (!lagom_spool_dir_name_ok(e->d_name))
			continue;
		sub = lagom_open_at(fd, e->d_name, O_RDONLY | O_DIRECTORY, 0,
				    NULL);
		if (sub >= 0) {
			found = holds_records(sub, false);
			close(sub);
		}
	}
	closedir(d);
	return found;
}

enum lagom_spool_level lagom_spool_level(int fd)
{
	if (holds_records(fd, false))
		return LAGOM_SPOOL_LEVEL_STEP;
	return holds_records(fd, true) ? LAGOM_SPOOL_LEVEL_USER
				       : LAGOM_SPOOL_LEVEL_ROOT;
}

int lagom_spool_read_record(const struct lagom_spool_at *at, char *buf,
			    struct lagom_rec *out, struct lagom_rec *scratch,
			    struct lagom_error *err)
{
	return lagom_rec_read_at(at->step_fd, at->name, (long)at->uid, buf, out,
				 scratch, err);
}

void lagom_spool_where(const struct lagom_spool_at *at, char *buf, size_t len)
{
	char raw[3 * LAGOM_SPOOL_NAME_MAX + 4];

	snprintf(raw, sizeof(raw), "%s%s%s%s%s", at->user,
		 at->user[0] && at->step ? "/" : "", at->step ? at->step : "",
		 at->name ? "/" : "", at->name ? at->name : "");
	lagom_escape(raw, buf, len);
}
