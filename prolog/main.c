/*
 * prolog/main.c - lagom-prolog: measure this node and keep its profile in
 * the trusted profile directory (doc/lagom-prolog.8).
 *
 * Exit status: 0 whenever the command line was understood, even when the
 * topology, the probes or the write failed (a Slurm Prolog that exits
 * non-zero drains the node; the reason is logged instead).  2 for a usage
 * error.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/escape.h"
#include "model/model.h"
#include "profile/digest.h"
#include "prolog/prolog.h"

#define DEFAULT_TTL_S 86400
#define DEFAULT_BUDGET_GPU_S 5.0
#define DEFAULT_BUDGET_NOGPU_S 0.5
/* Longest wait for the cluster digest's lock (doc/lagom-prolog.8). */
#define DIGEST_LOCK_WAIT_S 10.0

struct opts {
	char profile_dir[LAGOM_CONFIG_PATH_MAX];
	const char *plugstack;
	const char *node;
	long ttl_s;
	double budget_s; /* < 0: default by GPU count */
	bool dry_run, print, force, verbose, digest_only;
};

static const char usage[] =
	"Usage: lagom-prolog [OPTIONS]\n"
	"Measure this node and write its profile <profile-dir>/<node>.json.\n"
	"\n"
	"  -d, --profile-dir DIR  profile directory (default: profile_dir= of\n"
	"                         lagom's plugstack.conf line, else " LAGOM_CONFIG_DEFAULT_PROFILE_DIR
	")\n"
	"  -t, --ttl SECONDS      keep a profile this long when the hardware\n"
	"                         fingerprint still matches (default 86400)\n"
	"  -b, --budget SECONDS   time limit for the GPU probes (default 5,\n"
	"                         0.5 on a node without GPUs)\n"
	"  -n, --dry-run          measure but write nothing\n"
	"  -p, --print            print the profile (JSON) on stdout\n"
	"  -f, --force            measure even when the profile is fresh\n"
	"      --node NAME        node name (default $SLURMD_NODENAME, else\n"
	"                         the short host name)\n"
	"      --digest           only bring the cluster digest of the profile\n"
	"                         directory up to date (measure nothing)\n"
	"      --plugstack FILE   plugstack.conf to read lagom's line from\n"
	"                         (default: next to $SLURM_CONF, else\n"
	"                         /etc/slurm/plugstack.conf)\n"
	"  -v, --verbose          say more on stderr\n"
	"  -h, --help             this help\n"
	"  -V, --version          print the version\n"
	"\n"
	"Exit status: 0, also when measuring or writing failed (logged on\n"
	"stderr: a Prolog that fails drains the node); 2 on a usage error.\n";

static void say(const struct opts *o, bool verbose_only, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(const struct opts *o, bool verbose_only, const char *fmt, ...)
{
	char line[2048], safe[2048];
	va_list ap;

	if (verbose_only && !o->verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	lagom_escape(line, safe, sizeof(safe));
	fprintf(stderr, "lagom-prolog: %s\n", safe);
}

static int parse_number(const char *opt, const char *text, double max,
			double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end != '\0' || !(v >= 0 && v <= max)) {
		fprintf(stderr,
			"lagom-prolog: %s: '%s' is not a number in [0, %g]\n",
			opt, text, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* One option: 0 to go on, 1 to exit 0 (help, version), -1 for a usage
 * error. */
static int parse_opt(struct opts *o, int c, const char *arg, bool *dir_given)
{
	double v;

	switch (c) {
	case 'd':
		if (snprintf(o->profile_dir, sizeof(o->profile_dir), "%s",
			     arg) >= (int)sizeof(o->profile_dir)) {
			fprintf(stderr,
				"lagom-prolog: --profile-dir: longer than %zu "
				"characters\n",
				sizeof(o->profile_dir) - 1);
			return -1;
		}
		*dir_given = true;
		return 0;
	case 't':
		if (parse_number("--ttl", arg, 1e9, &v) < 0)
			return -1;
		o->ttl_s = (long)v;
		return 0;
	case 'b':
		return parse_number("--budget", arg, 3600, &o->budget_s);
	case 'n':
		o->dry_run = true;
		return 0;
	case 'p':
		o->print = true;
		return 0;
	case 'f':
		o->force = true;
		return 0;
	case 'N':
		o->node = arg;
		return 0;
	case 'P':
		o->plugstack = arg;
		return 0;
	case 'D':
		o->digest_only = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case 'h':
		fputs(usage, stdout);
		return 1;
	case 'V':
		printf("lagom-prolog %s\n", PACKAGE_VERSION);
		return 1;
	default:
		return -1;
	}
}

/* 0 to go on, 1 to exit 0 (help, version), -1 for a usage error. */
static int parse_args(int argc, char **argv, struct opts *o, bool *dir_given)
{
	static const struct option longopts[] = {
		{ "profile-dir", required_argument, NULL, 'd' },
		{ "ttl", required_argument, NULL, 't' },
		{ "budget", required_argument, NULL, 'b' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "print", no_argument, NULL, 'p' },
		{ "force", no_argument, NULL, 'f' },
		{ "node", required_argument, NULL, 'N' },
		{ "plugstack", required_argument, NULL, 'P' },
		{ "digest", no_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = 0;

	while (rc == 0 && (c = getopt_long(argc, argv, "d:t:b:npfvhV", longopts,
					   NULL)) != -1)
		rc = parse_opt(o, c, optarg, dir_given);
	if (rc != 0)
		return rc;
	if (optind < argc) {
		fprintf(stderr, "lagom-prolog: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	return 0;
}

/* profile_dir from lagom's plugstack.conf line, unless --profile-dir. */
static void apply_plugstack(struct opts *o, bool dir_given)
{
	struct lagom_config cfg;
	struct lagom_error err = { 0 };
	char path[LAGOM_CONFIG_PATH_MAX];
	const char *conf = getenv("SLURM_CONF");
	const char *slash = conf ? strrchr(conf, '/') : NULL;

	if (o->plugstack != NULL)
		snprintf(path, sizeof(path), "%s", o->plugstack);
	else if (slash != NULL)
		snprintf(path, sizeof(path), "%.*s/plugstack.conf",
			 (int)(slash - conf), conf);
	else
		snprintf(path, sizeof(path), "/etc/slurm/plugstack.conf");
	if (prolog_read_plugstack(path, &cfg, &err) < 0) {
		say(o, err.errnum == ENOENT && o->plugstack == NULL, "%s%s",
		    err.text, dir_given ? "" : ": using the built-in defaults");
		return;
	}
	if (!dir_given)
		snprintf(o->profile_dir, sizeof(o->profile_dir), "%s",
			 cfg.profile_dir);
	if (cfg.verbose > 0)
		o->verbose = true;
}

/* The node's name, refused (never cut) when it does not fit in buf. */
static int node_name(const struct opts *o, char *buf, size_t len)
{
	const char *env = getenv("SLURMD_NODENAME");
	char host[256];
	int n;

	if (o->node != NULL)
		n = snprintf(buf, len, "%s", o->node);
	else if (env != NULL && env[0] != '\0')
		n = snprintf(buf, len, "%s", env);
	else if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		n = snprintf(buf, len, "%s", host);
	} else
		return -1;
	if (n < 0 || (size_t)n >= len)
		return -1;
	return lagom_profile_node_name_ok(buf) ? 0 : -1;
}

/* 1 when dir holds a profile of this node, with this hardware, younger than
 * the TTL: nothing to measure. */
static int cache_is_fresh(const struct opts *o, const char *node,
			  const char *fingerprint, time_t now)
{
	struct lagom_trust trust = { .owner_uid = geteuid() };
	struct lagom_error err = { 0 };
	struct lagom_profile *old = NULL;
	long age;
	int fresh = 0;

	if (lagom_profile_load_node(o->profile_dir, node, &trust, &old, &err) <
	    0) {
		say(o, err.errnum == ENOENT, "%s: measuring", err.text);
		return 0;
	}
	age = (long)(now - old->prov.created_unix_s);
	/* A profile of an older lagom-prolog holds the spec table's SM count
	 * and memory, which this one leaves to the planner: its fingerprint
	 * differs, and the node is measured again once. */
	if (strcmp(old->fingerprint, fingerprint) != 0)
		say(o, false, "hardware of %s changed (%s -> %s)%s: measuring",
		    node, old->fingerprint, fingerprint,
		    old->hw.gpu_sm_count > 0 || old->hw.gpu_memory_bytes > 0
			    ? ", or an older lagom-prolog wrote the profile "
			      "with spec-table values"
			    : "");
	else if (age < 0 || age >= o->ttl_s)
		say(o, true,
		    "profile of %s is %ld s old (ttl %ld s): measuring", node,
		    age, o->ttl_s);
	else
		fresh = 1;
	if (fresh)
		say(o, true, "profile of %s is fresh (%ld s old, ttl %ld s)",
		    node, age, o->ttl_s);
	lagom_profile_destroy(old);
	return fresh;
}

static void assemble(struct lagom_profile *p, const struct probe_result *r,
		     const char *hw_note, time_t now)
{
	p->meas = r->meas;
	snprintf(p->prov.nccl_version, sizeof(p->prov.nccl_version), "%s",
		 r->nccl_version);
	snprintf(p->prov.cuda_runtime_version,
		 sizeof(p->prov.cuda_runtime_version), "%s",
		 r->cuda_runtime_version);
	snprintf(p->prov.cuda_driver_version,
		 sizeof(p->prov.cuda_driver_version), "%s",
		 r->cuda_driver_version);
	p->prov.created_unix_s = (int64_t)now;
	if (snprintf(p->prov.note, sizeof(p->prov.note), "%s%s%s", hw_note,
		     hw_note[0] && r->note[0] ? "; " : "",
		     r->note) >= (int)sizeof(p->prov.note))
		memcpy(p->prov.note + sizeof(p->prov.note) - 4, "...", 4);
}

/* The cluster digest after node's profile was written (or found fresh):
 * every profile of the directory in one file srun reads
 * (profile/digest.h); with node, nothing to do when a sync already took it
 * in (a re-profiling herd); NULL (--digest): a full sync.  A failure costs
 * srun speed, never a plan. */
static void sync_digest(const struct opts *o, const char *node)
{
	struct lagom_trust trust = { .owner_uid = geteuid() };
	struct lagom_digest_sync_report rep;
	struct lagom_error err = { 0 };

	if (lagom_digest_sync_for(o->profile_dir, &trust, node,
				  DIGEST_LOCK_WAIT_S, &rep, &err) < 0) {
		say(o, false, "%s", err.text);
		return;
	}
	if (rep.note[0])
		say(o, false, "%s: rebuilt", rep.note);
	if (rep.already) {
		say(o, true, "cluster digest: another sync took this node in");
		return;
	}
	say(o, true,
	    "cluster digest: %zu nodes (%zu kept, %zu read, %zu skipped), "
	    "%s",
	    rep.nodes, rep.kept, rep.read, rep.skipped,
	    rep.written ? "rewritten" : "unchanged");
}

/* A fresh profile needs the digest only when the digest may not hold it:
 * there is none, or it is older than the profile (a writer stopped between
 * the two).  Two stats in the checked directory; srun checks every entry
 * anyway. */
static bool digest_may_lack(const struct opts *o, const char *node)
{
	struct lagom_trust trust = { .owner_uid = geteuid() };
	char base[LAGOM_PROFILE_NAME_MAX + 8];
	struct stat d, p;
	bool lack = true;
	int dfd = lagom_profile_dir_open(o->profile_dir, &trust, NULL);

	if (dfd < 0)
		return true;
	snprintf(base, sizeof(base), "%s.json", node);
	if (fstatat(dfd, LAGOM_DIGEST_FILE, &d, AT_SYMLINK_NOFOLLOW) < 0)
		goto out;
	lack = false;
	if (fstatat(dfd, base, &p, AT_SYMLINK_NOFOLLOW) < 0)
		goto out;
	lack = d.st_mtim.tv_sec < p.st_mtim.tv_sec ||
	       (d.st_mtim.tv_sec == p.st_mtim.tv_sec &&
		d.st_mtim.tv_nsec < p.st_mtim.tv_nsec);
out:
	close(dfd);
	return lack;
}

/* The profile into the trusted directory: walked and checked as the
 * readers walk it (a directory they would refuse is not written). */
static int write_profile(const struct opts *o, const struct lagom_profile *p,
			 struct lagom_error *err)
{
	struct lagom_trust trust = { .owner_uid = geteuid() };
	int dfd = lagom_profile_dir_open(o->profile_dir, &trust, err);
	int rc;

	if (dfd < 0)
		return lagom_error_prefix(err, "not writing %s/%s.json",
					  o->profile_dir, p->node);
	rc = lagom_profile_write_atomic_at(dfd, o->profile_dir, p, err);
	close(dfd);
	return rc;
}

static void output(const struct opts *o, const struct lagom_profile *p)
{
	struct lagom_error err = { 0 };
	char *text = NULL;

	if (o->print) {
		if (lagom_profile_to_string(p, &text, &err) == 0)
			fputs(text, stdout);
		else
			say(o, false, "cannot print the profile: %s", err.text);
		free(text);
	}
	if (o->dry_run) {
		say(o, true, "dry run: %s/%s.json not written", o->profile_dir,
		    p->node);
		return;
	}
	if (write_profile(o, p, &err) < 0) {
		say(o, false, "%s", err.text);
		return;
	}
	say(o, true, "wrote %s/%s.json", o->profile_dir, p->node);
	sync_digest(o, p->node);
}

/* Everything after the command line: never fails the job. */
static void run(struct opts *o)
{
	struct probe_opts po = { .verbose = o->verbose };
	struct lagom_error err = { 0 };
	struct probe_result *res = calloc(1, sizeof(*res));
	struct lagom_profile *p = NULL;
	char node[LAGOM_PROFILE_NAME_MAX + 1];
	char hw_note[LAGOM_ERROR_TEXT_MAX + 16] = "";
	time_t now = time(NULL);

	if (node_name(o, node, sizeof(node)) < 0 ||
	    (p = lagom_profile_create(node)) == NULL || res == NULL) {
		say(o, false,
		    "no usable node name (1 to %d characters [A-Za-z0-9._-]) "
		    "or out of memory: nothing done",
		    LAGOM_PROFILE_NAME_MAX);
		goto out;
	}
	if (gethostname(p->hostname, sizeof(p->hostname) - 1) != 0)
		p->hostname[0] = '\0';
	if (prolog_hwinfo(&p->hw, &err) < 0) {
		snprintf(hw_note, sizeof(hw_note), "topology: %s", err.text);
		say(o, false, "%s", hw_note);
	}
	lagom_profile_fingerprint(&p->hw, p->fingerprint,
				  sizeof(p->fingerprint));
	if (!o->force && cache_is_fresh(o, node, p->fingerprint, now)) {
		if (o->print)
			say(o, false,
			    "--print: profile is fresh, not re-measured");
		if (!o->dry_run && digest_may_lack(o, node))
			sync_digest(o, node);
		goto out;
	}
	po.gpus_per_node_hint = p->hw.gpu_count;
	po.budget_s = o->budget_s >= 0	    ? o->budget_s
		      : p->hw.gpu_count > 0 ? DEFAULT_BUDGET_GPU_S
					    : DEFAULT_BUDGET_NOGPU_S;
	probe_run(&po, res);
	if (res->note[0])
		say(o, p->hw.gpu_count == 0, "probes: %s", res->note);
	assemble(p, res, hw_note, now);
	output(o, p);
out:
	lagom_profile_destroy(p);
	free(res);
}

int main(int argc, char **argv)
{
	struct opts o = { .ttl_s = DEFAULT_TTL_S, .budget_s = -1 };
	bool dir_given = false;
	int rc;

	snprintf(o.profile_dir, sizeof(o.profile_dir), "%s",
		 LAGOM_CONFIG_DEFAULT_PROFILE_DIR);
	rc = parse_args(argc, argv, &o, &dir_given);
	if (rc != 0) {
		if (rc < 0)
			fputs("Try 'lagom-prolog --help'.\n", stderr);
		return rc < 0 ? 2 : 0;
	}
	apply_plugstack(&o, dir_given);
	/* hwloc's cuda component would create a CUDA context in this process,
	 * and the probes run in a fork of it: keep CUDA out of the parent. */
	setenv("HWLOC_COMPONENTS", "-cuda", 0);
	if (o.digest_only)
		sync_digest(&o, NULL);
	else
		run(&o);
	return 0;
}
