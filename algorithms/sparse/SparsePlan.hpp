#pragma once
// Sparsified communication with LAMB: SLAMB (a random-k mask shared by all workers, so the k·P masked values
// are all-reduced densely, plus a full model average every H steps: SLAMB Algorithm 1, §4.1) and the naive
// top-k / random-k LAMB baselines.

#include "algorithms/PlanAlgorithm.hpp"

namespace ccsim::algorithms {

enum class SparseKind { SLAMB, RANDOM_K, TOP_K };

/// The keys `ccsim simulate` and `ccsim train` both take, declared once: the plan prices them, the update
/// (numerics::Slamb, numerics::SparseLamb) runs them, each at the same default.
/// k: the fraction of coordinates communicated per step (every sparsifier).
ParamSpec sparse_fraction_param();
/// H: SLAMB's steps between full model averages (SLAMB Algorithm 1, line 15).
ParamSpec model_average_interval_param();

class SparsePlan : public PlanAlgorithm {
public:
  SparsePlan(std::string name, SparseKind kind);
  std::string name() const override { return name_; }
  std::vector<ParamSpec> param_specs() const override;
  sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const override;

private:
  std::string name_;
  SparseKind kind_;
};

} // namespace ccsim::algorithms
