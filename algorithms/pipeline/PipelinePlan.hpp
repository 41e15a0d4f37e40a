#pragma once
// Pipeline-parallel training over slow links (AQ-SGD): a GPipe schedule whose forward activations and
// backward gradients cross each stage boundary per micro-batch — in fp32, directly quantized (DirectQ), or
// as quantized *changes* against per-example buffers (AQ-SGD §3, Algorithm 1), whose first epoch is
// uncompressed (both sides fill their buffers m(ξ)).

#include "algorithms/PlanAlgorithm.hpp"

namespace ccsim::algorithms {

enum class ActivationComm { FP32, DIRECT_QUANT, DELTA_QUANT };

class PipelinePlan : public PlanAlgorithm {
public:
  PipelinePlan(std::string name, ActivationComm comm);
  std::string name() const override { return name_; }
  Parallelism parallelism() const override { return Parallelism::PIPELINE; }
  std::vector<ParamSpec> param_specs() const override;
  sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const override;

private:
  std::string name_;
  ActivationComm comm_;
};

} // namespace ccsim::algorithms
