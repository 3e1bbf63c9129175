/*
 * topology/nccl_topo.c - read an NCCL topology file (NCCL_TOPO_FILE) into
 * struct lagom_node_topo.
 *
 * A small, strict, bounded reader for the XML subset these files use:
 * elements with quoted attributes, comments, an optional <?xml?> line, and
 * only white space between tags.  Anything else is an error that names the
 * line.  No recursion: nesting is kept on a fixed stack.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topology/topology_int.h"
#include "topology/xml_lite_int.h"

#define MAX_PENDING_NVLINKS 4096

enum ekind {
	E_SYSTEM,
	E_CPU,
	E_PCI,
	E_GPU,
	E_NIC,
	E_NET,
	E_OTHER
};

struct frame {
	enum ekind kind;
	char name[XML_NAME_MAX + 1];
	int numa;	/* E_CPU: numaid */
	int pcisw;	/* E_PCI bridge: index into pcisw, else -1 */
	int gpu;	/* E_PCI/E_GPU: GPU made here, else -1 */
	int nics;	/* E_PCI: NICs made below it */
	bool nic_class; /* E_PCI: class 0x02 */
	bool classless; /* E_PCI: no class attribute */
	struct lagom_topo_pcie pcie;
	char busid[LAGOM_TOPO_BUSID_MAX];
	uint16_t vendor, device;
};

struct pending_nvlink {
	int gpu, count;
	char target[LAGOM_TOPO_BUSID_MAX];
};

struct parser {
	struct xml_lite x;
	int depth;
	bool seen_root;
	struct frame stack[LAGOM_NCCL_TOPO_MAX_DEPTH];
	uint64_t numa_seen;
	int npending;
	struct pending_nvlink pending[MAX_PENDING_NVLINKS];
	struct lagom_node_topo *t;
	struct lagom_error *err;
};

static int fail(struct parser *P, const char *what)
{
	return xml_fail(&P->x, what);
}

/* "8 GT/s", "16.0 GT/s PCIe", "2.5 GT/s" -> GT/s; false when malformed. */
static bool parse_GTps(const char *s, double *out)
{
	double v = 0, scale = 1;
	int digits = 0;

	for (; *s >= '0' && *s <= '9' && digits < 4; s++, digits++)
		v = v * 10 + (*s - '0');
	if (digits == 0)
		return false;
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9' && scale > 1e-6; s++)
			v += (*s - '0') * (scale /= 10);
	}
	while (*s == ' ')
		s++;
	if (strncmp(s, "GT/s", 4) != 0)
		return false;
	*out = v;
	return true;
}

/* A PCI bus id attribute, copied into a LAGOM_TOPO_BUSID_MAX buffer. */
static bool attr_busid(const struct parser *P, const char *name, char *busid)
{
	char v[XML_VALUE_MAX + 1];
	size_t n;

	if (!xml_attr_copy(&P->x, name, v))
		return false;
	n = strlen(v);
	if (n < 7 || n >= LAGOM_TOPO_BUSID_MAX)
		return false;
	memcpy(busid, v, n + 1);
	return true;
}

static int opt_uint(struct parser *P, const char *name, unsigned long long max,
		    unsigned long long *out, bool *present)
{
	char v[XML_VALUE_MAX + 1];

	*present = xml_attr_copy(&P->x, name, v);
	if (*present && !xml_parse_uint(v, max, out)) {
		char msg[96];

		snprintf(msg, sizeof(msg), "bad number in %s=\"%.32s\"", name,
			 v);
		return fail(P, msg);
	}
	return 0;
}

static struct frame *parent_frame(struct parser *P)
{
	return P->depth > 0 ? &P->stack[P->depth - 1] : NULL;
}

static int current_numa(const struct parser *P)
{
	for (int i = P->depth - 1; i >= 0; i--)
		if (P->stack[i].kind == E_CPU)
			return P->stack[i].numa;
	return -1;
}

static struct frame *enclosing_pci(struct parser *P)
{
	for (int i = P->depth - 1; i >= 0; i--)
		if (P->stack[i].kind == E_PCI)
			return &P->stack[i];
	return NULL;
}

static int open_cpu(struct parser *P, struct frame *f)
{
	unsigned long long numa = 0;
	bool have;
	int rc = opt_uint(P, "numaid", 63, &numa, &have);

	if (rc)
		return rc;
	f->numa = have ? (int)numa : -1;
	if (have && !(P->numa_seen & (UINT64_C(1) << numa))) {
		P->numa_seen |= UINT64_C(1) << numa;
		P->t->nnuma++;
	}
	return 0;
}

static int make_gpu(struct parser *P, struct frame *pci)
{
	struct lagom_node_topo *t = P->t;
	struct lagom_topo_gpu *g;
	const char *model;

	if (t->gpus_per_node == LAGOM_TOPO_MAX_GPUS)
		return lagom_errprintf(
			P->err, E2BIG,
			"NCCL topology line %u: more than %d GPUs", P->x.line,
			LAGOM_TOPO_MAX_GPUS);
	pci->gpu = t->gpus_per_node;
	g = &t->gpus[t->gpus_per_node++];
	lagom_topo_copy(g->busid, sizeof(g->busid), pci->busid);
	g->pci_vendor = pci->vendor;
	g->pci_device = pci->device;
	g->numa_node = current_numa(P);
	g->pcie = pci->pcie;
	model = pci->vendor == 0x10de
			? lagom_nvidia_model_by_device(pci->device)
			: NULL;
	lagom_topo_copy(g->model, sizeof(g->model), model);
	return 0;
}

/* The path of bridges from the enclosing <pci> frames. */
static int path_from_stack(struct parser *P, struct lagom_topo_pcie *pcie)
{
	pcie->pcie_depth = 0;
	for (int i = 0; i < P->depth; i++) {
		if (P->stack[i].kind != E_PCI || P->stack[i].pcisw < 0)
			continue;
		if (pcie->pcie_depth == LAGOM_TOPO_PCIE_DEPTH)
			return fail(P, "PCI bridges nested too deep");
		pcie->pcie_path[pcie->pcie_depth++] = P->stack[i].pcisw;
	}
	return 0;
}

static int pci_ids(struct parser *P, struct frame *f, unsigned long long *cls,
		   bool *have_class)
{
	unsigned long long v = 0;
	bool have;
	int rc;

	rc = opt_uint(P, "class", 0xffffff, cls, have_class);
	if (rc == 0)
		rc = opt_uint(P, "vendor", 0xffff, &v, &have);
	f->vendor = (uint16_t)v;
	v = 0;
	if (rc == 0)
		rc = opt_uint(P, "device", 0xffff, &v, &have);
	f->device = (uint16_t)v;
	return rc;
}

static int pci_link(struct parser *P, struct frame *f)
{
	char v[XML_VALUE_MAX + 1];
	unsigned long long width = 0;
	bool have;
	int rc = opt_uint(P, "link_width", 64, &width, &have);

	if (rc)
		return rc;
	f->pcie.pcie_width = (int)width;
	if (xml_attr_copy(&P->x, "link_speed", v) &&
	    !parse_GTps(v, &f->pcie.pcie_GTps))
		return fail(P, "bad link_speed");
	f->pcie.pcie_bw_Bps = lagom_pcie_bw_Bps(f->pcie.pcie_GTps,
						f->pcie.pcie_width);
	return 0;
}

static int open_pci(struct parser *P, struct frame *f)
{
	unsigned long long cls = 0;
	bool have_class;
	int rc;

	if (!attr_busid(P, "busid", f->busid))
		return fail(P, "<pci> needs a busid of 7 to 19 characters");
	rc = pci_ids(P, f, &cls, &have_class);
	if (rc == 0)
		rc = pci_link(P, f);
	if (rc)
		return rc;
	rc = path_from_stack(P, &f->pcie);
	if (rc)
		return rc;
	f->classless = !have_class;
	f->nic_class = have_class && (cls >> 16) == 0x02;
	if (have_class && (cls >> 8) == 0x0604) {
		int parent = f->pcie.pcie_depth
				     ? f->pcie.pcie_path[f->pcie.pcie_depth - 1]
				     : -1;

		f->pcisw = lagom_topo_pcisw_intern(P->t, f->busid, parent);
		if (f->pcisw < 0)
			return fail(P, "too many PCI bridges");
	} else if (have_class && lagom_pci_class_is_gpu((unsigned)(cls >> 8))) {
		return make_gpu(P, f);
	}
	return 0;
}

static int open_gpu(struct parser *P, struct frame *f)
{
	struct frame *pci = parent_frame(P);
	unsigned long long dev = 0, sm = 0;
	bool have_dev, have_sm;
	int rc;

	if (!pci || pci->kind != E_PCI)
		return fail(P, "<gpu> outside <pci>");
	if (pci->gpu < 0 && (rc = make_gpu(P, pci)) != 0)
		return rc;
	f->gpu = pci->gpu;
	rc = opt_uint(P, "dev", 1023, &dev, &have_dev);
	if (rc == 0)
		rc = opt_uint(P, "sm", 1000, &sm, &have_sm);
	if (rc)
		return rc;
	if (have_dev)
		P->t->gpus[f->gpu].cuda_dev = (int)dev;
	if (have_sm)
		P->t->gpus[f->gpu].sm = (int)sm;
	return 0;
}

static int open_nvlink(struct parser *P)
{
	struct frame *gpu = parent_frame(P);
	unsigned long long count = 0, tclass = 0;
	bool have, have_tclass;
	struct pending_nvlink *pl;
	int rc;

	if (!gpu || gpu->kind != E_GPU)
		return fail(P, "<nvlink> outside <gpu>");
	rc = opt_uint(P, "count", 255, &count, &have);
	if (rc == 0)
		rc = opt_uint(P, "tclass", 0xffffff, &tclass, &have_tclass);
	if (rc)
		return rc;
	P->t->has_nvlink = P->t->has_nvlink || count > 0;
	P->t->nvlink_known = true;
	if (have_tclass && (tclass >> 8) == 0x0680) {
		P->t->gpus[gpu->gpu].nvswitch_links += (int)count;
		return 0;
	}
	if (P->npending == MAX_PENDING_NVLINKS)
		return fail(P, "too many <nvlink> elements");
	pl = &P->pending[P->npending];
	if (!attr_busid(P, "target", pl->target))
		return fail(P, "<nvlink> needs a target bus id");
	pl->gpu = gpu->gpu;
	pl->count = (int)count;
	P->npending++;
	return 0;
}

static enum lagom_nic_kind nic_kind(const char *name, uint16_t vendor)
{
	if (vendor == 0x1d0f || strncmp(name, "rdmap", 5) == 0 ||
	    strncmp(name, "efa", 3) == 0)
		return LAGOM_NIC_EFA;
	/* The file gives no link layer: a Mellanox NIC is taken as IB. */
	if (vendor == 0x15b3 || strncmp(name, "mlx", 3) == 0)
		return LAGOM_NIC_IB;
	return LAGOM_NIC_ETHERNET;
}

static int make_nic(struct parser *P, struct frame *pci, const char *name,
		    double speed_Bps)
{
	struct lagom_node_topo *t = P->t;
	struct lagom_topo_nic *nic;

	if (t->nnics == LAGOM_TOPO_MAX_NICS)
		return lagom_errprintf(
			P->err, E2BIG,
			"NCCL topology line %u: more than %d NICs", P->x.line,
			LAGOM_TOPO_MAX_NICS);
	nic = &t->nics[t->nnics++];
	lagom_topo_copy(nic->name, sizeof(nic->name),
			name[0] ? name : pci->busid);
	lagom_topo_copy(nic->busid, sizeof(nic->busid), pci->busid);
	nic->pci_vendor = pci->vendor;
	nic->pci_device = pci->device;
	nic->numa_node = current_numa(P);
	nic->pcie = pci->pcie;
	nic->speed_Bps = speed_Bps;
	nic->kind = nic_kind(name, pci->vendor);
	pci->nics++;
	return 0;
}

static int open_net(struct parser *P)
{
	struct frame *nic = parent_frame(P);
	struct frame *pci = enclosing_pci(P);
	char name[XML_VALUE_MAX + 1] = "";
	unsigned long long speed = 0;
	bool have;
	int rc;

	if (!nic || nic->kind != E_NIC || !pci)
		return fail(P, "<net> outside <pci><nic>");
	rc = opt_uint(P, "speed", UINT64_C(100000000), &speed, &have);
	if (rc)
		return rc;
	xml_attr_copy(&P->x, "name", name);
	return make_nic(P, pci, name, (double)speed * 1e6 / 8); /* Mb/s */
}

static enum ekind kind_of(const char *name, size_t len)
{
	static const struct {
		const char *name;
		enum ekind kind;
	} table[] = { { "system", E_SYSTEM }, { "cpu", E_CPU },
		      { "pci", E_PCI },	      { "gpu", E_GPU },
		      { "nic", E_NIC },	      { "net", E_NET } };

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strlen(table[i].name) == len &&
		    memcmp(table[i].name, name, len) == 0)
			return table[i].kind;
	return E_OTHER;
}

static int open_element(struct parser *P, struct frame *f, const char *name,
			size_t len)
{
	bool in_other = P->depth > 0 && P->stack[P->depth - 1].kind == E_OTHER;

	memset(f, 0, sizeof(*f));
	memcpy(f->name, name, len);
	f->kind = in_other ? E_OTHER : kind_of(name, len);
	f->pcisw = f->gpu = f->numa = -1;
	if (P->depth == 0 && f->kind != E_SYSTEM)
		return fail(P, "the root element must be <system>");
	if (P->depth > 0 && f->kind == E_SYSTEM)
		return fail(P, "<system> inside another element");
	if (len == 6 && memcmp(name, "nvlink", 6) == 0 && !in_other)
		return open_nvlink(P);
	switch (f->kind) {
	case E_CPU:
		return open_cpu(P, f);
	case E_PCI:
		return open_pci(P, f);
	case E_GPU:
		return open_gpu(P, f);
	case E_NET:
		return open_net(P);
	case E_NIC:
		if (!parent_frame(P) || parent_frame(P)->kind != E_PCI)
			return fail(P, "<nic> outside <pci>");
		return 0;
	default:
		return 0;
	}
}

/* A NIC-class <pci> with no <net> below it is one NIC without a name. */
static int close_element(struct parser *P, struct frame *f)
{
	if (f->kind != E_PCI)
		return 0;
	if (f->nic_class && f->nics == 0)
		return make_nic(P, f, "", 0);
	if (f->classless && f->nics == 0 && f->gpu < 0)
		P->t->nunknown_pci++;
	return 0;
}

static int start_element(struct parser *P)
{
	struct frame *f;
	int rc;

	if (P->depth == 0 && P->seen_root)
		return fail(P, "more than one root element");
	if (P->depth == LAGOM_NCCL_TOPO_MAX_DEPTH)
		return fail(P, "elements nested too deep");
	f = &P->stack[P->depth];
	rc = open_element(P, f, P->x.name, P->x.name_len);
	if (rc)
		return rc;
	P->seen_root = true;
	if (P->x.empty)
		return close_element(P, f);
	P->depth++;
	return 0;
}

static int end_element(struct parser *P)
{
	struct frame *f;

	if (P->depth == 0)
		return fail(P, "end tag without a start tag");
	f = &P->stack[P->depth - 1];
	if (strlen(f->name) != P->x.name_len ||
	    memcmp(f->name, P->x.name, P->x.name_len) != 0)
		return fail(P, "end tag does not match its start tag");
	P->depth--;
	return close_element(P, f);
}

static int parse_document(struct parser *P)
{
	enum xml_event ev;
	int rc;

	for (;;) {
		rc = xml_next(&P->x, &ev);
		if (rc == 0 && ev == XML_EOF)
			break;
		if (rc == 0)
			rc = ev == XML_START ? start_element(P)
					     : end_element(P);
		if (rc)
			return rc;
	}
	if (!P->seen_root)
		return fail(P, "no <system> element");
	if (P->depth != 0)
		return fail(P, "unclosed element at end of file");
	return 0;
}

static int gpu_by_busid(const struct lagom_node_topo *t, const char *busid)
{
	for (int g = 0; g < t->gpus_per_node; g++)
		if (strcasecmp(t->gpus[g].busid, busid) == 0)
			return g;
	return -1;
}

/* <nvlink target=...> may name a GPU that appears later in the file. */
static void resolve_nvlinks(struct parser *P)
{
	struct lagom_node_topo *t = P->t;

	for (int i = 0; i < P->npending; i++) {
		int g = P->pending[i].gpu;
		int h = gpu_by_busid(t, P->pending[i].target);
		int links;

		if (h < 0 || h == g)
			continue;
		links = t->nvlink_links[g][h] + P->pending[i].count;
		t->nvlink_links[g][h] = (uint8_t)(links > 255 ? 255 : links);
		t->nvlink_links[h][g] = t->nvlink_links[g][h];
	}
}

int lagom_topo_parse_nccl(const char *buf, size_t len,
			  struct lagom_node_topo *out, struct lagom_error *err)
{
	struct parser *P;
	int rc;

	if (!buf || len > LAGOM_NCCL_TOPO_MAX_BYTES)
		return lagom_errprintf(err, E2BIG,
				       "NCCL topology larger than %u bytes",
				       LAGOM_NCCL_TOPO_MAX_BYTES);
	P = calloc(1, sizeof(*P));
	if (!P || !(P->t = malloc(sizeof(*P->t)))) {
		free(P);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	xml_init(&P->x, buf, len, "NCCL topology", err);
	P->err = err;
	lagom_topo_init(P->t);
	rc = parse_document(P);
	if (rc == 0) {
		resolve_nvlinks(P);
		lagom_topo_copy(P->t->source, sizeof(P->t->source),
				"nccl-topo");
		lagom_topo_sort_gpus(P->t);
		lagom_topo_compute_affinity(P->t);
		memcpy(out, P->t, sizeof(*out));
	}
	free(P->t);
	free(P);
	return rc;
}

int lagom_topo_load_nccl_file(const char *path, struct lagom_node_topo *out,
			      struct lagom_error *err)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;
	int rc;

	if (!f)
		return lagom_errprintf(err, errno, "%s: %s", path,
				       strerror(errno));
	buf = malloc(LAGOM_NCCL_TOPO_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	n = fread(buf, 1, LAGOM_NCCL_TOPO_MAX_BYTES + 1, f);
	if (ferror(f))
		rc = lagom_errprintf(err, EIO, "%s: read error", path);
	else
		rc = lagom_topo_parse_nccl(buf, n, out, err);
	if (rc && err)
		lagom_error_prefix(err, "%s", path);
	free(buf);
	fclose(f);
	return rc;
}
