#pragma once
// Test helpers: a registered algorithm's plan at its defaults (with overrides), and the collectives of one phase of a
// plan, in order (its kernels and optimizer step left out).

#include "algorithms/PlanAlgorithm.hpp"
#include "sim/model/CommPlan.hpp"

#include <catch2/catch.hpp>

#include <string>

#include <variant>
#include <vector>

namespace ccsim::test {

inline std::vector<sim::CommOp> comm_ops(const sim::PhasePlan& phase)
{
  std::vector<sim::CommOp> out;
  for (const auto& op : phase.ops)
    if (const auto* c = std::get_if<sim::CommOp>(&op))
      out.push_back(*c);
  return out;
}

/// The plan of registered algorithm `name` for `shape`, at its --param defaults with `overrides` applied.
inline sim::StepPlan plan_of(const std::string& name, const sim::StepShape& shape,
                             const algorithms::ParamValues& overrides = {})
{
  const auto* a = algorithms::find_plan_algorithm(name);
  REQUIRE(a != nullptr);
  algorithms::ParamValues p = algorithms::default_params(*a);
  for (const auto& [k, v] : overrides)
    p[k] = v;
  return a->plan(shape, p);
}

} // namespace ccsim::test
