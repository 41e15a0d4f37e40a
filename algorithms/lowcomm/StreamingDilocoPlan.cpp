// Streaming DiLoCo's plan: one fragment's outer gradient every H/P steps, beside the next τ steps.
#include "algorithms/lowcomm/StreamingDilocoPlan.hpp"

#include "algorithms/PlanHelpers.hpp"
#include "algorithms/lowcomm/DilocoPlan.hpp"
#include "numerics/StreamingDiloco.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ccsim::algorithms {

ParamSpec fragments_param()
{
  return {"fragments", 0, "Streaming DiLoCo: fragments sent in turn (0: 3 transformer blocks each)", {0, 1e6}, true};
}

ParamSpec overlap_steps_param()
{
  return {"overlap_steps", 1, "Streaming DiLoCo: inner steps each exchange runs beside (tau)", {0, 1e9}, true};
}

ParamSpec outer_bits_param()
{
  return {"outer_bits", 4, "Streaming DiLoCo: bits per outer-gradient value on the wire (4: E3M0; train: 4 or 32)",
          {1, 32}, true};
}

std::vector<ParamSpec> StreamingDilocoPlan::param_specs() const
{
  return {inner_steps_param(100), fragments_param(), overlap_steps_param(), outer_bits_param(),
          outer_in_backward_param()};
}

sim::StepPlan StreamingDilocoPlan::plan(const sim::StepShape& s, const ParamValues& p) const
{
  const double H   = checked(p, "inner_steps", 1, 1e9);
  const double tau = checked(p, "overlap_steps", 0, 1e9);
  const double bits = checked(p, "outer_bits", 1, 32);
  const auto P     = static_cast<double>(
      numerics::streaming_fragment_count(static_cast<long>(checked(p, "fragments", 0, 1e6)), s.layers));
  if (P > H)
    throw std::invalid_argument("Streaming DiLoCo sends one fragment a step at most: fragments (" +
                                std::to_string(static_cast<long>(P)) + ") must not exceed inner_steps");
  if (tau >= H)
    throw std::invalid_argument("Streaming DiLoCo's overlap_steps must be below inner_steps (tau < H)");
  const double fragment = static_cast<double>(s.params_per_rank) / P;

  sim::PhasePlan inner{"inner", 1 - P / H, {}, std::nullopt};
  inner.ops.push_back(optimizer(name_, s.params_per_rank, "adam")); // the inner AdamW step
  add_model_parallel_work(inner, s);

  // A sending step: the fragment's outer gradient and its E3M0 rounding (read θ and θ_w, write the codes), the
  // exchange beside the next τ steps, then the outer step and the mixing (read θ, Δ, the momentum and θ_w; write
  // θ, the momentum and θ_w).
  sim::PhasePlan sync = inner;
  sync.name           = "sync";
  sync.fraction       = P / H;
  sync.ops.push_back(synchronisation_kernel("diloco_outer_gradient", static_cast<std::uint64_t>(12 * fragment)));
  auto exchange = collective("allreduce fragment outer gradient", sim::Collective::ALL_REDUCE,
                             sim::GroupKind::DATA_PARALLEL, static_cast<std::uint64_t>(std::ceil(bits / 8 * fragment)));
  exchange.overlap_steps    = static_cast<int>(tau);
  exchange.overlap_backward = checked(p, "outer_in_backward", 0, 1) > 0;
  // Fragment p holds layers p, p + P, ... (strided): in the backward pass its lowest layer, p, finishes at (L - p) / L
  // of it. One phase stands for every fragment, at their mean, 1 - (P - 1) / 2L.
  const double layers      = std::max(1.0, static_cast<double>(s.layers) / std::max(1, s.pp));
  exchange.backward_ready = std::clamp(1 - (P - 1) / (2 * layers), 0.0, 1.0);
  sync.ops.push_back(exchange);
  sync.ops.push_back(synchronisation_kernel("diloco_outer_step", static_cast<std::uint64_t>(28 * fragment)));

  sim::StepPlan plan;
  if (P < H)
    plan.phases.push_back(inner);
  plan.phases.push_back(sync);
  return plan;
}

} // namespace ccsim::algorithms
