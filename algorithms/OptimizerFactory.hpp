#pragma once
// The numeric half of the data-parallel algorithms: a numerics::DistributedOptimizer by algorithm name, from the
// maker its descriptor holds (AlgorithmDescriptor::optimizer); the sharded and pipelined algorithms train through
// loops of their own (algorithms/TrainingPaths.hpp).

#include "algorithms/Registry.hpp"

#include "numerics/CompressionKernels.hpp"
#include "numerics/OptimizerTypes.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace ccsim::algorithms {

/// The registered algorithms with an optimizer, in registry order: sgd, adam, lamb, onebit-adam, naive-1bit-adam,
/// onebit-lamb, lamb-basic-1bit, slamb, topk-lamb, randk-lamb (numerics/Optimizers.hpp and
/// numerics/LayerwiseOptimizers.hpp hold their classes), then any registered later.
std::vector<AlgorithmInfo> optimizer_algorithm_infos();

/// The optimizer of algorithm `name` for `workers` workers over `layout`. Unknown names, keys no optimizer reads,
/// and an adam_variant or momentum_mask out of range throw std::invalid_argument (before any step).
/// adam and naive-1bit-adam apply hyper "adam_variant" (an AdamVariant index; apex when absent); onebit-adam's
/// warm-up is DeepSpeed adam.py's own apex-form Adam without bias correction (numerics::OnebitAdam says how its
/// freeze_step counts against DeepSpeed's).
/// The compressors run their kernels on `kernels` (a static set, or one that outlives the optimizer); the dense
/// optimizers compress nothing and call none.
std::unique_ptr<numerics::DistributedOptimizer>
make_distributed_optimizer(const std::string& name, const numerics::TensorLayout& layout, std::size_t workers,
                           const numerics::Hyper& hyper,
                           const numerics::CompressionKernels& kernels = numerics::cpu_kernels());

} // namespace ccsim::algorithms
