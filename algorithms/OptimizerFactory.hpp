#pragma once
// The numeric half of the data-parallel algorithms: a numerics::DistributedOptimizer by algorithm name. The names
// are the first entries of the update registry (algorithms/UpdateRegistry.cpp), which takes them from here; the
// sharded and pipelined algorithms train through their own loops (algorithms/TrainingPaths.hpp).

#include "algorithms/Registry.hpp"

#include "numerics/CompressionKernels.hpp"
#include "numerics/OptimizerTypes.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace ccsim::algorithms {

/// sgd, adam, lamb, onebit-adam, naive-1bit-adam, onebit-lamb, lamb-basic-1bit, slamb, topk-lamb, randk-lamb, in
/// that order, each trainable (numerics/Optimizers.hpp and numerics/LayerwiseOptimizers.hpp hold their classes).
std::vector<AlgorithmInfo> optimizer_algorithm_infos();

/// The optimizer of algorithm `name` for `workers` workers over `layout`. Unknown names, unknown hyper-parameter
/// keys, and an adam_variant or momentum_mask out of range throw std::invalid_argument (before any step).
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
