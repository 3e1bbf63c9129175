/*
 * planner/consensus.c - the users' consensus over measurement records
 * (planner/consensus.h says the rules and why).  Pure: no I/O.
 *
 * One open-addressing table holds three kinds of fixed-size keys: a
 * sample (uid, class, run) with its fastest call, a user's run and a
 * user's class (for the per-user limits).  Keys are zeroed before they
 * are filled, so padding never differs and memcmp compares them.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/consensus.h"
#include "measurement/learn.h"
#include "measurement/record.h"

enum key_kind {
	K_SAMPLE = 1,
	K_RUN,
	K_CLASS
};

struct ckey {
	uint32_t uid;
	uint8_t kind, coll, algo, proto;
	uint32_t ranks, nodes, channels;
	uint64_t bytes;
	char job[LAGOM_REC_TOKEN_MAX + 1];
	char step[LAGOM_REC_TOKEN_MAX + 1];
};

struct slot {
	bool used;
	struct ckey k;
	uint64_t min_ns;
};

struct lagom_consensus {
	long trusted_uid;
	struct slot *tab;
	size_t cap, n;
	struct lagom_consensus_user *users;
	size_t nusers;
};

struct lagom_consensus *lagom_consensus_create(long trusted_uid)
{
	struct lagom_consensus *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return NULL;
	cs->trusted_uid = trusted_uid;
	cs->cap = 1024;
	cs->tab = calloc(cs->cap, sizeof(*cs->tab));
	cs->users = calloc(LAGOM_CONSENSUS_MAX_USERS, sizeof(*cs->users));
	if (!cs->tab || !cs->users) {
		lagom_consensus_destroy(cs);
		return NULL;
	}
	return cs;
}

void lagom_consensus_destroy(struct lagom_consensus *cs)
{
	if (!cs)
		return;
	free(cs->tab);
	free(cs->users);
	free(cs);
}

size_t lagom_consensus_users(const struct lagom_consensus *cs)
{
	return cs->nusers;
}

const struct lagom_consensus_user *lagom_consensus_user(
	const struct lagom_consensus *cs, size_t i)
{
	return i < cs->nusers ? &cs->users[i] : NULL;
}

/* ---- physical bounds ---------------------------------------------------- */

static int check_class(const struct lagom_rec_comm *m,
		       const struct lagom_rec_class *k, uint32_t ci, uint32_t i,
		       struct lagom_error *err)
{
#define BAD(...) lagom_errprintf(err, ERANGE, "comm %u class %u: " __VA_ARGS__)
	(void)m;
	if (k->bytes > LAGOM_PHYS_MAX_BYTES)
		return BAD("%llu bytes, above %llu", ci, i,
			   (unsigned long long)k->bytes,
			   (unsigned long long)LAGOM_PHYS_MAX_BYTES);
	if (k->channels > LAGOM_PHYS_MAX_CHANNELS ||
	    (k->bytes > 0 && k->channels > k->bytes))
		return BAD("%u channels for %llu bytes", ci, i, k->channels,
			   (unsigned long long)k->bytes);
	if (k->gpu_n > k->count)
		return BAD("%llu timed of %llu calls", ci, i,
			   (unsigned long long)k->gpu_n,
			   (unsigned long long)k->count);
	if (k->gpu_n == 0)
		return 0;
	if (k->gpu_min_ns < LAGOM_PHYS_MIN_NS)
		return BAD("a call of %llu ns, below %llu ns", ci, i,
			   (unsigned long long)k->gpu_min_ns,
			   LAGOM_PHYS_MIN_NS);
	if (k->gpu_max_ns > LAGOM_PHYS_MAX_NS || k->gpu_min_ns > k->gpu_max_ns)
		return BAD("a call of %llu ns, above %llu ns or its fastest",
			   ci, i, (unsigned long long)k->gpu_max_ns,
			   LAGOM_PHYS_MAX_NS);
	if ((double)k->bytes / ((double)k->gpu_min_ns * 1e-9) >
	    LAGOM_PHYS_MAX_BPS)
		return BAD("%llu bytes in %llu ns, above %.0e B/s", ci, i,
			   (unsigned long long)k->bytes,
			   (unsigned long long)k->gpu_min_ns,
			   LAGOM_PHYS_MAX_BPS);
	return 0;
#undef BAD
}

int lagom_consensus_rec_check(const struct lagom_rec *r,
			      struct lagom_error *err)
{
	for (uint32_t ci = 0; ci < r->n_comms; ci++) {
		const struct lagom_rec_comm *m = &r->comm[ci];
		int rc;

		if (m->nodes < 1 || m->nodes > LAGOM_PHYS_MAX_NODES)
			return lagom_errprintf(
				err, ERANGE, "comm %u: %u nodes, not 1-%u", ci,
				m->nodes, LAGOM_PHYS_MAX_NODES);
		if (m->ranks < m->nodes || m->ranks > LAGOM_PHYS_MAX_RANKS)
			return lagom_errprintf(err, ERANGE,
					       "comm %u: %u ranks on %u nodes",
					       ci, m->ranks, m->nodes);
		for (uint32_t i = 0; i < m->n_classes; i++) {
			rc = check_class(m, &m->cls[i], ci, i, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* ---- the table ----------------------------------------------------------- */

static uint64_t hash_key(const struct ckey *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static struct slot *find(struct slot *tab, size_t cap, const struct ckey *k)
{
	size_t i = (size_t)hash_key(k) & (cap - 1);

	while (tab[i].used && memcmp(&tab[i].k, k, sizeof(*k)) != 0)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int grow(struct lagom_consensus *cs)
{
	size_t cap = cs->cap * 2;
	struct slot *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < cs->cap; i++)
		if (cs->tab[i].used)
			*find(tab, cap, &cs->tab[i].k) = cs->tab[i];
	free(cs->tab);
	cs->tab = tab;
	cs->cap = cap;
	return 0;
}

/* The slot of k, inserted when new (*fresh says so); NULL on ENOMEM. */
static struct slot *put(struct lagom_consensus *cs, const struct ckey *k,
			bool *fresh)
{
	struct slot *s;

	if ((cs->n + 1) * 2 > cs->cap && grow(cs))
		return NULL;
	s = find(cs->tab, cs->cap, k);
	*fresh = !s->used;
	if (!s->used) {
		s->used = true;
		s->k = *k;
		s->min_ns = UINT64_MAX;
		cs->n++;
	}
	return s;
}

static bool has(const struct lagom_consensus *cs, const struct ckey *k)
{
	return find(cs->tab, cs->cap, k)->used;
}

/* ---- adding ------------------------------------------------------------- */

static struct lagom_consensus_user *user_of(struct lagom_consensus *cs,
					    uint32_t uid)
{
	/* records come grouped by user: look at the last one first */
	if (cs->nusers && cs->users[cs->nusers - 1].uid == uid)
		return &cs->users[cs->nusers - 1];
	for (size_t i = 0; i < cs->nusers; i++)
		if (cs->users[i].uid == uid)
			return &cs->users[i];
	if (cs->nusers == LAGOM_CONSENSUS_MAX_USERS)
		return NULL;
	cs->users[cs->nusers].uid = uid;
	return &cs->users[cs->nusers++];
}

static int add_class(struct lagom_consensus *cs, struct lagom_consensus_user *u,
		     const struct ckey *sample)
{
	struct ckey run, cls;
	bool fresh, new_run, new_cls;
	struct slot *s;

	memset(&run, 0, sizeof(run));
	run.uid = sample->uid;
	run.kind = K_RUN;
	memcpy(run.job, sample->job, sizeof(run.job));
	memcpy(run.step, sample->step, sizeof(run.step));
	cls = *sample;
	cls.kind = K_CLASS;
	memset(cls.job, 0, sizeof(cls.job));
	memset(cls.step, 0, sizeof(cls.step));
	new_run = !has(cs, &run);
	new_cls = !has(cs, &cls);
	if (new_run && u->runs >= LAGOM_CONSENSUS_USER_RUNS) {
		u->over_runs++;
		return 0;
	}
	if (new_cls && u->classes >= LAGOM_CONSENSUS_USER_CLASSES) {
		u->over_classes++;
		return 0;
	}
	if (!has(cs, sample) && u->samples >= LAGOM_CONSENSUS_USER_SAMPLES) {
		u->over_samples++;
		return 0;
	}
	if (!put(cs, &run, &fresh))
		return -ENOMEM;
	u->runs += fresh;
	if (!put(cs, &cls, &fresh))
		return -ENOMEM;
	u->classes += fresh;
	s = put(cs, sample, &fresh);
	if (!s)
		return -ENOMEM;
	u->samples += fresh;
	return 0;
}

int lagom_consensus_add(struct lagom_consensus *cs, uint32_t uid,
			const struct lagom_rec *r, struct lagom_error *err)
{
	struct lagom_consensus_user *u = user_of(cs, uid);
	struct ckey key;
	int rc;

	if (!u)
		return lagom_errprintf(err, EUSERS, "more than %d users",
				       LAGOM_CONSENSUS_MAX_USERS);
	rc = lagom_consensus_rec_check(r, err);
	if (rc) {
		u->refused++;
		return rc;
	}
	if (u->records >= LAGOM_CONSENSUS_USER_RECORDS) {
		u->over_records++;
		return 0;
	}
	u->records++;
	memset(&key, 0, sizeof(key));
	key.uid = uid;
	key.kind = K_SAMPLE;
	/* outside Slurm every process is its own run */
	if (strcmp(r->job, "-") == 0) {
		snprintf(key.job, sizeof(key.job), "-");
		snprintf(key.step, sizeof(key.step), "%llu",
			 (unsigned long long)r->pid);
	} else {
		snprintf(key.job, sizeof(key.job), "%s", r->job);
		snprintf(key.step, sizeof(key.step), "%s", r->step);
	}
	for (uint32_t ci = 0; ci < r->n_comms; ci++) {
		const struct lagom_rec_comm *m = &r->comm[ci];
		for (uint32_t i = 0; i < m->n_classes; i++) {
			const struct lagom_rec_class *k = &m->cls[i];
			struct lagom_learn_class mc;
			struct slot *s;
			bool fresh;

			/* the one mapping to the model (measurement/learn.h);
			 * send and recv alone are half a sendrecv: the
			 * calibration fits collectives only */
			if (k->gpu_n == 0 || k->op == LAGOM_NCCL_FUNC_SEND ||
			    k->op == LAGOM_NCCL_FUNC_RECV ||
			    lagom_learn_class(m, k, &mc) != 0)
				continue;
			key.coll = (uint8_t)mc.coll;
			key.algo = (uint8_t)mc.config.algo;
			key.proto = (uint8_t)mc.config.proto;
			key.ranks = m->ranks;
			key.nodes = m->nodes;
			key.channels = mc.config.nchannels;
			key.bytes = mc.bytes;
			rc = add_class(cs, u, &key);
			if (rc)
				return rc;
			s = find(cs->tab, cs->cap, &key);
			if (!s->used)
				continue; /* at a limit */
			if (k->gpu_min_ns < s->min_ns)
				s->min_ns = k->gpu_min_ns;
			(void)fresh;
		}
	}
	return 0;
}

/* ---- the consensus ------------------------------------------------------ */

/* Class fields first, then uid, then run: a class's samples together,
 * per user together. */
static int cmp_sample(const void *pa, const void *pb)
{
	const struct ckey *a = &((const struct slot *)pa)->k,
			  *b = &((const struct slot *)pb)->k;
	const unsigned long long ka[] = { a->nodes,    a->ranks, a->coll,
					  a->bytes,    a->algo,	 a->proto,
					  a->channels, a->uid },
				 kb[] = { b->nodes,    b->ranks, b->coll,
					  b->bytes,    b->algo,	 b->proto,
					  b->channels, b->uid };
	int c;

	for (size_t i = 0; i < sizeof(ka) / sizeof(ka[0]); i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	c = strcmp(a->job, b->job);
	return c ? c : strcmp(a->step, b->step);
}

static bool same_class(const struct ckey *a, const struct ckey *b)
{
	return a->nodes == b->nodes && a->ranks == b->ranks &&
	       a->coll == b->coll && a->bytes == b->bytes &&
	       a->algo == b->algo && a->proto == b->proto &&
	       a->channels == b->channels;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v (n > 0), sorting v. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmp_meas(const void *pa, const void *pb)
{
	const struct lagom_net_meas *a = pa, *b = pb;
	const unsigned long long ka[] = { a->comm.nodes,   a->comm.ranks,
					  a->coll,	   a->bytes,
					  a->cfg.algo,	   a->cfg.proto,
					  a->cfg.nchannels },
				 kb[] = { b->comm.nodes,   b->comm.ranks,
					  b->coll,	   b->bytes,
					  b->cfg.algo,	   b->cfg.proto,
					  b->cfg.nchannels };

	for (size_t i = 0; i < sizeof(ka) / sizeof(ka[0]); i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return 0;
}

/* The class of samples s[0..n) (one class, sorted by user then run)
 * into *time_s: 1 used (*trusted set when the trusted account's),
 * 0 one user, -1 disputed.  um, run: scratch of n doubles each;
 * *nusers the users behind it. */
static int class_time(const struct lagom_consensus *cs, const struct slot *s,
		      size_t n, long exclude_uid, double *um, double *run,
		      double *time_s, bool *trusted, size_t *nusers)
{
	size_t nu = 0, agree = 0;
	double med, trusted_s = 0;
	bool have_trusted = false;

	for (size_t i = 0; i < n;) {
		size_t j = i, r = 0;

		while (j < n && s[j].k.uid == s[i].k.uid) {
			run[r++] = (double)s[j].min_ns * 1e-9;
			j++;
		}
		if ((long)s[i].k.uid != exclude_uid) {
			um[nu] = median(run, r);
			if ((long)s[i].k.uid == cs->trusted_uid) {
				have_trusted = true;
				trusted_s = um[nu];
			}
			nu++;
		}
		i = j;
	}
	*nusers = nu;
	*trusted = have_trusted;
	if (have_trusted) {
		*time_s = trusted_s;
		return 1;
	}
	if (nu < LAGOM_CONSENSUS_MIN_USERS)
		return 0;
	med = median(um, nu);
	for (size_t i = 0; i < nu; i++)
		if (fabs(log(um[i] / med)) <= log(LAGOM_CONSENSUS_AGREE))
			agree++;
	if (agree * 2 <= nu)
		return -1;
	*time_s = med;
	return 1;
}

static void mark_user(const struct lagom_consensus *cs, uint32_t uid,
		      long exclude_uid, bool *seen)
{
	if ((long)uid == exclude_uid)
		return;
	for (size_t u = 0; u < cs->nusers; u++)
		if (cs->users[u].uid == uid)
			seen[u] = true;
}

size_t lagom_consensus_meas(const struct lagom_consensus *cs,
			    const struct lagom_hw *hw, long exclude_uid,
			    struct lagom_net_meas *m, size_t max,
			    struct lagom_consensus_stats *st)
{
	struct lagom_consensus_stats z = { 0 };
	struct slot *s;
	double *um, *run;
	bool *user_seen;
	size_t ns = 0, n = 0;

	s = malloc((cs->n ? cs->n : 1) * sizeof(*s));
	um = malloc((cs->n ? cs->n : 1) * sizeof(*um));
	run = malloc((cs->n ? cs->n : 1) * sizeof(*run));
	user_seen = calloc(cs->nusers ? cs->nusers : 1, sizeof(*user_seen));
	if (!s || !um || !run || !user_seen) {
		n = (size_t)-1;
		goto out_free;
	}
	for (size_t i = 0; i < cs->cap; i++)
		if (cs->tab[i].used && cs->tab[i].k.kind == K_SAMPLE)
			s[ns++] = cs->tab[i];
	qsort(s, ns, sizeof(*s), cmp_sample);
	for (size_t i = 0; i < ns;) {
		size_t j = i, nu = 0;
		bool trusted = false;
		double t = 0;
		int v;

		while (j < ns && same_class(&s[j].k, &s[i].k))
			j++;
		z.classes++;
		v = class_time(cs, s + i, j - i, exclude_uid, um, run, &t,
			       &trusted, &nu);
		if (s[i].k.nodes < 2) {
			z.one_node++;
		} else if (v == 0) {
			z.one_user++;
		} else if (v < 0) {
			z.disputed++;
		} else {
			struct lagom_net_meas x = {
				.hw = *hw,
				.coll = (enum lagom_coll)s[i].k.coll,
				.bytes = s[i].k.bytes,
				.cfg = { .algo = (enum lagom_algo)s[i].k.algo,
					 .proto =
						 (enum lagom_proto)s[i].k.proto,
					 .nchannels = (int)s[i].k.channels },
				.time_s = t,
			};

			memset(&x.hw.net_site, 0, sizeof(x.hw.net_site));
			x.comm = (struct lagom_comm){
				.ranks = (int)s[i].k.ranks,
				.nodes = (int)s[i].k.nodes,
				.ranks_per_node = (int)(s[i].k.ranks /
							s[i].k.nodes),
				.hops = LAGOM_HOPS_SAME_LEAF,
			};
			if (s[i].k.ranks % s[i].k.nodes ||
			    lagom_call_check(&x.hw, &x.comm, x.coll, NULL) ||
			    lagom_coll_config_check_nocheck(&x.hw, &x.comm,
							    x.coll, x.bytes,
							    &x.cfg, NULL)) {
				z.refused++;
			} else if (n == max) {
				z.beyond++;
			} else {
				m[n++] = x;
				z.used++;
				z.trusted += trusted;
				for (size_t k = i; k < j; k++)
					if (k == i ||
					    s[k].k.uid != s[k - 1].k.uid)
						mark_user(cs, s[k].k.uid,
							  exclude_uid,
							  user_seen);
			}
		}
		i = j;
	}
	for (size_t u = 0; u < cs->nusers; u++)
		if (user_seen[u]) {
			z.users++;
			z.runs += cs->users[u].runs;
		}
	qsort(m, n, sizeof(*m), cmp_meas);
out_free:
	free(s);
	free(um);
	free(run);
	free(user_seen);
	if (st)
		*st = z;
	return n;
}

int lagom_consensus_dissent(const struct lagom_consensus *cs, size_t *dissent,
			    double *ratio)
{
	size_t nu = cs->nusers, ns = 0, nr = 0;
	struct slot *s = malloc((cs->n ? cs->n : 1) * sizeof(*s));
	double *um = malloc((cs->n ? cs->n : 1) * sizeof(*um));
	double *run = malloc((cs->n ? cs->n : 1) * sizeof(*run));
	double *r = malloc((cs->n ? cs->n : 1) * sizeof(*r));
	int rc = 0;

	if (!s || !um || !run || !r) {
		rc = -ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < cs->cap; i++)
		if (cs->tab[i].used && cs->tab[i].k.kind == K_SAMPLE)
			s[ns++] = cs->tab[i];
	qsort(s, ns, sizeof(*s), cmp_sample);
	for (size_t u = 0; u < nu; u++) {
		dissent[u] = 0;
		ratio[u] = 1;
	}
	/* per user in turn: the ratios of their classes (quadratic in
	 * users, linear in samples: --check only) */
	for (size_t u = 0; u < nu; u++) {
		nr = 0;
		for (size_t i = 0; i < ns;) {
			size_t j = i, k = 0, mine = (size_t)-1;
			double med;

			while (j < ns && same_class(&s[j].k, &s[i].k))
				j++;
			for (size_t a = i; a < j;) {
				size_t b = a, n = 0;
				while (b < j && s[b].k.uid == s[a].k.uid)
					run[n++] = (double)s[b++].min_ns;
				if (s[a].k.uid == cs->users[u].uid)
					mine = k;
				um[k++] = median(run, n);
				a = b;
			}
			if (s[i].k.nodes >= 2 && k >= 2 && mine != (size_t)-1) {
				double m = um[mine];
				med = median(um, k);
				r[nr++] = m / med;
				if (fabs(log(m / med)) >
				    log(LAGOM_CONSENSUS_AGREE))
					dissent[u]++;
			}
			i = j;
		}
		if (nr)
			ratio[u] = median(r, nr);
	}
out_free:
	free(s);
	free(um);
	free(run);
	free(r);
	return rc;
}

/* ---- the bound on a calibration's move --------------------------------- */

static double value_of(const struct lagom_net_calib *c, int t, int b, int p)
{
	if (c && c->t[t].set[b][p])
		return c->t[t].value[b][p];
	return lagom_net_param_builtin((enum lagom_net_param)p,
				       (enum lagom_transport)t);
}

size_t lagom_consensus_moves(const struct lagom_net_calib *last,
			     const struct lagom_net_calib *now, char *why,
			     size_t len)
{
	size_t k = 0, used = 0;

	if (len)
		why[0] = '\0';
	for (int t = 0; t < LAGOM_NET_COUNT; t++)
		for (int b = 0; b < LAGOM_NET_BANDS; b++)
			for (int p = 0; p < LAGOM_NP_COUNT; p++) {
				double a = value_of(last, t, b, p),
				       c = value_of(now, t, b, p), lo, hi;
				double big = fmax(a, c), small = fmin(a, c);

				lagom_net_param_range((enum lagom_net_param)p,
						      &lo, &hi);
				if (fabs(c - a) <= LAGOM_CONSENSUS_MOVE_RANGE *
							   (hi - lo) ||
				    (small > 0 &&
				     big / small <=
					     LAGOM_CONSENSUS_MOVE_FACTOR))
					continue;
				if (k++ < 4 && used < len) {
					int w = snprintf(
						why + used, len - used,
						"%s%s %s %s %.3g -> %.3g",
						used ? ", " : "",
						lagom_transport_name((
							enum lagom_transport)t),
						lagom_net_band_name(b),
						lagom_net_param_name((
							enum lagom_net_param)p),
						a, c);
					used += w > 0 ? (size_t)w : 0;
					if (used > len)
						used = len;
				}
			}
	return k;
}
