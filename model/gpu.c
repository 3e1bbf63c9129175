/*
 * model/gpu.c - the built-in spec-sheet table of GPUs and the hardware
 * description derived from it (method section 2, "hardware" inputs).
 * Values are vendor datasheet figures: dense (non-sparse) peak TFLOPS,
 * memory bandwidth, NVLink links x per-link bandwidth per direction.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model/model_int.h"

#define TF(fp32, tf32, fp16, bf16, fp8)     \
	{                                   \
		fp32, tf32, fp16, bf16, fp8 \
	}
#define MB_ (1024ull * 1024ull)
#define GIB_ (1024ull * 1024ull * 1024ull)

/* name, arch, SMs, TFLOPS, HBM B/s, memory, L2, NVLink gen/links/B/s per
 * link per direction, PCIe gen/lanes, usual fabric. */
static const struct lagom_gpu_spec gpu_table[] = {
	{ "V100-SXM", 70, 80, TF(15.7, 15.7, 125, 0, 0), 900e9, 32 * GIB_,
	  6 * MB_, 2, 6, 25e9, 3, 16, LAGOM_INTRA_NVLINK },
	{ "V100-PCIe", 70, 80, TF(14, 14, 112, 0, 0), 900e9, 32 * GIB_, 6 * MB_,
	  0, 0, 0, 3, 16, LAGOM_INTRA_PCIE },
	{ "A100-SXM", 80, 108, TF(19.5, 156, 312, 312, 0), 2039e9, 80 * GIB_,
	  40 * MB_, 3, 12, 25e9, 4, 16, LAGOM_INTRA_NVSWITCH },
	{ "A100-PCIe", 80, 108, TF(19.5, 156, 312, 312, 0), 1935e9, 80 * GIB_,
	  40 * MB_, 3, 12, 25e9, 4, 16, LAGOM_INTRA_PCIE },
	/* 40 GB HBM2 variants: same SMs and rates, 1555 GB/s. */
	{ "A100-SXM-40GB", 80, 108, TF(19.5, 156, 312, 312, 0), 1555e9,
	  40 * GIB_, 40 * MB_, 3, 12, 25e9, 4, 16, LAGOM_INTRA_NVSWITCH },
	{ "A100-PCIe-40GB", 80, 108, TF(19.5, 156, 312, 312, 0), 1555e9,
	  40 * GIB_, 40 * MB_, 3, 12, 25e9, 4, 16, LAGOM_INTRA_PCIE },
	{ "A40", 86, 84, TF(37.4, 74.8, 149.7, 149.7, 0), 696e9, 48 * GIB_,
	  6 * MB_, 3, 4, 14.0625e9, 4, 16, LAGOM_INTRA_PCIE },
	{ "A10G", 86, 80, TF(31.2, 35, 70, 70, 0), 600e9, 24 * GIB_, 6 * MB_, 0,
	  0, 0, 4, 16, LAGOM_INTRA_PCIE },
	{ "H100-SXM", 90, 132, TF(67, 494.7, 989.4, 989.4, 1978.9), 3350e9,
	  80 * GIB_, 50 * MB_, 4, 18, 25e9, 5, 16, LAGOM_INTRA_NVSWITCH },
	{ "H100-PCIe", 90, 114, TF(51, 378, 756, 756, 1513), 2000e9, 80 * GIB_,
	  50 * MB_, 4, 12, 25e9, 5, 16, LAGOM_INTRA_PCIE },
	{ "H800", 90, 132, TF(67, 494.7, 989.4, 989.4, 1978.9), 3350e9,
	  80 * GIB_, 50 * MB_, 4, 8, 25e9, 5, 16, LAGOM_INTRA_NVSWITCH },
	{ "H200", 90, 132, TF(67, 494.7, 989.4, 989.4, 1978.9), 4800e9,
	  141ull * 1000000000ull, 50 * MB_, 4, 18, 25e9, 5, 16,
	  LAGOM_INTRA_NVSWITCH },
	{ "H20", 90, 78, TF(44, 74, 148, 148, 296), 4000e9, 96 * GIB_, 60 * MB_,
	  4, 18, 25e9, 5, 16, LAGOM_INTRA_NVSWITCH },
	{ "B200", 100, 148, TF(80, 1100, 2250, 2250, 4500), 8000e9, 180 * GIB_,
	  126 * MB_, 5, 18, 50e9, 6, 16, LAGOM_INTRA_NVSWITCH },
	/* Grace Hopper superchip: one H100 die with 96 GB HBM3 (the 144 GB
	 * HBM3e part: 4.9 TB/s); quad-GH200 nodes join the GPUs by NVLink,
	 * 6 links per pair. */
	{ "GH200", 90, 132, TF(67, 494.7, 989.4, 989.4, 1978.9), 4000e9,
	  96 * GIB_, 50 * MB_, 4, 18, 25e9, 5, 16, LAGOM_INTRA_NVLINK },
	/* Grace Blackwell: B200 dies at the GB200 NVL72 clocks (2.5 PF dense
	 * BF16), 186 GB usable HBM3e; NVL72 racks are one NVLink domain. */
	{ "GB200", 100, 148, TF(80, 1250, 2500, 2500, 5000), 8000e9, 186 * GIB_,
	  126 * MB_, 5, 18, 50e9, 6, 16, LAGOM_INTRA_NVSWITCH },
	/* Blackwell Ultra: 160 SMs, 288 GB HBM3e, dense FP8 4.5 PF (HGX B300)
	 * and 5 PF (GB300 NVL72: 360 PF FP8 / 72), PCIe 6. */
	{ "B300", 103, 160, TF(75, 1125, 2250, 2250, 4500), 8000e9, 288 * GIB_,
	  126 * MB_, 5, 18, 50e9, 6, 16, LAGOM_INTRA_NVSWITCH },
	{ "GB300", 103, 160, TF(80, 1250, 2500, 2500, 5000), 8000e9, 288 * GIB_,
	  126 * MB_, 5, 18, 50e9, 6, 16, LAGOM_INTRA_NVSWITCH },
	{ "L40S", 89, 142, TF(91.6, 183, 362, 362, 733), 864e9, 48 * GIB_,
	  96 * MB_, 0, 0, 0, 4, 16, LAGOM_INTRA_PCIE },
	{ "RTX2080Ti", 75, 68, TF(13.4, 13.4, 53.8, 0, 0), 616e9, 11 * GIB_,
	  5632 * 1024ull, 2, 2, 25e9, 3, 16, LAGOM_INTRA_PCIE },
	{ "RTX3090", 86, 82, TF(35.6, 35.6, 71, 71, 0), 936e9, 24 * GIB_,
	  6 * MB_, 3, 4, 14.0625e9, 4, 16, LAGOM_INTRA_PCIE },
	{ "RTX-A6000", 86, 84, TF(38.7, 77.4, 154.8, 154.8, 0), 768e9,
	  48 * GIB_, 6 * MB_, 3, 4, 14.0625e9, 4, 16, LAGOM_INTRA_PCIE },
	{ "RTX4090", 89, 128, TF(82.6, 82.6, 165.2, 165.2, 330.3), 1008e9,
	  24 * GIB_, 72 * MB_, 0, 0, 0, 4, 16, LAGOM_INTRA_PCIE },
	{ "RTX6000-Ada", 89, 142, TF(91.1, 182.1, 364.2, 364.2, 728.5), 960e9,
	  48 * GIB_, 96 * MB_, 0, 0, 0, 4, 16, LAGOM_INTRA_PCIE },
	/* RTX 6000D (China SKU of the RTX PRO 6000 Blackwell): 156 SMs,
	 * 84 GB GDDR7 on 448 bits (1568 GB/s); rates scaled from the RTX PRO
	 * 6000 by SMs.  Not from an NVIDIA datasheet: press reports. */
	{ "RTX6000D", 120, 156, TF(104, 104, 415, 415, 830), 1568e9, 84 * GIB_,
	  112 * MB_, 0, 0, 0, 5, 16, LAGOM_INTRA_PCIE },
	{ "RTX5090", 120, 170, TF(104.8, 104.8, 209.5, 209.5, 419), 1792e9,
	  32 * GIB_, 96 * MB_, 0, 0, 0, 5, 16, LAGOM_INTRA_PCIE },
};

#define GPU_COUNT (sizeof(gpu_table) / sizeof(gpu_table[0]))

/*
 * Lookup keys, tried in order.  key must appear in the normalised name
 * (lowercase, separators as one space) not preceded or followed by a digit;
 * when qualifier is set it must appear anywhere too.
 */
static const struct {
	const char *key;
	const char *qualifier;
	const char *gpu;
} gpu_keys[] = {
	{ "gh200", NULL, "GH200" },	{ "gb200", NULL, "GB200" },
	{ "gb300", NULL, "GB300" },	{ "v100", "pcie", "V100-PCIe" },
	{ "v100", NULL, "V100-SXM" },	{ "a100", "pcie", "A100-PCIe" },
	{ "a100", NULL, "A100-SXM" },	{ "h100", "pcie", "H100-PCIe" },
	{ "h100", "nvl", "H100-PCIe" }, { "h100", NULL, "H100-SXM" },
	{ "h800", NULL, "H800" },	{ "h200", NULL, "H200" },
	{ "h20", NULL, "H20" },		{ "b300", NULL, "B300" },
	{ "b200", NULL, "B200" },	{ "l40s", NULL, "L40S" },
	{ "6000d", NULL, "RTX6000D" },	{ "l40", NULL, "L40S" },
	{ "a10g", NULL, "A10G" },	{ "a40", NULL, "A40" },
	{ "2080", NULL, "RTX2080Ti" },	{ "3090", NULL, "RTX3090" },
	{ "a6000", NULL, "RTX-A6000" }, { "6000", "ada", "RTX6000-Ada" },
	{ "4090", NULL, "RTX4090" },	{ "5090", NULL, "RTX5090" },
};

/*
 * Memory variants, tried before gpu_keys: key and qualifier as there, and
 * the memory size must appear as its own number ("40" in "a100 sxm4 40gb",
 * "a100 pcie 40 gb").  A name without a size gets gpu_keys' (80 GB) part.
 */
static const struct {
	const char *key;
	const char *qualifier;
	const char *memory;
	const char *gpu;
} mem_keys[] = {
	{ "a100", "pcie", "40", "A100-PCIe-40GB" },
	{ "a100", NULL, "40", "A100-SXM-40GB" },
};

const struct lagom_gpu_spec *lagom_gpu_table(size_t *count)
{
	if (count)
		*count = GPU_COUNT;
	return gpu_table;
}

static const struct lagom_gpu_spec *gpu_by_canonical(const char *name)
{
	for (size_t i = 0; i < GPU_COUNT; i++)
		if (strcasecmp(gpu_table[i].name, name) == 0)
			return &gpu_table[i];
	return NULL;
}

/* Lowercase, every run of non-alphanumerics becomes one space. */
static void normalise(const char *in, char *out, size_t len)
{
	size_t n = 0;
	bool space = false;

	for (; *in && n + 2 < len; in++) {
		unsigned char c = (unsigned char)*in;
		if (isalnum(c)) {
			if (space && n > 0)
				out[n++] = ' ';
			out[n++] = (char)tolower(c);
			space = false;
		} else {
			space = true;
		}
	}
	out[n] = '\0';
}

static bool has_key(const char *s, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
		bool digit_before = p > s && isdigit((unsigned char)p[-1]);
		bool digit_after = isdigit((unsigned char)p[klen]);
		if (!digit_before && !digit_after)
			return true;
	}
	return false;
}

const struct lagom_gpu_spec *lagom_gpu_lookup(const char *name)
{
	char s[128];
	const struct lagom_gpu_spec *exact;

	if (!name || !*name)
		return NULL;
	exact = gpu_by_canonical(name);
	if (exact)
		return exact;
	normalise(name, s, sizeof(s));
	for (size_t i = 0; i < sizeof(mem_keys) / sizeof(mem_keys[0]); i++) {
		if (has_key(s, mem_keys[i].key) &&
		    (!mem_keys[i].qualifier ||
		     strstr(s, mem_keys[i].qualifier)) &&
		    has_key(s, mem_keys[i].memory))
			return gpu_by_canonical(mem_keys[i].gpu);
	}
	for (size_t i = 0; i < sizeof(gpu_keys) / sizeof(gpu_keys[0]); i++) {
		if (!has_key(s, gpu_keys[i].key))
			continue;
		if (gpu_keys[i].qualifier && !strstr(s, gpu_keys[i].qualifier))
			continue;
		return gpu_by_canonical(gpu_keys[i].gpu);
	}
	return NULL;
}

/* Achievable GPU<->GPU bandwidth over PCIe per generation (x16). */
static double pcie_Bps(unsigned gen, unsigned lanes)
{
	double per_x16 = gen <= 3   ? 11e9
			 : gen == 4 ? 22e9
			 : gen == 5 ? 44e9
				    : 88e9;

	return per_x16 * (lanes ? lanes : 16) / 16.0;
}

static unsigned nvlink_peers(const struct lagom_gpu_spec *g,
			     enum lagom_intra intra, unsigned gpus)
{
	if (intra == LAGOM_INTRA_NVSWITCH)
		return gpus - 1;
	if (intra != LAGOM_INTRA_NVLINK)
		return 0;
	if (g->intra_default == LAGOM_INTRA_NVLINK) /* SXM2 hybrid mesh */
		return gpus - 1 < 4 ? gpus - 1 : 4;
	return gpus > 1 ? 1 : 0; /* bridges join pairs */
}

static void hw_defaults(struct lagom_hw *hw)
{
	hw->launch_us = 5.0;
	hw->intra_lat_us = hw->intra == LAGOM_INTRA_PCIE ? 1.5 : 1.0;
	hw->spine_lat_us = 1.0;
	/* doc/model.md 4: a resident NCCL kernel's constant, fitted on an
	 * H200 beside real NCCL kernels (tests/model/contention_h200); not
	 * seen on the traces' A100 and V100 (contention_report) */
	hw->contention_resident = hw->gpu.sm_arch >= 90 && hw->gpu.sm_arch < 100
					  ? 0.087
					  : 0;
	hw->contention_sm = 0.05;
	/* doc/model.md 4: the chunk L2 term, gated by the collective's HBM
	 * traffic: none below x 1 % (nothing streamed: the H200 runs, idle
	 * or over sockets at x <= 0.36 %, showed none), all of it from 3 %
	 * (the Lagom paper's Phi-2 FSDP A40 all-gather, x 4.2 %, and its
	 * published NC 8 / NC 2 ratio); the gate is not fitted: no GPU run
	 * has streamed NCCL chunks at NVLink rates */
	hw->contention_l2 = 0.7;
	hw->contention_l2_cap = 4.0;
	hw->contention_l2_knee = 1.0;
	hw->contention_l2_x0 = 0.01;
	hw->contention_l2_x1 = 0.03;
	/* least summed |log(predicted / measured)| over the 53 plausible
	 * contention rows of the fixture traces (tests/model/
	 * contention_report), bounded by overlap.md row 2 (the H100 GEMM
	 * beside 24 CTAs at most 2.4x): the fit sits on the bound; the cap:
	 * the largest x of those rows (7.34 %), rounded up (doc/model.md 4) */
	hw->contention_rate = 1.97;
	hw->contention_rate_cap = 0.075;
	hw->channel_sm_share = 1.0;
}

int lagom_hw_from_spec(const char *gpu, unsigned gpus_per_node,
		       enum lagom_intra intra, unsigned nic_count,
		       double nic_Gbit, struct lagom_hw *out,
		       struct lagom_error *err)
{
	const struct lagom_gpu_spec *g = lagom_gpu_lookup(gpu);
	struct lagom_hw hw = { .gpus_per_node = gpus_per_node };

	if (!g)
		return lagom_errprintf(err, EINVAL, "unknown GPU '%s'",
				       gpu ? gpu : "(null)");
	if (gpus_per_node == 0 || gpus_per_node > 64)
		return lagom_errprintf(err, EINVAL,
				       "gpus_per_node must be 1..64, got %u",
				       gpus_per_node);
	if (intra == LAGOM_INTRA_DEFAULT)
		intra = g->intra_default;
	if ((int)intra < 0 || intra >= LAGOM_INTRA_DEFAULT)
		return lagom_errprintf(err, EINVAL, "invalid intra fabric %d",
				       (int)intra);
	if (intra != LAGOM_INTRA_PCIE && g->nvlink_gen == 0)
		return lagom_errprintf(err, EINVAL, "%s has no NVLink for %s",
				       g->name, lagom_intra_name(intra));
	if (nic_count > 0 && !(nic_Gbit > 0 && isfinite(nic_Gbit)))
		return lagom_errprintf(err, EINVAL,
				       "NIC speed must be > 0 Gb/s, got %g",
				       nic_Gbit);
	hw.gpu = *g;
	hw.intra = intra;
	hw.intra_link_Bps = intra == LAGOM_INTRA_PCIE ? 0 : g->nvlink_link_Bps;
	hw.intra_links = intra == LAGOM_INTRA_PCIE ? 0 : g->nvlink_links;
	hw.nvlink_peers = nvlink_peers(g, intra, gpus_per_node);
	hw.pcie_gen = g->pcie_gen;
	hw.pcie_lanes = g->pcie_lanes;
	hw.gpus_per_pcie_switch = gpus_per_node < 2 ? 1 : 2;
	hw.pcie_Bps = pcie_Bps(g->pcie_gen, g->pcie_lanes);
	hw_defaults(&hw);
	lagom_hw_set_nics(&hw, nic_count, nic_Gbit * 1e9 / 8.0);
	*out = hw;
	return 0;
}

void lagom_hw_set_nics(struct lagom_hw *hw, unsigned nic_count, double nic_Bps)
{
	unsigned gpus = hw->gpus_per_node;

	hw->nic_count = nic_count;
	hw->nic_Bps = nic_count ? nic_Bps : 0;
	hw->gpus_per_nic = nic_count ? (gpus + nic_count - 1) / nic_count : 0;
	hw->nic_gdr = nic_count > 0;
	hw->net_lat_us = hw->nic_gdr ? 5.0 : 15.0;
}

static bool positive(double v)
{
	return v > 0 && isfinite(v);
}

static bool nonneg(double v)
{
	return v >= 0 && isfinite(v);
}

static int check_gpu(const struct lagom_gpu_spec *g, struct lagom_error *err)
{
	if (g->sm_count == 0 || g->sm_count > 1024)
		return lagom_errprintf(err, EINVAL, "GPU SM count %u invalid",
				       g->sm_count);
	if (!positive(g->hbm_Bps))
		return lagom_errprintf(err, EINVAL,
				       "GPU memory bandwidth must be > 0");
	for (int p = 0; p < LAGOM_PREC_COUNT; p++)
		if (!nonneg(g->tflops[p]))
			return lagom_errprintf(err, EINVAL,
					       "GPU TFLOPS must be >= 0");
	if (!positive(g->tflops[LAGOM_PREC_FP32]))
		return lagom_errprintf(err, EINVAL,
				       "GPU FP32 TFLOPS must be > 0");
	return 0;
}

static int check_fabric(const struct lagom_hw *hw, struct lagom_error *err)
{
	if ((int)hw->intra < 0 || hw->intra >= LAGOM_INTRA_DEFAULT)
		return lagom_errprintf(err, EINVAL, "invalid intra fabric %d",
				       (int)hw->intra);
	if (hw->intra != LAGOM_INTRA_PCIE &&
	    (!positive(hw->intra_link_Bps) || hw->intra_links == 0))
		return lagom_errprintf(
			err, EINVAL, "NVLink fabric needs links and bandwidth");
	if (!positive(hw->pcie_Bps))
		return lagom_errprintf(err, EINVAL,
				       "PCIe bandwidth must be > 0");
	if (hw->nic_count > 0 && !positive(hw->nic_Bps))
		return lagom_errprintf(err, EINVAL,
				       "NIC bandwidth must be > 0");
	return 0;
}

int lagom_hw_check(const struct lagom_hw *hw, struct lagom_error *err)
{
	int rc;

	if (!hw)
		return lagom_errprintf(err, EINVAL, "no hardware description");
	if (hw->gpus_per_node == 0 || hw->gpus_per_node > 64)
		return lagom_errprintf(err, EINVAL,
				       "gpus_per_node must be 1..64, got %u",
				       hw->gpus_per_node);
	rc = check_gpu(&hw->gpu, err);
	if (rc == 0)
		rc = check_fabric(hw, err);
	if (rc)
		return rc;
	if (!nonneg(hw->launch_us) || !nonneg(hw->intra_lat_us) ||
	    !nonneg(hw->net_lat_us) || !nonneg(hw->spine_lat_us))
		return lagom_errprintf(err, EINVAL, "latencies must be >= 0");
	if ((int)hw->transport < 0 || hw->transport >= LAGOM_NET_COUNT)
		return lagom_errprintf(err, EINVAL, "invalid transport %d",
				       (int)hw->transport);
	if (hw->nvl_domain_nodes > 256)
		return lagom_errprintf(err, EINVAL,
				       "NVLink domain of %u nodes (max 256)",
				       hw->nvl_domain_nodes);
	if (hw->nvl_domain_nodes > 1 && hw->intra != LAGOM_INTRA_NVSWITCH)
		return lagom_errprintf(err, EINVAL,
				       "an NVLink domain needs NVSwitch nodes");
	if (!nonneg(hw->contention_resident) || !nonneg(hw->contention_sm) ||
	    !nonneg(hw->contention_l2) || !nonneg(hw->contention_l2_cap) ||
	    !nonneg(hw->contention_l2_knee) || !nonneg(hw->contention_rate) ||
	    !nonneg(hw->contention_rate_cap) || !nonneg(hw->channel_sm_share) ||
	    hw->channel_sm_share > 1 || !nonneg(hw->contention_l2_x0) ||
	    !nonneg(hw->contention_l2_x1) ||
	    (hw->contention_l2_x1 > 0 &&
	     !(hw->contention_l2_x0 < hw->contention_l2_x1)))
		return lagom_errprintf(err, EINVAL,
				       "contention coefficients out of range");
	if (hw->ch_Bps != 0 && !(hw->ch_Bps >= LAGOM_CHANNEL_BPS_MIN &&
				 hw->ch_Bps <= LAGOM_CHANNEL_BPS_MAX))
		return lagom_errprintf(err, EINVAL,
				       "one channel's rate %g B/s outside "
				       "%g..%g",
				       hw->ch_Bps, LAGOM_CHANNEL_BPS_MIN,
				       LAGOM_CHANNEL_BPS_MAX);
	return lagom_net_site_check(&hw->net_site, err);
}
