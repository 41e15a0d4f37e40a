// One table from algorithm name to optimizer: the factory looks names up in it and the update registry lists it, so
// a data-parallel algorithm is added in one line.
#include "algorithms/OptimizerFactory.hpp"

#include "numerics/LayerwiseOptimizers.hpp"
#include "numerics/MomentumMask.hpp"
#include "numerics/Optimizers.hpp"

#include <algorithm>
#include <stdexcept>

namespace ccsim::algorithms {

namespace {
using numerics::CompressionKernels;
using numerics::Hyper;
using numerics::TensorLayout;
using OptimizerPtr = std::unique_ptr<numerics::DistributedOptimizer>;

/// What every maker gets: the algorithm's name, the layout, the parameter count n (the layout's end), the workers.
struct MakeArgs {
  const std::string& name;
  const TensorLayout& layout;
  std::size_t n;
  std::size_t workers;
  const Hyper& hyper;
  const CompressionKernels& kernels;
};

struct OptimizerEntry {
  const char* name;
  const char* description; // "" where the plan registry describes the algorithm
  OptimizerPtr (*make)(const MakeArgs&);
};

OptimizerPtr make_dense(const MakeArgs& a)
{
  return std::make_unique<numerics::DenseOptimizer>(a.name, a.layout, a.workers, a.hyper);
}

OptimizerPtr make_onebit_adam(const MakeArgs& a)
{
  return std::make_unique<numerics::OnebitAdam>(a.layout, a.workers, a.hyper, a.kernels);
}

OptimizerPtr make_naive_onebit_adam(const MakeArgs& a)
{
  return std::make_unique<numerics::NaiveOnebitAdam>(a.layout, a.workers, a.hyper, a.kernels);
}

OptimizerPtr make_onebit_lamb(const MakeArgs& a)
{
  return std::make_unique<numerics::OnebitLamb>(a.layout, a.n, a.workers, a.hyper, /*adapt_ratio=*/true, a.kernels);
}

OptimizerPtr make_lamb_basic_onebit(const MakeArgs& a)
{
  return std::make_unique<numerics::OnebitLamb>(a.layout, a.n, a.workers, a.hyper, /*adapt_ratio=*/false, a.kernels);
}

OptimizerPtr make_slamb(const MakeArgs& a)
{
  return std::make_unique<numerics::Slamb>(a.layout, a.n, a.workers, a.hyper, a.kernels);
}

OptimizerPtr make_topk_lamb(const MakeArgs& a)
{
  return std::make_unique<numerics::SparseLamb>(a.layout, a.n, a.workers, a.hyper, /*top_k=*/true, a.kernels);
}

OptimizerPtr make_randk_lamb(const MakeArgs& a)
{
  return std::make_unique<numerics::SparseLamb>(a.layout, a.n, a.workers, a.hyper, /*top_k=*/false, a.kernels);
}

const std::vector<OptimizerEntry>& optimizer_table()
{
  static const std::vector<OptimizerEntry> table = {
      {"sgd", "momentum SGD on averaged gradients (train only)", make_dense},
      {"adam", "", make_dense},
      {"lamb", "", make_dense},
      {"onebit-adam", "", make_onebit_adam},
      {"naive-1bit-adam", "", make_naive_onebit_adam},
      {"onebit-lamb", "", make_onebit_lamb},
      {"lamb-basic-1bit", "", make_lamb_basic_onebit},
      {"slamb", "", make_slamb},
      {"topk-lamb", "", make_topk_lamb},
      {"randk-lamb", "", make_randk_lamb},
  };
  return table;
}
} // namespace

std::vector<AlgorithmInfo> optimizer_algorithm_infos()
{
  std::vector<AlgorithmInfo> infos;
  for (const auto& e : optimizer_table())
    infos.push_back({e.name, e.description, /*simulates=*/false, /*trains=*/true});
  return infos;
}

std::unique_ptr<numerics::DistributedOptimizer> make_distributed_optimizer(const std::string& name,
                                                                           const TensorLayout& layout,
                                                                           std::size_t workers, const Hyper& hyper,
                                                                           const CompressionKernels& kernels)
{
  static const std::vector<std::string> keys = {"lr",    "beta1", "beta2",       "beta3",   "eps", "weight_decay",
                                                "bias_correction", "c_min", "c_max", "freeze_step", "r_min", "r_max",
                                                "r_threshold", "k", "H", "seed", "adam_variant", "momentum_mask",
                                                "compression_unit"};
  for (const auto& [k, _] : hyper)
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      throw std::invalid_argument("unknown optimizer parameter '" + k + "'");
  numerics::adam_variant_of(hyper); // a bad variant fails here, not at the first step
  numerics::momentum_mask_of(hyper);
  std::size_t n = 0;
  for (const auto& t : layout)
    n = std::max(n, t.offset + t.size);
  const auto& table = optimizer_table();
  const auto entry  = std::find_if(table.begin(), table.end(), [&](const OptimizerEntry& e) { return name == e.name; });
  if (entry != table.end())
    return entry->make(MakeArgs{name, layout, n, workers, hyper, kernels});
  std::string names;
  for (const auto& e : table)
    names += (names.empty() ? "" : ", ") + std::string(e.name);
  throw std::invalid_argument("no numeric update for '" + name + "' (trainable: " + names + ")");
}

} // namespace ccsim::algorithms
