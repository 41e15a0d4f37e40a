#pragma once
// What a pipeline-parallel convergence run (AQ-SGD, DirectQ, fp32 pipelines) needs of a proxy model: stages whose
// forward and backward run separately, so the activation and its gradient crossing every cut can be compressed,
// and a FINITE training set whose examples recur every epoch (AQ-SGD's per-example buffers m(ξ) need that).
// Activations are column-major [channels x (examples · positions)]: each example occupies positions() consecutive
// columns (1 for the MLP; one per token for the transformer), which is AQ-SGD's [micro-batch · sequence, hidden]
// row-major layout, so numerics' per-channel quantizers take the matrix's data as it is.

#include "numerics/OptimizerTypes.hpp"
#include "workloads/proxy/CrossEntropy.hpp"

#include <Eigen/Core>

#include <memory>
#include <string>
#include <vector>

namespace ccsim::workloads {

using Mat = Eigen::MatrixXf;

class PipelineModel {
public:
  virtual ~PipelineModel() = default;
  virtual int stages() const = 0;
  virtual std::size_t size() const = 0;
  virtual numerics::Vec initial_params(std::uint64_t seed) const = 0;
  virtual int train_examples() const = 0;
  /// Columns one example occupies in an activation crossing a cut.
  virtual int positions() const = 0;

  /// Stage 0's input for these training examples.
  virtual Mat inputs(const std::vector<int>& ids) const = 0;
  /// The targets, one per column of the last stage's logits.
  virtual std::vector<int> labels(const std::vector<int>& ids) const = 0;
  /// Stage s forward. Keeps nothing: backward takes the same `in` again.
  virtual Mat forward(const numerics::Vec& params, int s, const Mat& in) const = 0;
  /// Stage s backward: given its input and dL/d(out), adds the stage's weight gradients into `grad` and returns
  /// dL/d(in) (stage 0 may return an empty matrix: its input is data).
  virtual Mat backward(const numerics::Vec& params, int s, const Mat& in, const Mat& d_out, numerics::Vec& grad) const = 0;
  /// Held-out loss of the uncompressed model.
  virtual double eval_loss(const numerics::Vec& params) const = 0;

  /// Mean cross-entropy of the last stage's logits over the columns, and its gradient (column_cross_entropy).
  double loss(const Mat& logits, const std::vector<int>& labels, Mat* d_logits) const;
};

/// "mlp" (StagedMlp, width 64), "tiny-transformer" or "char-gpt" (StagedTransformer); `train_examples` <= 0 takes the model's
/// default; `text` is the transformer's corpus (empty: GPL-3). Throws std::invalid_argument for an unknown name or an
/// impossible split.
std::unique_ptr<PipelineModel> make_pipeline_model(const std::string& name, int stages, int train_examples,
                                                   std::uint64_t seed, const std::string& text = "");

} // namespace ccsim::workloads
