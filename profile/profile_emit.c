/*
 * profile/profile_emit.c - the plain struct as profile JSON.  The output is
 * checked with the reader before it is handed out, so the writer can never
 * produce a file the reader rejects.  See profile.h.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "profile/profile.h"

/* obj[key] = value (stolen); -1 when value is NULL (allocation failure). */
static int put(json_t *obj, const char *key, json_t *value)
{
	return json_object_set_new(obj, key, value);
}

static int put_quantity(json_t *obj, const char *key, const char *unit,
			const struct lagom_quantity *q)
{
	json_t *j;

	if (q->source == LAGOM_SOURCE_ABSENT)
		return 0;
	j = json_object();
	if (put(obj, key, j) < 0 || put(j, "value", json_real(q->value)) < 0 ||
	    put(j, "unit", json_string(unit)) < 0 ||
	    put(j, "source", json_string(lagom_source_name(q->source))) < 0)
		return -1;
	return 0;
}

static json_t *hw_to_json(const struct lagom_profile_hw *hw)
{
	json_t *j = json_object();
	const char *intra = lagom_profile_intra_name(hw->intra);

	if (j == NULL || intra == NULL ||
	    put(j, "cpu_model", json_string(hw->cpu_model)) < 0 ||
	    put(j, "cpu_cores", json_integer(hw->cpu_cores)) < 0 ||
	    put(j, "numa_nodes", json_integer(hw->numa_nodes)) < 0 ||
	    put(j, "gpu_model", json_string(hw->gpu_model)) < 0 ||
	    put(j, "gpu_count", json_integer(hw->gpu_count)) < 0 ||
	    put(j, "gpu_sm_count", json_integer(hw->gpu_sm_count)) < 0 ||
	    put(j, "gpu_memory_bytes",
		json_integer((json_int_t)hw->gpu_memory_bytes)) < 0 ||
	    put(j, "intra", json_string(intra)) < 0 ||
	    put(j, "nvlinks_per_gpu", json_integer(hw->nvlinks_per_gpu)) < 0 ||
	    put(j, "nvlink_peers", json_integer(hw->nvlink_peers)) < 0 ||
	    put(j, "pcie_gen", json_integer(hw->pcie_gen)) < 0 ||
	    put(j, "pcie_lanes", json_integer(hw->pcie_lanes)) < 0 ||
	    put(j, "gpus_per_pcie_switch",
		json_integer(hw->gpus_per_pcie_switch)) < 0 ||
	    put(j, "nic_count", json_integer(hw->nic_count)) < 0 ||
	    put(j, "nic_rdma", json_boolean(hw->nic_rdma)) < 0 ||
	    put(j, "gpus_per_nic", json_integer(hw->gpus_per_nic)) < 0 ||
	    put(j, "nic_link_bw_Bps", json_real(hw->nic_link_bw_Bps)) < 0 ||
	    (hw->nic_transport > 0 &&
	     put(j, "nic_transport",
		 json_string(lagom_transport_name(hw->nic_transport))) < 0) ||
	    (hw->nvl_domain_nodes > 0 &&
	     put(j, "nvl_domain_nodes", json_integer(hw->nvl_domain_nodes)) <
		     0)) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static int grid_header(json_t *meas, const char *key, const char *unit,
		       enum lagom_source source, json_t **grid, json_t **points)
{
	*grid = json_object();
	*points = json_array();
	if (put(meas, key, *grid) < 0) {
		json_decref(*points);
		return -1;
	}
	if (put(*grid, "unit", json_string(unit)) < 0 ||
	    put(*grid, "source", json_string(lagom_source_name(source))) < 0)
		return json_decref(*points), -1;
	return 0;
}

static int busbw_to_json(json_t *meas,
			 const struct lagom_profile_measurements *m)
{
	json_t *grid, *points;

	if (m->busbw_source == LAGOM_SOURCE_ABSENT)
		return 0;
	if (grid_header(meas, "nccl_busbw", "B/s", m->busbw_source, &grid,
			&points) < 0)
		return -1;
	if (put(grid, "nranks", json_integer(m->busbw_nranks)) < 0) {
		json_decref(points);
		return -1;
	}
	if (put(grid, "points", points) < 0)
		return -1;
	for (size_t i = 0; i < m->n_busbw && i < LAGOM_PROFILE_MAX_POINTS;
	     i++) {
		const struct lagom_busbw_point *b = &m->busbw[i];
		const char *coll = lagom_coll_name(b->collective);
		json_t *pt = json_object();

		if (json_array_append_new(points, pt) < 0 ||
		    put(pt, "collective", coll ? json_string(coll) : NULL) <
			    0 ||
		    put(pt, "channels", json_integer(b->channels)) < 0 ||
		    put(pt, "chunk_bytes",
			json_integer((json_int_t)b->chunk_bytes)) < 0 ||
		    put(pt, "size_bytes",
			json_integer((json_int_t)b->size_bytes)) < 0 ||
		    put(pt, "busbw", json_real(b->busbw_Bps)) < 0)
			return -1;
	}
	return 0;
}

static int contention_to_json(json_t *meas,
			      const struct lagom_profile_measurements *m)
{
	const char *prec = lagom_precision_name(m->contention_precision);
	json_t *grid, *points;

	if (m->contention_source == LAGOM_SOURCE_ABSENT)
		return 0;
	if (grid_header(meas, "contention", "ratio", m->contention_source,
			&grid, &points) < 0)
		return -1;
	if (put(grid, "precision", prec ? json_string(prec) : NULL) < 0) {
		json_decref(points);
		return -1;
	}
	if (put(grid, "points", points) < 0)
		return -1;
	for (size_t i = 0; i < m->n_contention && i < LAGOM_PROFILE_MAX_POINTS;
	     i++) {
		const struct lagom_contention_point *c = &m->contention[i];
		json_t *pt = json_object();

		if (json_array_append_new(points, pt) < 0 ||
		    put(pt, "ctas", json_integer(c->ctas)) < 0 ||
		    put(pt, "chunk_bytes",
			json_integer((json_int_t)c->chunk_bytes)) < 0 ||
		    put(pt, "slowdown", json_real(c->slowdown)) < 0)
			return -1;
	}
	return 0;
}

static json_t *meas_to_json(const struct lagom_profile_measurements *m)
{
	json_t *j = json_object();
	json_t *gemm = json_object();
	int any = 0;

	if (j == NULL || gemm == NULL)
		goto fail;
	for (int i = 0; i < LAGOM_PREC_COUNT; i++) {
		any |= m->gemm_flops[i].source != LAGOM_SOURCE_ABSENT;
		if (put_quantity(gemm, lagom_precision_name(i), "FLOP/s",
				 &m->gemm_flops[i]) < 0)
			goto fail;
	}
	if (any && put(j, "gemm", json_incref(gemm)) < 0)
		goto fail;
	json_decref(gemm);
	if (put_quantity(j, "hbm_bw", "B/s", &m->hbm_bw_Bps) < 0 ||
	    put_quantity(j, "intra_bw", "B/s", &m->intra_bw_Bps) < 0 ||
	    put_quantity(j, "nic_bw", "B/s", &m->nic_bw_Bps) < 0 ||
	    busbw_to_json(j, m) < 0 || contention_to_json(j, m) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
fail:
	json_decref(gemm);
	json_decref(j);
	return NULL;
}

static int put_opt_string(json_t *obj, const char *key, const char *s)
{
	if (s[0] == '\0')
		return 0;
	return put(obj, key, json_string(s));
}

static json_t *prov_to_json(const struct lagom_profile_provenance *p)
{
	json_t *j = json_object();

	if (j == NULL ||
	    put(j, "lagom_version", json_string(p->lagom_version)) ||
	    put_opt_string(j, "nccl_version", p->nccl_version) < 0 ||
	    put_opt_string(j, "cuda_runtime_version", p->cuda_runtime_version) <
		    0 ||
	    put_opt_string(j, "cuda_driver_version", p->cuda_driver_version) <
		    0 ||
	    put(j, "created_unix_s", json_integer(p->created_unix_s)) < 0 ||
	    put_opt_string(j, "note", p->note) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *build(const struct lagom_profile *p)
{
	char version[16], fingerprint[sizeof(p->fingerprint)];
	json_t *j = json_object();
	json_t *node = json_object();

	snprintf(version, sizeof(version), "%d.%d", LAGOM_PROFILE_VERSION_MAJOR,
		 LAGOM_PROFILE_VERSION_MINOR);
	lagom_profile_fingerprint(&p->hw, fingerprint, sizeof(fingerprint));
	if (put(j, "format", json_string(LAGOM_PROFILE_FORMAT)) < 0 ||
	    put(j, "version", json_string(version)) < 0 ||
	    put(j, "node", json_incref(node)) < 0 ||
	    put(node, "name", json_string(p->node)) < 0 ||
	    put_opt_string(node, "hostname", p->hostname) < 0 ||
	    put(j, "hardware", hw_to_json(&p->hw)) < 0 ||
	    put(j, "fingerprint", json_string(fingerprint)) < 0 ||
	    put(j, "measurements", meas_to_json(&p->meas)) < 0 ||
	    put(j, "provenance", prov_to_json(&p->prov)) < 0) {
		json_decref(node);
		json_decref(j);
		return NULL;
	}
	json_decref(node);
	return j;
}

/* json_real() refuses NaN and infinities: say which field holds one. */
static int check_finite(const struct lagom_profile *p, struct lagom_error *err)
{
	const struct lagom_profile_measurements *m = &p->meas;

	if (!isfinite(p->hw.nic_link_bw_Bps))
		return lagom_errprintf(
			err, EINVAL, "hardware.nic_link_bw_Bps is not finite");
	for (int i = 0; i < LAGOM_PREC_COUNT; i++)
		if (!isfinite(m->gemm_flops[i].value))
			return lagom_errprintf(
				err, EINVAL,
				"measurements.gemm.%s is not finite",
				lagom_precision_name(i));
	if (!isfinite(m->hbm_bw_Bps.value) ||
	    !isfinite(m->intra_bw_Bps.value) || !isfinite(m->nic_bw_Bps.value))
		return lagom_errprintf(err, EINVAL,
				       "a measured bandwidth is not finite");
	for (size_t i = 0; i < m->n_busbw && i < LAGOM_PROFILE_MAX_POINTS; i++)
		if (!isfinite(m->busbw[i].busbw_Bps))
			return lagom_errprintf(
				err, EINVAL,
				"measurements.nccl_busbw.points[%zu] is not finite",
				i);
	for (size_t i = 0; i < m->n_contention && i < LAGOM_PROFILE_MAX_POINTS;
	     i++)
		if (!isfinite(m->contention[i].slowdown))
			return lagom_errprintf(
				err, EINVAL,
				"measurements.contention.points[%zu] is not finite",
				i);
	return 0;
}

json_t *lagom_profile_to_json(const struct lagom_profile *profile,
			      struct lagom_error *err)
{
	struct lagom_profile *check = NULL;
	json_t *j;
	int rc;

	if (check_finite(profile, err) < 0)
		return NULL;
	j = build(profile);
	if (j == NULL) {
		lagom_errprintf(err, ENOMEM, "out of memory");
		return NULL;
	}
	rc = lagom_profile_from_json(j, &check, err);
	lagom_profile_destroy(check);
	if (rc < 0) {
		lagom_error_prefix(err, "profile would not validate");
		json_decref(j);
		return NULL;
	}
	return j;
}

/* The text is dumped into our own buffer (json_dumpb), so the caller frees
 * it with free() whatever allocator jansson was given. */
int lagom_profile_to_string(const struct lagom_profile *profile, char **out,
			    struct lagom_error *err)
{
	const size_t flags = JSON_INDENT(2) | JSON_REAL_PRECISION(17);
	struct lagom_error local = { 0 };
	json_t *j = lagom_profile_to_json(profile, &local);
	char *text;
	size_t len;

	if (j == NULL) {
		if (err != NULL)
			*err = local;
		return -local.errnum;
	}
	len = json_dumpb(j, NULL, 0, flags);
	text = len > 0 ? malloc(len + 2) : NULL;
	if (text == NULL || json_dumpb(j, text, len, flags) != len) {
		free(text);
		json_decref(j);
		return lagom_errprintf(err, ENOMEM, "out of memory");
	}
	json_decref(j);
	text[len] = '\n';
	text[len + 1] = '\0';
	*out = text;
	return 0;
}
