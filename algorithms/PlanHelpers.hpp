#pragma once
// Small builders shared by the communication plans, so every plan reads the same way.

#include "algorithms/ModelParallelWork.hpp" // add_model_parallel_work, which every non-pipeline plan calls
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

/// An uncompressed gradient reduction the engine may run in buckets under the last backward pass, where the run's
/// system does (sim::OverlapSettings; docs/overlap.md).
inline sim::CommOp under_backward(sim::CommOp op)
{
  op.overlap_backward = true;
  return op;
}

/// An uncompressed weight all-gather after the optimizer step that the next step's forward pass may prefetch.
inline sim::CommOp prefetchable(sim::CommOp op)
{
  op.prefetch_forward = true;
  return op;
}

inline sim::KernelOp kernel(std::string name, std::uint64_t bytes)
{
  return sim::KernelOp{std::move(name), bytes};
}

/// A kernel of the gradient synchronisation that the algorithm's paper times with its collectives (allreduce_ms).
inline sim::KernelOp synchronisation_kernel(std::string name, std::uint64_t bytes)
{
  sim::KernelOp op{std::move(name), bytes};
  op.synchronisation = true;
  return op;
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

/// simulate's --param grad_bytes of the data-parallel plans: the bytes each gradient value takes on the wire.
inline ParamSpec grad_bytes_param()
{
  // DeepSpeed's fp16 training all-reduces fp16 gradients (1-bit Adam §6: the baseline "uses fp16"); 4 = fp32.
  return {"grad_bytes", 0, "bytes per gradient value on the wire (0 = the workload's recipe: fp16 = 2, fp32 = 4)",
          {0, 8}};
}

/// The --param grad_bytes value, or the workload's own (StepShape::grad_bytes) when it is 0.
inline double grad_bytes(const ParamValues& p, const sim::StepShape& s)
{
  const double v = checked(p, "grad_bytes", 0, 8);
  return v > 0 ? v : s.grad_bytes;
}

} // namespace ccsim::algorithms
