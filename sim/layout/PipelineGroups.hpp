#pragma once
// A pipeline's chains (one per data-parallel and tensor-parallel index, each a list of ranks in stage order) fall into
// groups: the chains that share a network domain, a node on a switch, a leaf on a fat-tree. Where every group is a
// copy of the first on domains of its own (the same stages on the same local GPUs of the same nodes and leaves) and
// the network joins domains only through links of their own and a core that cannot limit them, the groups never
// meet: each one's flows cross only its own domains' links. The first group then runs exactly as it would beside the
// others, and simulating it alone gives the pipeline's time.
// A 1,024-GPU AQ-SGD step at PP 4 runs 32 groups of 8 chains: one group is simulated (2,560 actors become 80), and
// the others' messages are counted without being sent (sim/schedule/PipelineSchedule.cpp, run_pipeline). On the 16,384-GPU fat-tree
// (leaves of 16 nodes) a group is 128 chains on 4 leaves, 1 of 32.
//
// Why a core cannot limit on a switch without oversubscription: a core's capacity there is the sum of the NICs'
// (nodes x uplink), and every byte on it (with LV08's 5 % cross-traffic too) also crosses one NIC in the same
// direction, so its load never exceeds its capacity. An oversubscribed core can limit, and every group's flows cross
// it: the pipeline is then simulated whole. A fat-tree's leaf uplinks can limit too, but each belongs to one leaf,
// so there a domain is a leaf (its nodes, NICs and uplink).

#include "sim/layout/RankLayout.hpp"
#include "sim/platform/Topology.hpp"

#include <cstddef>
#include <vector>

namespace ccsim::sim {

/// How many consecutive nodes form one domain (PipelineGroups.hpp) on `topo`: 1 on a switch or WAN (every node behind
/// its own uplink and one shared core, sim/platform/Platform.cpp) without oversubscription, the leaf size on a fat-tree without
/// degraded leaves; 0 where domains would meet (an oversubscribed core, a degraded leaf, a node with rates of its own).
int pipeline_domain_nodes(const Topology& topo);

/// A pipeline's chains, chain d * tp + t holding the ranks of data-parallel index d and tensor-parallel index t in
/// stage order.
std::vector<std::vector<int>> pipeline_chains(const RankLayout& layout);

/// The chains to simulate in place of all of `chains`: the first group's, when every group is a copy of it on domains
/// of its own (PipelineGroups.hpp); every chain otherwise. Indices into `chains`, ascending; chain 0 is always among
/// them. A rank's node is rank / gpus_per_node, its local GPU rank % gpus_per_node, its domain node / domain_nodes.
std::vector<std::size_t> representative_chains(const std::vector<std::vector<int>>& chains, int gpus_per_node,
                                               int domain_nodes = 1);

} // namespace ccsim::sim
