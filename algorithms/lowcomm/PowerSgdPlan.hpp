#pragma once
// PowerSGD's communication (Vogels et al. 2019 §3; PyTorch's powerSGD_hook): per step, three all-reduces of the
// gradient dtype (the uncompressed vectors and small matrices, every P, every Q) around two products with the
// gradient, then the optimizer. The sizes come from the model's matrices: the workload's architecture where it has
// one, else GPT layers of its hidden size (numerics::PowerSgd sizes the proxies' from their layouts).

#include "algorithms/PlanAlgorithm.hpp"

namespace ccsim::algorithms {

/// rank: the factors' rank r, `ccsim simulate` and `ccsim train` alike (Vogels et al. train ResNet-18 at rank 2).
ParamSpec powersgd_rank_param();

/// What one rank all-reduces per compressed step, in values: the low-rank factors and the tensors left whole.
struct LowRankSplit {
  double p            = 0; // sum over factored n x m matrices of n·r
  double q            = 0; // and of m·r
  double uncompressed = 0; // vectors, and matrices the factors would not shrink min_compression_rate times
  double covered      = 0; // every parameter counted above (the factored matrices' n·m too)
};

/// The split of one rank's parameters (its tp and pp share of the model, as rank_matrices reads them) at rank r,
/// with the hook's min_compression_rate of 2: vectors whole, and the rest of the rank's parameters (embeddings,
/// output head) as matrices of `hidden` columns.
LowRankSplit low_rank_split(const sim::StepShape& shape, double rank);

class PowerSgdPlan : public NamedPlan {
public:
  using NamedPlan::NamedPlan;
  std::vector<ParamSpec> param_specs() const override;
  sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const override;
};

} // namespace ccsim::algorithms
