/*
 * model/compute.c - computation under contention and the overlap timeline
 * (method sections 1 and 2).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model/model_int.h"

int lagom_kernel_check(const struct lagom_kernel *k, struct lagom_error *err)
{
	if (!k)
		return lagom_errprintf(err, EINVAL, "no kernel");
	if (!(k->time_s > 0) || !isfinite(k->time_s))
		return lagom_errprintf(err, EINVAL,
				       "kernel time must be > 0 s, got %g",
				       k->time_s);
	if (!(k->mem_bound >= 0 && k->mem_bound <= 1))
		return lagom_errprintf(err, EINVAL,
				       "kernel mem_bound must be in [0, 1], "
				       "got %g",
				       k->mem_bound);
	return 0;
}

/*
 * Wave quantisation (method 1, mechanism 1): SMs taken by NCCL channels add
 * waves to a kernel of known grid; without a grid, the smooth SM-share
 * model S / (S - share * NC).
 */
static double wave_factor(const struct lagom_hw *hw,
			  const struct lagom_kernel *k, unsigned nc)
{
	double sms = hw->gpu.sm_count;
	double per_sm = k->blocks_per_sm ? k->blocks_per_sm : 1;
	double avail;

	if (k->grid_blocks == 0) {
		avail = fmax(1.0, sms - hw->channel_sm_share * nc);
		return sms / avail;
	}
	avail = fmax(1.0, sms - nc);
	return ceil(k->grid_blocks / (per_sm * avail)) /
	       ceil(k->grid_blocks / (per_sm * sms));
}

/*
 * The share of the chunk L2 term a collective moving x of the HBM bandwidth
 * gets (doc/model.md 4): chunks that are not streamed (a resident kernel
 * waiting, data over sockets) do not pollute the L2.  0 below x0, all of it
 * from x1, linear between; x1 0: a measured curve's term, not gated.
 */
static double l2_gate(const struct lagom_hw *hw, double x)
{
	double x0 = hw->contention_l2_x0, x1 = hw->contention_l2_x1;

	if (!(x1 > 0))
		return 1.0;
	return fmin(1.0, fmax(0.0, (x - x0) / (x1 - x0)));
}

/*
 * Global contention (method 1, mechanism 2): memory-bandwidth and L2
 * pressure rising with NC and C; only the memory-bound share of a kernel
 * feels it.
 */
static double contention_factor(const struct lagom_hw *hw,
				const struct lagom_kernel *k, unsigned nc,
				double chunk, double mem_Bps)
{
	double l2 = hw->gpu.l2_bytes ? (double)hw->gpu.l2_bytes : 8.0 * MIB;
	double over = fmax(0.0, nc * chunk / l2 - hw->contention_l2_knee);
	double gamma = hw->contention_sm * nc / hw->gpu.sm_count +
		       hw->contention_l2 * fmin(over, hw->contention_l2_cap) *
			       l2_gate(hw, mem_Bps / hw->gpu.hbm_Bps);

	return 1.0 + k->mem_bound * gamma;
}

/*
 * HBM-traffic contention (doc/model.md 4): the collective beside moves
 * mem_Bps through device memory; x = mem_Bps / hbm_Bps, capped.
 */
static double rate_factor(const struct lagom_hw *hw, double mem_Bps)
{
	double x = mem_Bps / hw->gpu.hbm_Bps;

	return 1.0 + hw->contention_rate * fmin(x, hw->contention_rate_cap);
}

/*
 * A resident NCCL kernel's constant (doc/model.md 4): beside any resident
 * NCCL kernel, idle or moving, one CTA or 32, an H200's GEMM took 8-11 % of
 * its time alone more than its waves; added to W, not multiplied (at 64
 * CTAs the measured slowdown is W's alone: W * 1.087 would be 9 % high).
 */
static double resident_waves(const struct lagom_hw *hw,
			     const struct lagom_kernel *k, unsigned nc)
{
	return wave_factor(hw, k, nc) + hw->contention_resident;
}

static double kernel_time(const struct lagom_hw *hw,
			  const struct lagom_kernel *k, unsigned nc,
			  uint64_t chunk_bytes, double mem_Bps)
{
	double chunk = chunk_bytes ? (double)chunk_bytes : 2.0 * MIB;

	if (nc == 0)
		return k->time_s;
	return k->time_s * resident_waves(hw, k, nc) *
	       contention_factor(hw, k, nc, chunk, mem_Bps) *
	       rate_factor(hw, mem_Bps);
}

double lagom_kernel_time_s_nocheck(const struct lagom_hw *hw,
				   const struct lagom_kernel *kernel,
				   unsigned nchannels, uint64_t chunk_bytes,
				   double mem_Bps)
{
	return kernel_time(hw, kernel, nchannels, chunk_bytes, mem_Bps);
}

int lagom_compute_time_rate(const struct lagom_hw *hw,
			    const struct lagom_kernel *kernel,
			    unsigned nchannels, uint64_t chunk_bytes,
			    double mem_Bps, double *time_s,
			    struct lagom_error *err)
{
	int rc = lagom_hw_check(hw, err);

	if (rc == 0)
		rc = lagom_kernel_check(kernel, err);
	if (rc)
		return rc;
	if (nchannels > LAGOM_NCHANNELS_MAX)
		return lagom_errprintf(err, EINVAL,
				       "channels must be 0..%d, got %u",
				       LAGOM_NCHANNELS_MAX, nchannels);
	if (!(mem_Bps >= 0) || !isfinite(mem_Bps))
		return lagom_errprintf(
			err, EINVAL, "memory traffic must be >= 0 B/s, got %g",
			mem_Bps);
	if (!time_s)
		return lagom_errprintf(err, EINVAL, "no output");
	*time_s = kernel_time(hw, kernel, nchannels, chunk_bytes, mem_Bps);
	return 0;
}

int lagom_compute_time(const struct lagom_hw *hw,
		       const struct lagom_kernel *kernel, unsigned nchannels,
		       uint64_t chunk_bytes, double *time_s,
		       struct lagom_error *err)
{
	return lagom_compute_time_rate(hw, kernel, nchannels, chunk_bytes, 0,
				       time_s, err);
}

/* ---- timeline ---------------------------------------------------- */

struct timeline {
	const struct lagom_hw *hw;
	const struct lagom_region *r;
	const struct lagom_coll_config *cfg;
	struct lagom_coll_config used[LAGOM_REGION_MAX_COLLS];
	double x[LAGOM_REGION_MAX_COLLS];	/* collective durations */
	double mem_Bps[LAGOM_REGION_MAX_COLLS]; /* their HBM traffic */
	double start[LAGOM_REGION_MAX_COLLS];
	double end[LAGOM_REGION_MAX_COLLS];
	double kend[LAGOM_REGION_MAX_KERNELS];
	size_t ci, ki; /* next collective, current kernel */
	bool running;  /* collective ci is running */
	double kleft;  /* remaining fraction of kernel ki */
	bool kstarted;
	double now;
};

int lagom_region_check(const struct lagom_region *r, struct lagom_error *err)
{
	if (!r)
		return lagom_errprintf(err, EINVAL, "no region");
	if (r->nkernels > LAGOM_REGION_MAX_KERNELS ||
	    r->ncolls > LAGOM_REGION_MAX_COLLS)
		return lagom_errprintf(
			err, EINVAL,
			"region '%.63s': at most %d kernels and %d "
			"collectives",
			r->name, LAGOM_REGION_MAX_KERNELS,
			LAGOM_REGION_MAX_COLLS);
	if (r->nkernels == 0 && r->ncolls == 0)
		return lagom_errprintf(err, EINVAL,
				       "region '%.63s' has no kernel and no "
				       "collective",
				       r->name);
	if (!(r->serial_s >= 0) || !isfinite(r->serial_s))
		return lagom_errprintf(
			err, EINVAL, "region '%.63s': serial time must be >= 0",
			r->name);
	for (size_t i = 0; i < r->nkernels; i++) {
		int rc = lagom_kernel_check(&r->kernels[i], err);
		if (rc)
			return lagom_error_prefix(err,
						  "region '%.63s' kernel %zu",
						  r->name, i + 1);
		if (r->kernels[i].after_coll > r->ncolls)
			return lagom_errprintf(
				err, EINVAL,
				"region '%.63s' kernel %zu waits "
				"for collective %u of %zu",
				r->name, i + 1, r->kernels[i].after_coll,
				r->ncolls);
	}
	for (size_t j = 0; j < r->ncolls; j++) {
		const struct lagom_region_coll *c = &r->colls[j];
		if (c->after_kernel > r->nkernels || !(c->ready_s >= 0) ||
		    !isfinite(c->ready_s))
			return lagom_errprintf(
				err, EINVAL,
				"region '%.63s' collective %zu: bad "
				"ready time or kernel dependency",
				r->name, j + 1);
	}
	return 0;
}

/* The HBM traffic rate of a region's collective taking time_s. */
static double coll_mem_Bps(const struct lagom_region_coll *c,
			   const struct lagom_coll_config *cfg, double time_s)
{
	return time_s > 0 ? lagom_coll_mem_bytes(&c->comm, c->coll, c->bytes,
						 cfg->proto) /
				    time_s
			  : 0;
}

static int coll_durations(struct timeline *tl, struct lagom_error *err)
{
	for (size_t j = 0; j < tl->r->ncolls; j++) {
		const struct lagom_region_coll *c = &tl->r->colls[j];
		struct lagom_coll_config def, cfg;
		int rc;

		if (tl->cfg) {
			cfg = tl->cfg[j];
		} else {
			rc = lagom_nccl_default(tl->hw, &c->comm, c->coll,
						c->bytes, &def, err);
			if (rc)
				return lagom_error_prefix(
					err, "region '%.63s' collective %zu",
					tl->r->name, j + 1);
			cfg = def;
		}
		/* hw was checked once by lagom_region_time() */
		rc = lagom_comm_check(tl->hw, &c->comm, err);
		if (rc == 0 &&
		    ((int)c->coll < 0 || c->coll >= LAGOM_COLL_COUNT))
			rc = lagom_errprintf(err, EINVAL,
					     "invalid collective %d",
					     (int)c->coll);
		if (rc == 0)
			rc = lagom_coll_config_check_nocheck(
				tl->hw, &c->comm, c->coll, c->bytes, &cfg, err);
		if (rc)
			return lagom_error_prefix(
				err, "region '%.63s' collective %zu",
				tl->r->name, j + 1);
		tl->x[j] = lagom_coll_time_s_nocheck(tl->hw, &c->comm, c->coll,
						     c->bytes, &cfg);
		tl->used[j] = cfg;
		tl->mem_Bps[j] = coll_mem_Bps(c, &cfg, tl->x[j]);
	}
	return 0;
}

/* When collective ci may start (INFINITY while a dependency is open). */
static double coll_ready(const struct timeline *tl)
{
	const struct lagom_region_coll *c = &tl->r->colls[tl->ci];
	double t = c->ready_s;

	if (tl->ci > 0)
		t = fmax(t, tl->end[tl->ci - 1]);
	if (c->after_kernel) {
		if (tl->ki < c->after_kernel)
			return INFINITY;
		t = fmax(t, tl->kend[c->after_kernel - 1]);
	}
	return t;
}

static bool kernel_ready(const struct timeline *tl)
{
	unsigned dep = tl->r->kernels[tl->ki].after_coll;

	return dep == 0 ||
	       (tl->ci >= dep && !(tl->running && tl->ci == dep - 1));
}

/* One event step: returns false when nothing can move (a cycle). */
static bool timeline_step(struct timeline *tl)
{
	const struct lagom_coll_config *act;
	double next = INFINITY, kdur = INFINITY, kend = INFINITY, ready;
	bool kernel_runs;

	if (!tl->running && tl->ci < tl->r->ncolls) {
		ready = coll_ready(tl);
		if (ready <= tl->now) {
			tl->running = true;
			tl->start[tl->ci] = tl->now;
			tl->end[tl->ci] = tl->now + tl->x[tl->ci];
			return true;
		}
		next = ready;
	}
	if (tl->running)
		next = fmin(next, tl->end[tl->ci]);
	kernel_runs = tl->ki < tl->r->nkernels && kernel_ready(tl);
	if (kernel_runs) {
		const struct lagom_kernel *k = &tl->r->kernels[tl->ki];
		act = tl->running ? &tl->used[tl->ci] : NULL;
		kdur = kernel_time(tl->hw, k, act ? act->nchannels : 0,
				   act ? act->chunk_bytes : 0,
				   act ? tl->mem_Bps[tl->ci] : 0);
		kend = tl->now + tl->kleft * kdur;
		next = fmin(next, kend);
	}
	if (!isfinite(next))
		return false;
	if (kernel_runs) {
		if (next >= kend) {
			tl->kend[tl->ki++] = next;
			tl->kleft = 1.0;
		} else {
			tl->kleft -= (next - tl->now) / kdur;
		}
	}
	tl->now = next;
	if (tl->running && tl->end[tl->ci] <= tl->now) {
		tl->running = false;
		tl->ci++;
	}
	return true;
}

/* Run the timeline of tl (durations in tl->x) and fill *out. */
static int run_timeline(struct timeline *tl, struct lagom_region_time *out,
			struct lagom_error *err)
{
	const struct lagom_region *region = tl->r;
	struct lagom_region_time res = { 0 };

	for (unsigned steps = 0;
	     tl->ki < region->nkernels || tl->ci < region->ncolls; steps++) {
		if (steps > 8 * (LAGOM_REGION_MAX_KERNELS +
				 LAGOM_REGION_MAX_COLLS) ||
		    !timeline_step(tl))
			return lagom_errprintf(
				err, EINVAL, "region '%.63s': dependency cycle",
				region->name);
	}
	for (size_t j = 0; j < region->ncolls; j++) {
		res.coll_start_s[j] = tl->start[j];
		res.coll_time_s[j] = tl->x[j];
		res.comm_busy_s += tl->x[j];
	}
	res.x_s = region->ncolls ? tl->end[region->ncolls - 1] : 0;
	res.y_s = region->nkernels ? tl->kend[region->nkernels - 1] : 0;
	for (size_t i = 0; i < region->nkernels; i++)
		res.y_alone_s += region->kernels[i].time_s;
	res.z_s = fmax(res.x_s, res.y_s) + region->serial_s;
	*out = res;
	return 0;
}

int lagom_region_timeline_nocheck(const struct lagom_hw *hw,
				  const struct lagom_region *region,
				  const struct lagom_coll_config *configs,
				  const double *coll_time_s,
				  struct lagom_region_time *out,
				  struct lagom_error *err)
{
	struct timeline tl = {
		.hw = hw, .r = region, .cfg = configs, .kleft = 1.0
	};

	for (size_t j = 0; j < region->ncolls; j++) {
		tl.x[j] = coll_time_s[j];
		tl.used[j] = configs[j];
		tl.mem_Bps[j] = coll_mem_Bps(&region->colls[j], &configs[j],
					     coll_time_s[j]);
	}
	return run_timeline(&tl, out, err);
}

int lagom_region_time(const struct lagom_hw *hw,
		      const struct lagom_region *region,
		      const struct lagom_coll_config *configs,
		      struct lagom_region_time *out, struct lagom_error *err)
{
	struct timeline tl = {
		.hw = hw, .r = region, .cfg = configs, .kleft = 1.0
	};
	int rc = lagom_hw_check(hw, err);

	if (rc == 0)
		rc = lagom_region_check(region, err);
	if (rc == 0)
		rc = coll_durations(&tl, err);
	if (rc)
		return rc;
	if (!out)
		return lagom_errprintf(err, EINVAL, "no output");
	return run_timeline(&tl, out, err);
}
