// The checks of advise's filters; see AdviseFilters.hpp.
#include "api/advise/AdviseFilters.hpp"

#include "algorithms/PlanAlgorithm.hpp"
#include "io/InputError.hpp"
#include "io/JsonInput.hpp"
#include "sim/compute/OperatorCost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace ccsim::api {

std::vector<std::string> advised_algorithms(const std::vector<std::string>& only, bool pipelined,
                                            const std::string& workload)
{
  std::vector<std::string> names, suited;
  for (const auto* a : algorithms::plan_algorithms())
    if ((a->parallelism() == algorithms::Parallelism::PIPELINE) == pipelined)
      suited.push_back(a->name());
  std::set<std::string> seen;
  for (const auto& name : only) {
    const auto* a = algorithms::find_plan_algorithm(name);
    if (a == nullptr)
      throw io::InputError("--algorithms", "", io::echo(name) + " is not an algorithm (ccsim list algorithms)");
    if (!seen.insert(name).second)
      throw io::InputError("--algorithms", "", io::echo(name) + " is given twice");
    if (std::find(suited.begin(), suited.end(), name) == suited.end()) {
      std::string list;
      for (const auto& s : suited)
        list += (list.empty() ? "" : ", ") + s;
      throw io::InputError("--algorithms", "",
                           fmt::format("{} does not suit {} ({}): advise offers it {}", name, workload,
                                       pipelined ? "pipelined without tensor parallelism" : "not a pipeline workload",
                                       list));
    }
  }
  for (const auto& name : suited)
    if (only.empty() || seen.count(name) != 0)
      names.push_back(name);
  return names;
}

void check_split_filters(const std::vector<int>& tp, const std::vector<int>& pp, const sim::Topology& topo,
                         const sim::Workload& work, int gpus, const std::string& topology)
{
  auto unique = [](const std::vector<int>& v, const char* flag) {
    if (std::set<int>(v.begin(), v.end()).size() != v.size())
      throw io::InputError(flag, "", "a value is given twice");
  };
  unique(tp, "--tp");
  unique(pp, "--pp");
  for (const int t : tp) {
    if (t < 1 || topo.gpus_per_node % t != 0)
      throw io::InputError("--tp", "", fmt::format("{} does not divide the {} GPUs per node of {} (tensor parallelism "
                                                   "stays within a node)", t, topo.gpus_per_node, topology));
    if (work.heads > 0 && work.heads % t != 0)
      throw io::InputError("--tp", "", fmt::format("{} does not divide the {} attention heads of {}", t, work.heads,
                                                   work.name));
    if (gpus % t != 0)
      throw io::InputError("--tp", "", fmt::format("{} does not divide the {} GPUs", t, gpus));
  }
  const int layers = std::max(1, work.layers);
  for (const int p : pp) {
    if (p < 1 || !sim::chunks_are_whole(layers, p, 1, work.architecture.has_value()))
      throw io::InputError(
          "--pp", "",
          fmt::format("{} does not divide the {} layers of {} (whole layers per stage{})", p, layers, work.name,
                      work.architecture
                          ? fmt::format(", nor {} + 2 with the embedding and the output layer a slot each", layers)
                          : ""));
    if (gpus % p != 0)
      throw io::InputError("--pp", "", fmt::format("{} does not divide the {} GPUs", p, gpus));
  }
}

} // namespace ccsim::api
