#pragma once
// The `mlp` proxy model: a 2-layer ReLU classifier learning a fixed random teacher network's labels on
// Gaussian inputs. Deterministic per seed, several tensors of different shapes (W1, b1, W2, b2) so layer-wise
// optimizers have layers, and a held-out set for the evaluation loss. Forward/backward are written by hand.

#include "numerics/OptimizerTypes.hpp"

#include <Eigen/Core>

#include <cstdint>

namespace ccsim::workloads {

using numerics::Vec;
using Mat = Eigen::MatrixXf;

class Mlp {
public:
  Mlp(int inputs = 32, int hidden = 64, int classes = 10, std::uint64_t seed = 1);

  const numerics::TensorLayout& layout() const { return layout_; }
  std::size_t size() const { return size_; }
  Vec initial_params(std::uint64_t seed) const;

  /// A batch of `n` examples of shard `shard` (each worker draws from its own stream), labelled by the teacher.
  void sample(int n, std::uint64_t shard, std::uint64_t step, Mat& x, std::vector<int>& labels) const;
  /// Mean cross-entropy over the batch; fills `grad` (same layout as params) when non-null.
  double loss(const Vec& params, const Mat& x, const std::vector<int>& labels, Vec* grad) const;
  /// Held-out loss: a fixed set of 2048 examples never used for training.
  double eval_loss(const Vec& params) const;

private:
  int in_, hid_, out_;
  std::uint64_t seed_;
  std::size_t size_;
  numerics::TensorLayout layout_;
  Mat teacher1_, teacher2_;
  Mat eval_x_;
  std::vector<int> eval_y_;
};

} // namespace ccsim::workloads
