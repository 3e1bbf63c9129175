/*
 * profile/profile_parse.c - strict validation of a profile's JSON into the
 * plain struct.  Every error names the JSON path at fault.  See profile.h and
 * doc/profile-format.md.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "profile/profile.h"
#include "profile/json_check_int.h"

static const char *precision_name_i(int i)
{
	return lagom_precision_name(i);
}

static const char *collective_name_i(int i)
{
	return lagom_coll_name(i);
}

/* The fabrics a profile names (model's enum lagom_intra; DEFAULT is
 * "unknown", from format 1.1 on). */
static const enum lagom_intra profile_intras[] = {
	LAGOM_INTRA_NONE,     LAGOM_INTRA_PCIE,	   LAGOM_INTRA_NVLINK,
	LAGOM_INTRA_NVSWITCH, LAGOM_INTRA_DEFAULT,
};

static const char *intra_name_i(int i)
{
	return lagom_profile_intra_name(profile_intras[i]);
}

static const char *const quantity_keys[] = { "value", "unit", "source", NULL };

/* {"value": x > 0, "unit": unit, "source": "measured" | "table"} */
static int parse_quantity(struct pctx *c, const json_t *parent,
			  const char *ppath, const char *key, const char *unit,
			  struct lagom_quantity *q)
{
	char path[PATH_MAX_LEN];
	json_t *obj;
	int rc = pj_member(c, parent, ppath, key, JSON_OBJECT, 0, &obj);

	if (rc < 0 || obj == NULL)
		return rc;
	pj_join(path, ppath, key);
	if ((rc = pj_check_keys(c, obj, path, quantity_keys)) < 0 ||
	    (rc = pj_check_unit(c, obj, path, unit)) < 0 ||
	    (rc = pj_get_number(c, obj, path, "value", 1, &q->value)) < 0 ||
	    (rc = pj_get_source(c, obj, path, &q->source)) < 0)
		return rc;
	return 0;
}

static const char *const hw_keys[] = { "cpu_model",
				       "cpu_cores",
				       "numa_nodes",
				       "gpu_model",
				       "gpu_count",
				       "gpu_sm_count",
				       "gpu_memory_bytes",
				       "intra",
				       "nvlinks_per_gpu",
				       "nvlink_peers",
				       "pcie_gen",
				       "pcie_lanes",
				       "gpus_per_pcie_switch",
				       "nic_count",
				       "nic_rdma",
				       "gpus_per_nic",
				       "nic_link_bw_Bps",
				       "nic_transport",
				       "nvl_domain_nodes",
				       NULL };

static const char *transport_name_i(int i)
{
	return lagom_transport_name(i);
}

/* The optional rack keys: "nic_transport", "nvl_domain_nodes". */
static int parse_hw_rack(struct pctx *c, const json_t *hw, const char *p,
			 struct lagom_profile_hw *o)
{
	int rc = 0;

	if (json_object_get(hw, "nic_transport"))
		rc = pj_get_enum(c, hw, p, "nic_transport", transport_name_i,
				 LAGOM_NET_DEFAULT + 1, LAGOM_NET_COUNT,
				 &o->nic_transport);
	if (rc == 0 && json_object_get(hw, "nvl_domain_nodes"))
		rc = pj_get_count(c, hw, p, "nvl_domain_nodes",
				  LAGOM_PROFILE_NVL_DOMAIN_NODES_MAX,
				  &o->nvl_domain_nodes);
	return rc;
}

static int parse_hw(struct pctx *c, const json_t *hw,
		    struct lagom_profile_hw *o)
{
	const char *p = "hardware";
	json_int_t mem;
	int intra = 0;
	int rc;

	if ((rc = pj_check_keys(c, hw, p, hw_keys)) < 0 ||
	    (rc = pj_get_string(c, hw, p, "cpu_model", 1, o->cpu_model,
				sizeof(o->cpu_model))) < 0 ||
	    (rc = pj_get_count(c, hw, p, "cpu_cores",
			       LAGOM_PROFILE_CPU_CORES_MAX, &o->cpu_cores)) <
		    0 ||
	    (rc = pj_get_count(c, hw, p, "numa_nodes",
			       LAGOM_PROFILE_NUMA_NODES_MAX, &o->numa_nodes)) <
		    0 ||
	    (rc = pj_get_string(c, hw, p, "gpu_model", 1, o->gpu_model,
				sizeof(o->gpu_model))) < 0 ||
	    (rc = pj_get_count(c, hw, p, "gpu_count",
			       LAGOM_PROFILE_GPU_COUNT_MAX, &o->gpu_count)) <
		    0 ||
	    (rc = pj_get_count(c, hw, p, "gpu_sm_count",
			       LAGOM_PROFILE_GPU_SM_COUNT_MAX,
			       &o->gpu_sm_count)) < 0 ||
	    (rc = pj_get_int(c, hw, p, "gpu_memory_bytes", 0,
			     LAGOM_PROFILE_GPU_MEMORY_MAX, &mem)) < 0 ||
	    (rc = pj_get_enum(
		     c, hw, p, "intra", intra_name_i, 0,
		     (int)(sizeof(profile_intras) / sizeof(profile_intras[0])),
		     &intra)) < 0 ||
	    (rc = pj_get_count(c, hw, p, "nvlinks_per_gpu",
			       LAGOM_PROFILE_LINK_COUNT_MAX,
			       &o->nvlinks_per_gpu)) < 0 ||
	    (rc = pj_get_count(c, hw, p, "nvlink_peers",
			       LAGOM_PROFILE_LINK_COUNT_MAX,
			       &o->nvlink_peers)) < 0 ||
	    (rc = pj_get_count(c, hw, p, "pcie_gen", LAGOM_PROFILE_PCIE_GEN_MAX,
			       &o->pcie_gen)) < 0 ||
	    (rc = pj_get_count(c, hw, p, "pcie_lanes",
			       LAGOM_PROFILE_PCIE_LANES_MAX, &o->pcie_lanes)) <
		    0 ||
	    (rc = pj_get_count(c, hw, p, "gpus_per_pcie_switch",
			       LAGOM_PROFILE_LINK_COUNT_MAX,
			       &o->gpus_per_pcie_switch)) < 0 ||
	    (rc = pj_get_count(c, hw, p, "nic_count",
			       LAGOM_PROFILE_LINK_COUNT_MAX, &o->nic_count)) <
		    0 ||
	    (rc = pj_get_bool(c, hw, p, "nic_rdma", &o->nic_rdma)) < 0 ||
	    (rc = pj_get_count(c, hw, p, "gpus_per_nic",
			       LAGOM_PROFILE_LINK_COUNT_MAX,
			       &o->gpus_per_nic)) < 0 ||
	    (rc = pj_get_number(c, hw, p, "nic_link_bw_Bps", 0,
				&o->nic_link_bw_Bps)) < 0 ||
	    (rc = parse_hw_rack(c, hw, p, o)) < 0)
		return rc;
	o->gpu_memory_bytes = (uint64_t)mem;
	o->intra = profile_intras[intra];
	return 0;
}

static const char *const busbw_point_keys[] = { "collective",  "channels",
						"chunk_bytes", "size_bytes",
						"busbw",       NULL };

static int parse_busbw_point(struct pctx *c, const json_t *pt, const char *path,
			     struct lagom_busbw_point *o)
{
	json_int_t channels, chunk, size;
	int coll = 0;
	int rc;

	if (!json_is_object(pt))
		return lagom_errprintf(c->err, EINVAL,
				       "%s: expected an object, got %s", path,
				       pj_type_name(pt));
	if ((rc = pj_check_keys(c, pt, path, busbw_point_keys)) < 0 ||
	    (rc = pj_get_enum(c, pt, path, "collective", collective_name_i, 0,
			      LAGOM_COLL_COUNT, &coll)) < 0 ||
	    (rc = pj_get_int(c, pt, path, "channels", 1, 64, &channels)) < 0 ||
	    (rc = pj_get_int(c, pt, path, "chunk_bytes", 1, (json_int_t)1 << 40,
			     &chunk)) < 0 ||
	    (rc = pj_get_int(c, pt, path, "size_bytes", 1, (json_int_t)1 << 50,
			     &size)) < 0 ||
	    (rc = pj_get_number(c, pt, path, "busbw", 1, &o->busbw_Bps)) < 0)
		return rc;
	o->collective = coll;
	o->channels = (int)channels;
	o->chunk_bytes = (uint64_t)chunk;
	o->size_bytes = (uint64_t)size;
	return 0;
}

static const char *const contention_point_keys[] = { "ctas", "chunk_bytes",
						     "slowdown", NULL };

static int parse_contention_point(struct pctx *c, const json_t *pt,
				  const char *path,
				  struct lagom_contention_point *o)
{
	json_int_t ctas, chunk;
	int rc;

	if (!json_is_object(pt))
		return lagom_errprintf(c->err, EINVAL,
				       "%s: expected an object, got %s", path,
				       pj_type_name(pt));
	if ((rc = pj_check_keys(c, pt, path, contention_point_keys)) < 0 ||
	    (rc = pj_get_int(c, pt, path, "ctas", 0, 4096, &ctas)) < 0 ||
	    (rc = pj_get_int(c, pt, path, "chunk_bytes", 1, (json_int_t)1 << 40,
			     &chunk)) < 0 ||
	    (rc = pj_get_number(c, pt, path, "slowdown", 1, &o->slowdown)) < 0)
		return rc;
	o->ctas = (int)ctas;
	o->chunk_bytes = (uint64_t)chunk;
	return 0;
}

/* The "points" array of a grid; calls parse_one for each element. */
static int parse_points(struct pctx *c, const json_t *grid, const char *gpath,
			size_t *n,
			int (*parse_one)(struct pctx *, const json_t *,
					 const char *, void *, size_t),
			void *dst)
{
	char path[PATH_MAX_LEN];
	json_t *arr;
	size_t i;
	int rc = pj_member(c, grid, gpath, "points", JSON_ARRAY, 1, &arr);

	if (rc < 0)
		return rc;
	if (json_array_size(arr) == 0 ||
	    json_array_size(arr) > LAGOM_PROFILE_MAX_POINTS)
		return lagom_errprintf(
			c->err, EINVAL,
			"%s.points: %zu points, expected 1 to %d", gpath,
			json_array_size(arr), LAGOM_PROFILE_MAX_POINTS);
	for (i = 0; i < json_array_size(arr); i++) {
		snprintf(path, sizeof(path), "%s.points[%zu]", gpath, i);
		rc = parse_one(c, json_array_get(arr, i), path, dst, i);
		if (rc < 0)
			return rc;
	}
	*n = i;
	return 0;
}

static int busbw_one(struct pctx *c, const json_t *pt, const char *path,
		     void *dst, size_t i)
{
	return parse_busbw_point(c, pt, path,
				 &((struct lagom_busbw_point *)dst)[i]);
}

static int contention_one(struct pctx *c, const json_t *pt, const char *path,
			  void *dst, size_t i)
{
	return parse_contention_point(
		c, pt, path, &((struct lagom_contention_point *)dst)[i]);
}

static const char *const busbw_keys[] = { "unit", "source", "nranks", "points",
					  NULL };

static int parse_busbw(struct pctx *c, const json_t *meas,
		       struct lagom_profile_measurements *m)
{
	const char *p = "measurements.nccl_busbw";
	json_t *g;
	json_int_t nranks;
	int rc = pj_member(c, meas, "measurements", "nccl_busbw", JSON_OBJECT,
			   0, &g);

	if (rc < 0 || g == NULL)
		return rc;
	if ((rc = pj_check_keys(c, g, p, busbw_keys)) < 0 ||
	    (rc = pj_check_unit(c, g, p, "B/s")) < 0 ||
	    (rc = pj_get_source(c, g, p, &m->busbw_source)) < 0 ||
	    (rc = pj_get_int(c, g, p, "nranks", 2, 1024, &nranks)) < 0 ||
	    (rc = parse_points(c, g, p, &m->n_busbw, busbw_one, m->busbw)) < 0)
		return rc;
	m->busbw_nranks = (int)nranks;
	return 0;
}

static const char *const contention_keys[] = { "unit", "source", "precision",
					       "points", NULL };

static int parse_contention(struct pctx *c, const json_t *meas,
			    struct lagom_profile_measurements *m)
{
	const char *p = "measurements.contention";
	json_t *g;
	int prec = 0;
	int rc = pj_member(c, meas, "measurements", "contention", JSON_OBJECT,
			   0, &g);

	if (rc < 0 || g == NULL)
		return rc;
	if ((rc = pj_check_keys(c, g, p, contention_keys)) < 0 ||
	    (rc = pj_check_unit(c, g, p, "ratio")) < 0 ||
	    (rc = pj_get_source(c, g, p, &m->contention_source)) < 0 ||
	    (rc = pj_get_enum(c, g, p, "precision", precision_name_i, 0,
			      LAGOM_PREC_COUNT, &prec)) < 0 ||
	    (rc = parse_points(c, g, p, &m->n_contention, contention_one,
			       m->contention)) < 0)
		return rc;
	m->contention_precision = prec;
	return 0;
}

static const char *const meas_keys[] = { "gemm",   "hbm_bw",	 "intra_bw",
					 "nic_bw", "nccl_busbw", "contention",
					 NULL };
static const char *const prec_keys[] = { "fp32", "tf32", "fp16",
					 "bf16", "fp8",	 NULL };

static int parse_meas(struct pctx *c, const json_t *meas,
		      struct lagom_profile_measurements *m)
{
	const char *p = "measurements";
	json_t *gemm;
	int rc;

	if ((rc = pj_check_keys(c, meas, p, meas_keys)) < 0 ||
	    (rc = pj_member(c, meas, p, "gemm", JSON_OBJECT, 0, &gemm)) < 0)
		return rc;
	if (gemm != NULL) {
		if ((rc = pj_check_keys(c, gemm, "measurements.gemm",
					prec_keys)) < 0)
			return rc;
		for (int i = 0; i < LAGOM_PREC_COUNT; i++) {
			rc = parse_quantity(c, gemm, "measurements.gemm",
					    lagom_precision_name(i), "FLOP/s",
					    &m->gemm_flops[i]);
			if (rc < 0)
				return rc;
		}
	}
	if ((rc = parse_quantity(c, meas, p, "hbm_bw", "B/s", &m->hbm_bw_Bps)) <
		    0 ||
	    (rc = parse_quantity(c, meas, p, "intra_bw", "B/s",
				 &m->intra_bw_Bps)) < 0 ||
	    (rc = parse_quantity(c, meas, p, "nic_bw", "B/s", &m->nic_bw_Bps)) <
		    0 ||
	    (rc = parse_busbw(c, meas, m)) < 0 ||
	    (rc = parse_contention(c, meas, m)) < 0)
		return rc;
	return 0;
}

static const char *const prov_keys[] = { "lagom_version",
					 "nccl_version",
					 "cuda_runtime_version",
					 "cuda_driver_version",
					 "created_unix_s",
					 "note",
					 NULL };

static int parse_prov(struct pctx *c, const json_t *prov,
		      struct lagom_profile_provenance *o)
{
	const char *p = "provenance";
	json_int_t created;
	int rc;

	if ((rc = pj_check_keys(c, prov, p, prov_keys)) < 0 ||
	    (rc = pj_get_string(c, prov, p, "lagom_version", 1,
				o->lagom_version, sizeof(o->lagom_version))) <
		    0 ||
	    (rc = pj_get_string(c, prov, p, "nccl_version", 0, o->nccl_version,
				sizeof(o->nccl_version))) < 0 ||
	    (rc = pj_get_string(c, prov, p, "cuda_runtime_version", 0,
				o->cuda_runtime_version,
				sizeof(o->cuda_runtime_version))) < 0 ||
	    (rc = pj_get_string(c, prov, p, "cuda_driver_version", 0,
				o->cuda_driver_version,
				sizeof(o->cuda_driver_version))) < 0 ||
	    (rc = pj_get_int(c, prov, p, "created_unix_s", 0,
			     (json_int_t)1 << 40, &created)) < 0 ||
	    (rc = pj_get_string(c, prov, p, "note", 0, o->note,
				sizeof(o->note))) < 0)
		return rc;
	o->created_unix_s = created;
	return 0;
}

/* "MAJOR.MINOR", each 1 to 4 digits. */
static int parse_version(const char *s, int *major, int *minor)
{
	int *part = major;
	int digits = 0;

	*major = *minor = 0;
	for (; *s != '\0'; s++) {
		if (*s == '.' && part == major && digits > 0) {
			part = minor;
			digits = 0;
		} else if (*s >= '0' && *s <= '9' && digits < 4) {
			*part = *part * 10 + (*s - '0');
			digits++;
		} else {
			return -1;
		}
	}
	return part == minor && digits > 0 ? 0 : -1;
}

static int parse_header(struct pctx *c, const json_t *root,
			struct lagom_profile *p)
{
	char format[32], version[16];
	int rc;

	if ((rc = pj_get_string(c, root, "", "format", 1, format,
				sizeof(format))) < 0)
		return rc;
	if (strcmp(format, LAGOM_PROFILE_FORMAT) != 0)
		return lagom_errprintf(c->err, EPROTONOSUPPORT,
				       "format: \"%s\" is not \"%s\"", format,
				       LAGOM_PROFILE_FORMAT);
	if ((rc = pj_get_string(c, root, "", "version", 1, version,
				sizeof(version))) < 0)
		return rc;
	if (parse_version(version, &p->version_major, &p->version_minor) < 0)
		return lagom_errprintf(c->err, EINVAL,
				       "version: \"%s\" is not MAJOR.MINOR",
				       version);
	if (p->version_major != LAGOM_PROFILE_VERSION_MAJOR)
		return lagom_errprintf(
			c->err, EPROTONOSUPPORT,
			"version: unsupported major version %d (this lagom reads %d.x)",
			p->version_major, LAGOM_PROFILE_VERSION_MAJOR);
	c->lenient = p->version_minor > LAGOM_PROFILE_VERSION_MINOR;
	return 0;
}

static const char *const root_keys[] = { "format",	"version",
					 "node",	"hardware",
					 "fingerprint", "measurements",
					 "provenance",	NULL };
static const char *const node_keys[] = { "name", "hostname", NULL };

static int parse_node(struct pctx *c, const json_t *root,
		      struct lagom_profile *p)
{
	json_t *node;
	int rc;

	if ((rc = pj_member(c, root, "", "node", JSON_OBJECT, 1, &node)) < 0 ||
	    (rc = pj_check_keys(c, node, "node", node_keys)) < 0 ||
	    (rc = pj_get_string(c, node, "node", "name", 1, p->node,
				sizeof(p->node))) < 0 ||
	    (rc = pj_get_string(c, node, "node", "hostname", 0, p->hostname,
				sizeof(p->hostname))) < 0)
		return rc;
	if (!lagom_profile_node_name_ok(p->node))
		return lagom_errprintf(
			c->err, EINVAL,
			"node.name: \"%s\" is not a valid node name", p->node);
	return 0;
}

/* Format 1.0 named every fabric: lagom-prolog wrote the spec table's
 * guess where the topology showed none. */
static int check_hw_version(struct pctx *c, const struct lagom_profile *p)
{
	if (p->hw.intra == LAGOM_INTRA_DEFAULT && p->version_minor < 1)
		return lagom_errprintf(
			c->err, EINVAL,
			"hardware.intra: \"unknown\" needs "
			"format version 1.1, the file says %d.%d",
			p->version_major, p->version_minor);
	return 0;
}

static int parse_root(struct pctx *c, const json_t *root,
		      struct lagom_profile *p)
{
	char expect[sizeof(p->fingerprint)];
	json_t *hw, *meas, *prov;
	int rc;

	if ((rc = parse_header(c, root, p)) < 0 ||
	    (rc = pj_check_keys(c, root, "", root_keys)) < 0 ||
	    (rc = parse_node(c, root, p)) < 0 ||
	    (rc = pj_member(c, root, "", "hardware", JSON_OBJECT, 1, &hw)) <
		    0 ||
	    (rc = parse_hw(c, hw, &p->hw)) < 0 ||
	    (rc = check_hw_version(c, p)) < 0 ||
	    (rc = pj_get_string(c, root, "", "fingerprint", 1, p->fingerprint,
				sizeof(p->fingerprint))) < 0 ||
	    (rc = pj_member(c, root, "", "measurements", JSON_OBJECT, 1,
			    &meas)) < 0 ||
	    (rc = parse_meas(c, meas, &p->meas)) < 0 ||
	    (rc = pj_member(c, root, "", "provenance", JSON_OBJECT, 1, &prov)) <
		    0 ||
	    (rc = parse_prov(c, prov, &p->prov)) < 0)
		return rc;
	lagom_profile_fingerprint(&p->hw, expect, sizeof(expect));
	if (strcmp(expect, p->fingerprint) != 0)
		return lagom_errprintf(
			c->err, EINVAL,
			"fingerprint: \"%s\" does not match the hardware section (%s)",
			p->fingerprint, expect);
	return 0;
}

int lagom_profile_from_json(const json_t *json, struct lagom_profile **out,
			    struct lagom_error *err)
{
	struct pctx c = { .err = err };
	struct lagom_profile *p;
	int rc;

	if (!json_is_object(json))
		return lagom_errprintf(err, EINVAL,
				       "expected a JSON object at the top");
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	rc = parse_root(&c, json, p);
	if (rc < 0) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int lagom_profile_from_buffer(const char *buf, size_t len,
			      struct lagom_profile **out,
			      struct lagom_error *err)
{
	json_error_t jerr;
	json_t *root;
	int rc;

	if (len > LAGOM_PROFILE_MAX_BYTES)
		return lagom_errprintf(err, EFBIG,
				       "%zu bytes, over the %d byte limit", len,
				       LAGOM_PROFILE_MAX_BYTES);
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL) {
		/* jansson leaves the text empty when its lexer cannot
		 * allocate; other allocation failures in its lexer read as
		 * syntax errors ("invalid token"). */
		if (jerr.text[0] == '\0' ||
		    json_error_code(&jerr) == json_error_out_of_memory)
			return lagom_errprintf(err, ENOMEM, "out of memory");
		return lagom_errprintf(err, EINVAL,
				       "invalid JSON at line %d column %d: %s",
				       jerr.line, jerr.column, jerr.text);
	}
	rc = lagom_profile_from_json(root, out, err);
	json_decref(root);
	return rc;
}
