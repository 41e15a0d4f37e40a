// Sparse plans. SLAMB's volume relative to LAMB is k + 1/H (9.1x less at k = 0.1, H = 100, SLAMB §5.1).
#include "algorithms/sparse/SparsePlan.hpp"

#include "algorithms/PlanHelpers.hpp"

#include <cmath>

namespace ccsim::algorithms {

// The defaults are the papers' and the updates' alike: k = 0.1 and H = 100 (SLAMB §5.1; numerics::Slamb).
ParamSpec sparse_fraction_param()
{
  return {"k", 0.1, "fraction of coordinates communicated", {1e-6, 1}};
}

ParamSpec model_average_interval_param()
{
  return {"H", 100, "SLAMB: steps between model averages", {1, 1e9}, true};
}

SparsePlan::SparsePlan(std::string name, SparseKind kind) : name_(std::move(name)), kind_(kind)
{
}

std::vector<ParamSpec> SparsePlan::param_specs() const
{
  std::vector<ParamSpec> specs = {sparse_fraction_param(), grad_bytes_param()};
  if (kind_ == SparseKind::SLAMB)
    specs.push_back(model_average_interval_param());
  return specs;
}

sim::StepPlan SparsePlan::plan(const sim::StepShape& s, const ParamValues& p) const
{
  const double k            = checked(p, "k", 1e-6, 1);
  const double value_bytes  = grad_bytes(p, s);
  const auto selected       = static_cast<std::uint64_t>(std::ceil(k * static_cast<double>(s.params_per_rank)));
  const std::uint64_t fp32  = 4ull * s.params_per_rank;

  sim::PhasePlan sparse{"sparse", 1.0, {}, std::nullopt};
  if (kind_ == SparseKind::TOP_K) {
    // Each worker picks its own k largest, so indices travel with the values (int32) and the sets differ:
    // an all-gather of every worker's (value, index) pairs, then a local scatter-add.
    sparse.ops.push_back(kernel("topk", fp32));
    sparse.ops.push_back(collective("allgather top-k values+indices", sim::Collective::ALL_GATHER,
                                    sim::GroupKind::DATA_PARALLEL,
                                    static_cast<std::uint64_t>(selected * (value_bytes + 4)) * s.dp));
  } else {
    // Shared seed: every worker draws the same mask, so no indices are sent and a dense all-reduce of the
    // k·P gathered values suffices (SLAMB appendix E).
    sparse.ops.push_back(kernel("randk_gather", fp32));
    sparse.ops.push_back(collective("allreduce masked momentum", sim::Collective::ALL_REDUCE,
                                    sim::GroupKind::DATA_PARALLEL, static_cast<std::uint64_t>(selected * value_bytes)));
  }
  sparse.ops.push_back(optimizer(name_, s.params_per_rank, "lamb"));
  add_model_parallel_work(sparse, s);
  if (kind_ != SparseKind::SLAMB)
    return {{sparse}};

  const double H = checked(p, "H", 1, 1e9);
  sim::StepPlan plan;
  if (H > 1) {
    sparse.fraction = 1 - 1 / H;
    plan.phases.push_back(sparse);
  }
  // Every H-th step also averages the full model (SLAMB Algorithm 1, line 15).
  sim::PhasePlan sync = sparse;
  sync.name     = "sync";
  sync.fraction = 1 / H;
  sync.ops.push_back(collective("allreduce model (average)", sim::Collective::ALL_REDUCE, sim::GroupKind::DATA_PARALLEL,
                                static_cast<std::uint64_t>(value_bytes * s.params_per_rank)));
  plan.phases.push_back(sync);
  return plan;
}

} // namespace ccsim::algorithms
