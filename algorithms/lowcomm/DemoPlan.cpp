// DeMo's plan and the coefficients it sends.
#include "algorithms/lowcomm/DemoPlan.hpp"

#include "algorithms/PlanHelpers.hpp"
#include "algorithms/lowcomm/RankMatrices.hpp"
#include "numerics/Demo.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::algorithms {

ParamSpec demo_topk_param()
{
  return {"topk", 32, "DeMo: DCT coefficients sent per chunk (compression_topk)", {1, 1e6}, true};
}

ParamSpec demo_chunk_param()
{
  return {"chunk", 64, "DeMo: the DCT's chunk size per dimension (compression_chunk)", {1, 4096}, true};
}

namespace {
/// The fraction of a rows x cols matrix's values that its chunks send.
double sent_fraction(double rows, double cols, double topk, std::size_t chunk)
{
  const auto size = [](double n) { return static_cast<std::size_t>(std::max(1.0, std::round(n))); };
  const auto cr   = static_cast<double>(numerics::demo_chunk_size(size(rows), chunk));
  const auto cc   = static_cast<double>(numerics::demo_chunk_size(size(cols), chunk));
  return std::min(topk, cr * cc) / (cr * cc);
}
} // namespace

double demo_sent_per_rank(const sim::StepShape& s, double topk, double chunk_size)
{
  const auto chunk      = static_cast<std::size_t>(chunk_size);
  const auto total      = static_cast<double>(s.params_per_rank);
  const RankMatrices rm = rank_matrices(s);
  if (rm.shapeless) { // `tensors` square matrices
    const double tensors = std::max(1, s.tensors);
    const double side    = std::sqrt(total / tensors);
    return total * sent_fraction(side, side, topk, chunk);
  }
  double sent = 0, covered = 0;
  for (const auto& t : rm.layer) {
    const double values = t.vector() ? t.rows : t.rows * t.cols;
    sent += t.count * values * (t.vector() ? sent_fraction(1, t.rows, topk, chunk)
                                           : sent_fraction(t.rows, t.cols, topk, chunk));
    covered += t.count * values;
  }
  sent *= rm.layers;
  covered *= rm.layers;
  // The rest (embeddings, output head) as matrices of h columns whose rows fill whole chunks.
  const double rest = total - covered;
  if (rest > 0 && rm.hidden > 0)
    sent += rest * sent_fraction(static_cast<double>(chunk), rm.hidden, topk, chunk);
  return sent;
}

std::vector<ParamSpec> DemoPlan::param_specs() const
{
  return {demo_topk_param(), demo_chunk_param()};
}

sim::StepPlan DemoPlan::plan(const sim::StepShape& s, const ParamValues& p) const
{
  const double topk        = checked(p, "topk", 1, 1e6);
  const double chunk       = checked(p, "chunk", 1, 4096);
  const double sent        = demo_sent_per_rank(s, topk, chunk);
  const std::uint64_t fp32 = 4ull * s.params_per_rank;
  constexpr double kBytesPerCoefficient = 4 + 8; // fp32 value, int64 index
  const auto payload = static_cast<std::uint64_t>(std::ceil(sent * kBytesPerCoefficient));

  sim::PhasePlan phase{"compressed", 1.0, {}, std::nullopt};
  // The kernels by the fp32 bytes they move, per parameter: δ = βδ + lr·g (read δ and g, write δ: 3), the chunked
  // DCT (read δ, write the coefficients, and the intermediate product both ways: 4), top-k (read them: 1), the sent
  // coefficients decoded (4) and taken out of δ (read both, write δ: 3); after the gather, the scatter and decode of
  // the global update (4). The DCT's products, 2·(c_r + c_c) = 256 flops per value and transform at the default
  // chunk, are priced by their bytes too: three transforms are 768 flops per value, 11 ms per 10^9 values at an
  // H100's 67 TFLOP/s of FP32 against about 20 ms for the bytes, so memory bounds them (a hypothesis at fp32; demo.py
  // runs its einsums in the parameters' dtype).
  phase.ops.push_back(synchronisation_kernel("demo_compress", 15 * fp32));
  phase.ops.push_back(collective("allgather DCT top-k values+indices", sim::Collective::ALL_GATHER,
                                 sim::GroupKind::DATA_PARALLEL, payload * static_cast<std::uint64_t>(s.grad_group())));
  phase.ops.push_back(synchronisation_kernel("demo_decompress", 4 * fp32));
  // signSGD: read θ and the update, write θ
  sim::OptimizerOp sign_sgd = optimizer(name_, s.params_per_rank);
  sign_sgd.bytes_touched_per_param = 12;
  phase.ops.push_back(sign_sgd);
  add_model_parallel_work(phase, s);
  return {{phase}};
}

} // namespace ccsim::algorithms
