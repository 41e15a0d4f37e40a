#pragma once
// What the step engine charges for the work that is not communication: a micro-batch's forward and backward, a
// compression kernel, an optimizer step — each from the workload's measurements for this GPU when it has them, else
// from the GPU's rates (sustained FLOP/s, kernel GB/s, memory bandwidth).

#include "sim/model/CommPlan.hpp"
#include "sim/platform/Topology.hpp"
#include "sim/model/Workload.hpp"

#include <string>

namespace ccsim::sim {

/// Compute of one micro-batch on one GPU (its tensor/pipeline share).
struct ComputeTimes {
  double forward_s = 0;
  double backward_s = 0;
  std::string source; // "profile: <source>" or "flops: ..."
};

/// The workload's profile for this GPU, micro-batch, sequence length and tp if there is one; else FLOPs over
/// the GPU's sustained rate, split 1/3 forward, 2/3 backward. Divided over pipeline stages.
ComputeTimes compute_times(const Topology& topo, const Workload& workload, const StepShape& shape);

/// Seconds of the optimizer update of `op` on one GPU.
double optimizer_seconds(const Topology& topo, const Workload& workload, const OptimizerOp& op);

/// Seconds of the compression kernel `op` on one GPU: its input bytes over the GPU's rate for that kernel.
double kernel_seconds(const Topology& topo, const KernelOp& op);

} // namespace ccsim::sim
