/*
 * profile/digest.c - the cluster digest's format, its strict reader and the
 * planner's lookup.  See digest.h; the format is in doc/profile-format.md.
 *
 *	lagom-digest 4 seal=INO:SEC.NSEC	(or seal=-)
 *	node NAME ino=I size=S mtime=SEC.NSEC ctime=SEC.NSEC fingerprint=F
 *	     KEY=VALUE ...
 *	end N
 *
 * Entries hold every field lagom_profile_to_hw() reads: the hardware
 * section and the scalar measurements and contention curve; and the
 * probed NCCL version (provenance.nccl_version), which the planner reads
 * for NCCL_CTA_POLICY's gate.  Doubles are
 * written as the 16 hex digits of their IEEE-754 bits (exact, and free of
 * the decimal comma some locales print).  Texts are %XX-escaped.  The part
 * from "fingerprint=" to the end of the line is the node's hardware text:
 * nodes with the same text share one parse and one conversion; and texts
 * with the same machine part (up to " gemm_": the nodes of one machine
 * type, which differ in their measurements) share the parse and the
 * fingerprint check of that part.
 *
 * The seal is the inode and change time of the profile directory when the
 * writer began to list it (digest_write.c).  A reader whose one fstat of
 * the directory gives the same has a digest that every profile renamed,
 * created or removed since would have unsealed: it trusts the entries
 * without a stat per node.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/text.h"
#include "profile/digest.h"
#include "profile/profile_int.h"

/* One machine: the hardware part of a hardware text (from "fingerprint="
 * up to the measurements' first key, " gemm_"), parsed and its
 * fingerprint checked once however many records share it: the nodes of
 * one machine type differ in their measurements only. */
struct digest_machine {
	const char *text;
	size_t len;
	uint64_t hash;
	struct lagom_profile_hw hw;
	char fingerprint[32];
	/* the spec table's part of the conversion, made on demand */
	int spec_state; /* 0 not made yet, 1 made, -1 does not convert */
	struct lagom_hw spec;
};

/* One distinct hardware text: its machine and its measurements. */
struct digest_rec {
	/* the measurements: from " gemm_" to the line's end */
	const char *text;
	size_t len;
	uint64_t hash;
	size_t machine;
	struct lagom_quantity gemm[LAGOM_PREC_COUNT];
	struct lagom_quantity hbm, intra, nic;
	enum lagom_source csrc;
	enum lagom_precision cprec;
	size_t ncont;
	struct lagom_contention_point *cont;
	int state; /* 0 not converted yet, 1 converted, -1 does not convert */
	struct lagom_hw model;
	char nccl_version[32]; /* provenance.nccl_version, "" when absent */
};

struct digest_entry {
	const char *name; /* not NUL-terminated: name_len */
	size_t name_len;
	const char *line; /* the whole line, without its newline */
	size_t line_len;
	uint64_t ino;
	int64_t size, mtime_s, ctime_s;
	long mtime_ns, ctime_ns;
	size_t rec;
};

struct lagom_digest {
	char *buf;
	size_t len;
	struct digest_entry *entries;
	size_t n;
	struct digest_rec *recs;
	size_t nrecs;
	struct digest_machine *machines; /* room for cap_machines */
	size_t nmachines, cap_machines;
	struct lagom_profile *scratch; /* for the conversion, made on demand */
	struct lagom_digest_seal seal;
	bool sealed; /* the directory still has the seal: no stat per node */
	size_t next; /* the entry after the last one found */
};

/* ---- writing ---- */

static uint64_t bits_of(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

static int text_char_ok(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != '%' && c != '=';
}

static void put_text(struct lagom_text *b, const char *key, const char *s)
{
	lagom_text_addf(b, " %s=", key);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (text_char_ok(c))
			lagom_text_addf(b, "%c", c);
		else
			lagom_text_addf(b, "%%%02X", c);
	}
}

static void put_quantity(struct lagom_text *b, const char *key,
			 const struct lagom_quantity *q)
{
	if (q->source == LAGOM_SOURCE_ABSENT)
		lagom_text_addf(b, " %s=-", key);
	else
		lagom_text_addf(b, " %s=%s:%016" PRIx64, key,
				lagom_source_name(q->source),
				bits_of(q->value));
}

int lagom_digest_format_entry(const struct lagom_profile *p,
			      const struct stat *st, char **line,
			      struct lagom_error *err)
{
	const struct lagom_profile_hw *h = &p->hw;
	const struct lagom_profile_measurements *m = &p->meas;
	const char *intra = lagom_profile_intra_name(h->intra);
	char fp[32];
	struct lagom_text b = { .cap = 1024 };

	if (!lagom_profile_node_name_ok(p->node) || !intra ||
	    !lagom_source_name(m->contention_source) ||
	    (m->contention_source != LAGOM_SOURCE_ABSENT &&
	     (!lagom_precision_name(m->contention_precision) ||
	      m->n_contention > LAGOM_PROFILE_MAX_POINTS)))
		return lagom_errprintf(err, EINVAL,
				       "profile %s: not a valid profile",
				       p->node);
	lagom_profile_fingerprint(h, fp, sizeof(fp));
	if (!(b.p = malloc(b.cap)))
		return lagom_errprintf(err, ENOMEM, "out of memory");
	lagom_text_addf(
		&b,
		"node %s ino=%" PRIu64 " size=%" PRId64 " mtime=%" PRId64
		".%09ld ctime=%" PRId64 ".%09ld fingerprint=%s",
		p->node, (uint64_t)st->st_ino, (int64_t)st->st_size,
		(int64_t)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec,
		(int64_t)st->st_ctim.tv_sec, (long)st->st_ctim.tv_nsec, fp);
	put_text(&b, "cpu_model", h->cpu_model);
	lagom_text_addf(&b, " cpu_cores=%d numa_nodes=%d", h->cpu_cores,
			h->numa_nodes);
	put_text(&b, "gpu_model", h->gpu_model);
	lagom_text_addf(
		&b,
		" gpu_count=%d gpu_sm_count=%d gpu_memory_bytes=%" PRIu64
		" intra=%s nvlinks_per_gpu=%d nvlink_peers=%d pcie_gen=%d"
		" pcie_lanes=%d gpus_per_pcie_switch=%d nic_count=%d nic_rdma=%d"
		" gpus_per_nic=%d nic_link_bw_Bps=%016" PRIx64
		" nic_transport=%d nvl_domain_nodes=%d",
		h->gpu_count, h->gpu_sm_count, h->gpu_memory_bytes, intra,
		h->nvlinks_per_gpu, h->nvlink_peers, h->pcie_gen, h->pcie_lanes,
		h->gpus_per_pcie_switch, h->nic_count, h->nic_rdma != 0,
		h->gpus_per_nic, bits_of(h->nic_link_bw_Bps), h->nic_transport,
		h->nvl_domain_nodes);
	for (int i = 0; i < LAGOM_PREC_COUNT; i++) {
		char key[32];

		snprintf(key, sizeof(key), "gemm_%s",
			 lagom_precision_name((enum lagom_precision)i));
		put_quantity(&b, key, &m->gemm_flops[i]);
	}
	put_quantity(&b, "hbm_bw_Bps", &m->hbm_bw_Bps);
	put_quantity(&b, "intra_bw_Bps", &m->intra_bw_Bps);
	put_quantity(&b, "nic_bw_Bps", &m->nic_bw_Bps);
	if (m->contention_source == LAGOM_SOURCE_ABSENT)
		lagom_text_addf(&b, " contention=-");
	else
		lagom_text_addf(&b, " contention=%s:%s:%zu",
				lagom_source_name(m->contention_source),
				lagom_precision_name(m->contention_precision),
				m->n_contention);
	for (size_t i = 0;
	     m->contention_source != LAGOM_SOURCE_ABSENT && i < m->n_contention;
	     i++)
		lagom_text_addf(&b, ":%d,%" PRIu64 ",%016" PRIx64,
				m->contention[i].ctas,
				m->contention[i].chunk_bytes,
				bits_of(m->contention[i].slowdown));
	put_text(&b, "nccl_version", p->prov.nccl_version);
	if (b.failed) {
		free(b.p);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	*line = b.p;
	return 0;
}

/* ---- reading ---- */

/* A cursor over one line. */
struct cur {
	const char *p, *end;
	unsigned line;
	struct lagom_error *err;
};

/* -EINVAL, always (so the compiler sees that an error sets nothing). */
static int bad(struct cur *c, const char *what, const char *key)
{
	lagom_errprintf(c->err, EINVAL, "line %u: %s%s%s", c->line,
			key ? key : "", key ? ": " : "", what);
	return -EINVAL;
}

/* Inlined where the key is a literal: its length is then known. */
#define KEY_INLINE static inline __attribute__((always_inline))

/* The value of " key=" at the cursor (the first key has no space). */
KEY_INLINE int value(struct cur *c, const char *key, bool first, const char **v,
		     size_t *vlen)
{
	const char *s = c->p;
	size_t klen;

	if (!first) {
		if (s >= c->end || *s != ' ')
			return bad(c, "missing", key);
		s++;
	}
	/* the key whole, then the value up to the next space: two short
	 * library calls cost less than a loop over their bytes */
	klen = strlen(key);
	if ((size_t)(c->end - s) <= klen || memcmp(s, key, klen) != 0 ||
	    s[klen] != '=')
		return bad(c, "expected here", key);
	s += klen + 1;
	*v = s;
	s = memchr(s, ' ', (size_t)(c->end - s));
	if (!s)
		s = c->end;
	*vlen = (size_t)(s - *v);
	c->p = s;
	return 0;
}

static int parse_u64(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;

	if (n == 0 || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)((unsigned char)v[i] - '0');

		/* below 19 digits x is under 10^18: no overflow to test */
		if (d > 9 || (i >= 19 && x > (UINT64_MAX - 9) / 10))
			return -1;
		x = x * 10 + d;
	}
	*out = x;
	return 0;
}

KEY_INLINE int get_u64(struct cur *c, const char *key, uint64_t max,
		       uint64_t *out)
{
	const char *v;
	size_t n;

	if (value(c, key, false, &v, &n))
		return -EINVAL;
	if (parse_u64(v, n, out) || *out > max)
		return bad(c, "not a number in range", key);
	return 0;
}

/* An integer in [0, max]: the profile parser's bound of the field. */
KEY_INLINE int get_int(struct cur *c, const char *key, int max, int *out)
{
	uint64_t u;
	int rc = get_u64(c, key, (uint64_t)max, &u);

	if (rc == 0)
		*out = (int)u;
	return rc;
}

/* One more than the value of a hex digit as the writer prints it (0-9,
 * a-f); 0 for any other byte. */
static const unsigned char hex_value[256] = {
	['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

static int hex_bits(const char *v, size_t n, double *out)
{
	uint64_t u = 0;

	if (n != 16)
		return -1;
	for (size_t i = 0; i < 16; i++) {
		unsigned d = hex_value[(unsigned char)v[i]];

		if (!d)
			return -1;
		u = u << 4 | (d - 1);
	}
	memcpy(out, &u, sizeof(*out));
	return isfinite(*out) ? 0 : -1;
}

KEY_INLINE int get_double(struct cur *c, const char *key, double *out)
{
	const char *v;
	size_t n;

	if (value(c, key, false, &v, &n))
		return -EINVAL;
	if (hex_bits(v, n, out) || *out < 0)
		return bad(c, "not 16 hex digits of a finite double >= 0", key);
	return 0;
}

/* Two upper-case hex digits (as the writer prints them), or 0x100. */
static unsigned hex2(const char *v)
{
	unsigned x = 0;

	for (int i = 0; i < 2; i++) {
		char ch = v[i];

		if (ch >= '0' && ch <= '9')
			x = x * 16 + (unsigned)(ch - '0');
		else if (ch >= 'A' && ch <= 'F')
			x = x * 16 + (unsigned)(ch - 'A' + 10);
		else
			return 0x100;
	}
	return x;
}

static int get_text(struct cur *c, const char *key, char *out, size_t size)
{
	const char *v;
	size_t n, o = 0;

	if (value(c, key, false, &v, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned x;

		if (o + 1 >= size)
			return bad(c, "too long", key);
		if (v[i] != '%') {
			if (!text_char_ok((unsigned char)v[i]))
				return bad(c, "bad character", key);
			out[o++] = v[i];
			continue;
		}
		if (i + 2 >= n || (x = hex2(v + i + 1)) > 0xff || x == 0 ||
		    text_char_ok((unsigned char)x))
			return bad(c, "bad %XX escape", key);
		out[o++] = (char)x;
		i += 2;
	}
	out[o] = '\0';
	return 0;
}

static int source_of(const char *v, size_t n, enum lagom_source *out)
{
	for (int s = LAGOM_SOURCE_TABLE; s <= LAGOM_SOURCE_MEASURED; s++) {
		const char *name = lagom_source_name((enum lagom_source)s);

		if (strlen(name) == n && memcmp(v, name, n) == 0) {
			*out = (enum lagom_source)s;
			return 0;
		}
	}
	return -1;
}

KEY_INLINE int get_quantity(struct cur *c, const char *key,
			    struct lagom_quantity *q)
{
	const char *v, *colon;
	size_t n;

	if (value(c, key, false, &v, &n))
		return -EINVAL;
	*q = (struct lagom_quantity){ 0 };
	if (n == 1 && v[0] == '-')
		return 0;
	colon = memchr(v, ':', n);
	if (!colon || source_of(v, (size_t)(colon - v), &q->source) ||
	    hex_bits(colon + 1, n - (size_t)(colon - v) - 1, &q->value) ||
	    !(q->value > 0))
		return bad(c,
			   "expected - or SOURCE:16 hex digits of a value > 0",
			   key);
	return 0;
}

/* "-" or SOURCE:PRECISION:N then N times ":ctas,chunk_bytes,slowdown". */
static int get_contention(struct cur *c, struct digest_rec *r)
{
	char text[64];
	const char *v, *end, *s;
	size_t n;
	uint64_t u = 0;

	if (value(c, "contention", false, &v, &n))
		return -EINVAL;
	end = v + n;
	if (n == 1 && v[0] == '-')
		return 0;
	for (int field = 0; field < 3; field++) {
		const char *colon = memchr(v, ':', (size_t)(end - v));
		size_t fl = (size_t)((colon ? colon : end) - v);

		if (fl >= sizeof(text))
			return bad(c, "malformed", "contention");
		memcpy(text, v, fl);
		text[fl] = '\0';
		if ((field == 0 && source_of(v, fl, &r->csrc)) ||
		    (field == 1 && lagom_precision_parse(text, &r->cprec)) ||
		    (field == 2 &&
		     (parse_u64(v, fl, &u) || u > LAGOM_PROFILE_MAX_POINTS)))
			return bad(c, "malformed", "contention");
		v = colon ? colon + 1 : end;
		if (!colon && field < 2)
			return bad(c, "malformed", "contention");
		if (!colon)
			v = NULL;
	}
	r->ncont = (size_t)u;
	if (r->ncont && !(r->cont = calloc(r->ncont, sizeof(*r->cont))))
		return lagom_errprintf(c->err, ENOMEM, "out of memory");
	for (size_t i = 0; i < r->ncont; i++) {
		const char *c1, *c2, *colon;
		long ctas;
		char *e;

		if (!v)
			return bad(c, "fewer points than said", "contention");
		colon = memchr(v, ':', (size_t)(end - v));
		s = colon ? colon : end;
		c1 = memchr(v, ',', (size_t)(s - v));
		c2 = c1 ? memchr(c1 + 1, ',', (size_t)(s - c1 - 1)) : NULL;
		if (!c2 || c1 - v > 12 || c1 == v)
			return bad(c, "malformed point", "contention");
		memcpy(text, v, (size_t)(c1 - v));
		text[c1 - v] = '\0';
		ctas = strtol(text, &e, 10);
		if (*e || ctas < -1000000 || ctas > 1000000 ||
		    parse_u64(c1 + 1, (size_t)(c2 - c1 - 1), &u) ||
		    hex_bits(c2 + 1, (size_t)(s - c2 - 1),
			     &r->cont[i].slowdown))
			return bad(c, "malformed point", "contention");
		r->cont[i].ctas = (int)ctas;
		r->cont[i].chunk_bytes = u;
		v = colon ? colon + 1 : NULL;
	}
	if (v)
		return bad(c, "more points than said", "contention");
	return 0;
}

static int get_intra(struct cur *c, enum lagom_intra *out)
{
	const char *v;
	size_t n;

	if (value(c, "intra", false, &v, &n))
		return -EINVAL;
	for (int i = 0; i < LAGOM_INTRA_COUNT; i++) {
		const char *name = lagom_profile_intra_name(
			(enum lagom_intra)i);

		if (name && strlen(name) == n && memcmp(v, name, n) == 0) {
			*out = (enum lagom_intra)i;
			return 0;
		}
	}
	return bad(c, "unknown", "intra");
}

/* The machine part of a hardware text, from "fingerprint=" on. */
static int parse_machine(struct cur *c, struct digest_machine *m)
{
	struct lagom_profile_hw *h = &m->hw;
	const char *v;
	uint64_t mem;
	int rc = 0, rdma = 0;
	size_t n;

	if (value(c, "fingerprint", true, &v, &n))
		return -EINVAL;
	if (n >= sizeof(m->fingerprint))
		return bad(c, "too long", "fingerprint");
	memcpy(m->fingerprint, v, n);
	m->fingerprint[n] = '\0';
	if ((rc = get_text(c, "cpu_model", h->cpu_model,
			   sizeof(h->cpu_model))) ||
	    (rc = get_int(c, "cpu_cores", LAGOM_PROFILE_CPU_CORES_MAX,
			  &h->cpu_cores)) ||
	    (rc = get_int(c, "numa_nodes", LAGOM_PROFILE_NUMA_NODES_MAX,
			  &h->numa_nodes)) ||
	    (rc = get_text(c, "gpu_model", h->gpu_model,
			   sizeof(h->gpu_model))) ||
	    (rc = get_int(c, "gpu_count", LAGOM_PROFILE_GPU_COUNT_MAX,
			  &h->gpu_count)) ||
	    (rc = get_int(c, "gpu_sm_count", LAGOM_PROFILE_GPU_SM_COUNT_MAX,
			  &h->gpu_sm_count)) ||
	    (rc = get_u64(c, "gpu_memory_bytes", LAGOM_PROFILE_GPU_MEMORY_MAX,
			  &mem)) ||
	    (rc = get_intra(c, &h->intra)) ||
	    (rc = get_int(c, "nvlinks_per_gpu", LAGOM_PROFILE_LINK_COUNT_MAX,
			  &h->nvlinks_per_gpu)) ||
	    (rc = get_int(c, "nvlink_peers", LAGOM_PROFILE_LINK_COUNT_MAX,
			  &h->nvlink_peers)) ||
	    (rc = get_int(c, "pcie_gen", LAGOM_PROFILE_PCIE_GEN_MAX,
			  &h->pcie_gen)) ||
	    (rc = get_int(c, "pcie_lanes", LAGOM_PROFILE_PCIE_LANES_MAX,
			  &h->pcie_lanes)) ||
	    (rc = get_int(c, "gpus_per_pcie_switch",
			  LAGOM_PROFILE_LINK_COUNT_MAX,
			  &h->gpus_per_pcie_switch)) ||
	    (rc = get_int(c, "nic_count", LAGOM_PROFILE_LINK_COUNT_MAX,
			  &h->nic_count)) ||
	    (rc = get_int(c, "nic_rdma", 1, &rdma)) ||
	    (rc = get_int(c, "gpus_per_nic", LAGOM_PROFILE_LINK_COUNT_MAX,
			  &h->gpus_per_nic)) ||
	    (rc = get_double(c, "nic_link_bw_Bps", &h->nic_link_bw_Bps)) ||
	    (rc = get_int(c, "nic_transport", LAGOM_NET_COUNT - 1,
			  &h->nic_transport)) ||
	    (rc = get_int(c, "nvl_domain_nodes",
			  LAGOM_PROFILE_NVL_DOMAIN_NODES_MAX,
			  &h->nvl_domain_nodes)))
		return rc;
	h->gpu_memory_bytes = mem;
	h->nic_rdma = rdma;
	return 0;
}

/* The measurements of a hardware text, from " gemm_" on, to the line's
 * end. */
static int parse_meas(struct cur *c, struct digest_rec *r)
{
	int rc;

	for (int i = 0; i < LAGOM_PREC_COUNT; i++) {
		const char *prec = lagom_precision_name(
			(enum lagom_precision)i);
		size_t plen = strlen(prec);
		char key[32] = "gemm_";

		memcpy(key + 5, prec, plen < 26 ? plen : 26);
		if ((rc = get_quantity(c, key, &r->gemm[i])))
			return rc;
	}
	if ((rc = get_quantity(c, "hbm_bw_Bps", &r->hbm)) ||
	    (rc = get_quantity(c, "intra_bw_Bps", &r->intra)) ||
	    (rc = get_quantity(c, "nic_bw_Bps", &r->nic)) ||
	    (rc = get_contention(c, r)) ||
	    (rc = get_text(c, "nccl_version", r->nccl_version,
			   sizeof(r->nccl_version))))
		return rc;
	if (c->p != c->end)
		return bad(c, "unexpected text after the last key", NULL);
	return 0;
}

/* A new machine's fingerprint, checked after the rest of its line (so a
 * line's errors come in the order of its keys). */
static int check_fingerprint(struct cur *c, const struct digest_machine *m)
{
	char fp[32];

	lagom_profile_fingerprint(&m->hw, fp, sizeof(fp));
	if (strcmp(fp, m->fingerprint) != 0)
		return bad(c, "does not match the hardware", "fingerprint");
	return 0;
}

/* KEY=SECONDS.NANOSECONDS (nine digits) at c. */
KEY_INLINE int get_time(struct cur *c, const char *key, int64_t *sec,
			long *nsec)
{
	const char *v, *dot;
	uint64_t u, ns;
	size_t n;

	if (value(c, key, false, &v, &n))
		return -EINVAL;
	dot = memchr(v, '.', n);
	if (!dot || parse_u64(v, (size_t)(dot - v), &u) || u > INT64_MAX ||
	    v + n - dot - 1 != 9 || parse_u64(dot + 1, 9, &ns))
		return bad(c, "expected SECONDS.NANOSECONDS", key);
	*sec = (int64_t)u;
	*nsec = (long)ns;
	return 0;
}

/* The entry's own part: "node NAME ino=I size=S mtime=SEC.NSEC
 * ctime=SEC.NSEC ". */
static int parse_head(struct cur *c, struct digest_entry *e)
{
	const char *v;
	char name[LAGOM_PROFILE_NAME_MAX + 1];
	uint64_t u;
	size_t n;

	if ((size_t)(c->end - c->p) < 5 || memcmp(c->p, "node ", 5) != 0)
		return bad(c, "expected \"node NAME ...\" or \"end N\"", NULL);
	c->p += 5;
	v = c->p;
	while (c->p < c->end && *c->p != ' ')
		c->p++;
	n = (size_t)(c->p - v);
	if (n >= sizeof(name))
		return bad(c, "node name too long", NULL);
	memcpy(name, v, n);
	name[n] = '\0';
	if (!lagom_profile_node_name_ok(name))
		return bad(c, "not a valid node name", NULL);
	e->name = v;
	e->name_len = n;
	if (get_u64(c, "ino", UINT64_MAX, &e->ino) ||
	    get_u64(c, "size", LAGOM_PROFILE_MAX_BYTES, &u))
		return -EINVAL;
	e->size = (int64_t)u;
	if (get_time(c, "mtime", &e->mtime_s, &e->mtime_ns) ||
	    get_time(c, "ctime", &e->ctime_s, &e->ctime_ns))
		return -EINVAL;
	if (c->p >= c->end || *c->p != ' ')
		return bad(c, "missing", "fingerprint");
	c->p++;
	return 0;
}

static int name_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	int r = memcmp(a, b, an < bn ? an : bn);

	return r ? r : (an > bn) - (an < bn);
}

/* A table hash of a hardware text, eight bytes a step (FNV-1a takes one:
 * it was a seventh of the reading of a 16,384-node digest).  Only the
 * interning table sees it; texts are compared in full. */
static uint64_t text_hash(const char *text, size_t len)
{
	uint64_t a = 0x9e3779b97f4a7c15ull ^ len, b = 0xc2b2ae3d27d4eb4full;
	uint64_t w, v;
	size_t i = 0;

	for (; i + 16 <= len; i += 16) { /* two independent lanes */
		memcpy(&w, text + i, 8);
		memcpy(&v, text + i + 8, 8);
		a = (a ^ w) * 0xff51afd7ed558ccdull;
		b = (b ^ v) * 0xc4ceb9fe1a85ec53ull;
		a ^= a >> 32;
		b ^= b >> 29;
	}
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, text + i, 8);
		a = (a ^ w) * 0xff51afd7ed558ccdull;
		a ^= a >> 32;
	}
	w = 0;
	memcpy(&w, text + i, len - i);
	a = (a ^ w ^ (b * 0x9e3779b97f4a7c15ull)) * 0xc4ceb9fe1a85ec53ull;
	return a ^ (a >> 29);
}

/* A slot of the interning table: the text's hash beside its record, so
 * a probe touches a record only when the hashes agree. */
struct slot {
	uint64_t hash;
	size_t rec; /* record (or machine) index + 1; 0: empty */
};

/* The interning tables: machines by their text, records by their
 * machine and measurements' text (mask + 1 slots each); and the machine
 * of the last line. */
struct tables {
	struct slot *machines, *recs;
	size_t mask;
	size_t last; /* machine index + 1; 0: none yet */
};

/* The measurements' first key: in a line that parses, the first " gemm_"
 * (no value holds a space) ends the machine part. */
static const char *machine_end(const char *text, const char *end)
{
	for (const char *s = text; (s = memchr(s, ' ', (size_t)(end - s))); s++)
		if (end - s >= 6 && memcmp(s, " gemm_", 6) == 0)
			return s;
	return end;
}

/* The slot of machine text (len bytes, hash h), or the empty slot where it
 * goes. */
static size_t machine_slot(const struct lagom_digest *d, const struct slot *tab,
			   size_t mask, const char *text, size_t len,
			   uint64_t h)
{
	size_t i = (size_t)h & mask;

	for (; tab[i].rec; i = (i + 1) & mask) {
		const struct digest_machine *m = &d->machines[tab[i].rec - 1];

		if (tab[i].hash == h && m->len == len &&
		    memcmp(m->text, text, len) == 0)
			break;
	}
	return i;
}

/* The same for the record of machine (its index) and measurements' text. */
static size_t rec_slot(const struct lagom_digest *d, const struct slot *tab,
		       size_t mask, size_t machine, const char *text,
		       size_t len, uint64_t h)
{
	size_t i = (size_t)h & mask;

	for (; tab[i].rec; i = (i + 1) & mask) {
		const struct digest_rec *r = &d->recs[tab[i].rec - 1];

		if (tab[i].hash == h && r->machine == machine &&
		    r->len == len && memcmp(r->text, text, len) == 0)
			break;
	}
	return i;
}

/* Room for twice as many machines (a few kinds in a real cluster; up to
 * one per line). */
static int more_machines(struct lagom_digest *d, struct cur *c)
{
	size_t cap = d->cap_machines ? 2 * d->cap_machines : 8;
	struct digest_machine *m = realloc(d->machines, cap * sizeof(*m));

	if (!m)
		return lagom_errprintf(c->err, ENOMEM, "out of memory");
	d->machines = m;
	d->cap_machines = cap;
	return 0;
}

/* Find or add the record of the hardware text at c: its machine part
 * parsed only when new, its measurements only when new for the machine. */
static int intern(struct lagom_digest *d, struct cur *c, struct tables *t,
		  size_t *out)
{
	const char *text = c->p, *split;
	const struct digest_machine *last = t->last ? &d->machines[t->last - 1]
						    : NULL;
	struct digest_machine *m = NULL;
	size_t mlen, rlen, mi = 0, ri, machine;
	uint64_t mh = 0, rh;
	struct digest_rec *r;
	int rc;

	/* Nodes of one type come in runs: the last line's machine, compared
	 * whole, needs no search and no hash (" gemm_" cannot straddle its
	 * end, which is a space) */
	if (last && (size_t)(c->end - text) >= last->len + 6 &&
	    memcmp(text, last->text, last->len) == 0 &&
	    memcmp(text + last->len, " gemm_", 6) == 0) {
		machine = t->last - 1;
		split = text + last->len;
		c->p = split;
	} else {
		split = machine_end(text, c->end);
		mlen = (size_t)(split - text);
		mh = text_hash(text, mlen);
		mi = machine_slot(d, t->machines, t->mask, text, mlen, mh);
		if (t->machines[mi].rec) {
			machine = t->machines[mi].rec - 1;
			c->p = split;
		} else {
			/* parsed here, kept (counted) once the whole line
			 * passed */
			machine = d->nmachines;
			if (machine == d->cap_machines &&
			    (rc = more_machines(d, c)) < 0)
				return rc;
			m = &d->machines[machine];
			*m = (struct digest_machine){ 0 };
			m->text = text;
			m->len = mlen;
			m->hash = mh;
			if ((rc = parse_machine(c, m)))
				return rc;
		}
	}
	rlen = (size_t)(c->end - split);
	rh = text_hash(split, rlen) ^ (machine * 0x9e3779b97f4a7c15ull);
	ri = rec_slot(d, t->recs, t->mask, machine, split, rlen, rh);
	if (t->recs[ri].rec) { /* a known machine's known measurements */
		t->last = machine + 1;
		*out = t->recs[ri].rec - 1;
		return 0;
	}
	r = &d->recs[d->nrecs]; /* zeroed by calloc, used once */
	r->text = split;
	r->len = rlen;
	r->hash = rh;
	r->machine = machine;
	d->nrecs++; /* counted before parsing: destroy frees its points */
	if ((rc = parse_meas(c, r)) || (m && (rc = check_fingerprint(c, m))))
		return rc;
	if (m) {
		t->machines[mi] = (struct slot){ .hash = mh,
						 .rec = machine + 1 };
		d->nmachines++;
	}
	t->last = machine + 1;
	t->recs[ri] = (struct slot){ .hash = rh, .rec = d->nrecs };
	*out = d->nrecs - 1;
	return 0;
}

/* "INO:SEC.NSEC" or "-" (n bytes at v). */
static int parse_seal(const char *v, size_t n, struct lagom_digest_seal *s)
{
	const char *colon = memchr(v, ':', n), *dot;
	uint64_t sec, ns;

	*s = (struct lagom_digest_seal){ 0 };
	if (n == 1 && *v == '-')
		return 0;
	if (!colon || parse_u64(v, (size_t)(colon - v), &s->ino))
		return -EINVAL;
	dot = memchr(colon, '.', (size_t)(v + n - colon));
	if (!dot || parse_u64(colon + 1, (size_t)(dot - colon - 1), &sec) ||
	    sec > INT64_MAX || v + n - dot - 1 != 9 ||
	    parse_u64(dot + 1, 9, &ns))
		return -EINVAL;
	s->ctime_s = (int64_t)sec;
	s->ctime_ns = (long)ns;
	s->valid = true;
	return 0;
}

int lagom_digest_parse_seal(const char *text, struct lagom_digest_seal *seal)
{
	return parse_seal(text, strlen(text), seal);
}

/* Line 1: "lagom-digest VERSION seal=..."; the length of the line with its
 * newline, or a negative errno. */
static int parse_header(struct lagom_digest *d, struct lagom_error *err)
{
	const char *p = d->buf, *end = d->buf + d->len, *nl;
	char head[32];
	size_t hl = (size_t)snprintf(head, sizeof(head),
				     "%s %d seal=", LAGOM_DIGEST_FORMAT,
				     LAGOM_DIGEST_VERSION);

	if (d->len < strlen(LAGOM_DIGEST_FORMAT) + 1 ||
	    memcmp(p, LAGOM_DIGEST_FORMAT " ", strlen(LAGOM_DIGEST_FORMAT) + 1))
		return lagom_errprintf(err, EPROTONOSUPPORT,
				       "not a lagom cluster digest");
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl || (size_t)(nl - p) < hl || memcmp(p, head, hl))
		return lagom_errprintf(
			err, EPROTONOSUPPORT, "line 1: not \"%s %d seal=...\"",
			LAGOM_DIGEST_FORMAT, LAGOM_DIGEST_VERSION);
	if (parse_seal(p + hl, (size_t)(nl - p) - hl, &d->seal))
		return lagom_errprintf(err, EINVAL,
				       "line 1: seal: expected "
				       "INODE:SECONDS.NANOSECONDS or -");
	return (int)(nl + 1 - p);
}

static int parse_lines(struct lagom_digest *d, struct lagom_error *err)
{
	struct cur c = { .err = err, .line = 1 };
	const char *p = d->buf, *end = d->buf + d->len, *nl;
	size_t lines = 0;
	struct tables t = { .mask = 1 };
	int rc = 0, head_len = parse_header(d, err);

	if (head_len < 0)
		return head_len;
	for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))); q++)
		lines++;
	if (lines < 2)
		return lagom_errprintf(err, EINVAL, "no \"end N\" line");
	if (lines - 2 > LAGOM_DIGEST_MAX_NODES)
		return lagom_errprintf(err, EINVAL, "more than %d entries",
				       LAGOM_DIGEST_MAX_NODES);
	while (t.mask + 1 < 2 * lines)
		t.mask = t.mask * 2 + 1;
	d->entries = calloc(lines, sizeof(*d->entries));
	d->recs = calloc(lines, sizeof(*d->recs));
	t.machines = calloc(t.mask + 1, sizeof(*t.machines));
	t.recs = calloc(t.mask + 1, sizeof(*t.recs));
	if (!d->entries || !d->recs || !t.machines || !t.recs) {
		rc = lagom_errprintf(err, ENOMEM, "out of memory");
		goto out;
	}
	p += head_len;
	for (;;) {
		struct digest_entry *e = &d->entries[d->n];
		uint64_t count;

		c.line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			rc = bad(&c, "no newline at the end", NULL);
			goto out;
		}
		c.p = p;
		c.end = nl;
		if ((size_t)(nl - p) > 4 && memcmp(p, "end ", 4) == 0) {
			if (parse_u64(p + 4, (size_t)(nl - p - 4), &count) ||
			    count != d->n || nl + 1 != end)
				rc = bad(&c,
					 "\"end N\" must close the digest "
					 "with its entry count",
					 NULL);
			goto out;
		}
		e->line = p;
		e->line_len = (size_t)(nl - p);
		if ((rc = parse_head(&c, e)) ||
		    (rc = intern(d, &c, &t, &e->rec)))
			goto out;
		if (d->n > 0 && name_cmp(e[-1].name, e[-1].name_len, e->name,
					 e->name_len) >= 0) {
			rc = bad(&c,
				 "node names not in strictly increasing "
				 "order",
				 NULL);
			goto out;
		}
		d->n++;
		p = nl + 1;
	}
out:
	free(t.machines);
	free(t.recs);
	return rc;
}

/* Parse buf (malloc'd, len bytes), which the digest takes over. */
static int parse_owned(char *buf, size_t len, struct lagom_digest **out,
		       struct lagom_error *err)
{
	struct lagom_digest *d = calloc(1, sizeof(*d));
	int rc;

	if (!d) {
		free(buf);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	d->buf = buf;
	d->len = len;
	rc = parse_lines(d, err);
	if (rc < 0) {
		lagom_digest_destroy(d);
		return rc;
	}
	*out = d;
	return 0;
}

int lagom_digest_parse(const char *buf, size_t len, struct lagom_digest **out,
		       struct lagom_error *err)
{
	char *copy = malloc(len ? len : 1);

	if (!copy)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	memcpy(copy, buf, len);
	return parse_owned(copy, len, out, err);
}

/* The digest's directory in the profile directory dfd (named dir): with
 * trust, the same walk from "/" as the profile directory's. */
static int digest_dir_open(int dfd, const char *dir,
			   const struct lagom_trust *trust,
			   struct lagom_error *err)
{
	char path[4096];
	int fd;

	if (!trust) {
		fd = openat(dfd, LAGOM_DIGEST_DIR,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return fd < 0 ? lagom_errprintf(err, errno, "%s",
						strerror(errno))
			      : fd;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
			     LAGOM_DIGEST_DIR) >= sizeof(path))
		return lagom_errprintf(err, ENAMETOOLONG, "path too long");
	return lagom_profile_dir_open(path, trust, err);
}

bool lagom_digest_seal_matches(const struct lagom_digest_seal *seal,
			       const struct stat *dir_st)
{
	return seal->valid && (uint64_t)dir_st->st_ino == seal->ino &&
	       (int64_t)dir_st->st_ctim.tv_sec == seal->ctime_s &&
	       (long)dir_st->st_ctim.tv_nsec == seal->ctime_ns;
}

int lagom_digest_read_at(int dfd, const char *dir,
			 const struct lagom_trust *trust,
			 struct lagom_digest **out, struct lagom_error *err)
{
	struct lagom_digest *d = NULL;
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int rc, ddfd;

	ddfd = digest_dir_open(dfd, dir, trust, err);
	if (ddfd < 0) {
		rc = ddfd;
		if (rc == -ENOENT)
			return rc;
		return lagom_error_prefix(err, "cluster digest %s/%s", dir,
					  LAGOM_DIGEST_FILE);
	}
	rc = lagom_profile_read_at(ddfd, LAGOM_DIGEST_NAME, trust,
				   LAGOM_DIGEST_MAX_BYTES, &buf, &len, NULL,
				   err);
	close(ddfd);
	if (rc == 0)
		rc = parse_owned(buf, len, &d, err);
	if (rc < 0 && rc != -ENOENT)
		return lagom_error_prefix(err, "cluster digest %s/%s", dir,
					  LAGOM_DIGEST_FILE);
	if (rc < 0)
		return rc;
	/* after the read: a change since the seal shows here, never later */
	d->sealed = fstat(dfd, &st) == 0 &&
		    lagom_digest_seal_matches(&d->seal, &st);
	*out = d;
	return 0;
}

bool lagom_digest_has_seal(const struct lagom_digest *d,
			   const struct lagom_digest_seal *seal)
{
	const struct lagom_digest_seal *a = &d->seal;

	if (!a->valid || !seal->valid)
		return a->valid == seal->valid;
	return a->ino == seal->ino && a->ctime_s == seal->ctime_s &&
	       a->ctime_ns == seal->ctime_ns;
}

bool lagom_digest_sealed(const struct lagom_digest *d)
{
	return d && d->sealed;
}

void lagom_digest_destroy(struct lagom_digest *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nrecs; i++)
		free(d->recs[i].cont);
	free(d->recs);
	free(d->machines);
	free(d->entries);
	free(d->scratch);
	free(d->buf);
	free(d);
}

size_t lagom_digest_count(const struct lagom_digest *d)
{
	return d ? d->n : 0;
}

static const struct digest_entry *find(const struct lagom_digest *d,
				       const char *node)
{
	size_t lo = 0, hi = d->n, len = strlen(node);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct digest_entry *e = &d->entries[mid];
		int r = name_cmp(e->name, e->name_len, node, len);

		if (r == 0)
			return e;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The record as the profile lagom_profile_to_hw() reads. */
static int convert(struct lagom_digest *d, struct digest_rec *r,
		   const char *node)
{
	struct lagom_profile *p = d->scratch;
	struct digest_machine *mc = &d->machines[r->machine];
	struct lagom_profile_measurements *m;
	size_t len;

	if (!p && !(p = d->scratch = calloc(1, sizeof(*p))))
		return -ENOMEM;
	m = &p->meas;
	len = strnlen(node, sizeof(p->node) - 1);
	memcpy(p->node, node, len);
	p->node[len] = '\0';
	p->hw = mc->hw;
	memcpy(p->fingerprint, mc->fingerprint, sizeof(p->fingerprint));
	memcpy(m->gemm_flops, r->gemm, sizeof(r->gemm));
	m->hbm_bw_Bps = r->hbm;
	m->intra_bw_Bps = r->intra;
	m->nic_bw_Bps = r->nic;
	m->contention_source = r->csrc;
	m->contention_precision = r->cprec;
	m->n_contention = r->ncont;
	if (r->ncont)
		memcpy(m->contention, r->cont, r->ncont * sizeof(*r->cont));
	/* the spec table's part once per machine: the same bytes */
	if (mc->spec_state == 0) {
		int rc = lagom_profile_spec_hw(&mc->hw, &mc->spec, NULL);

		mc->spec_state = rc == 0 ? 1 : -1;
	}
	if (mc->spec_state > 0 &&
	    lagom_profile_to_hw_spec(p, &mc->spec, &r->model, NULL) == 0)
		r->state = 1;
	else
		r->state = -1;
	return 0;
}

/* The entry of node matches st (the profile's non-following stat): the
 * same inode, size, modification and change time.  The change time is
 * the one a writer cannot set back (utimensat(2) sets it to now), so a
 * profile rewritten in place with its old mtime restored is stale too. */
static bool current(const struct digest_entry *e, const struct stat *st)
{
	return (uint64_t)st->st_ino == e->ino &&
	       (int64_t)st->st_size == e->size &&
	       (int64_t)st->st_mtim.tv_sec == e->mtime_s &&
	       (long)st->st_mtim.tv_nsec == e->mtime_ns &&
	       (int64_t)st->st_ctim.tv_sec == e->ctime_s &&
	       (long)st->st_ctim.tv_nsec == e->ctime_ns;
}

int lagom_digest_entry_line(const struct lagom_digest *d, const char *node,
			    const struct stat *st, const char **line,
			    size_t *len)
{
	const struct digest_entry *e = d ? find(d, node) : NULL;

	if (!e || !current(e, st))
		return 0;
	*line = e->line;
	*len = e->line_len;
	return 1;
}

/* find() that tries the entry after the last one found first: a planner
 * asks for a step's nodes in sorted order, one comparison each. */
static const struct digest_entry *find_next(struct lagom_digest *d,
					    const char *node)
{
	const struct digest_entry *e = NULL;

	if (d->next < d->n) {
		e = &d->entries[d->next];
		if (e->name_len != strlen(node) ||
		    memcmp(e->name, node, e->name_len) != 0)
			e = NULL;
	}
	if (!e && !(e = find(d, node)))
		return NULL;
	d->next = (size_t)(e - d->entries) + 1;
	return e;
}

int lagom_digest_node_hw_ref(struct lagom_digest *d, int dfd,
			     const struct lagom_trust *trust, const char *node,
			     const struct lagom_hw **hw, size_t *rec)
{
	char base[LAGOM_PROFILE_NAME_MAX + 8];
	const struct digest_entry *e;
	struct digest_rec *r;
	struct stat st;

	if (!d || !lagom_profile_node_name_ok(node) ||
	    !(e = find_next(d, node)))
		return 0;
	if (!d->sealed) {
		snprintf(base, sizeof(base), "%s.json", node);
		if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    lagom_profile_trust_stat(&st, trust, base, NULL) < 0 ||
		    !current(e, &st))
			return 0;
	}
	r = &d->recs[e->rec];
	if (r->state == 0 && convert(d, r, node) < 0)
		return -ENOMEM;
	if (r->state < 0)
		return 0;
	*hw = &r->model;
	*rec = e->rec;
	return 1;
}

int lagom_digest_node_hw(struct lagom_digest *d, int dfd,
			 const struct lagom_trust *trust, const char *node,
			 struct lagom_hw *hw)
{
	const struct lagom_hw *ref;
	size_t rec;
	int rc = lagom_digest_node_hw_ref(d, dfd, trust, node, &ref, &rec);

	if (rc == 1)
		*hw = *ref;
	return rc;
}

size_t lagom_digest_records(const struct lagom_digest *d)
{
	return d ? d->nrecs : 0;
}

const char *lagom_digest_rec_nccl_version(const struct lagom_digest *d,
					  size_t rec)
{
	return d && rec < d->nrecs ? d->recs[rec].nccl_version : NULL;
}

const char *lagom_digest_node_nccl_version(const struct lagom_digest *d,
					   const char *node)
{
	const struct digest_entry *e = d ? find(d, node) : NULL;

	return e ? d->recs[e->rec].nccl_version : NULL;
}
