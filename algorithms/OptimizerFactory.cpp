// The factory looks the maker up in the algorithm's descriptor, after checking what every maker may assume.
#include "algorithms/OptimizerFactory.hpp"

#include "numerics/MomentumMask.hpp"
#include "numerics/Optimizers.hpp"

#include <algorithm>
#include <stdexcept>

namespace ccsim::algorithms {

namespace {
/// Whether an optimizer reads `key`: a train key of some algorithm with an optimizer. lr_schedule is the training
/// loop's (algorithms/LrSchedule.hpp), which takes it out before the optimizer is made.
bool optimizer_key(const std::string& key)
{
  if (key == "lr_schedule")
    return false;
  const auto all = registered_algorithms();
  return std::any_of(all.begin(), all.end(), [&](const auto* a) {
    return a->optimizer != nullptr && a->train_param(key) != nullptr;
  });
}
} // namespace

std::vector<AlgorithmInfo> optimizer_algorithm_infos()
{
  std::vector<AlgorithmInfo> infos;
  for (const auto* a : registered_algorithms())
    if (a->optimizer != nullptr)
      infos.push_back({a->name, a->description, a->simulates(), /*trains=*/true});
  return infos;
}

std::unique_ptr<numerics::DistributedOptimizer> make_distributed_optimizer(const std::string& name,
                                                                           const numerics::TensorLayout& layout,
                                                                           std::size_t workers,
                                                                           const numerics::Hyper& hyper,
                                                                           const numerics::CompressionKernels& kernels)
{
  for (const auto& [k, _] : hyper)
    if (!optimizer_key(k))
      throw std::invalid_argument("unknown optimizer parameter '" + k + "'");
  numerics::adam_variant_of(hyper); // a bad variant fails here, not at the first step
  numerics::momentum_mask_of(hyper);
  std::size_t n = 0;
  for (const auto& t : layout)
    n = std::max(n, t.offset + t.size);
  const auto* algo = find_algorithm(name);
  if (algo != nullptr && algo->optimizer != nullptr)
    return algo->optimizer(OptimizerArgs{name, layout, n, workers, hyper, kernels});
  std::string names;
  for (const auto& info : optimizer_algorithm_infos())
    names += (names.empty() ? "" : ", ") + info.name;
  throw std::invalid_argument("no numeric update for '" + name + "' (trainable: " + names + ")");
}

} // namespace ccsim::algorithms
