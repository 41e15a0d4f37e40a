// PowerSGD's plan and the sizes of its factors.
#include "algorithms/lowcomm/PowerSgdPlan.hpp"

#include "algorithms/PlanHelpers.hpp"
#include "algorithms/lowcomm/RankMatrices.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::algorithms {

ParamSpec powersgd_rank_param()
{
  return {"rank", 2, "PowerSGD: rank of the gradient's factors", {1, 1024}, true};
}

namespace {
/// powerSGD_hook's min_compression_rate: a matrix is factored only where that shrinks it twice over.
constexpr double kMinCompressionRate = 2;

/// Adds `count` n x m matrices to the split, factored or whole as the hook's _should_compress decides.
void add_matrices(LowRankSplit& split, double n, double m, double rank, double count)
{
  if (n <= 0 || m <= 0 || count <= 0)
    return;
  const double r = std::min({n, m, rank});
  if ((n + m) * r * kMinCompressionRate < n * m) {
    split.p += count * n * r;
    split.q += count * m * r;
  } else {
    split.uncompressed += count * n * m;
  }
  split.covered += count * n * m;
}

/// Adds `count` vectors of n values, always whole.
void add_vectors(LowRankSplit& split, double n, double count)
{
  split.uncompressed += count * n;
  split.covered += count * n;
}

/// `layer` counted `layers` times into `split`.
void add_layers(LowRankSplit& split, const LowRankSplit& layer, double layers)
{
  split.p += layers * layer.p;
  split.q += layers * layer.q;
  split.uncompressed += layers * layer.uncompressed;
  split.covered += layers * layer.covered;
}
} // namespace

LowRankSplit low_rank_split(const sim::StepShape& s, double rank)
{
  LowRankSplit split;
  const auto total       = static_cast<double>(s.params_per_rank);
  const RankMatrices rm  = rank_matrices(s);
  if (rm.shapeless) { // the parameters as `tensors` square matrices
    const double tensors = std::max(1, s.tensors);
    const double side    = std::sqrt(total / tensors);
    add_matrices(split, side, side, rank, tensors);
    return split;
  }
  LowRankSplit layer;
  for (const auto& t : rm.layer) {
    if (t.vector())
      add_vectors(layer, t.rows, t.count);
    else
      add_matrices(layer, t.rows, t.cols, rank, t.count);
  }
  add_layers(split, layer, rm.layers);
  // The rest of the rank's parameters (embeddings, output head, final norm) as matrices of h columns.
  const double rest = total - split.covered;
  if (rest > 0 && rm.hidden > 0)
    add_matrices(split, rest / rm.hidden, rm.hidden, rank, 1);
  return split;
}

std::vector<ParamSpec> PowerSgdPlan::param_specs() const
{
  return {powersgd_rank_param(), grad_bytes_param()};
}

sim::StepPlan PowerSgdPlan::plan(const sim::StepShape& s, const ParamValues& p) const
{
  const double rank        = checked(p, "rank", 1, 1024);
  const double value_bytes = grad_bytes(p, s);
  const LowRankSplit split = low_rank_split(s, rank);
  const std::uint64_t fp32 = 4ull * s.params_per_rank;
  const auto bytes         = [&](double values) { return static_cast<std::uint64_t>(std::ceil(values * value_bytes)); };

  sim::PhasePlan phase{"compressed", 1.0, {}, std::nullopt};
  // The hook's order: error feedback (read g and e, write M) and P = M Q (read M); the whole tensors' all-reduce;
  // every P; Q = Mᵀ P (read M); every Q; P Qᵀ written back and the new error M - P Qᵀ (read M and P Qᵀ,
  // write e).
  phase.ops.push_back(synchronisation_kernel("powersgd_compress", 4 * fp32));
  if (split.uncompressed > 0)
    phase.ops.push_back(collective("allreduce uncompressed tensors", sim::Collective::ALL_REDUCE,
                                   sim::GroupKind::DATA_PARALLEL, bytes(split.uncompressed)));
  phase.ops.push_back(
      collective("allreduce P factors", sim::Collective::ALL_REDUCE, sim::GroupKind::DATA_PARALLEL, bytes(split.p)));
  phase.ops.push_back(synchronisation_kernel("powersgd_project", fp32));
  phase.ops.push_back(
      collective("allreduce Q factors", sim::Collective::ALL_REDUCE, sim::GroupKind::DATA_PARALLEL, bytes(split.q)));
  phase.ops.push_back(synchronisation_kernel("powersgd_decompress", 4 * fp32));
  phase.ops.push_back(optimizer(name_, s.params_per_rank, "adam"));
  add_model_parallel_work(phase, s);
  return {{phase}};
}

} // namespace ccsim::algorithms
