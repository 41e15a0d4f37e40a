#pragma once
// What the step engine charges for the work that is not communication: a micro-batch's forward and backward, a
// compression kernel, an optimizer step — each from the workload's measurements for this GPU when it has them, else
// from the GPU's rates: one sustained FLOP/s where the topology sets it (gpu.sustained_tflops), otherwise the
// per-operator model (sim/compute/OperatorCost.hpp) from the GPU's compute block.

#include "sim/compute/OperatorCost.hpp"
#include "sim/model/CommPlan.hpp"
#include "sim/platform/Topology.hpp"
#include "sim/model/Workload.hpp"

#include <optional>
#include <string>

namespace ccsim::sim {

/// Compute of one micro-batch on one GPU (its tensor/pipeline share).
struct ComputeTimes {
  double forward_s   = 0;
  double backward_s  = 0; // without recomputation
  double recompute_s = 0; // what activation recomputation adds to each backward pass (StepShape::recompute)
  std::string source;     // "profile: <source>", "flops: ..." or "operators: ..."
  /// The per-operator model's account of the micro-batch (one layer's kernels, the stages), when it priced the run.
  std::optional<ModelCompute> operators;
  Precision precision = Precision::BF16; // the GEMMs' format (the per-operator model only)
  /// One layer's attention core on this rank per micro-batch, forward and backward (its queries against the whole
  /// sequence): context parallelism's K,V ring runs beside its cp steps (sim/model/CommPlan.hpp, RingAttention). From
  /// the per-operator model's attention kernels, or their FLOPs at the sustained rate; 0 from a profile.
  double attention_forward_s  = 0;
  double attention_backward_s = 0;
};

/// The workload's profile for this GPU, micro-batch, sequence length and tp if there is one; else FLOPs over the
/// GPU's sustained rate (split 1/3 forward, 2/3 backward) when the topology sets one; else the per-operator model of
/// the workload's architecture (or, without one, of GPT layers of its sizes, scaled to its FLOPs), the pipeline's
/// slowest stage. Recomputation: a full one repeats the forward; a selective one the attention core (its share of the
/// forward FLOPs where the time is not per operator).
ComputeTimes compute_times(const Topology& topo, const Workload& workload, const StepShape& shape);

/// Whether compute_times prices this run per operator (no profile of the workload for it, no sustained rate in the
/// topology, a compute block for the GPU): only then does it know each GEMM's time.
bool priced_per_operator(const Topology& topo, const Workload& workload, const StepShape& shape);

/// The per-operator model's inputs for this run: the GEMMs' format (the workload's defaults.precision, else the GPU's
/// 16-bit one), the split and the recomputation mode.
ComputeSplit compute_split(const Topology& topo, const Workload& workload, const StepShape& shape);

/// The architecture the per-operator model prices: the workload's, or GPT layers of its hidden size, heads, layers,
/// sequence and vocabulary (4h GELU FFN, LayerNorm, biases, learned positions, dropout, unfused attention).
TransformerArchitecture priced_architecture(const Workload& workload);

/// The rate the workload's training stack runs its kernels at, as a share of Megatron-LM's, on which the per-operator
/// constants were fitted: 1 for Megatron-LM, else the GPU's gpu.compute.framework_efficiency for the stack; throws
/// io::InputError naming the topology's file and that key where the GPU has none. Needs a compute block.
double framework_efficiency(const Topology& topo, const Workload& workload);

/// Seconds of the optimizer update of `op` on one GPU.
double optimizer_seconds(const Topology& topo, const Workload& workload, const OptimizerOp& op);

/// Seconds of the compression kernel `op` on one GPU: its input bytes over the GPU's rate for that kernel.
double kernel_seconds(const Topology& topo, const KernelOp& op);

} // namespace ccsim::sim
