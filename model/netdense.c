/*
 * model/netdense.c - the dense calibration form and its fit
 * (model/netdense.h says the form and why).  Pure: no I/O.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/netdense.h"

static const char *const param_names[LAGOM_DP_COUNT] = {
	"busbw_Bps",	 "step_simple_us", "step_ll128_us", "step_ll_us",
	"lat_simple_us", "lat_ll128_us",   "lat_ll_us",
};

const char *lagom_dense_param_name(enum lagom_dense_param p)
{
	return (unsigned)p < LAGOM_DP_COUNT ? param_names[p] : "?";
}

const char *lagom_dense_verdict_text(enum lagom_dense_verdict v)
{
	switch (v) {
	case LAGOM_DV_FITTED:
		return "fitted";
	case LAGOM_DV_UNDETERMINED:
		return "refused: the data do not determine it (a combination "
		       "of the constants before it)";
	case LAGOM_DV_NEGATIVE:
		return "refused: fitted below zero (the form does not hold "
		       "on these classes)";
	default:
		return "no data (no class of its protocol)";
	}
}

/* NCCL's default buffer per protocol over its 8 steps, bytes. */
static double chunk_bytes(enum lagom_proto p)
{
	switch (p) {
	case LAGOM_PROTO_LL:
		return 16.0 * 1024;
	case LAGOM_PROTO_LL128:
		return 480.0 * 1024;
	default:
		return 512.0 * 1024;
	}
}

static double ceil_log2(unsigned n)
{
	double l = 0;

	while ((1u << (unsigned)l) < n && l < 31)
		l++;
	return l;
}

double lagom_dense_steps(const struct lagom_dense_meas *m)
{
	double N = m->ranks, n = m->nodes;

	switch (m->algo) {
	case LAGOM_ALGO_RING:
		return m->coll == LAGOM_COLL_ALLREDUCE ? 2 * (N - 1) : N - 1;
	case LAGOM_ALGO_TREE:
		return 2 * (N / n - 1 + ceil_log2(m->nodes));
	default:
		return 2 * ceil_log2(m->nodes) + 2;
	}
}

double lagom_dense_loops(const struct lagom_dense_meas *m)
{
	double per = (double)m->nchannels * m->ranks * chunk_bytes(m->proto);

	return fmax(1, ceil((double)m->bytes / per));
}

static double bus_factor(const struct lagom_dense_meas *m)
{
	double N = m->ranks;

	switch (m->coll) {
	case LAGOM_COLL_ALLREDUCE:
		return 2 * (N - 1) / N;
	case LAGOM_COLL_ALLGATHER:
	case LAGOM_COLL_REDUCESCATTER:
	case LAGOM_COLL_ALLTOALL:
		return (N - 1) / N;
	default:
		return 1;
	}
}

static int proto_index(enum lagom_proto p)
{
	return p == LAGOM_PROTO_LL ? 2 : p == LAGOM_PROTO_LL128 ? 1 : 0;
}

/* The form's columns for m (x[LAGOM_DP_COUNT]): each constant's
 * coefficient. */
static void columns(const struct lagom_dense_meas *m, double *x)
{
	int pi = proto_index(m->proto);

	memset(x, 0, LAGOM_DP_COUNT * sizeof(*x));
	x[LAGOM_DP_INV_BUSBW] = (double)m->bytes * bus_factor(m);
	x[LAGOM_DP_STEP_SIMPLE + pi] = lagom_dense_steps(m) *
				       lagom_dense_loops(m);
	x[LAGOM_DP_LAT_SIMPLE + pi] = 1;
}

/* Internal units: busbw as seconds per byte, the others seconds; the
 * public values: busbw in bytes/s, the others in us. */
static double to_public(int p, double v)
{
	return p == LAGOM_DP_INV_BUSBW ? 1 / v : v * 1e6;
}

static double to_internal(int p, double v)
{
	return p == LAGOM_DP_INV_BUSBW ? 1 / v : v * 1e-6;
}

double lagom_dense_predict_s(const struct lagom_dense_meas *m,
			     const struct lagom_dense_fit *f)
{
	double x[LAGOM_DP_COUNT], t = 0;

	columns(m, x);
	for (int p = 0; p < LAGOM_DP_COUNT; p++)
		if (f->set[p])
			t += x[p] * to_internal(p, f->value[p]);
	return t;
}

/*
 * Least squares of a (n x LAGOM_DP_COUNT, column-major, each row already
 * divided by its time) against 1 over the columns use[] allows: modified
 * Gram-Schmidt in column order; a column with less than
 * LAGOM_DENSE_MIN_INDEP of its norm left is marked undetermined.  c: the
 * coefficients (0 for the others).
 */
static void solve(const double *a, size_t n, const bool *use,
		  enum lagom_dense_verdict *v, double *c, double *q)
{
	double r[LAGOM_DP_COUNT][LAGOM_DP_COUNT] = { { 0 } },
	       qy[LAGOM_DP_COUNT];
	int kept[LAGOM_DP_COUNT], nk = 0;

	for (int j = 0; j < LAGOM_DP_COUNT; j++) {
		double *qj = q + (size_t)nk * n, norm0 = 0, norm = 0;

		c[j] = 0;
		if (!use[j])
			continue;
		for (size_t i = 0; i < n; i++) {
			qj[i] = a[(size_t)j * n + i];
			norm0 += qj[i] * qj[i];
		}
		if (norm0 == 0) {
			v[j] = LAGOM_DV_NO_DATA;
			continue;
		}
		for (int k = 0; k < nk; k++) {
			const double *qk = q + (size_t)k * n;
			double d = 0;
			for (size_t i = 0; i < n; i++)
				d += qk[i] * qj[i];
			r[k][nk] = d;
			for (size_t i = 0; i < n; i++)
				qj[i] -= d * qk[i];
		}
		for (size_t i = 0; i < n; i++)
			norm += qj[i] * qj[i];
		if (sqrt(norm / norm0) < LAGOM_DENSE_MIN_INDEP) {
			v[j] = LAGOM_DV_UNDETERMINED;
			continue;
		}
		norm = sqrt(norm);
		for (size_t i = 0; i < n; i++)
			qj[i] /= norm;
		r[nk][nk] = norm;
		kept[nk++] = j;
		v[j] = LAGOM_DV_FITTED;
	}
	for (int k = 0; k < nk; k++) {
		const double *qk = q + (size_t)k * n;
		qy[k] = 0;
		for (size_t i = 0; i < n; i++)
			qy[k] += qk[i];
	}
	for (int k = nk - 1; k >= 0; k--) {
		double s = qy[k];
		for (int l = k + 1; l < nk; l++)
			s -= r[k][l] * c[kept[l]];
		c[kept[k]] = s / r[k][k];
	}
}

int lagom_dense_fit(const struct lagom_dense_meas *m, size_t n,
		    struct lagom_dense_fit *out, struct lagom_error *err)
{
	struct lagom_dense_fit f = { 0 };
	bool use[LAGOM_DP_COUNT];
	double c[LAGOM_DP_COUNT], *a, *q;
	unsigned seen[64];
	size_t nseen = 0;

	if (n == 0 || n > LAGOM_DENSE_MAX_MEAS)
		return lagom_errprintf(err, EINVAL,
				       "%zu classes: 1 to %d can be fitted", n,
				       LAGOM_DENSE_MAX_MEAS);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(m[i].time_s) || m[i].time_s <= 0 ||
		    m[i].nodes == 0 || m[i].ranks % m[i].nodes ||
		    m[i].nchannels == 0 || m[i].bytes == 0)
			return lagom_errprintf(err, EINVAL,
					       "class %zu: a time, nodes, "
					       "ranks, channels or bytes the "
					       "form cannot take",
					       i);
	a = malloc(n * LAGOM_DP_COUNT * sizeof(*a));
	q = malloc(n * LAGOM_DP_COUNT * sizeof(*q));
	if (!a || !q) {
		free(a);
		free(q);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		double x[LAGOM_DP_COUNT];
		bool dup = false;

		columns(&m[i], x);
		for (int p = 0; p < LAGOM_DP_COUNT; p++)
			a[(size_t)p * n + i] = x[p] / m[i].time_s;
		for (size_t k = 0; k < nseen; k++)
			dup = dup || seen[k] == m[i].nodes;
		if (!dup && nseen < 64)
			seen[nseen++] = m[i].nodes;
	}
	for (int p = 0; p < LAGOM_DP_COUNT; p++)
		use[p] = true;
	/* a constant fitted below zero is refused, the rest fitted again */
	for (int round = 0; round < LAGOM_DP_COUNT; round++) {
		bool again = false;

		solve(a, n, use, f.verdict, c, q);
		for (int p = 0; p < LAGOM_DP_COUNT; p++)
			if (use[p] && f.verdict[p] == LAGOM_DV_FITTED &&
			    !(c[p] > 0)) {
				use[p] = false;
				f.verdict[p] = LAGOM_DV_NEGATIVE;
				again = true;
				break;
			}
		if (!again)
			break;
	}
	for (int p = 0; p < LAGOM_DP_COUNT; p++) {
		if (!use[p] && f.verdict[p] != LAGOM_DV_NEGATIVE)
			continue;
		f.set[p] = use[p] && f.verdict[p] == LAGOM_DV_FITTED;
		f.value[p] = f.set[p] ? to_public(p, c[p]) : 0;
	}
	f.n = n;
	f.node_counts = (unsigned)nseen;
	free(a);
	free(q);
	*out = f;
	return 0;
}
