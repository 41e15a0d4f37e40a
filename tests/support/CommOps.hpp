#pragma once
// Test helper: the collectives of one phase of a plan, in order (its kernels and optimizer step left out).

#include "sim/model/CommPlan.hpp"

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

} // namespace ccsim::test
