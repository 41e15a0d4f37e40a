// Hand-written forward/backward of the MLP proxy (checked against finite differences in the tests).
#include "workloads/proxy/Mlp.hpp"

#include "workloads/proxy/CrossEntropy.hpp"
#include "workloads/proxy/MatrixProducts.hpp"

#include <cmath>
#include <random>

namespace ccsim::workloads {

Mlp::Mlp(int inputs, int hidden, int classes, std::uint64_t seed) : in_(inputs), hid_(hidden), out_(classes), seed_(seed)
{
  // W1 and W2 are column-major hidden x inputs and classes x hidden (Eigen's order), so their memory read row-major
  // has inputs and hidden rows (TensorSlice::rows).
  layout_ = {{"W1", 0, static_cast<std::size_t>(hid_ * in_), static_cast<std::size_t>(in_)},
             {"b1", static_cast<std::size_t>(hid_ * in_), static_cast<std::size_t>(hid_)},
             {"W2", static_cast<std::size_t>(hid_ * in_ + hid_), static_cast<std::size_t>(out_ * hid_),
              static_cast<std::size_t>(hid_)},
             {"b2", static_cast<std::size_t>(hid_ * in_ + hid_ + out_ * hid_), static_cast<std::size_t>(out_)}};
  size_ = layout_.back().offset + layout_.back().size;
  // The teacher: a wider random ReLU network whose argmax is the label.
  std::mt19937_64 rng(seed * 7919 + 1);
  std::normal_distribution<float> d;
  teacher1_ = Mat(128, in_);
  teacher2_ = Mat(out_, 128);
  for (long i = 0; i < teacher1_.size(); ++i)
    teacher1_.data()[i] = d(rng) / std::sqrt(static_cast<float>(in_));
  for (long i = 0; i < teacher2_.size(); ++i)
    teacher2_.data()[i] = d(rng) / std::sqrt(128.0f);
  sample(2048, /*shard=*/~0ull, 0, eval_x_, eval_y_);
}

Vec Mlp::initial_params(std::uint64_t seed) const
{
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d;
  Vec p = Vec::Zero(static_cast<long>(size_));
  for (std::size_t i = 0; i < layout_[0].size; ++i)
    p[static_cast<long>(i)] = d(rng) * std::sqrt(2.0f / in_);
  for (std::size_t i = 0; i < layout_[2].size; ++i)
    p[static_cast<long>(layout_[2].offset + i)] = 0.1f * d(rng) * std::sqrt(1.0f / hid_); // small logits: loss starts near ln(classes)
  return p;
}

void Mlp::sample(int n, std::uint64_t shard, std::uint64_t step, Mat& x, std::vector<int>& labels) const
{
  std::mt19937_64 rng(seed_ * 1000003 + shard * 9176 + step * 31337);
  std::normal_distribution<float> d;
  x = Mat(in_, n);
  for (long i = 0; i < x.size(); ++i)
    x.data()[i] = d(rng);
  const Mat hidden = times(cview(teacher1_), cview(x)).cwiseMax(0.0f);
  const Mat logits = times(cview(teacher2_), cview(hidden));
  labels.resize(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) { // the first largest logit
    int best = 0;
    for (int c = 1; c < logits.rows(); ++c)
      if (logits(c, j) > logits(best, j))
        best = c;
    labels[static_cast<std::size_t>(j)] = best;
  }
}

double Mlp::loss(const Vec& p, const Mat& x, const std::vector<int>& labels, Vec* grad) const
{
  const Eigen::Map<const Mat> W1(p.data(), hid_, in_);
  const Eigen::Map<const Vec> b1(p.data() + layout_[1].offset, hid_);
  const Eigen::Map<const Mat> W2(p.data() + layout_[2].offset, out_, hid_);
  const Eigen::Map<const Vec> b2(p.data() + layout_[3].offset, out_);
  const Mat pre = times(cview(W1), cview(x)).colwise() + b1;
  const Mat h   = pre.cwiseMax(0.0f);
  const Mat z   = times(cview(W2), cview(h)).colwise() + b2;
  Mat dz; // (softmax - onehot) / batch
  const double mean = column_cross_entropy(z, labels, grad != nullptr ? &dz : nullptr);
  if (grad != nullptr) {
    grad->resize(static_cast<long>(size_));
    Eigen::Map<Mat> gW1(grad->data(), hid_, in_);
    Eigen::Map<Vec> gb1(grad->data() + layout_[1].offset, hid_);
    Eigen::Map<Mat> gW2(grad->data() + layout_[2].offset, out_, hid_);
    Eigen::Map<Vec> gb2(grad->data() + layout_[3].offset, out_);
    gW2            = times(cview(dz), cview(h).transposed());
    gb2            = row_sums(dz);
    const Mat dh   = times(cview(W2).transposed(), cview(dz)).cwiseProduct((pre.array() > 0).cast<float>().matrix());
    gW1            = times(cview(dh), cview(x).transposed());
    gb1            = row_sums(dh);
  }
  return mean;
}

double Mlp::eval_loss(const Vec& params) const
{
  return loss(params, eval_x_, eval_y_, nullptr);
}

} // namespace ccsim::workloads
