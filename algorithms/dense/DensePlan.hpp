#pragma once
// Uncompressed data parallelism: all-reduce the gradients, then the optimizer (Adam or LAMB).
// The baseline of 1-bit Adam, 1-bit LAMB and SLAMB.

#include "algorithms/PlanAlgorithm.hpp"

namespace ccsim::algorithms {

class DensePlan : public PlanAlgorithm {
public:
  DensePlan(std::string name, std::string optimizer);
  std::string name() const override { return name_; }
  std::vector<ParamSpec> param_specs() const override;
  sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const override;

private:
  std::string name_;
  std::string optimizer_;
};

} // namespace ccsim::algorithms
