// PowerSGD's plan and the sizes of its factors.
#include "algorithms/lowcomm/PowerSgdPlan.hpp"

#include "algorithms/PlanHelpers.hpp"
#include "sim/model/TransformerArchitecture.hpp"

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
  const auto total = static_cast<double>(s.params_per_rank);
  const double tp  = std::max(1, s.tp);
  double h         = s.hidden;
  double layers    = static_cast<double>(s.layers) / std::max(1, s.pp);
  LowRankSplit layer;
  if (s.architecture) {
    const auto& a        = *s.architecture;
    h                    = static_cast<double>(a.hidden);
    layers               = static_cast<double>(a.layers) / std::max(1, s.pp);
    const double q       = static_cast<double>(a.query_width()), kv = static_cast<double>(a.kv_width());
    const double ffn     = static_cast<double>(a.ffn_hidden);
    const double up      = a.activation == sim::Activation::SWIGLU ? 2 * ffn : ffn; // fused gate + up
    const double experts = a.moe() ? std::max(1.0, static_cast<double>(a.experts) / std::max(1, s.ep)) : 1.0;
    add_matrices(layer, (q + 2 * kv) / tp, h, rank, 1);
    add_matrices(layer, h, q / tp, rank, 1);
    add_matrices(layer, up / tp, h, rank, experts);
    add_matrices(layer, h, ffn / tp, rank, experts);
    if (a.moe())
      add_matrices(layer, static_cast<double>(a.experts), h, rank, 1); // the router
    add_vectors(layer, static_cast<double>(sim::parameter_counts(a).norms_per_layer), 1);
    if (a.linear_bias)
      add_vectors(layer, (q + 2 * kv) / tp + h + experts * (up / tp + h), 1);
  } else if (h > 0 && layers > 0) {
    add_matrices(layer, 3 * h / tp, h, rank, 1);
    add_matrices(layer, h, h / tp, rank, 1);
    add_matrices(layer, 4 * h / tp, h, rank, 1);
    add_matrices(layer, h, 4 * h / tp, rank, 1);
    add_vectors(layer, 13 * h, 1); // QKV, projection, fc1 and fc2 biases (3h + h + 4h + h), two LayerNorms (4h)
  } else {
    // No shape at all: the parameters as `tensors` square matrices.
    const double tensors = std::max(1, s.tensors);
    const double side    = std::sqrt(total / tensors);
    add_matrices(split, side, side, rank, tensors);
    return split;
  }
  add_layers(split, layer, layers);
  // The rest of the rank's parameters (embeddings, output head, final norm) as matrices of h columns.
  const double rest = total - split.covered;
  if (rest > 0 && h > 0)
    add_matrices(split, rest / h, h, rank, 1);
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
