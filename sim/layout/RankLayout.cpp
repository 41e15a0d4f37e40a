// Group construction for every GroupKind of CommPlan.hpp.
#include "sim/layout/RankLayout.hpp"

#include <map>

namespace ccsim::sim {

std::vector<Group> RankLayout::groups(GroupKind kind) const
{
  std::vector<Group> dp_groups;
  for (int p = 0; p < pp; ++p)
    for (int t = 0; t < tp; ++t) {
      Group g;
      for (int d = 0; d < replicas(); ++d)
        g.push_back(rank(p, d, t));
      dp_groups.push_back(std::move(g));
    }

  switch (kind) {
  case GroupKind::DATA_PARALLEL:
    return dp_groups;
  case GroupKind::TENSOR_PARALLEL: {
    std::vector<Group> out;
    for (int p = 0; p < pp; ++p)
      for (int d = 0; d < replicas(); ++d) {
        Group g;
        for (int t = 0; t < tp; ++t)
          g.push_back(rank(p, d, t));
        out.push_back(std::move(g));
      }
    return out;
  }
  case GroupKind::CONTEXT_PARALLEL: { // the ring of one sequence: its cp slices, in ring order
    std::vector<Group> out;
    for (int p = 0; p < pp; ++p)
      for (int d = 0; d < dp; ++d)
        for (int t = 0; t < tp; ++t) {
          Group g;
          for (int c = 0; c < cp; ++c)
            g.push_back(rank(p, d * cp + c, t));
          out.push_back(std::move(g));
        }
    return out;
  }
  case GroupKind::EXPERT_PARALLEL: {
    std::vector<Group> out;
    for (const auto& g : dp_groups)
      for (std::size_t i = 0; i < g.size(); ++i) {
        if (i % static_cast<std::size_t>(ep) == 0)
          out.emplace_back();
        out.back().push_back(g[i]);
      }
    return out;
  }
  case GroupKind::DP_INTRA_NODE:
  case GroupKind::DP_INTER_NODE: {
    std::vector<Group> out;
    for (const auto& g : dp_groups) {
      std::map<int, Group> per_node;
      for (int r : g)
        per_node[r / gpus_per_node].push_back(r);
      if (kind == GroupKind::DP_INTRA_NODE) {
        for (auto& [_, members] : per_node)
          out.push_back(members);
        continue;
      }
      // Same position inside the node, one rank per node.
      std::map<int, Group> by_position;
      for (const auto& [_, members] : per_node)
        for (std::size_t i = 0; i < members.size(); ++i)
          by_position[static_cast<int>(i)].push_back(members[i]);
      for (auto& [_, members] : by_position)
        out.push_back(members);
    }
    return out;
  }
  }
  return {};
}

int RankLayout::dp_per_node() const
{
  const auto g = groups(GroupKind::DP_INTRA_NODE);
  return g.empty() ? 1 : static_cast<int>(g.front().size());
}

} // namespace ccsim::sim
