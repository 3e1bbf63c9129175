/*
 * cli/calib_consensus.c - `lagom calibrate`'s lines around the users'
 * consensus (cli/calib_int.h): who gave what, who moved what, and the
 * bound on a calibration's move.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/calib_int.h"
#include "cli/cli.h"
#include "common/escape.h"
#include "model/netdense.h"
#include "planner/calib.h"
#include "plugstack/plugstack.h"
#include "prolog/prolog.h"

#define DEFAULT_PLUGSTACK "/etc/slurm/plugstack.conf"

int cli_calib_trusted_uid(const char *name, const char *plugstack, long *uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096], *end;
	unsigned long v;
	static struct lagom_config cfg;
	struct lagom_error err = { 0 };
	int rc;

	*uid = LAGOM_CONSENSUS_NO_UID;
	if (!name) {
		rc = prolog_read_plugstack(
			plugstack ? plugstack : DEFAULT_PLUGSTACK, &cfg, &err);
		if (rc == -ENOENT && !plugstack)
			return 0;
		if (rc) {
			lagom_escape(err.text, buf, sizeof(buf));
			cli_fail(CLI_USAGE, "calibrate: --plugstack: %s", buf);
			return -1;
		}
		if (!cfg.calibration_user[0])
			return 0;
		name = cfg.calibration_user;
	}
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) == 0 && res) {
		*uid = (long)pw.pw_uid;
		return 0;
	}
	errno = 0;
	v = strtoul(name, &end, 10);
	if (*name && !*end && errno == 0 && v < 0xffffffffUL) {
		*uid = (long)v;
		return 0;
	}
	lagom_escape(name, buf, sizeof(buf));
	cli_fail(CLI_USAGE, "calibrate: --trusted-user: no user '%s'", buf);
	return -1;
}

/* "name (uid N)" of uid into buf. */
static const char *who(uint32_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char pwbuf[4096], name[128];

	if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res) {
		lagom_escape(pw.pw_name, name, sizeof(name));
		snprintf(buf, len, "%s (uid %u)", name, uid);
	} else {
		snprintf(buf, len, "uid %u", uid);
	}
	return buf;
}

/* --check: each user whose times lie outside the agreement of the others. */
static void print_dissent(const struct lagom_consensus *cs)
{
	size_t nu = lagom_consensus_users(cs);
	size_t *dissent = calloc(nu ? nu : 1, sizeof(*dissent));
	double *ratio = calloc(nu ? nu : 1, sizeof(*ratio));
	char name[192];

	if (!dissent || !ratio ||
	    lagom_consensus_dissent(cs, dissent, ratio) != 0) {
		cli_fail(CLI_FAIL, "calibrate: --check: out of memory");
		goto out_free;
	}
	for (size_t u = 0; u < nu; u++)
		if (dissent[u])
			fprintf(stderr,
				"lagom: calibrate: user %s disagrees with the "
				"others on %zu classes: their times %.2fx the "
				"class median\n",
				who(lagom_consensus_user(cs, u)->uid, name,
				    sizeof(name)),
				dissent[u], ratio[u]);
out_free:
	free(dissent);
	free(ratio);
}

size_t cli_calib_meas(const struct lagom_consensus *cs,
		      const struct lagom_hw *hw, struct lagom_net_meas *m,
		      size_t max, struct lagom_consensus_stats *st, bool check)
{
	size_t n = lagom_consensus_meas(cs, hw, LAGOM_CONSENSUS_NO_UID, m, max,
					st);
	char name[192];

	if (n == (size_t)-1) {
		cli_fail(CLI_FAIL, "calibrate: out of memory");
		return 0;
	}
	for (size_t i = 0; i < lagom_consensus_users(cs); i++) {
		const struct lagom_consensus_user *u = lagom_consensus_user(cs,
									    i);

		if (u->refused)
			fprintf(stderr,
				"lagom: calibrate: user %s: %zu records "
				"refused: outside physical bounds\n",
				who(u->uid, name, sizeof(name)), u->refused);
		if (u->over_records || u->over_runs || u->over_classes ||
		    u->over_samples)
			fprintf(stderr,
				"lagom: calibrate: user %s at a per-user "
				"limit: %zu records beyond %d, (run, class) "
				"pairs dropped: %zu beyond %d runs, %zu beyond "
				"%d classes, %zu beyond %d pairs\n",
				who(u->uid, name, sizeof(name)),
				u->over_records, LAGOM_CONSENSUS_USER_RECORDS,
				u->over_runs, LAGOM_CONSENSUS_USER_RUNS,
				u->over_classes, LAGOM_CONSENSUS_USER_CLASSES,
				u->over_samples, LAGOM_CONSENSUS_USER_SAMPLES);
	}
	fprintf(stderr,
		"lagom: calibrate: %zu users, %zu classes: %zu multi-node "
		"classes agreed (%zu from the trusted account), %zu disputed "
		"(no majority of users within a factor %.1f), %zu of fewer "
		"than %d users, %zu on one node, %zu not on this hardware, "
		"%zu beyond %zu\n",
		lagom_consensus_users(cs), st->classes, st->used, st->trusted,
		st->disputed, LAGOM_CONSENSUS_AGREE, st->one_user,
		LAGOM_CONSENSUS_MIN_USERS, st->one_node, st->refused,
		st->beyond, max);
	if (check)
		print_dissent(cs);
	return n;
}

static double value_of(const struct lagom_net_calib *c, int t, int b, int p)
{
	if (c->t[t].set[b][p])
		return c->t[t].value[b][p];
	return lagom_net_param_builtin((enum lagom_net_param)p,
				       (enum lagom_transport)t);
}

void cli_calib_influence(const struct lagom_consensus *cs,
			 const struct lagom_hw *hw,
			 const struct lagom_net_calib *all)
{
	size_t nu = lagom_consensus_users(cs);
	struct lagom_net_calib *without = calloc(nu ? nu : 1, sizeof(*without));
	struct lagom_net_meas *m = malloc(LAGOM_NET_SITE_MAX_MEAS * sizeof(*m));
	double best = 0;
	size_t best_u = 0;
	int best_t = 0, best_b = 0, best_p = 0;
	char name[192];

	if (!without || !m) {
		cli_fail(CLI_FAIL, "calibrate: --check: out of memory");
		goto out_free;
	}
	for (size_t u = 0; u < nu; u++) {
		struct lagom_error err = { 0 };
		size_t n = lagom_consensus_meas(
			cs, hw, (long)lagom_consensus_user(cs, u)->uid, m,
			LAGOM_NET_SITE_MAX_MEAS, NULL);

		if (n == 0 || n == (size_t)-1 ||
		    lagom_net_site_fit(m, n, &without[u], NULL, &err))
			memset(&without[u], 0, sizeof(without[u]));
	}
	printf("influence, each constant fitted without each user:\n");
	for (int t = 0; t < LAGOM_NET_COUNT; t++)
		for (int b = 0; b < LAGOM_NET_BANDS; b++)
			for (int p = 0; p < LAGOM_NP_COUNT; p++) {
				bool any = all->t[t].set[b][p];
				double v = value_of(all, t, b, p);

				for (size_t u = 0; u < nu; u++)
					any = any || without[u].t[t].set[b][p];
				if (!any)
					continue;
				printf("  %s %s %s %.4g:",
				       lagom_transport_name(
					       (enum lagom_transport)t),
				       lagom_net_band_name(b),
				       lagom_net_param_name(
					       (enum lagom_net_param)p),
				       v);
				for (size_t u = 0; u < nu; u++) {
					double w = value_of(&without[u], t, b,
							    p);
					double d = v > 0 && w > 0
							   ? fabs(log(w / v))
							   : fabs(w - v);

					printf(" without %s %.4g%s",
					       who(lagom_consensus_user(cs, u)
							   ->uid,
						   name, sizeof(name)),
					       w, u + 1 < nu ? "," : "");
					if (d > best) {
						best = d, best_u = u;
						best_t = t, best_b = b;
						best_p = p;
					}
				}
				printf("\n");
			}
	if (best > 0)
		printf("most influential user: %s: %s %s %s %.4g with them, "
		       "%.4g without\n",
		       who(lagom_consensus_user(cs, best_u)->uid, name,
			   sizeof(name)),
		       lagom_transport_name((enum lagom_transport)best_t),
		       lagom_net_band_name(best_b),
		       lagom_net_param_name((enum lagom_net_param)best_p),
		       value_of(all, best_t, best_b, best_p),
		       value_of(&without[best_u], best_t, best_b, best_p));
	else
		printf("most influential user: none (no constant moves "
		       "without any one user)\n");
out_free:
	free(without);
	free(m);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void cli_calib_dense(const struct lagom_net_meas *m, size_t n)
{
	struct lagom_dense_meas *d = malloc((n ? n : 1) * sizeof(*d));
	struct lagom_dense_meas *rest = malloc((n ? n : 1) * sizeof(*rest));
	double *e = malloc((n ? n : 1) * sizeof(*e));

	if (!d || !rest || !e)
		goto out_free;
	for (int a = 0; a < LAGOM_ALGO_COUNT; a++) {
		struct lagom_dense_fit f;
		struct lagom_error err = { 0 };
		size_t k = 0, ne = 0;

		for (size_t i = 0; i < n; i++)
			if ((int)m[i].cfg.algo == a)
				d[k++] = (struct lagom_dense_meas){
					.coll = m[i].coll,
					.algo = m[i].cfg.algo,
					.proto = m[i].cfg.proto,
					.bytes = m[i].bytes,
					.nodes = (unsigned)m[i].comm.nodes,
					.ranks = (unsigned)m[i].comm.ranks,
					.nchannels =
						(unsigned)m[i].cfg.nchannels,
					.time_s = m[i].time_s,
				};
		if (k == 0)
			continue;
		if (lagom_dense_fit(d, k, &f, &err)) {
			fprintf(stderr,
				"lagom: calibrate: dense form, %s %s: %s\n",
				lagom_transport_name(m[0].hw.transport),
				lagom_algo_name((enum lagom_algo)a), err.text);
			continue;
		}
		fprintf(stderr,
			"lagom: calibrate: dense form (doc/model.md 2.8), %s "
			"%s: %zu classes on %u node counts\n",
			lagom_transport_name(m[0].hw.transport),
			lagom_algo_name((enum lagom_algo)a), k, f.node_counts);
		for (int p = 0; p < LAGOM_DP_COUNT; p++)
			fprintf(stderr,
				"lagom: calibrate:   %-15s %12.6g: %s\n",
				lagom_dense_param_name(p), f.value[p],
				lagom_dense_verdict_text(f.verdict[p]));
		for (size_t i = 0; k >= 3 && i < k; i++) {
			struct lagom_dense_fit fi;
			size_t r = 0;
			for (size_t j = 0; j < k; j++)
				if (j != i)
					rest[r++] = d[j];
			if (lagom_dense_fit(rest, r, &fi, &err) == 0 &&
			    lagom_dense_predict_s(&d[i], &fi) > 0)
				e[ne++] = fabs(d[i].time_s /
						       lagom_dense_predict_s(
							       &d[i], &fi) -
					       1);
		}
		if (ne) {
			qsort(e, ne, sizeof(*e), cmp_dbl);
			fprintf(stderr,
				"lagom: calibrate: dense form, %s %s, "
				"leave-one-class-out: %zu "
				"classes, median |measured / predicted - 1| "
				"%.1f%%\n",
				lagom_transport_name(m[0].hw.transport),
				lagom_algo_name((enum lagom_algo)a), ne,
				100 * (ne % 2 ? e[ne / 2]
					      : (e[ne / 2 - 1] + e[ne / 2]) /
							2));
		}
	}
out_free:
	free(d);
	free(rest);
	free(e);
}

int cli_calib_bound(const char *last_path, const char *out,
		    const struct lagom_net_calib *now, bool accept)
{
	const char *path = last_path ? last_path : out;
	struct lagom_calibration last;
	struct lagom_error err = { 0 };
	bool have = false;
	char why[512], esc[1024];
	size_t k;
	int rc;

	if (path) {
		rc = lagom_calibration_read_file(path, &last, &err);
		lagom_escape(path, esc, sizeof(esc));
		if (rc == 0)
			have = true;
		else if (last_path || rc != -ENOENT)
			return cli_fail(CLI_FAIL,
					"calibrate: the last calibration %s: "
					"%s",
					esc, err.text);
	}
	k = lagom_consensus_moves(have ? &last.calib : NULL, now, why,
				  sizeof(why));
	if (k == 0)
		return CLI_OK;
	fprintf(stderr,
		"lagom: calibrate: %zu constants move more than a factor %.1f "
		"from %s: %s%s\n",
		k, LAGOM_CONSENSUS_MOVE_FACTOR,
		have ? "the last calibration" : "the built-in values", why,
		k > 4 ? ", ..." : "");
	if (accept)
		return CLI_OK;
	return cli_fail(CLI_FAIL, "calibrate: not written: check the "
				  "influence (--check), then --accept");
}
