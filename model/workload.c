/*
 * model/workload.c - a workload (struct lagom_workload: one training
 * iteration as overlap regions) and its predicted time.  Building one from
 * a model shape is catalog/'s job (catalog/workload.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/model_int.h"

#define MAX_REGIONS 4096

struct lagom_workload *lagom_workload_create(const char *name, size_t nregions)
{
	struct lagom_workload *w;

	if (nregions > MAX_REGIONS)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	if (nregions) {
		w->regions = calloc(nregions, sizeof(*w->regions));
		if (!w->regions) {
			free(w);
			return NULL;
		}
	}
	w->nregions = nregions;
	if (name) {
		strncpy(w->name, name, sizeof(w->name) - 1);
		w->name[sizeof(w->name) - 1] = '\0';
	}
	return w;
}

void lagom_workload_destroy(struct lagom_workload *w)
{
	if (!w)
		return;
	free(w->regions);
	free(w);
}

size_t lagom_workload_coll_count(const struct lagom_workload *w)
{
	size_t n = 0;

	if (!w)
		return 0;
	for (size_t r = 0; r < w->nregions; r++)
		n += w->regions[r].ncolls;
	return n;
}

int lagom_iteration_time(const struct lagom_hw *hw,
			 const struct lagom_workload *w,
			 const struct lagom_coll_config *configs,
			 double *time_s, struct lagom_error *err)
{
	double total;
	size_t off = 0;

	if (!w || !time_s)
		return lagom_errprintf(err, EINVAL, "no workload or output");
	if (!(w->serial_s >= 0) || !isfinite(w->serial_s))
		return lagom_errprintf(err, EINVAL,
				       "workload serial time must be >= 0");
	total = w->serial_s;
	for (size_t r = 0; r < w->nregions; r++) {
		const struct lagom_region *reg = &w->regions[r];
		struct lagom_region_time rt;
		int rc = lagom_region_time(
			hw, reg, configs ? configs + off : NULL, &rt, err);
		if (rc)
			return rc;
		total += (reg->repeat ? reg->repeat : 1) * rt.z_s;
		off += reg->ncolls;
	}
	*time_s = total;
	return 0;
}

/* ---- building regions from a shape ------------------------------ */
