// Compressed-allreduce plan. Byte counts come from numerics::OnebitLayout, the same type the in-memory
// CompressedAllreduce uses, so what is simulated is what the kernels pack.
#include "algorithms/onebit/OnebitPlan.hpp"

#include "algorithms/PlanHelpers.hpp"
#include "numerics/OnebitLayout.hpp"

namespace ccsim::algorithms {

OnebitPlan::OnebitPlan(std::string name, std::string optimizer, double warmup_default)
    : name_(std::move(name)), optimizer_(std::move(optimizer)), warmup_default_(warmup_default)
{
}

std::vector<ParamSpec> OnebitPlan::param_specs() const
{
  std::vector<ParamSpec> specs = {grad_bytes_param()};
  if (warmup_default_ >= 0)
    specs.push_back({"warmup_fraction", warmup_default_, "share of steps in the uncompressed warm-up", {0, 1}});
  return specs;
}

std::vector<sim::Op> onebit_allreduce_ops(const numerics::OnebitLayout& layout)
{
  const std::uint64_t fp32_bytes = layout.input_bytes();
  std::vector<sim::Op> ops;
  // Worker side: error feedback + scale + sign packing over the padded fp32 momentum.
  ops.push_back(kernel("onebit_compress", fp32_bytes));
  ops.push_back(collective("alltoall momentum signs", sim::Collective::ALL_TO_ALL, sim::GroupKind::DATA_PARALLEL,
                           layout.alltoall_bytes()));
  ops.push_back(collective("allgather worker scales", sim::Collective::ALL_GATHER, sim::GroupKind::DATA_PARALLEL,
                           layout.scales_bytes()));
  // Server side: unpack the W received chunks (N values in all), average, error feedback, re-pack its chunk.
  ops.push_back(kernel("onebit_decompress", fp32_bytes));
  ops.push_back(kernel("onebit_compress", fp32_bytes / layout.workers()));
  ops.push_back(collective("allgather server signs", sim::Collective::ALL_GATHER, sim::GroupKind::DATA_PARALLEL,
                           layout.allgather_bytes()));
  ops.push_back(collective("allgather server scales", sim::Collective::ALL_GATHER, sim::GroupKind::DATA_PARALLEL,
                           layout.scales_bytes()));
  ops.push_back(kernel("onebit_decompress", fp32_bytes));
  return ops;
}

sim::StepPlan OnebitPlan::plan(const sim::StepShape& s, const ParamValues& p) const
{
  const double warmup = warmup_default_ >= 0 ? checked(p, "warmup_fraction", 0, 1) : 0.0;
  const numerics::OnebitLayout layout(s.params_per_rank, static_cast<std::size_t>(s.dp));

  sim::StepPlan plan;
  if (warmup > 0) {
    sim::PhasePlan w{"warmup", warmup, {}, std::nullopt};
    w.ops.push_back(under_backward(collective("allreduce gradients", sim::Collective::ALL_REDUCE,
                                              sim::GroupKind::DATA_PARALLEL,
                                              static_cast<std::uint64_t>(grad_bytes(p, s) * s.params_per_rank))));
    w.ops.push_back(optimizer(optimizer_, s.params_per_rank));
    add_model_parallel_work(w, s);
    plan.phases.push_back(w);
  }
  if (warmup < 1) {
    sim::PhasePlan c{"compressed", 1 - warmup, onebit_allreduce_ops(layout), std::nullopt};
    // The compressed-stage update is its own optimizer (SLAMB Table 9 times 1-bit LAMB separately from LAMB).
    c.ops.push_back(optimizer(name_, s.params_per_rank, optimizer_));
    add_model_parallel_work(c, s);
    plan.phases.push_back(c);
  }
  return plan;
}

} // namespace ccsim::algorithms
