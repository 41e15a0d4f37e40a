#pragma once
// DiLoCo's communication (Douillard et al. 2023, Algorithm 1): H inner steps with no data-parallel traffic, then one
// all-reduce of the outer gradient (the parameter change since the last outer step) and the outer Nesterov step.
// Two phases: "inner" (1 - 1/H of the steps) and "outer" (1/H), which time-to-accuracy prices step by step
// (numerics::Diloco names each step's phase the same way).

#include "algorithms/PlanAlgorithm.hpp"

namespace ccsim::algorithms {

/// inner_steps: H, the inner steps per outer step, for `ccsim simulate` and `ccsim train` alike; `default_value`
/// DiLoCo's 500 (§3) or Streaming DiLoCo's 100 (§3).
ParamSpec inner_steps_param(double default_value);
/// outer_lr: the outer Nesterov step's rate, DiLoCo's 0.7 or Streaming DiLoCo's 0.4 (§3.2).
ParamSpec outer_lr_param(double default_value);
/// outer_momentum: its momentum, 0.9 in both (DiLoCo §3; Streaming DiLoCo keeps DiLoCo's).
ParamSpec outer_momentum_param();
/// outer_in_backward: whether the outer gradient leaves layer by layer in the sending step's backward pass (1; with
/// the workload's bucketed overlap) or after the step (0, the default: the reference implementations' order).
ParamSpec outer_in_backward_param();

class DilocoPlan : public NamedPlan {
public:
  using NamedPlan::NamedPlan;
  std::vector<ParamSpec> param_specs() const override;
  sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const override;
};

} // namespace ccsim::algorithms
