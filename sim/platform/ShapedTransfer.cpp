// Transfers through a tc token-bucket shaper; see ShapedTransfer.hpp.
#include "sim/platform/ShapedTransfer.hpp"

namespace ccsim::sim {

bool shaped(const Topology& topo)
{
  return topo.shaper && topo.nic_nominal_bytes_per_s < topo.nic_port_bytes_per_s * (1 - 1e-9);
}

double shaped_transfer_bytes(const Topology& topo, double bytes, bool inter_node)
{
  if (!inter_node || !shaped(topo))
    return bytes;
  const double queue = topo.nic_bytes_per_s * topo.shaper->queue_s;
  if (bytes <= queue)
    return bytes;
  return queue + (bytes - queue) / topo.shaper->backlog_efficiency;
}

} // namespace ccsim::sim
