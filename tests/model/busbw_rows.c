/*
 * tests/model/busbw_rows.c - published nccl-tests rows as model inputs
 * (see busbw_rows.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tests/model/busbw_rows.h"

#define MAX_FIELDS 16

/*
 * What a multi-node source leaves out, one line per system (matched on the
 * start of the system name).  nics x nic_Gbit per node, the transport, a
 * CollNet (SHARP) plugin, nodes per NVLink domain.
 */
static const struct convention {
	const char *prefix;
	unsigned nics;
	double nic_Gbit;
	enum lagom_transport transport;
	bool collnet;
	unsigned domain;
	const char *note;
} row_conventions[] = {
	{ "AWS-p5.48xlarge", 32, 100, LAGOM_NET_EFA, false, 0,
	  "as stated: 32 EFA devices, 3200 Gb/s" },
	{ "Nebius-H100", 8, 400, LAGOM_NET_IB, false, 0,
	  "assumed 8 x 400 Gb/s IB (not stated; the usual H100 node)" },
	{ "Lambda-1CC-B200", 8, 400, LAGOM_NET_IB, false, 0,
	  "assumed 8 x 400 Gb/s IB (not stated; mlx5_0 excluded)" },
	{ "GCP-a3-highgpu-8g", 4, 200, LAGOM_NET_TCPX, false, 0,
	  "4 data NICs at 200 Gb/s (a3-highgpu; the 1 Tb/s stated counts "
	  "the host NIC)" },
	{ "HGX-H100-IB400", 8, 400, LAGOM_NET_IB, false, 0,
	  "8 x 400 Gb/s (poster: ~400 GB/s per node)" },
	{ "Supermicro-SYS-821GE", 8, 400, LAGOM_NET_IB, false, 0,
	  "as stated: 8 x 400 Gb/s" },
	{ "H100-8xCX7-NDR400", 8, 400, LAGOM_NET_IB, false, 0,
	  "as stated: 8 x 400 Gb/s" },
	{ "CoreWeave-GB200-NVL72", 4, 400, LAGOM_NET_IB, false, 18,
	  "assumed 4 x 400 Gb/s per 4-GPU tray (not stated); NVL72 = one "
	  "NVLink domain of 18 trays" },
	{ "CoreWeave-H100-IB-3200G-SHARP", 8, 400, LAGOM_NET_IB, true, 0,
	  "as stated: 8 HCAs, 3200 Gb/s, SHARP (CollNet)" },
	{ "OCI-BM.GPU4.8", 16, 100, LAGOM_NET_ROCE, false, 0,
	  "as stated: 16 x 100 Gb/s RoCE" },
	{ "H100-128node-RDMA", 8, 400, LAGOM_NET_ROCE, false, 0,
	  "assumed 8 x 400 Gb/s RoCE (not stated; GID index 3 = RoCE v2; "
	  "its Ring reaches 367 GB/s per node)" },
	{ "RTX6000D-PCIe-8xCX8", 8, 400, LAGOM_NET_IB, false, 0,
	  "assumed 400 Gb/s per HCA (speed not stated)" },
	{ "V100-8node-IB100", 1, 100, LAGOM_NET_IB, false, 0,
	  "assumed one 100 Gb/s HCA per node (count not stated)" },
	{ "A100-SXM4-80GB-4xHDR200", 4, 200, LAGOM_NET_IB, false, 0,
	  "as stated: 4 x 200 Gb/s" },
	{ "2xRTX2080Ti-PCIe-Gen3-noP2P", 0, 0, LAGOM_NET_DEFAULT, false, 0,
	  "no P2P: NCCL stages through host memory, PCIe rate halved" },
};

void busbw_rows_conventions(FILE *out)
{
	fprintf(out, "conventions (what a source leaves out):\n");
	for (size_t i = 0;
	     i < sizeof(row_conventions) / sizeof(row_conventions[0]); i++)
		fprintf(out, "  %-30s %s\n", row_conventions[i].prefix,
			row_conventions[i].note);
	fprintf(out, "  %-30s %s\n", "nccl-busbw.csv GPU unknown",
		"V100-PCIe (what GCP offered in 2019)");
	fprintf(out, "  %-30s %s\n", "2xRTX2080Ti-NVLink-bridge",
		"busbw listed at half what its own times give: x2");
}

/* Split one CSV line in place (double quotes allowed around fields). */
static int split_csv(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		char *out = p;
		bool quoted = *p == '"', end;
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
		end = *p != ',';
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
	if (strstr(s, "NVSwitch") || strstr(s, "multi-node NVLink"))
		return LAGOM_INTRA_NVSWITCH;
	if (strstr(s, "NVLink") || strstr(s, "NV2"))
		return gpus > 2 ? LAGOM_INTRA_DEFAULT : LAGOM_INTRA_NVLINK;
	if (strstr(s, "PCIe"))
		return LAGOM_INTRA_PCIE;
	return LAGOM_INTRA_DEFAULT;
}

/* nccl-busbw.csv: "4x IB HDR 200Gb/s per node", "32 Gb/s TCP", "none". */
static void row_net(const char *s, unsigned *count, double *nic_Gbit, bool *gdr)
{
	const char *g = strstr(s, "Gb/s");
	const char *num;

	*count = 0;
	*nic_Gbit = 0;
	*gdr = strstr(s, "TCP") == NULL;
	if (!g)
		return;
	num = g;
	while (num > s && (num[-1] == ' '))
		num--;
	while (num > s &&
	       ((num[-1] >= '0' && num[-1] <= '9') || num[-1] == '.'))
		num--;
	*nic_Gbit = atof(num);
	*count = (s[0] >= '0' && s[0] <= '9' && strchr(s, 'x'))
			 ? (unsigned)atoi(s)
			 : 1;
}

static const struct convention *find_convention(const char *system)
{
	for (size_t i = 0;
	     i < sizeof(row_conventions) / sizeof(row_conventions[0]); i++)
		if (strncmp(system, row_conventions[i].prefix,
			    strlen(row_conventions[i].prefix)) == 0)
			return &row_conventions[i];
	return NULL;
}

static int row_hw(char **f, bool multinode, struct busbw_row *r,
		  struct lagom_error *err)
{
	unsigned gpn = (unsigned)atoi(f[1]), nics = 0;
	const char *gpu = strcasecmp(f[3], "unknown") == 0 ? "V100-PCIe" : f[3];
	const struct convention *cv = multinode ? find_convention(f[0]) : NULL;
	struct lagom_hw *hw = &r->obs.hw;
	double nic_Gbit = 0;
	bool gdr = true;
	int rc;

	if (multinode && !cv)
		return lagom_errprintf(err, EINVAL, "no convention for %s",
				       f[0]);
	if (cv) {
		nics = cv->nics;
		nic_Gbit = cv->nic_Gbit;
	} else {
		row_net(f[5], &nics, &nic_Gbit, &gdr);
	}
	rc = lagom_hw_from_spec(gpu, gpn, row_intra(f[4], gpn), nics, nic_Gbit,
				hw, err);
	if (rc)
		return rc;
	hw->nic_gdr = gdr && nics > 0;
	if (cv) {
		hw->transport = cv->transport;
		hw->collnet = cv->collnet;
		hw->nvl_domain_nodes = cv->domain;
		if (strstr(f[4], "P2P not supported"))
			hw->pcie_Bps /= 2;
	}
	return 0;
}

static double bus_factor(enum lagom_coll coll, double n)
{
	if (coll == LAGOM_COLL_ALLREDUCE)
		return 2 * (n - 1) / n;
	if (coll == LAGOM_COLL_ALLGATHER || coll == LAGOM_COLL_REDUCESCATTER ||
	    coll == LAGOM_COLL_ALLTOALL)
		return (n - 1) / n;
	return 1.0;
}

/* A number after KEY= in the algorithm column, or 0. */
static unsigned env_value(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? (unsigned)atoi(p + strlen(key)) : 0;
}

/* The configuration that ran: NCCL's default, or what the poster forced. */
static int row_config(const char *algo, struct busbw_row *r,
		      struct lagom_error *err)
{
	struct lagom_net_obs *o = &r->obs;
	struct lagom_coll_config *c = &o->cfg;
	unsigned min_nc = env_value(algo, "NCCL_MIN_CTAS=");
	int rc = lagom_nccl_default(&o->hw, &o->comm, o->coll, o->bytes, c,
				    err);

	if (rc)
		return rc;
	if (!min_nc)
		min_nc = env_value(algo, "NCCL_MIN_NCHANNELS=");
	if (strncasecmp(algo, "Ring", 4) == 0) {
		*c = (struct lagom_coll_config){
			.algo = LAGOM_ALGO_RING,
			.proto = strstr(algo, "LL128") ? LAGOM_PROTO_LL128
						       : LAGOM_PROTO_SIMPLE,
			.nchannels = lagom_nccl_comm_channels(&o->hw, &o->comm),
		};
	} else if (strncasecmp(algo, "NVLS", 4) == 0) {
		*c = (struct lagom_coll_config){
			.algo = LAGOM_ALGO_NVLS,
			.proto = LAGOM_PROTO_SIMPLE,
			.nchannels = o->hw.gpu.sm_arch >= 100 ? 24 : 16,
		};
	} else if (strncasecmp(algo, "CollNetChain", 12) == 0) {
		*c = (struct lagom_coll_config){
			.algo = LAGOM_ALGO_COLLNET_CHAIN,
			.proto = LAGOM_PROTO_SIMPLE,
			.nchannels = lagom_nccl_comm_channels(&o->hw, &o->comm),
		};
	}
	if (min_nc > c->nchannels && min_nc <= LAGOM_NCHANNELS_MAX)
		c->nchannels = min_nc;
	return lagom_coll_config_check_nocheck(&o->hw, &o->comm, o->coll,
					       o->bytes, c, err);
}

static int row_parse(char **f, int nf, bool multinode, struct busbw_row *r,
		     struct lagom_error *err)
{
	unsigned gpn = (unsigned)atoi(f[1]), nodes = (unsigned)atoi(f[2]);
	struct lagom_net_obs *o = &r->obs;
	int rc;

	snprintf(r->system, sizeof(r->system), "%s", f[0]);
	r->multinode = multinode;
	r->problem = multinode && nf > 12 && strcmp(f[12], "yes") == 0;
	o->comm = (struct lagom_comm){
		.ranks = gpn * nodes,
		.nodes = nodes,
		.ranks_per_node = gpn,
		.hops = nodes > 1 ? LAGOM_HOPS_SAME_LEAF : LAGOM_HOPS_SAME_NODE,
	};
	o->bytes = strtoull(f[9], NULL, 10);
	if (lagom_coll_parse(f[7], &o->coll))
		return lagom_errprintf(err, EINVAL, "collective '%s'", f[7]);
	rc = row_hw(f, multinode, r, err);
	if (rc == 0)
		rc = row_config(f[8], r, err);
	if (rc)
		return rc;
	r->busbw_GBps = atof(f[10]);
	r->time_us = atof(f[11]);
	r->bus_factor = bus_factor(o->coll, o->comm.ranks);
	r->convention = 1.0;
	return 0;
}

/*
 * A source whose rows give both a time and a bus bandwidth tells which
 * bus-bandwidth convention it used: listed busbw / (bytes / time x the
 * nccl-tests factor).  1 when consistent within 10 %.
 */
static void apply_conventions(struct busbw_row *rows, size_t first, size_t n)
{
	for (size_t i = first; i < n; i++) {
		for (size_t j = first; j < n; j++) {
			struct busbw_row *r = &rows[j];
			double k;
			if (strcmp(r->system, rows[i].system) ||
			    !(r->time_us > 0) || !(r->busbw_GBps > 0) ||
			    rows[i].time_us > 0)
				continue;
			k = r->busbw_GBps /
			    ((double)r->obs.bytes / (r->time_us * 1e3) *
			     r->bus_factor);
			rows[i].convention = fabs(k - 1) > 0.1 ? k : 1.0;
			break;
		}
	}
	for (size_t i = first; i < n; i++) {
		struct busbw_row *r = &rows[i];
		if (r->time_us > 0)
			r->obs.time_s = r->time_us * 1e-6;
		else
			r->obs.time_s = (double)r->obs.bytes * r->bus_factor /
					(r->busbw_GBps / r->convention * 1e9);
	}
}

int busbw_rows_read(const char *path, bool multinode, struct busbw_row *rows,
		    size_t *n, size_t *skipped, FILE *log)
{
	FILE *fp = fopen(path, "r");
	char line[2048];
	size_t first = *n;

	if (!fp) {
		fprintf(log, "busbw: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (*n < ROWS_MAX && fgets(line, sizeof(line), fp)) {
		char *f[MAX_FIELDS];
		struct lagom_error err = { 0 };
		struct busbw_row *r = &rows[*n];
		int nf;
		if (strncmp(line, "system,", 7) == 0)
			continue;
		nf = split_csv(line, f, MAX_FIELDS);
		if (nf < 12)
			continue;
		memset(r, 0, sizeof(*r));
		snprintf(r->file, sizeof(r->file), "%s",
			 multinode ? "multinode" : "busbw");
		if (row_parse(f, nf, multinode, r, &err) ||
		    !(r->time_us > 0 || r->busbw_GBps > 0)) {
			fprintf(log, "busbw: skipped %s %s: %s\n", f[0], f[9],
				err.text[0] ? err.text : "no figure");
			(*skipped)++;
			continue;
		}
		(*n)++;
	}
	fclose(fp);
	apply_conventions(rows, first, *n);
	return 0;
}

unsigned busbw_rows_group(struct busbw_row *rows, size_t n)
{
	unsigned groups = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < i; j++)
			if (strcmp(rows[j].system, rows[i].system) == 0)
				break;
		rows[i].obs.group = j < i ? rows[j].obs.group : groups++;
	}
	return groups;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double rows_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
