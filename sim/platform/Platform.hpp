#pragma once
// Builds the SimGrid platform of a Topology in C++ (SimGrid 3.32 S4U). One process, one platform:
// SimGrid's Engine is a per-process singleton, so call this once, in a fresh (forked) process.
//
//   root StarZone ("cluster") = the switch; the fabric's links (core, leaf uplinks, fabric port) live here
//     pod0 StarZone (a route to the root without links)  [FAT_TREE: leafL StarZones, route = leafupL]
//        pod0-sw StarZone, gateway router pod0-gw
//        [beyond 512 nodes: pod0-J StarZones of 64 nodes each, routes to pod0 without links, laid out as pod0]
//        nodeK StarZone, gateway router nodeK-gw; route up = nicK (split-duplex, count x effective NIC bandwidth)
//                                                  [+ flowcapK per-flow cap] [+ core link if oversubscribed]
//           |- gpuR host --portR (split-duplex, NVLink/PCIe port; in nodeK's zone, nicK and flowcapK in its group's)
//     fabric-port StarZone: one host behind never-shared copies of a port, a NIC [and the core or a leaf uplink]

#include "sim/platform/Topology.hpp"

#include <simgrid/s4u.hpp>

#include <vector>

namespace ccsim::sim {

struct Platform {
  std::vector<simgrid::s4u::Host*> gpus;       // by global rank
  std::vector<simgrid::s4u::Link*> node_links; // split-duplex NIC uplink of each node
  std::vector<simgrid::s4u::Link*> gpu_ports;  // split-duplex intra-node port of each GPU
  std::vector<simgrid::s4u::Link*> fabric_links; // core / leaf uplinks (oversubscribed fabrics)
  /// A host beside the top switch whose route copies the far half of an inter-node route (a GPU port, a NIC, and the
  /// core or a leaf uplink, as links that are never shared), so a flow to or from it is timed like a flow between two
  /// nodes (between two leaves on a fat-tree) (sim/collective/SymmetricRound.hpp).
  simgrid::s4u::Host* fabric_port = nullptr;
  int gpus_per_node = 1;
  /// Every node's intra-node ports are alike (same bandwidth and latency), so a round of intra-node flows that is
  /// the same on every node takes the same time on each. Whatever makes one node's ports differ must clear it.
  bool identical_nodes = true;
  int node_of(int rank) const { return rank / gpus_per_node; }
};

/// Configures the network model of `topo` (must run before any zone exists) — rdma: CM02 without cross-traffic
/// or TCP window (exact alpha-beta); tcp: LV08 with cross-traffic and TCP-gamma = the topology's window.
void configure_network_model(const Topology& topo);

/// Builds ceil(gpus / gpus_per_node) nodes of the topology holding `gpus` GPU hosts.
Platform build_platform(const Topology& topo, int gpus);

/// The latency factor the network model multiplies route latencies by (LV08: 13.01, CM02: 1).
double latency_factor();

} // namespace ccsim::sim
