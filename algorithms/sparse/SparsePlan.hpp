#pragma once
// Sparsified communication with LAMB: SLAMB (a random-k mask shared by all workers, so the k·P masked values
// are all-reduced densely, plus a full model average every H steps: SLAMB Algorithm 1, §4.1) and the naive
// top-k / random-k LAMB baselines.

#include "algorithms/PlanAlgorithm.hpp"

namespace ccsim::algorithms {

enum class SparseKind { SLAMB, RANDOM_K, TOP_K };

class SparsePlan : public PlanAlgorithm {
public:
  SparsePlan(std::string name, SparseKind kind, std::string description);
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  std::vector<ParamSpec> param_specs() const override;
  sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const override;

private:
  std::string name_;
  SparseKind kind_;
  std::string description_;
};

} // namespace ccsim::algorithms
