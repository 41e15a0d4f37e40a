#pragma once
// Streaming DiLoCo's communication (Douillard et al. 2025): P fragments, each sent once every H steps at its own
// offset, so P of every H steps send 1/P of the model's outer gradient, in E3M0 (4 bits a value, §2.4), beside the
// compute of the next τ steps (§2.3; sim::CommOp::overlap_steps). Phases "inner" (1 - P/H) and "sync" (P/H), as
// numerics::StreamingDiloco names its steps.

#include "algorithms/PlanAlgorithm.hpp"

namespace ccsim::algorithms {

/// fragments: P; 0 takes the paper's fragments of 3 transformer blocks (§3.3.1), at least one.
ParamSpec fragments_param();
/// overlap_steps: τ, the inner steps an exchange runs beside (§3.3.2: 1 in the main experiments).
ParamSpec overlap_steps_param();
/// outer_bits: bits per outer-gradient value on the wire, 4 (E3M0) by default.
ParamSpec outer_bits_param();

class StreamingDilocoPlan : public NamedPlan {
public:
  using NamedPlan::NamedPlan;
  std::vector<ParamSpec> param_specs() const override;
  sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const override;
};

} // namespace ccsim::algorithms
