// Merges the two halves' registries into the one list users see.
#include "algorithms/Registry.hpp"

#include <algorithm>
#include <map>

namespace ccsim::algorithms {

std::vector<AlgorithmInfo> list_algorithms()
{
  std::map<std::string, AlgorithmInfo> by_name;
  for (const auto& a : plan_algorithm_infos())
    by_name[a.name] = a;
  for (const auto& a : update_algorithm_infos()) {
    auto& entry = by_name[a.name];
    if (entry.name.empty())
      entry = a;
    entry.trains = true;
    if (entry.description.empty())
      entry.description = a.description;
  }
  std::vector<AlgorithmInfo> out;
  for (auto& [_, a] : by_name)
    out.push_back(a);
  return out;
}

} // namespace ccsim::algorithms
