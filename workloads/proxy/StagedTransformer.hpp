#pragma once
// The `tiny-transformer` proxy cut into pipeline stages for AQ-SGD / DirectQ / fp32 pipelines. The model is a chain
// of units — the embeddings, each pre-LN block, the final LayerNorm with the output projection — split into
// `stages` contiguous runs as evenly as the unit count allows: at pp = 4 the default 2-layer model is embeddings |
// block 0 | block 1 | head, at pp = 2 embeddings + block 0 | block 1 + head (the same model the data-parallel
// algorithms train; more stages than units add layers). What crosses a cut is the residual stream of every token,
// [width x (examples · context)], AQ-SGD's activation of shape [micro-batch · sequence, hidden]. The training set is
// a finite set of windows of the GPL-3 text (TinyTransformer::train_window), so each example recurs every epoch.
// Parameters are laid out exactly as TinyTransformer's, whose whole-sequence loss the stages compose to (tested).

#include "workloads/proxy/PipelineModel.hpp"
#include "workloads/proxy/TinyTransformer.hpp"

namespace ccsim::workloads {

class StagedTransformer : public PipelineModel {
public:
  /// `text` as TinyTransformer's (empty reads GPL-3); `config.layers` grows to stages - 2 if it is smaller.
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
  struct Caches {
    std::vector<transformer::BlockCache> blocks; // one per block of the stage
    transformer::HeadCache head;
  };
  /// Stage s on one example: x (stage 0: ignored, embeds `tokens`) -> the stage's output rows.
  transformer::RMat stage_forward(const float* params, int s, const transformer::RMat& x, const int* tokens,
                                  Caches& caches) const;
  long out_rows(int s) const;
  /// Units [first_unit_[s], first_unit_[s + 1]) run on stage s: unit 0 embeds, 1..L are blocks, L + 1 the head.
  int head_unit() const { return model_.config().layers + 1; }

  int stages_;
  TinyTransformer model_;
  std::vector<int> first_unit_;
  std::vector<std::vector<int>> windows_; // context + 1 tokens each
};

} // namespace ccsim::workloads
