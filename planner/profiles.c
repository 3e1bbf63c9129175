/*
 * planner/profiles.c - the hardware of a step's nodes: from the cluster
 * digest where it is current, else from each node's profile (profile/'s
 * reader and trust rules), as the model's hardware.  Either way the same
 * struct lagom_hw (profile/digest.h), so the plan does not depend on
 * whether a digest was there.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planner/planner_int.h"
#include "profile/digest.h"
#include "profile/profile.h"

unsigned planner_nccl_version_code(const char *text)
{
	unsigned long v[3];
	const char *p = text;
	char *end;

	for (int i = 0; i < 3; i++) {
		if (*p < '0' || *p > '9')
			return 0;
		v[i] = strtoul(p, &end, 10);
		if (v[i] > 99 || (i < 2 && *end != '.'))
			return 0;
		p = end + (i < 2);
	}
	/* a suffix ("2.28.9+cuda12.9") is the build's, not the version's */
	if (*p && *p != '+' && *p != '-')
		return 0;
	if (v[0] < 2 || (v[0] == 2 && v[1] < 9))
		return (unsigned)(v[0] * 1000 + v[1] * 100 + v[2]);
	return (unsigned)(v[0] * 10000 + v[1] * 100 + v[2]);
}

/* The oldest NCCL so far: 0 (unknown) wins. */
static void note_nccl(struct planner_load_report *rep, size_t i,
		      const char *text)
{
	unsigned v = planner_nccl_version_code(text ? text : "");

	if (rep && (i == 0 || v < rep->nccl_version))
		rep->nccl_version = v;
}

/* From the node's profile: in the directory dfd when >= 0, else by path
 * (every error names the node as lagom_profile_load_node() does); its
 * NCCL version into rep as the i-th node's. */
static int load_one(int dfd, const char *dir, const char *path,
		    const struct lagom_trust *trust, const char *name,
		    struct lagom_hw *hw, struct planner_load_report *rep,
		    size_t i, struct lagom_error *err)
{
	struct lagom_profile *p = NULL;
	int rc;

	if (path)
		rc = lagom_profile_read_file(path, trust, &p, err);
	else if (dfd >= 0)
		rc = lagom_profile_load_node_at(dfd, dir, name, trust, &p, NULL,
						err);
	else
		rc = lagom_profile_load_node(dir, name, trust, &p, err);
	if (rc == -ENOENT)
		return lagom_error_prefix(err, "no profile for node %s in %s",
					  name, path ? path : dir);
	if (rc)
		return lagom_error_prefix(err, "profile of node %s", name);
	rc = lagom_profile_to_hw(p, hw, err);
	note_nccl(rep, i, p->prov.nccl_version);
	lagom_profile_destroy(p);
	return rc;
}

/* The digest of dir, or NULL (none, or refused: rep says why). */
static struct lagom_digest *digest_of(int dfd, const char *dir,
				      const struct lagom_trust *trust,
				      struct planner_load_report *rep)
{
	struct lagom_error derr = { 0 };
	struct lagom_digest *d = NULL;
	int rc = lagom_digest_read_at(dfd, dir, trust, &d, &derr);

	if (rc < 0 && rc != -ENOENT && rep)
		snprintf(rep->notice, sizeof(rep->notice),
			 "%s; reading each node's profile instead", derr.text);
	return rc == 0 ? d : NULL;
}

/* The calibration file beside the profiles (doc/calibration-format.md),
 * read like the digest: refused, it costs a notice (and the built-in
 * constants), never the plan. */
static void calibration_of(int dfd, const char *dir,
			   const struct lagom_trust *trust,
			   struct planner_load_report *rep)
{
	struct lagom_error cerr = { 0 };
	size_t used;
	int rc = lagom_calibration_read_at(dfd, dir, trust, &rep->calibration,
					   &cerr);

	rep->calibrated = rc == 0;
	if (rc == 0 || rc == -ENOENT)
		return;
	used = strlen(rep->notice);
	snprintf(rep->notice + used, sizeof(rep->notice) - used,
		 "%s%s; "
		 "planning with the built-in network constants",
		 used ? "; " : "", cerr.text);
}

/* What one load gathers: each distinct hardware once, by reference (into
 * the digest, or into own for the nodes read from their profiles). */
struct gathered {
	const struct lagom_hw **refs; /* room for n */
	struct lagom_hw *own;	      /* room for n */
	size_t nrefs, nown;
};

/* Node i's hardware from the digest, referenced unless its hardware text
 * is there already (seen, one flag per text): 1, 0 (read the profile) or
 * a negative errno; *nccl_version is the text's NCCL version the first
 * time, else NULL. */
static int from_digest(struct lagom_digest *digest, int dfd,
		       const struct lagom_trust *t, const char *name,
		       unsigned char *seen, struct gathered *g,
		       const char **nccl_version)
{
	const struct lagom_hw *hw;
	size_t rec;
	int rc = lagom_digest_node_hw_ref(digest, dfd, t, name, &hw, &rec);

	if (rc == 1) {
		/* a text seen before says nothing new about the oldest NCCL */
		*nccl_version = seen[rec] ? NULL
					  : lagom_digest_rec_nccl_version(
						    digest, rec);
		if (!seen[rec])
			g->refs[g->nrefs++] = hw;
		seen[rec] = 1;
	}
	return rc;
}

/* Every node's hardware into g, then, while the digest the references
 * point into is there, done(g, arg). */
static int load(const char *dir, const char *path, bool enforce_trust,
		uid_t trusted_uid, const char *const *names, size_t n,
		struct gathered *g, struct planner_load_report *rep,
		int (*done)(const struct gathered *, void *,
			    struct lagom_error *),
		void *arg, struct lagom_error *err)
{
	struct lagom_trust trust = { .owner_uid = trusted_uid };
	const struct lagom_trust *t = enforce_trust ? &trust : NULL;
	struct lagom_digest *digest = NULL;
	unsigned char *seen = NULL;
	const char *last_nccl = NULL;
	int dfd = -1, rc = 0;
	size_t i;

	if (!path && !dir)
		return lagom_errprintf(err, EINVAL, "no profile directory");
	if (rep)
		*rep = (struct planner_load_report){ 0 };
	/* The directory is walked and checked once for the whole step; when
	 * that fails, each node's reader reports it as it would alone. */
	if (!path && (dfd = lagom_profile_dir_open(dir, t, NULL)) >= 0) {
		digest = digest_of(dfd, dir, t, rep);
		if (rep)
			calibration_of(dfd, dir, t, rep);
	}
	if (digest && !(seen = calloc(lagom_digest_records(digest) + 1, 1)))
		rc = lagom_errprintf(err, ENOMEM, "out of memory");
	for (i = 0; i < n && rc == 0; i++) {
		const char *nccl = NULL;

		if (path && i > 0) /* one file for every node: read once */
			break;
		rc = digest ? from_digest(digest, dfd, t, names[i], seen, g,
					  &nccl)
			    : 0;
		if (rc == 1) {
			if (rep)
				rep->from_digest++;
			/* records of one machine type share the version */
			if (i == 0 || (nccl && (!last_nccl ||
						strcmp(nccl, last_nccl) != 0)))
				note_nccl(rep, i, nccl);
			if (nccl)
				last_nccl = nccl;
			rc = 0;
		} else if (rc == 0) {
			rc = load_one(dfd, dir, path, t, names[i],
				      &g->own[g->nown], rep, i, err);
			if (rc == 0)
				g->refs[g->nrefs++] = &g->own[g->nown++];
		} else {
			rc = lagom_errprintf(err, -rc, "out of memory");
		}
	}
	if (rc == 0)
		rc = done(g, arg, err);
	free(seen);
	lagom_digest_destroy(digest);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

static int copy_out(const struct gathered *g, void *arg,
		    struct lagom_error *err)
{
	struct lagom_hw *hws = arg;

	(void)err;
	for (size_t i = 0; i < g->nrefs; i++)
		hws[i] = *g->refs[i];
	return 0;
}

static int weakest_out(const struct gathered *g, void *arg,
		       struct lagom_error *err)
{
	return planner_weakest_hw_of(g->refs, g->nrefs, arg, err);
}

static int gather(const char *dir, const char *path, bool enforce_trust,
		  uid_t trusted_uid, const char *const *names, size_t n,
		  struct gathered *g, struct planner_load_report *rep,
		  int (*done)(const struct gathered *, void *,
			      struct lagom_error *),
		  void *arg, struct lagom_error *err)
{
	int rc;

	*g = (struct gathered){ 0 };
	g->refs = calloc(n ? n : 1, sizeof(*g->refs));
	/* room for every node read from its profile, made as they come */
	g->own = calloc(n ? n : 1, sizeof(*g->own));
	if (!g->refs || !g->own)
		rc = lagom_errprintf(err, ENOMEM, "out of memory");
	else
		rc = load(dir, path, enforce_trust, trusted_uid, names, n, g,
			  rep, done, arg, err);
	free(g->refs);
	free(g->own);
	return rc;
}

int planner_load_hw(const char *dir, const char *path, bool enforce_trust,
		    uid_t trusted_uid, const char *const *names, size_t n,
		    struct lagom_hw *hws, size_t *nhws,
		    struct planner_load_report *rep, struct lagom_error *err)
{
	struct gathered g;
	int rc = gather(dir, path, enforce_trust, trusted_uid, names, n, &g,
			rep, copy_out, hws, err);

	if (rc == 0)
		*nhws = g.nrefs;
	return rc;
}

int planner_load_weakest_hw(const char *dir, const char *path,
			    bool enforce_trust, uid_t trusted_uid,
			    const char *const *names, size_t n,
			    struct lagom_hw *out,
			    struct planner_load_report *rep,
			    struct lagom_error *err)
{
	struct gathered g;

	return gather(dir, path, enforce_trust, trusted_uid, names, n, &g, rep,
		      weakest_out, out, err);
}
