// PowerSGD's low-rank all-reduce, step by step as powerSGD_hook runs it (numerics/PowerSgd.hpp).
#include "numerics/PowerSgd.hpp"

#include "numerics/FixedOrder.hpp"
#include "numerics/Optimizers.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

namespace ccsim::numerics {

namespace {
/// The hook's view of a tensor: tensor.view(shape[0], -1). A vector (rows 0) is one column of its length.
std::pair<std::size_t, std::size_t> matrix_shape(const TensorSlice& t)
{
  if (t.rows == 0)
    return {t.size, 1};
  if (t.size % t.rows != 0)
    throw std::invalid_argument("tensor " + t.name + ": " + std::to_string(t.size) + " values are not " +
                                std::to_string(t.rows) + " whole rows");
  return {t.rows, t.size / t.rows};
}

MatrixView view(Eigen::MatrixXf& a) { return col_major(a.data(), a.rows(), a.cols()); }
} // namespace

void orthogonalise_columns(Eigen::MatrixXf& a)
{
  const auto rows = static_cast<std::size_t>(a.rows());
  for (long i = 0; i < a.cols(); ++i) {
    float* col       = a.col(i).data();
    const auto norm  = static_cast<float>(fixed_norm(col, rows));
    if (norm > 0) // the hook divides by 0 and gets NaN (it asks for orthogonalization_epsilon instead)
      for (std::size_t r = 0; r < rows; ++r)
        col[r] /= norm;
    for (long j = i + 1; j < a.cols(); ++j) {
      float* rest       = a.col(j).data();
      const float along = fixed_dot(col, rest, rows);
      for (std::size_t r = 0; r < rows; ++r)
        rest[r] -= along * col[r];
    }
  }
}

PowerSgd::PowerSgd(const TensorLayout& layout, std::size_t workers, PowerSgdSettings settings,
                   const CompressionKernels& kernels)
    : s_(settings), kernels_(&kernels), workers_(workers), layout_(layout)
{
  if (s_.rank < 1)
    throw std::invalid_argument("PowerSGD rank must be at least 1");
  if (workers_ < 1)
    throw std::invalid_argument("PowerSGD needs at least one worker");
  n_ = layout.empty() ? 0 : layout.back().offset + layout.back().size;
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const auto [n, m] = matrix_shape(layout[i]);
    const std::size_t r = std::min({n, m, static_cast<std::size_t>(s_.rank)});
    // _should_compress: the factors must be min_compression_rate times smaller than the matrix.
    if (static_cast<double>((n + m) * r) * s_.min_compression_rate < static_cast<double>(n * m)) {
      low_rank_.push_back({i, layout[i].offset, n, m, r});
      p_elements_ += n * r;
      q_elements_ += m * r;
    } else {
      plain_.push_back(i);
      uncompressed_elements_ += layout[i].size;
    }
  }
}

void PowerSgd::start_from(std::vector<Eigen::MatrixXf> qs)
{
  if (qs.size() != low_rank_.size())
    throw std::invalid_argument("PowerSGD start_from: " + std::to_string(qs.size()) + " Qs for " +
                                std::to_string(low_rank_.size()) + " compressed tensors");
  for (std::size_t t = 0; t < qs.size(); ++t)
    if (static_cast<std::size_t>(qs[t].rows()) != low_rank_[t].m ||
        static_cast<std::size_t>(qs[t].cols()) != low_rank_[t].rank)
      throw std::invalid_argument("PowerSGD start_from: Q of " + layout_[low_rank_[t].tensor].name +
                                  " has the wrong shape");
  qs_       = std::move(qs);
  have_qs_  = true;
  replayed_ = true;
}

void PowerSgd::draw_initial_qs()
{
  // One seed per draw, the same on every worker (the hook draws a new seed from its RNG each time).
  std::mt19937_64 rng(s_.seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(draws_++));
  std::normal_distribution<float> normal;
  qs_.clear();
  for (const auto& t : low_rank_) {
    Eigen::MatrixXf q(static_cast<long>(t.m), static_cast<long>(t.rank));
    for (long r = 0; r < q.rows(); ++r) // in torch.randn's order: m x rank, row-major
      for (long c = 0; c < q.cols(); ++c)
        q(r, c) = normal(rng);
    qs_.push_back(std::move(q));
  }
  have_qs_ = true;
}

void PowerSgd::reduce(const std::vector<Vec>& grads, Vec& reduced)
{
  if (grads.size() != workers_)
    throw std::invalid_argument("PowerSGD: " + std::to_string(grads.size()) + " gradients for " +
                                std::to_string(workers_) + " workers");
  if (!compressing()) { // the hook's vanilla all-reduce: no error is kept
    reduced = average(grads);
    bytes_ += ring_allreduce_bytes(n_, workers_);
    ++steps_;
    return;
  }
  // M_w = g_w + e_w.
  if (errors_.empty())
    errors_.assign(workers_, Vec::Zero(static_cast<long>(n_)));
  std::vector<Vec> inputs(workers_);
  for (std::size_t w = 0; w < workers_; ++w)
    inputs[w] = s_.error_feedback ? Vec(grads[w] + errors_[w]) : grads[w];
  reduced.resize(static_cast<long>(n_));

  // The uncompressed tensors: their average.
  for (const std::size_t i : plain_) {
    const auto& t = layout_[i];
    auto out      = reduced.segment(static_cast<long>(t.offset), static_cast<long>(t.size));
    out.setZero();
    for (const auto& in : inputs)
      out += in.segment(static_cast<long>(t.offset), static_cast<long>(t.size));
    out /= static_cast<float>(workers_);
  }

  // A fresh Q on the first compressed step (every step without warm start) unless a reference run's was given; fresh
  // or kept, it is orthogonalised before use.
  if ((!have_qs_ || !s_.warm_start) && !replayed_)
    draw_initial_qs();
  replayed_ = false;
  for (auto& q : qs_)
    orthogonalise_columns(q);
  for (std::size_t k = 0; k < low_rank_.size(); ++k) {
    const auto& t = low_rank_[k];
    const long n = static_cast<long>(t.n), m = static_cast<long>(t.m), r = static_cast<long>(t.rank);
    Eigen::MatrixXf& q = qs_[k];
    // P = sum_w M_w Q, then orthonormal columns.
    Eigen::MatrixXf p = Eigen::MatrixXf::Zero(n, r), part(n, r);
    for (const auto& in : inputs) {
      kernels_->gemm(row_major(in.data() + t.offset, n, m), view(q), view(part), false);
      p += part;
    }
    orthogonalise_columns(p);
    // Q = (1/W) sum_w M_wᵀ P.
    Eigen::MatrixXf qsum = Eigen::MatrixXf::Zero(m, r), qpart(m, r);
    for (const auto& in : inputs) {
      kernels_->gemm(row_major(in.data() + t.offset, n, m).transposed(), view(p), view(qpart), false);
      qsum += qpart;
    }
    q = qsum / static_cast<float>(workers_);
    // The reduced gradient P Qᵀ, row-major like the tensor.
    kernels_->gemm(view(p), view(q).transposed(), row_major(reduced.data() + t.offset, n, m), false);
  }
  if (s_.error_feedback)
    for (std::size_t w = 0; w < workers_; ++w)
      errors_[w] = inputs[w] - reduced;
  bytes_ += ring_allreduce_bytes(p_elements_, workers_) + ring_allreduce_bytes(q_elements_, workers_) +
            ring_allreduce_bytes(uncompressed_elements_, workers_);
  ++steps_;
}

PowerSgdSettings powersgd_settings(const Hyper& h)
{
  PowerSgdSettings s;
  s.rank                 = static_cast<int>(hyper_or(h, "rank", s.rank));
  s.start_iter           = static_cast<long>(hyper_or(h, "start_iter", static_cast<double>(s.start_iter)));
  return s;
}

PowerSgdOptimizer::PowerSgdOptimizer(std::string kind, const TensorLayout& layout, std::size_t workers, const Hyper& h,
                                     const CompressionKernels& kernels)
    : DenseOptimizer(std::move(kind), layout, workers, h), reducer_(layout, workers, powersgd_settings(h), kernels)
{
}

void PowerSgdOptimizer::step(std::vector<Vec>& params, const std::vector<Vec>& grads)
{
  Vec g;
  reducer_.reduce(grads, g);
  update(params, g);
}

} // namespace ccsim::numerics
