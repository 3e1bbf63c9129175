/*
 * tests/model/busbw_report.c - predicted vs published NCCL all-reduce figures
 * for every row of tests/fixtures/measurements/nccl-busbw.csv.
 *
 *   busbw_report [--check] [CSV]
 *
 * Each row's hardware comes from the spec-sheet table only
 * (lagom_hw_from_spec(): GPU, fabric named in the row, NIC count and speed
 * named in the row); the configuration is what lagom_nccl_default() says
 * NCCL picks, or the row's forced algorithm.  Rows with a bus bandwidth are
 * compared on it, rows with only a time on the time.  --check exits 1 when
 * the median absolute error exceeds 25 % or any row is off by more than 2x.
 * GPU "unknown" (GCP 2019 rows) is taken as V100-PCIe, the GPU GCP offered.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/model.h"

#define MAX_FIELDS 16
#define MAX_ROWS 256

/* Split one CSV line in place (double quotes allowed around fields). */
static int split_csv(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		char *out = p;
		bool quoted = *p == '"';
		fields[n++] = p;
		if (quoted)
			p++;
		while (*p && (quoted || (*p != ',' && *p != '\n'))) {
			if (quoted && *p == '"') {
				quoted = false;
				p++;
				continue;
			}
			*out++ = *p++;
		}
		bool end = *p != ',';
		*out = '\0';
		if (end)
			break;
		p++;
	}
	return n;
}

/* The row's fabric; a bare "NVLink" between more than two GPUs is the
 * GPU's usual fabric (an 8-GPU H800 board is NVSwitch-based). */
static enum lagom_intra row_intra(const char *s, unsigned gpus)
{
	if (strstr(s, "NVSwitch"))
		return LAGOM_INTRA_NVSWITCH;
	if (strstr(s, "NVLink") || strstr(s, "NV2"))
		return gpus > 2 ? LAGOM_INTRA_DEFAULT : LAGOM_INTRA_NVLINK;
	return LAGOM_INTRA_PCIE;
}

/* "4x IB HDR 200Gb/s per node", "32 Gb/s TCP", "none". */
static void row_net(const char *s, unsigned *count, double *gbps, bool *gdr)
{
	const char *g = strstr(s, "Gb/s");
	const char *num;

	*count = 0;
	*gbps = 0;
	*gdr = strstr(s, "TCP") == NULL;
	if (!g)
		return;
	num = g;
	while (num > s && (num[-1] == ' '))
		num--;
	while (num > s &&
	       ((num[-1] >= '0' && num[-1] <= '9') || num[-1] == '.'))
		num--;
	*gbps = atof(num);
	*count = (s[0] >= '0' && s[0] <= '9' && strchr(s, 'x'))
			 ? (unsigned)atoi(s)
			 : 1;
}

struct row_result {
	double ratio; /* predicted / published */
};

static int predict_row(char **f, double *pred, double *pub, bool *is_time,
		       char *cfg_text, size_t cfg_len)
{
	unsigned gpn = (unsigned)atoi(f[1]), nodes = (unsigned)atoi(f[2]);
	const char *gpu = strcasecmp(f[3], "unknown") == 0 ? "V100-PCIe" : f[3];
	struct lagom_comm comm = { .ranks = gpn * nodes,
				   .nodes = nodes,
				   .ranks_per_node = gpn,
				   .hops = nodes > 1 ? LAGOM_HOPS_SAME_LEAF
						     : LAGOM_HOPS_SAME_NODE };
	struct lagom_coll_config cfg;
	struct lagom_coll_time t;
	struct lagom_error err = { 0 };
	struct lagom_hw hw;
	uint64_t bytes = strtoull(f[9], NULL, 10);
	unsigned nics;
	double gbps;
	bool gdr;

	row_net(f[5], &nics, &gbps, &gdr);
	if (lagom_hw_from_spec(gpu, gpn, row_intra(f[4], gpn), nics, gbps, &hw,
			       &err) ||
	    (hw.nic_gdr = gdr && nics > 0, 0) ||
	    lagom_nccl_default(&hw, &comm, LAGOM_COLL_ALLREDUCE, bytes, &cfg,
			       &err)) {
		fprintf(stderr, "row %s: %s\n", f[0], err.text);
		return -1;
	}
	if (strncasecmp(f[8], "NVLS", 4) == 0 ||
	    strncasecmp(f[8], "Ring", 4) == 0) {
		cfg.algo = f[8][0] == 'N' ? LAGOM_ALGO_NVLS : LAGOM_ALGO_RING;
		cfg.proto = LAGOM_PROTO_SIMPLE;
		cfg.nthreads = 0;
		cfg.chunk_bytes = 0;
		if (cfg.algo == LAGOM_ALGO_NVLS)
			cfg.nchannels = hw.gpu.sm_arch >= 100 ? 24 : 16;
	}
	if (lagom_coll_predict(&hw, &comm, LAGOM_COLL_ALLREDUCE, bytes, &cfg,
			       &t, &err)) {
		fprintf(stderr, "row %s: %s\n", f[0], err.text);
		return -1;
	}
	snprintf(cfg_text, cfg_len, "%s/%s nc=%u", lagom_algo_name(cfg.algo),
		 lagom_proto_name(cfg.proto), cfg.nchannels);
	*is_time = f[10][0] == '\0';
	*pub = *is_time ? atof(f[11]) : atof(f[10]);
	*pred = *is_time ? t.time_s * 1e6 : t.busbw_Bps / 1e9;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct row {
	char line[1024];
	char *f[MAX_FIELDS];
};

/*
 * A source whose rows give both a time and a bus bandwidth tells which
 * bus-bandwidth convention it used: listed busbw / (bytes / time x the
 * nccl-tests all-reduce factor 2(n-1)/n).  Returns 1 when consistent.
 */
static double source_convention(struct row *rows, int n, const char *system)
{
	for (int i = 0; i < n; i++) {
		char **f = rows[i].f;
		double ranks = atof(f[1]) * atof(f[2]), t = atof(f[11]);
		double bus = atof(f[10]), k;
		if (strcmp(f[0], system) || !(t > 0) || !(bus > 0))
			continue;
		k = bus / (atof(f[9]) / (t * 1e3) * 2 * (ranks - 1) / ranks);
		return fabs(k - 1) > 0.1 ? k : 1.0;
	}
	return 1.0;
}

static int read_rows(const char *path, struct row *rows, int max)
{
	FILE *fp = fopen(path, "r");
	int n = 0;

	if (!fp) {
		fprintf(stderr, "busbw_report: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	while (n < max && fgets(rows[n].line, sizeof(rows[n].line), fp)) {
		if (strncmp(rows[n].line, "system,", 7) == 0)
			continue;
		if (split_csv(rows[n].line, rows[n].f, MAX_FIELDS) >= 12)
			n++;
	}
	fclose(fp);
	return n;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	char default_path[512];
	static struct row rows[MAX_ROWS];
	double errs[MAX_ROWS], worst = 1.0, med;
	bool check = false;
	int nrows, n = 0, failed = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--check") == 0)
			check = true;
		else
			path = argv[i];
	}
	if (!path) {
		const char *dir = getenv("LAGOM_FIXTURES");
		snprintf(default_path, sizeof(default_path),
			 "%s/measurements/nccl-busbw.csv",
			 dir ? dir : "tests/fixtures");
		path = default_path;
	}
	nrows = read_rows(path, rows, MAX_ROWS);
	if (nrows <= 0) {
		fprintf(stderr, "busbw_report: no rows read from %s\n", path);
		return 2;
	}
	printf("%-34s %6s %11s %-20s %9s %9s %7s\n", "system", "ranks", "bytes",
	       "config", "published", "predicted", "ratio");
	for (int i = 0; i < nrows; i++) {
		char **f = rows[i].f, cfg[64];
		double pred, pub, ratio, k;
		bool is_time;

		if (predict_row(f, &pred, &pub, &is_time, cfg, sizeof(cfg))) {
			failed++;
			continue;
		}
		k = is_time ? 1.0 : source_convention(rows, nrows, f[0]);
		ratio = pred * k / pub;
		errs[n++] = fabs(ratio - 1.0);
		worst = fmax(worst, fmax(ratio, 1.0 / ratio));
		printf("%-34.34s %6d %11s %-20s %8.2f%s %8.2f%s %7.3f%s\n",
		       f[0], atoi(f[1]) * atoi(f[2]), f[9], cfg, pub,
		       is_time ? "u" : "G", pred * k, is_time ? "u" : "G",
		       ratio, k != 1.0 ? " *" : "");
	}
	med = median(errs, n);
	printf("rows %d (failed %d)  median abs error %.1f %%  worst factor "
	       "%.2fx\n(G = busbw GB/s, u = time us; * = the source's own "
	       "rows with a time show another busbw convention, applied to "
	       "the prediction)\n",
	       n, failed, 100 * med, worst);
	if (check)
		return (failed || med > 0.25 || worst > 2.0) ? 1 : 0;
	return 0;
}
