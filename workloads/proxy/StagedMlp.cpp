// Stage-wise forward/backward of the pipelined MLP proxy.
#include "workloads/proxy/StagedMlp.hpp"

#include "workloads/proxy/MatrixProducts.hpp"

#include <cmath>
#include <random>

namespace ccsim::workloads {

StagedMlp::StagedMlp(int stages, int width, int train_examples, std::uint64_t seed) : width_(width)
{
  const Mlp teacher(32, 64, 10, seed); // the same labelled task as the data-parallel proxy
  teacher.sample(train_examples, /*shard=*/7777, 0, x_, y_);
  teacher.sample(2048, /*shard=*/8888, 0, eval_x_, eval_y_);
  std::size_t off = 0;
  for (int s = 0; s < stages; ++s) {
    const int in  = s == 0 ? 32 : width;
    const int out = s == stages - 1 ? 10 : width;
    w_.push_back(off);
    off += static_cast<std::size_t>(in * out);
    b_.push_back(off);
    off += static_cast<std::size_t>(out);
    rows_.push_back(out);
    cols_.push_back(in);
  }
}

std::size_t StagedMlp::size() const
{
  return b_.back() + static_cast<std::size_t>(rows_.back());
}

Vec StagedMlp::initial_params(std::uint64_t seed) const
{
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d;
  Vec p = Vec::Zero(static_cast<long>(size()));
  for (int s = 0; s < stages(); ++s) {
    const float scale = s == stages() - 1 ? 0.1f / std::sqrt(float(cols_[s])) : std::sqrt(2.0f / cols_[s]);
    for (int i = 0; i < rows_[s] * cols_[s]; ++i)
      p[static_cast<long>(w_[s]) + i] = scale * d(rng);
  }
  return p;
}

Mat StagedMlp::inputs(const std::vector<int>& ids) const
{
  Mat m(32, static_cast<long>(ids.size()));
  for (std::size_t j = 0; j < ids.size(); ++j)
    m.col(static_cast<long>(j)) = x_.col(ids[j]);
  return m;
}

std::vector<int> StagedMlp::labels(const std::vector<int>& ids) const
{
  std::vector<int> out;
  for (int i : ids)
    out.push_back(y_[static_cast<std::size_t>(i)]);
  return out;
}

Mat StagedMlp::forward(const Vec& p, int s, const Mat& in) const
{
  const Eigen::Map<const Mat> W(p.data() + w_[s], rows_[s], cols_[s]);
  const Eigen::Map<const Vec> b(p.data() + b_[s], rows_[s]);
  Mat out = times(cview(W), cview(in)).colwise() + b;
  if (s < stages() - 1)
    out = out.cwiseMax(0.0f);
  return out;
}

Mat StagedMlp::backward(const Vec& p, int s, const Mat& in, const Mat& d_out, Vec& grad) const
{
  const Eigen::Map<const Mat> W(p.data() + w_[s], rows_[s], cols_[s]);
  Mat dz = d_out;
  if (s < stages() - 1) {
    const Mat pre = times(cview(W), cview(in)).colwise() + Eigen::Map<const Vec>(p.data() + b_[s], rows_[s]);
    dz            = dz.cwiseProduct((pre.array() > 0).cast<float>().matrix());
  }
  numerics::fixed_gemm(cview(dz), cview(in).transposed(), numerics::col_major(grad.data() + w_[s], rows_[s], cols_[s]),
                       /*accumulate=*/true);
  Eigen::Map<Vec>(grad.data() + b_[s], rows_[s]) += row_sums(dz);
  return times(cview(W).transposed(), cview(dz));
}

double StagedMlp::eval_loss(const Vec& params) const
{
  Mat a = eval_x_;
  for (int s = 0; s < stages(); ++s)
    a = forward(params, s, a);
  return loss(a, eval_y_, nullptr);
}

} // namespace ccsim::workloads
