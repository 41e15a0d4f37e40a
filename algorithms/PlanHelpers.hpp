#pragma once
// Small builders shared by the communication plans, so every plan reads the same way.

#include "algorithms/PlanAlgorithm.hpp"

#include <stdexcept>
#include <string>

namespace ccsim::algorithms {

inline sim::CommOp collective(std::string label, sim::Collective c, sim::GroupKind g, std::uint64_t bytes,
                              bool synchronisation = true)
{
  sim::CommOp op{std::move(label), c, g, bytes};
  op.synchronisation = synchronisation;
  return op;
}

inline sim::KernelOp kernel(std::string name, std::uint64_t bytes)
{
  return sim::KernelOp{std::move(name), bytes};
}

/// The optimizer step; `fallback` names the measured optimizer to use when `name` has no measurement.
inline sim::OptimizerOp optimizer(std::string name, std::uint64_t params, std::string fallback = "")
{
  return sim::OptimizerOp{std::move(name), std::move(fallback), params};
}

/// A --param value that must lie in [lo, hi]. simulate checks every value against its ParamSpec first; this is the
/// plan's own guard for direct callers (NaN fails too), reported as std::invalid_argument.
inline double checked(const ParamValues& p, const std::string& key, double lo, double hi)
{
  const double v = p.at(key);
  if (!(v >= lo && v <= hi))
    throw std::invalid_argument(key + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

/// The --param grad_bytes value, or the workload's own (StepShape::grad_bytes) when it is 0.
inline double grad_bytes(const ParamValues& p, const sim::StepShape& s)
{
  const double v = checked(p, "grad_bytes", 0, 8);
  return v > 0 ? v : s.grad_bytes;
}

/// Model parallelism inside one data-parallel replica, added to every phase of a non-pipeline algorithm:
/// - Megatron tensor parallelism: 2 all-reduces of the layer's activations forward and 2 backward per layer
///   (Shoeybi et al. 2019, §3), bf16, for every micro-batch of the step.
/// - Pipeline parallelism (pp > 1): the step's micro-batches flow through the pp stages, each boundary carrying one
///   micro-batch's bf16 activations forward and their gradients backward (micro_batch x seq x hidden x 2 bytes).
///   The engine runs it as GPipe; Megatron's 1F1B schedule has the same bubble, (pp - 1)(f + b) per step
///   (Narayanan et al. 2021, §2.2), and only holds fewer activations. The data-parallel ops follow the flush.
inline void add_model_parallel_work(sim::PhasePlan& phase, const sim::StepShape& s)
{
  if (s.pp > 1 && !phase.pipeline) {
    const std::uint64_t activations = 2ull * s.micro_batch * static_cast<std::uint64_t>(s.seq_len) * s.hidden;
    phase.pipeline = sim::PipelineComm{activations, activations, {}};
  }
  if (s.tp < 2)
    return;
  const std::uint64_t per_micro_batch =
      4ull * s.layers / static_cast<std::uint64_t>(s.pp) * s.micro_batch * s.seq_len * s.hidden * 2;
  phase.ops.insert(phase.ops.begin(), collective("tensor-parallel activations", sim::Collective::ALL_REDUCE,
                                                 sim::GroupKind::TENSOR_PARALLEL,
                                                 per_micro_batch * s.grad_accumulation, /*synchronisation=*/false));
}

} // namespace ccsim::algorithms
