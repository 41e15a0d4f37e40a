#pragma once
// What a transfer costs on a tc-shaped link (topology nic.shaper): its bytes as the network model must carry them so
// that it takes the time TCP through a token-bucket shaper takes.

#include "sim/platform/Topology.hpp"

namespace ccsim::sim {

/// Whether the run's inter-node rate is shaped below the NIC's port rate and the topology describes the shaper.
bool shaped(const Topology& topo);

/// The bytes a transfer of `bytes` between two nodes occupies a shaped link for, at the shaped rate R: the first
/// R x queue_s go at R, the rest at backlog_efficiency x R, so bytes' = q + (bytes - q) / efficiency. Unshaped
/// links, or transfers inside a node, carry `bytes` unchanged.
double shaped_transfer_bytes(const Topology& topo, double bytes, bool inter_node);

} // namespace ccsim::sim
