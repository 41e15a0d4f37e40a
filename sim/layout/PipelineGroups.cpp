// Groups of pipeline chains that never meet on the network (PipelineGroups.hpp).
#include "sim/layout/PipelineGroups.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

namespace ccsim::sim {

int pipeline_domain_nodes(const Topology& topo)
{
  if (!topo.nodes.empty())
    return 0;
  if (topo.fabric == FabricKind::FAT_TREE)
    return topo.leaf_uplink_share.empty() && topo.nodes_per_leaf > 0 ? topo.nodes_per_leaf : 0;
  return topo.oversubscription <= 1 ? 1 : 0;
}

std::vector<std::vector<int>> pipeline_chains(const RankLayout& layout)
{
  std::vector<std::vector<int>> chains;
  for (int d = 0; d < layout.replicas(); ++d)
    for (int t = 0; t < layout.tp; ++t) {
      auto& ranks = chains.emplace_back();
      for (int s = 0; s < layout.pp; ++s)
        ranks.push_back(layout.rank(s, d, t));
    }
  return chains;
}

std::vector<std::size_t> representative_chains(const std::vector<std::vector<int>>& chains, int gpus_per_node,
                                               int domain_nodes)
{
  std::vector<std::size_t> all(chains.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  if (chains.size() < 2 || gpus_per_node < 1 || domain_nodes < 1)
    return all;
  // Group the chains by the set of domains they visit; two groups sharing a domain would meet at its links.
  std::map<std::vector<int>, std::size_t> group_of_domains; // sorted domain set -> group
  std::vector<std::vector<std::size_t>> groups;             // group -> its chains, ascending
  std::map<int, std::size_t> owner;                         // domain -> its group
  for (std::size_t i = 0; i < chains.size(); ++i) {
    std::vector<int> domains;
    for (const int rank : chains[i]) {
      if (rank < 0)
        return all;
      domains.push_back(rank / gpus_per_node / domain_nodes);
    }
    std::sort(domains.begin(), domains.end());
    domains.erase(std::unique(domains.begin(), domains.end()), domains.end());
    const auto [it, fresh] = group_of_domains.emplace(domains, groups.size());
    if (fresh)
      groups.emplace_back();
    groups[it->second].push_back(i);
    for (const int domain : domains)
      if (owner.emplace(domain, it->second).first->second != it->second)
        return all;
  }
  if (groups.size() < 2)
    return all;
  // A group's shape: every chain, every stage as (the domain's place in the group, the node's place, each in order of
  // first visit; the local GPU). Groups of one shape on disjoint domains run alike, stage by stage and flow by flow.
  auto shape = [&](const std::vector<std::size_t>& group) {
    std::map<int, int> domain_place, node_place;
    std::vector<std::vector<std::tuple<int, int, int>>> out;
    for (const std::size_t i : group) {
      auto& stages = out.emplace_back();
      for (const int rank : chains[i]) {
        const int node   = rank / gpus_per_node;
        const int domain = domain_place.emplace(node / domain_nodes, static_cast<int>(domain_place.size())).first->second;
        const int place  = node_place.emplace(node, static_cast<int>(node_place.size())).first->second;
        stages.emplace_back(domain, place, rank % gpus_per_node);
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
