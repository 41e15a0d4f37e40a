#pragma once
// The `tiny-transformer` proxy cut into pipeline stages for AQ-SGD / DirectQ / fp32 pipelines: one pre-LN block
// per stage (so `stages` blocks), the embeddings on stage 0 and the final LayerNorm and output projection on the
// last. What crosses a cut is the residual stream of every token, [width x (examples · context)], AQ-SGD's
// activation of shape [micro-batch · sequence, hidden]. The training set is a finite set of windows of the GPL-3
// text (TinyTransformer::train_window), so each example recurs every epoch. Parameters are laid out exactly as
// TinyTransformer's with `stages` layers, whose whole-sequence loss the stages compose to (tested).

#include "workloads/proxy/PipelineModel.hpp"
#include "workloads/proxy/TinyTransformer.hpp"

namespace ccsim::workloads {

class StagedTransformer : public PipelineModel {
public:
  /// `text` as TinyTransformer's (empty reads GPL-3); `config.layers` is replaced by `stages`.
  StagedTransformer(int stages, int train_examples, std::uint64_t seed, TransformerConfig config = {},
                    std::string text = "");

  int stages() const override { return stages_; }
  std::size_t size() const override { return model_.size(); }
  numerics::Vec initial_params(std::uint64_t seed) const override { return model_.initial_params(seed); }
  int train_examples() const override { return static_cast<int>(windows_.size()); }
  int positions() const override { return model_.config().context; }

  /// Stage 0's input: the examples' context tokens as a [1 x (examples · context)] row (token ids are exact in fp32).
  Mat inputs(const std::vector<int>& ids) const override;
  /// The next token of every position.
  std::vector<int> labels(const std::vector<int>& ids) const override;
  Mat forward(const numerics::Vec& params, int s, const Mat& in) const override;
  /// Recomputes the stage's forward (activation recomputation, as Megatron and GPipe do), then backpropagates.
  Mat backward(const numerics::Vec& params, int s, const Mat& in, const Mat& d_out, numerics::Vec& grad) const override;
  double eval_loss(const numerics::Vec& params) const override { return model_.eval_loss(params); }

  /// The unstaged model with the same parameters (for checks against its whole-sequence loss).
  const TinyTransformer& whole() const { return model_; }

private:
  /// Stage s on one example: x (stage 0: ignored, embeds `tokens`) -> the stage's output rows.
  transformer::RMat stage_forward(const float* params, int s, const transformer::RMat& x, const int* tokens,
                                  transformer::BlockCache& block, transformer::HeadCache& head) const;
  long out_rows(int s) const;

  int stages_;
  TinyTransformer model_;
  std::vector<std::vector<int>> windows_; // context + 1 tokens each
};

} // namespace ccsim::workloads
