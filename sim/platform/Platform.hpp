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
  /// The host of GPU `rank` (0 <= rank < gpu_count()). On a platform of node slots (below), the rank's node is given
  /// the next free slot the first time one of its GPUs is asked for, and keeps it for the rest of the simulation.
  simgrid::s4u::Host* gpu(int rank) const;
  int gpu_count() const { return static_cast<int>(by_rank.size()); }
  /// The GPU hosts built, node by node (every GPU's, unless the platform is one of node slots).
  std::vector<simgrid::s4u::Host*> built;
  /// Node slots. A simulation of a reduced step touches few of a large cluster's nodes (one group of identical
  /// groups, one node of a symmetric round: about 150 of the 2,048 nodes of a 16,384-GPU Llama 3 step), while
  /// SimGrid's hosts and links cost their creation whether used or not (three quarters of that step's simulation,
  /// perf). Where every node is alike and a route's links do not depend on which nodes it joins (platform_node_slots),
  /// only `slots` nodes are built and handed to nodes as they are first touched: a flow between two nodes then
  /// crosses links of the same bandwidths and latencies, in the same order, as between the nodes it stands for. A
  /// simulation that touches more nodes than there are slots sets `out_of_slots` (its hosts are then wrong) and is run
  /// again on every node (simulate_step).
  /// On a fat-tree a slot is a whole leaf (slot_nodes = nodes_per_leaf), whose nodes keep their places in it, so two
  /// nodes are near (one leaf) or far in the slots as they are in the cluster.
  int slot_nodes = 1;                  // nodes per slot
  int slots = 0;                       // slots built (slots x slot_nodes nodes)
  mutable int slots_used = 0;          // slots given out so far
  mutable bool out_of_slots = false;   // a node was touched with no slot left
  mutable std::vector<simgrid::s4u::Host*> by_rank; // nullptr until the rank is first asked for
  mutable std::vector<int> slot_of_unit;            // node / slot_nodes -> its slot, -1 until it has one
  std::vector<simgrid::s4u::Link*> node_links; // split-duplex NIC uplink of each node (slot)
  std::vector<simgrid::s4u::Link*> gpu_ports;  // split-duplex intra-node port of each GPU (built)
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

/// Builds ceil(gpus / gpus_per_node) nodes of the topology holding `gpus` GPU hosts, or `node_slots` nodes to be
/// handed out as they are touched (Platform::slots) when 0 < node_slots < the nodes the GPUs need; node_slots must
/// then come from platform_node_slots (whole leaves on a fat-tree). A switch's core is sized for every node.
Platform build_platform(const Topology& topo, int gpus, int node_slots = 0);

/// How many nodes to build for `gpus` GPUs of `topo`: fewer than they need (Platform::slots) where that is exact and
/// worth it, else 0 (every node). Exact: every node alike (no topology "nodes" entry), whole nodes; on a fat-tree whole
/// and undegraded leaves, built leaf by leaf (a route depends on whether its nodes share a leaf). Worth it: more than
/// kNodeSlots nodes (on a fat-tree rounded down to whole leaves, at least one), and no oversubscribed switch core (it
/// joins every node's flows, so a step touches them all).
/// The environment's CCSIM_PLATFORM_NODES=all builds every node (to check slots against it); a number N sets the
/// slots to N (tests of the fall-back); cli/main.cpp rejects any other value.
int platform_node_slots(const Topology& topo, int gpus);
inline constexpr int kNodeSlots = 256;

/// The latency factor the network model multiplies route latencies by (LV08: 13.01, CM02: 1).
double latency_factor();

} // namespace ccsim::sim
