// Dense data-parallel plan.
#include "algorithms/dense/DensePlan.hpp"

#include "algorithms/PlanHelpers.hpp"

namespace ccsim::algorithms {

DensePlan::DensePlan(std::string name, std::string optimizer) : name_(std::move(name)), optimizer_(std::move(optimizer))
{
}

std::vector<ParamSpec> DensePlan::param_specs() const
{
  return {grad_bytes_param()};
}

sim::StepPlan DensePlan::plan(const sim::StepShape& s, const ParamValues& p) const
{
  const auto bytes = static_cast<std::uint64_t>(grad_bytes(p, s) * s.params_per_rank);
  sim::PhasePlan phase{"dense", 1.0, {}, std::nullopt};
  phase.ops.push_back(
      under_backward(collective("allreduce gradients", sim::Collective::ALL_REDUCE, sim::GroupKind::DATA_PARALLEL, bytes)));
  phase.ops.push_back(optimizer(optimizer_, s.params_per_rank));
  add_model_parallel_work(phase, s);
  return {{phase}};
}

} // namespace ccsim::algorithms
