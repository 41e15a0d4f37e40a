#pragma once
// 1-bit Adam / 1-bit LAMB and their naive baselines: an uncompressed warm-up (which freezes Adam's variance)
// followed by the compressed allreduce of the momentum — alltoall of packed signs, server average with
// error feedback, allgather of server signs (1-bit Adam §6, Fig. 3; 1-bit LAMB §5).

#include "algorithms/PlanAlgorithm.hpp"
#include "numerics/OnebitLayout.hpp"

namespace ccsim::algorithms {

/// The compressed allreduce of `layout` on the data-parallel group (1-bit Adam §6, Fig. 3): compress, alltoall of
/// packed signs + allgather of worker scales, server decompress/average/re-compress, allgather of server signs and
/// scales, decompress. Sizes from numerics::OnebitLayout; `ccsim collective --op onebit_allreduce` replays it too.
std::vector<sim::Op> onebit_allreduce_ops(const numerics::OnebitLayout& layout);

class OnebitPlan : public PlanAlgorithm {
public:
  /// `warmup_default` < 0: the algorithm has no warm-up (naive 1-bit Adam compresses from step 0).
  OnebitPlan(std::string name, std::string optimizer, double warmup_default);
  std::string name() const override { return name_; }
  std::vector<ParamSpec> param_specs() const override;
  sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const override;

private:
  std::string name_;
  std::string optimizer_;
  double warmup_default_;
};

} // namespace ccsim::algorithms
