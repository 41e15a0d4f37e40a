// Groups of pipeline chains that never meet on the network (PipelineGroups.hpp).
#include "sim/PipelineGroups.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

namespace ccsim::sim {

bool nodes_meet_only_at_their_own_links(const Topology& topo)
{
  return topo.fabric != FabricKind::FAT_TREE && topo.oversubscription <= 1 && topo.nodes.empty();
}

std::vector<std::vector<int>> pipeline_chains(const RankLayout& layout)
{
  std::vector<std::vector<int>> chains;
  for (int d = 0; d < layout.dp; ++d)
    for (int t = 0; t < layout.tp; ++t) {
      auto& ranks = chains.emplace_back();
      for (int s = 0; s < layout.pp; ++s)
        ranks.push_back(layout.rank(s, d, t));
    }
  return chains;
}

std::vector<std::size_t> representative_chains(const std::vector<std::vector<int>>& chains, int gpus_per_node)
{
  std::vector<std::size_t> all(chains.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  if (chains.size() < 2 || gpus_per_node < 1)
    return all;
  // Group the chains by the set of nodes they visit; two groups sharing a node would meet at its NIC.
  std::map<std::vector<int>, std::size_t> group_of_nodes; // sorted node set -> group
  std::vector<std::vector<std::size_t>> groups;           // group -> its chains, ascending
  std::map<int, std::size_t> owner;                       // node -> its group
  for (std::size_t i = 0; i < chains.size(); ++i) {
    std::vector<int> nodes;
    for (const int rank : chains[i]) {
      if (rank < 0)
        return all;
      nodes.push_back(rank / gpus_per_node);
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    const auto [it, fresh] = group_of_nodes.emplace(nodes, groups.size());
    if (fresh)
      groups.emplace_back();
    groups[it->second].push_back(i);
    for (const int node : nodes)
      if (owner.emplace(node, it->second).first->second != it->second)
        return all;
  }
  if (groups.size() < 2)
    return all;
  // A group's shape: every chain, every stage as (the node's place in the group, in order of first visit; the local
  // GPU). Groups of one shape on disjoint nodes run alike, stage by stage and flow by flow.
  auto shape = [&](const std::vector<std::size_t>& group) {
    std::map<int, int> place;
    std::vector<std::vector<std::pair<int, int>>> out;
    for (const std::size_t i : group) {
      auto& stages = out.emplace_back();
      for (const int rank : chains[i]) {
        const int node = rank / gpus_per_node;
        const auto at  = place.emplace(node, static_cast<int>(place.size())).first->second;
        stages.emplace_back(at, rank % gpus_per_node);
      }
    }
    return out;
  };
  const auto first = shape(groups.front());
  for (std::size_t g = 1; g < groups.size(); ++g)
    if (shape(groups[g]) != first)
      return all;
  return groups.front(); // chain 0 opened the first group
}

} // namespace ccsim::sim
