/*
 * trace/trace.c - lagom_trace_import(): parse each trace, check they belong
 * together, build the workload and the contention table; the replay.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_int.h"

static int finish(struct tr_file *files, size_t n, const char *const *labels,
		  struct lagom_trace_import **out, struct lagom_error *err)
{
	struct lagom_trace_import *imp = calloc(1, sizeof(*imp));
	int rc;

	if (!imp)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	rc = tr_build(files, n, labels, imp, err);
	if (rc) {
		lagom_trace_import_destroy(imp);
		return rc;
	}
	*out = imp;
	return 0;
}

int lagom_trace_import(const char *const *paths, size_t npaths,
		       struct lagom_trace_import **out, struct lagom_error *err)
{
	return lagom_trace_import_progress(paths, npaths, NULL, NULL, out, err);
}

int lagom_trace_import_progress(const char *const *paths, size_t npaths,
				lagom_trace_progress_fn progress, void *ctx,
				struct lagom_trace_import **out,
				struct lagom_error *err)
{
	struct tr_file *files;
	size_t i;
	int rc = 0;

	if (!paths || !out || npaths == 0 || npaths > LAGOM_TRACE_MAX_FILES)
		return lagom_errprintf(err, EINVAL, "give 1 to %d trace files",
				       LAGOM_TRACE_MAX_FILES);
	files = calloc(npaths, sizeof(*files));
	if (!files)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (i = 0; i < npaths && !rc; i++) {
		rc = tr_parse_file_progress(paths[i], progress, ctx, &files[i],
					    err);
		if (rc)
			lagom_error_prefix(err, "%s", paths[i]);
	}
	if (!rc)
		rc = finish(files, npaths, paths, out, err);
	for (i = 0; i < npaths; i++)
		tr_file_free(&files[i]);
	free(files);
	return rc;
}

int lagom_trace_import_buffer(const void *data, size_t size,
			      struct lagom_trace_import **out,
			      struct lagom_error *err)
{
	static const char *const label[] = { "(buffer)" };
	struct tr_file *f = calloc(1, sizeof(*f));
	int rc;

	if (!f)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	rc = tr_parse_buffer(data, size, f, err);
	if (!rc)
		rc = finish(f, 1, label, out, err);
	tr_file_free(f);
	free(f);
	return rc;
}

void lagom_trace_import_destroy(struct lagom_trace_import *imp)
{
	if (!imp)
		return;
	lagom_workload_destroy(imp->workload);
	free(imp->kinfo);
	free(imp->cinfo);
	free(imp->rows);
	free(imp);
}

/* The configuration NCCL used: its own algorithm and protocol as lagom
 * models them, with the trace's channels (grid) and threads (block). */
static int traced_config(const struct lagom_hw *hw,
			 const struct lagom_region_coll *c,
			 const struct lagom_trace_coll_info *ci,
			 struct lagom_coll_config *cfg, struct lagom_error *err)
{
	int rc = lagom_nccl_default(hw, &c->comm, c->coll, c->bytes, cfg, err);

	if (rc)
		return rc;
	if (ci->channels >= 1)
		cfg->nchannels = ci->channels > LAGOM_NCHANNELS_MAX
					 ? LAGOM_NCHANNELS_MAX
					 : ci->channels;
	if (ci->threads % 32 == 0 && ci->threads >= LAGOM_NTHREADS_MIN &&
	    ci->threads <= LAGOM_NTHREADS_MAX)
		cfg->nthreads = ci->threads;
	return 0;
}

int lagom_trace_replay(const struct lagom_trace_import *imp,
		       struct lagom_trace_replay *out, struct lagom_error *err)
{
	const struct lagom_workload *w = imp->workload;
	unsigned gpus = imp->gpus_visible;
	struct lagom_coll_config *cfg;
	struct lagom_hw hw;
	size_t n = lagom_workload_coll_count(w), j = 0;
	double t = 0;
	int rc;

	if (gpus < 2)
		gpus = 8; /* as comm_of() in trace/build.c */
	if (gpus > 64)
		gpus = 64;
	rc = lagom_hw_from_spec(imp->gpu, gpus, LAGOM_INTRA_DEFAULT, 0, 0, &hw,
				err);
	if (rc)
		return rc;
	cfg = calloc(n ? n : 1, sizeof(*cfg));
	if (!cfg)
		return lagom_errprintf(err, ENOMEM, "out of memory");
	for (size_t r = 0; r < w->nregions && !rc; r++)
		for (size_t k = 0; k < w->regions[r].ncolls && !rc; k++)
			rc = traced_config(
				&hw, &w->regions[r].colls[k],
				&imp->cinfo[r * LAGOM_REGION_MAX_COLLS + k],
				&cfg[j++], err);
	if (!rc)
		rc = lagom_iteration_time(&hw, w, cfg, &t, err);
	free(cfg);
	if (rc)
		return rc;
	*out = (struct lagom_trace_replay){
		.predicted_s = t,
		.measured_s = imp->rep_step_s,
		.error = imp->rep_step_s > 0
				 ? (t - imp->rep_step_s) / imp->rep_step_s
				 : 0,
	};
	memcpy(out->hw_gpu, hw.gpu.name, sizeof(out->hw_gpu));
	return 0;
}
