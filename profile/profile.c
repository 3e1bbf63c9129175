/* profile/profile.c - the profile struct: names, fingerprint. See profile.h. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "profile/profile.h"

static const char *const source_names[] = {
	[LAGOM_SOURCE_ABSENT] = "absent",
	[LAGOM_SOURCE_TABLE] = "table",
	[LAGOM_SOURCE_MEASURED] = "measured",
};

const char *lagom_source_name(enum lagom_source source)
{
	if ((unsigned)source > LAGOM_SOURCE_MEASURED)
		return NULL;
	return source_names[source];
}

const char *lagom_profile_intra_name(enum lagom_intra intra)
{
	if (intra == LAGOM_INTRA_DEFAULT)
		return "unknown";
	return lagom_intra_name(intra);
}

int lagom_profile_node_name_ok(const char *name)
{
	size_t len;

	if (name == NULL)
		return 0;
	len = strlen(name);
	if (len == 0 || len > LAGOM_PROFILE_NAME_MAX || name[0] == '.')
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return 0;
	}
	return 1;
}

struct lagom_profile *lagom_profile_create(const char *node)
{
	struct lagom_profile *p;

	if (!lagom_profile_node_name_ok(node))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->version_major = LAGOM_PROFILE_VERSION_MAJOR;
	p->version_minor = LAGOM_PROFILE_VERSION_MINOR;
	snprintf(p->node, sizeof(p->node), "%s", node);
	p->hw.intra = LAGOM_INTRA_NONE; /* no GPU yet */
	snprintf(p->prov.lagom_version, sizeof(p->prov.lagom_version), "%s",
		 PACKAGE_VERSION);
	return p;
}

void lagom_profile_destroy(struct lagom_profile *profile)
{
	free(profile);
}

/*
 * The fingerprint hashes a canonical text of the hardware section (one
 * "key=value;" per field, numbers printed exactly), so it does not depend on
 * JSON formatting or on the order of keys in the file.
 */
/*
 * Whole bytes per second: printf's %g follows LC_NUMERIC, and a node whose
 * slurmstepd runs under a decimal-comma locale must hash the same text.
 */
static uint64_t whole_Bps(double bw_Bps)
{
	if (!(bw_Bps > 0))
		return 0;
	if (bw_Bps >= 1.8e19)
		return UINT64_MAX;
	return (uint64_t)llround(bw_Bps);
}

void lagom_profile_fingerprint(const struct lagom_profile_hw *hw, char *out,
			       size_t len)
{
	char text[4 * LAGOM_PROFILE_TEXT_MAX + 512];
	const char *intra = lagom_profile_intra_name(hw->intra);

	snprintf(text, sizeof(text),
		 "cpu_model=%s;cpu_cores=%d;numa_nodes=%d;gpu_model=%s;"
		 "gpu_count=%d;gpu_sm_count=%d;gpu_memory_bytes=%" PRIu64 ";"
		 "intra=%s;nvlinks_per_gpu=%d;nvlink_peers=%d;pcie_gen=%d;"
		 "pcie_lanes=%d;gpus_per_pcie_switch=%d;nic_count=%d;"
		 "nic_rdma=%d;gpus_per_nic=%d;nic_link_bw_Bps=%" PRIu64 ";",
		 hw->cpu_model, hw->cpu_cores, hw->numa_nodes, hw->gpu_model,
		 hw->gpu_count, hw->gpu_sm_count, hw->gpu_memory_bytes,
		 intra ? intra : "?", hw->nvlinks_per_gpu, hw->nvlink_peers,
		 hw->pcie_gen, hw->pcie_lanes, hw->gpus_per_pcie_switch,
		 hw->nic_count, hw->nic_rdma != 0, hw->gpus_per_nic,
		 whole_Bps(hw->nic_link_bw_Bps));
	/* The rack keys count only when set: older fingerprints stay. */
	if (hw->nic_transport > 0 || hw->nvl_domain_nodes > 0) {
		size_t used = strlen(text);
		snprintf(text + used, sizeof(text) - used,
			 "nic_transport=%d;nvl_domain_nodes=%d;",
			 hw->nic_transport, hw->nvl_domain_nodes);
	}
	snprintf(out, len, "fnv1a64:%016" PRIx64,
		 lagom_fnv1a64(text, strlen(text)));
}
