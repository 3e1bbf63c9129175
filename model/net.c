/*
 * model/net.c - what the network part of the collective model needs from
 * the hardware: the transport, the NICs a communicator's ranks reach
 * (rails), and the view of a multi-node NVLink domain (GB200/GB300 NVL72)
 * as one NVSwitch node.  doc/model.md 2.1 and 2.3.
 */
#include <math.h>

#include "model/model_int.h"

enum lagom_transport lagom_hw_transport(const struct lagom_hw *hw)
{
	if (hw->transport > LAGOM_NET_DEFAULT &&
	    hw->transport < LAGOM_NET_COUNT)
		return hw->transport;
	return hw->nic_gdr ? LAGOM_NET_IB : LAGOM_NET_TCP;
}

/* Rails: ranks on fewer GPUs than the node has reach a proportional share
 * of its NICs (at least one). */
double lagom_nic_line_Bps(const struct lagom_hw *hw,
			  const struct lagom_comm *comm)
{
	double nics = hw->nic_count;

	if (hw->nic_count == 0)
		return 0;
	if (comm->ranks_per_node < hw->gpus_per_node)
		nics = ceil(nics * comm->ranks_per_node / hw->gpus_per_node);
	return nics * hw->nic_Bps;
}

void lagom_domain_view(const struct lagom_hw *hw, const struct lagom_comm *comm,
		       struct lagom_hw *hw_buf, struct lagom_comm *comm_buf,
		       const struct lagom_hw **vhw,
		       const struct lagom_comm **vcomm)
{
	unsigned d = hw->nvl_domain_nodes, in_domain, domains;

	*vhw = hw;
	*vcomm = comm;
	if (d <= 1 || comm->nodes <= 1 || hw->intra != LAGOM_INTRA_NVSWITCH)
		return;
	in_domain = comm->nodes < d ? comm->nodes : d;
	domains = (comm->nodes + in_domain - 1) / in_domain;
	*hw_buf = *hw;
	hw_buf->gpus_per_node = hw->gpus_per_node * in_domain;
	hw_buf->nic_count = hw->nic_count * in_domain;
	hw_buf->nvlink_peers = hw_buf->gpus_per_node - 1;
	hw_buf->nvl_domain_nodes = 0;
	*comm_buf = (struct lagom_comm){
		.ranks = comm->ranks_per_node * in_domain * domains,
		.nodes = domains,
		.ranks_per_node = comm->ranks_per_node * in_domain,
		.hops = domains > 1 ? comm->hops : LAGOM_HOPS_SAME_NODE,
	};
	*vhw = hw_buf;
	*vcomm = comm_buf;
}

unsigned lagom_domain_nodes(const struct lagom_hw *hw,
			    const struct lagom_comm *comm)
{
	struct lagom_hw hb;
	struct lagom_comm cb;
	const struct lagom_hw *vh;
	const struct lagom_comm *vc;

	lagom_domain_view(hw, comm, &hb, &cb, &vh, &vc);
	return vc->nodes;
}
