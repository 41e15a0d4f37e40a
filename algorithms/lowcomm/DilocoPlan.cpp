// DiLoCo's plan: the outer all-reduce amortised over H inner steps.
#include "algorithms/lowcomm/DilocoPlan.hpp"

#include "algorithms/PlanHelpers.hpp"

#include <cmath>

namespace ccsim::algorithms {

ParamSpec inner_steps_param(double default_value)
{
  return {"inner_steps", default_value, "DiLoCo, Streaming DiLoCo: inner steps per outer step (H)", {1, 1e9}, true};
}

ParamSpec outer_lr_param(double default_value)
{
  return {"outer_lr", default_value, "DiLoCo, Streaming DiLoCo: learning rate of the outer Nesterov step", {0, 100}};
}

ParamSpec outer_momentum_param()
{
  return {"outer_momentum", 0.9, "DiLoCo, Streaming DiLoCo: momentum of the outer Nesterov step", {0, 0.999999}};
}

ParamSpec outer_in_backward_param()
{
  return {"outer_in_backward", 0,
          "DiLoCo, Streaming DiLoCo: 1 = each layer's outer gradient leaves in the sending step's backward pass (under "
          "bucketed overlap), as Streaming DiLoCo's simulator draws it; 0 = after the step",
          {0, 1}, true};
}

std::vector<ParamSpec> DilocoPlan::param_specs() const
{
  // The reference implementations all-reduce the outer gradient in fp32 (prime's zeroband/diloco.py keeps an fp32
  // copy of the model for it); INTELLECT-1 sent int8 (1 byte), Streaming DiLoCo 4-bit values (0.5).
  return {inner_steps_param(500),
          {"outer_bytes", 4, "DiLoCo: bytes per outer-gradient value on the wire (fp32 = 4)", {0.0625, 8}},
          outer_in_backward_param()};
}

sim::StepPlan DilocoPlan::plan(const sim::StepShape& s, const ParamValues& p) const
{
  const double H           = checked(p, "inner_steps", 1, 1e9);
  const double outer_bytes = checked(p, "outer_bytes", 0.0625, 8);

  sim::PhasePlan inner{"inner", 1 - 1 / H, {}, std::nullopt};
  inner.ops.push_back(optimizer(name_, s.params_per_rank, "adam")); // the inner AdamW step
  add_model_parallel_work(inner, s);

  // The outer step: Δ = θ - θ_w, its all-reduce, Nesterov (read θ, Δ and the momentum; write θ and the momentum),
  // and θ copied back into the inner model: 6 fp32 accesses per parameter.
  sim::PhasePlan outer = inner;
  outer.name           = "outer";
  outer.fraction       = 1 / H;
  outer.ops.push_back(synchronisation_kernel("diloco_outer_gradient", 12ull * s.params_per_rank));
  const auto bytes = static_cast<std::uint64_t>(std::ceil(outer_bytes * static_cast<double>(s.params_per_rank)));
  auto exchange = collective("allreduce outer gradient", sim::Collective::ALL_REDUCE, sim::GroupKind::DATA_PARALLEL,
                             bytes);
  // The outer gradient of a layer exists once that layer's inner update is applied: after the step, unless the inner
  // optimizer runs layer by layer in the backward pass (Streaming DiLoCo's simulator DAG, §3.1 Fig. 3, reduces each
  // layer's outer gradient beside the backward of the layers below it).
  exchange.overlap_backward = checked(p, "outer_in_backward", 0, 1) > 0;
  outer.ops.push_back(exchange);
  outer.ops.push_back(synchronisation_kernel("diloco_outer_step", 24ull * s.params_per_rank));

  sim::StepPlan plan;
  if (H > 1)
    plan.phases.push_back(inner);
  plan.phases.push_back(outer);
  return plan;
}

} // namespace ccsim::algorithms
