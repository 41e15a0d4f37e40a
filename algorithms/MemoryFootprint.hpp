#pragma once
// GPU memory one rank needs for a run (issue 14): model states by the algorithm's family and its extra buffers, and
// the micro-batch's activations with and without activation recomputation, all from the workload JSON and the run's
// shape. Counted the way the ZeRO paper (Rajbhandari et al. 2020, §3.1) counts mixed-precision training:
// fp16/bf16 weights and gradients, fp32 master weights, Adam/LAMB moments.

#include "algorithms/PlanAlgorithm.hpp"
#include "sim/model/CommPlan.hpp"
#include "sim/model/Workload.hpp"

#include <algorithm>
#include <string>

namespace ccsim::algorithms {

struct MemoryFootprint {
  double weights_bytes        = 0; // 16-bit weights the forward and backward use
  double gradients_bytes      = 0; // gradient buffer
  double optimizer_bytes      = 0; // fp32 master weights + moments (sharded over dp for sharded algorithms)
  double compression_bytes    = 0; // error feedback and the algorithm's other persistent buffers
  double step_transient_bytes = 0; // buffers that live only during the optimizer step, when activations are freed
  double activations_bytes    = 0; // stored for backward, no recomputation
  double activations_recompute_bytes = 0; // with full activation recomputation (layer inputs kept)
  std::string activations_note;  // how activations were counted (or why they are unknown)

  double states_bytes() const { return weights_bytes + gradients_bytes + optimizer_bytes + compression_bytes; }
  /// The peak: states, plus the larger of the activations (forward and backward) and the optimizer step's
  /// temporaries (the step runs after backward has freed the activations).
  double total_bytes(bool recompute) const
  {
    return states_bytes() + std::max(recompute ? activations_recompute_bytes : activations_bytes, step_transient_bytes);
  }
};

/// The memory one GPU needs to run `algorithm` on `work` with `shape` (tp, pp, dp, micro-batch, accumulation), its
/// extra buffers from its descriptor (AlgorithmDescriptor::memory). std::invalid_argument for a plan whose name no
/// registered algorithm has.
MemoryFootprint memory_footprint(const PlanAlgorithm& algorithm, const sim::Workload& work, const sim::StepShape& shape);

} // namespace ccsim::algorithms
