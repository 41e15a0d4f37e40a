#pragma once
// The `mlp` proxy cut into pipeline stages for AQ-SGD / DirectQ / fp32 pipelines: `stages` linear layers
// (ReLU after all but the last) learning the same teacher task as Mlp, on a FINITE training set so examples
// recur every epoch — AQ-SGD's per-example buffers m(ξ) need that. Each stage's forward/backward is separate,
// so the activation and its gradient crossing every cut can be compressed.

#include "workloads/proxy/Mlp.hpp"
#include "workloads/proxy/PipelineModel.hpp"

#include <vector>

namespace ccsim::workloads {

class StagedMlp : public PipelineModel {
public:
  StagedMlp(int stages = 4, int width = 64, int train_examples = 2048, std::uint64_t seed = 1);

  int stages() const override { return static_cast<int>(w_.size()); }
  int width() const { return width_; }
  int train_examples() const override { return static_cast<int>(y_.size()); }
  int positions() const override { return 1; }
  std::size_t size() const override;
  Vec initial_params(std::uint64_t seed) const override;

  /// The training inputs of these example ids (columns).
  Mat inputs(const std::vector<int>& ids) const override;
  std::vector<int> labels(const std::vector<int>& ids) const override;

  /// Stage s forward: out = act(W_s in + b_s) (no ReLU on the last stage). Keeps nothing; pass `in` to backward.
  Mat forward(const Vec& params, int s, const Mat& in) const override;
  /// Stage s backward: given its input and dL/d(out), adds dL/dW_s, dL/db_s into grad and returns dL/d(in).
  Mat backward(const Vec& params, int s, const Mat& in, const Mat& d_out, Vec& grad) const override;
  /// Held-out loss of the uncompressed model.
  double eval_loss(const Vec& params) const override;

private:
  int width_;
  std::vector<std::size_t> w_, b_; // offsets of each stage's weight and bias
  std::vector<int> rows_, cols_;
  Mat x_;
  std::vector<int> y_;
  Mat eval_x_;
  std::vector<int> eval_y_;
};

} // namespace ccsim::workloads
