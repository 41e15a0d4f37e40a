// Pipeline plans. Message sizes: B·S·H values at fw/bw bits plus one fp16 scale per hidden channel
// (numerics::channel_quantized_bytes, AC-SGD compress/fixpoint.py); fp32 sends 4 bytes per value.
#include "algorithms/pipeline/PipelinePlan.hpp"

#include "algorithms/PlanHelpers.hpp"
#include "numerics/QuantizedSizes.hpp"

namespace ccsim::algorithms {

PipelinePlan::PipelinePlan(std::string name, ActivationComm comm) : name_(std::move(name)), comm_(comm)
{
}

std::vector<ParamSpec> PipelinePlan::param_specs() const
{
  if (comm_ == ActivationComm::FP32)
    return {};
  std::vector<ParamSpec> specs = {{"fw_bits", 4, "bits per forward activation value", {1, 16}, true},
                                  {"bw_bits", 8, "bits per backward gradient value", {1, 16}, true}};
  if (comm_ == ActivationComm::DELTA_QUANT)
    // The paper fine-tunes for 10 epochs (appendix, "Language Modeling") and sends epoch 1 uncompressed.
    specs.push_back({"first_epoch_fraction", 0.1, "share of steps in the uncompressed first epoch", {0, 1}});
  return specs;
}

sim::StepPlan PipelinePlan::plan(const sim::StepShape& s, const ParamValues& p) const
{
  const std::size_t rows     = s.micro_batch * static_cast<std::size_t>(s.seq_len);
  const std::uint64_t fp32   = 4ull * rows * s.hidden;
  auto phase_with = [&](std::string name, double fraction, std::uint64_t fw, std::uint64_t bw, bool kernels) {
    sim::PhasePlan phase{std::move(name), fraction, {}, sim::PipelineComm{fw, bw, {}}};
    if (kernels) // quantize before each send, dequantize (and update m(ξ)) after each receive
      phase.pipeline->kernels_per_micro_batch = {kernel("aq_delta_quant", fp32), kernel("aq_delta_quant", fp32)};
    // Data-parallel replicas (if any) average fp32 gradients of their stage; then each stage's AdamW.
    phase.ops.push_back(under_backward(collective("allreduce gradients", sim::Collective::ALL_REDUCE,
                                                  sim::GroupKind::DATA_PARALLEL, 4ull * s.params_per_rank)));
    phase.ops.push_back(optimizer("adam", s.params_per_rank));
    return phase;
  };
  if (comm_ == ActivationComm::FP32)
    return {{phase_with("fp32", 1.0, fp32, fp32, false)}};

  const int fw_bits = static_cast<int>(checked(p, "fw_bits", 1, 16));
  const int bw_bits = static_cast<int>(checked(p, "bw_bits", 1, 16));
  const auto fw = numerics::channel_quantized_bytes(rows, s.hidden, fw_bits);
  const auto bw = numerics::channel_quantized_bytes(rows, s.hidden, bw_bits);
  if (comm_ == ActivationComm::DIRECT_QUANT)
    return {{phase_with("compressed", 1.0, fw, bw, true)}};

  const double first = checked(p, "first_epoch_fraction", 0, 1);
  sim::StepPlan plan;
  if (first > 0)
    plan.phases.push_back(phase_with("first-epoch", first, fp32, fp32, false));
  if (first < 1)
    plan.phases.push_back(phase_with("compressed", 1 - first, fw, bw, true));
  return plan;
}

} // namespace ccsim::algorithms
