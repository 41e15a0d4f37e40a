#pragma once
// The collective model: for each algorithm and protocol NCCL could run on a group, its time on an otherwise idle
// cluster, t = L + max(T_links, T_floor) + F, and the choice among them.
//
//   L        latency: the algorithm's hops (NCCL's hop counts, tuning.cc:383-438) x the per-hop latency of the
//            protocol (NCCL's tables plus the topology's calibrated extras), or the links' own latency;
//   T_links  the busiest port or NIC uplink: its bytes (the protocol's wire bytes: LL doubles them, LL128 x 128/120)
//            over its delivered rate. These are exactly the loads of the flows sim/nccl/NcclFlows.cpp builds, so a
//            simulation of those flows on an idle cluster takes T_links;
//   T_floor  what no link explains: the protocol kernels' GPU-side ceilings (LL, LL128, the tree's per-channel rate:
//            NCCL's tables, tuning.cc:177-211, or calibrated) and the NICs the channels can reach. Simulated as a rate
//            cap on every flow of the collective (bytes / T_floor), so it holds under contention too;
//   F        pipeline fill of the tree-like algorithms: fill x one chunk's time over each hop (NcclModel.cpp).
//
// Which candidate runs: a forced algorithm / protocol (CommOp::algo, the topology's nccl.algorithms / protocols as
// NCCL_ALGO / NCCL_PROTO), a tuner table, NCCL's own cost model (sim/nccl/NcclTuner.hpp) with its near-ties settled by
// this model, or this model's fastest. Without an "nccl" block ccsim's own rule runs (ring, hierarchical).

#include "sim/layout/Round.hpp"
#include "sim/platform/NcclConfig.hpp"
#include "sim/nccl/NcclGraph.hpp"
#include "sim/platform/Topology.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ccsim::sim {

/// A group as the model sees it: ranks, the nodes they span and the most ranks on one node (uniform: every node holds
/// the same number).
struct GroupShape {
  int ranks    = 0;
  int nodes    = 0;
  int per_node = 0;
  bool uniform = true;
};
GroupShape group_shape(const Group& group, int gpus_per_node);

/// One algorithm and protocol on one group and size, timed.
struct CollectivePlan {
  Algo algo    = Algo::RING;
  Proto proto  = Proto::SIMPLE;
  int channels = 1;
  double latency_s = 0; // L
  double links_s   = 0; // T_links
  double floor_s   = 0; // T_floor (0: none)
  double fill_s    = 0; // F
  std::string bottleneck; // "nic", "nvlink", "nvls", "gpu", "channels", "latency"
  double seconds() const { return latency_s + (links_s > floor_s ? links_s : floor_s) + fill_s; }
};

/// Every algorithm and protocol the topology allows for `collective` on this group, timed (the forced ones only).
std::vector<CollectivePlan> collective_candidates(const Topology& topo, Collective collective, const GroupShape& group,
                                                  std::uint64_t bytes);

/// The candidate the topology's rule runs; `requested` (CommOp::algo) forces an algorithm when not AUTO.
CollectivePlan choose_collective(const Topology& topo, Collective collective, const GroupShape& group,
                                 std::uint64_t bytes, Algo requested = Algo::AUTO);

/// The plan of one algorithm and protocol (whether or not the topology allows it); `channels` > 0 forces the count.
CollectivePlan plan_collective(const Topology& topo, Collective collective, const GroupShape& group,
                               std::uint64_t bytes, Algo algo, Proto proto, int channels = 0);

/// The graph NCCL's search would give this group on this topology (requires nccl.gpu_arch).
NcclGraphs group_graphs(const Topology& topo, const GroupShape& group);

/// Wire bytes of `data_bytes` under protocol `p` (LL 2x, LL128 x 128/120, Simple 1x), rounded up.
std::uint64_t wire_bytes(double data_bytes, Proto p);

/// The per-hop latencies the links give a round: intra-node (port, port) and inter-node (ports, NICs, fabric), each
/// x the network model's latency factor (LV08: 13.01, CM02: 1), as SimGrid charges them.
double intra_hop_latency_s(const Topology& topo);
double inter_hop_latency_s(const Topology& topo);

/// The per-node loads of a tree all-reduce: each intra-node flow between neighbours j and j+-1 of node `node` carries
/// this many data bytes per byte of the buffer ((g-1)/g less the node's NIC traffic that ccsim routes through the
/// port, sim/nccl/NcclFlows.cpp) — shared by the model and the flows so both see the same bytes.
double tree_intra_share(int per_node, int degree);

} // namespace ccsim::sim
