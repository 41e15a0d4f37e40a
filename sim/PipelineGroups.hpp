#pragma once
// A pipeline's chains (one per data-parallel and tensor-parallel index, each a list of ranks in stage order) fall into
// groups: the chains that share a node. Where every group is a copy of the first on other nodes (the same stages on
// the same local GPUs, the same node crossings) and the network joins nodes only through their own NICs and a core
// that cannot limit them, the groups never meet: each one's flows cross only its own nodes' links. The first group
// then runs exactly as it would beside the others, and simulating it alone gives the pipeline's time.
// A 1,024-GPU AQ-SGD step at PP 4 runs 32 groups of 8 chains: one group is simulated (2,560 actors become 80), and
// the others' messages are counted without being sent (sim/StepEngine.cpp, run_pipeline).
//
// Why a core cannot limit on a switch without oversubscription: a core's capacity there is the sum of the NICs'
// (nodes x uplink), and every byte on it (with LV08's 5 % cross-traffic too) also crosses one NIC in the same
// direction, so its load never exceeds its capacity. A fat-tree's uplinks and an oversubscribed core can limit, and
// different groups' flows cross them together: the pipeline is then simulated whole.

#include "sim/RankLayout.hpp"
#include "sim/Topology.hpp"

#include <cstddef>
#include <vector>

namespace ccsim::sim {

/// Whether the network can only slow a flow between two nodes at those nodes' own links: a switch or a WAN (every node
/// behind its own uplink and one shared core, sim/Platform.cpp), not a fat-tree; no oversubscription; no node with
/// rates of its own.
bool nodes_meet_only_at_their_own_links(const Topology& topo);

/// A pipeline's chains, chain d * tp + t holding the ranks of data-parallel index d and tensor-parallel index t in
/// stage order.
std::vector<std::vector<int>> pipeline_chains(const RankLayout& layout);

/// The chains to simulate in place of all of `chains`: the first group's, when every group is a copy of it on nodes
/// of its own (PipelineGroups.hpp); every chain otherwise. Indices into `chains`, ascending; chain 0 is always among
/// them. `gpus_per_node` maps a rank to its node (rank / gpus_per_node) and local GPU (rank % gpus_per_node).
std::vector<std::size_t> representative_chains(const std::vector<std::vector<int>>& chains, int gpus_per_node);

} // namespace ccsim::sim
