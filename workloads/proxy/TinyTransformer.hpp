#pragma once
// The `tiny-transformer` proxy: a 2-layer pre-LayerNorm causal transformer language model (token and position
// embeddings, multi-head causal self-attention, a ReLU MLP, a final LayerNorm and an output projection) trained on
// characters of a real text every Debian machine has: /usr/share/common-licenses/GPL-3 (package base-files). Its many
// tensors of different shapes give layer-wise optimizers (LAMB, 1-bit LAMB, SLAMB) real layers. Forward and
// backward are written by hand and checked against finite differences in the tests.

#include "workloads/proxy/ProxyModel.hpp"
#include "workloads/proxy/TransformerLayers.hpp"

#include <Eigen/Core>

#include <string>

namespace ccsim::workloads {

struct TransformerConfig {
  int vocab   = 96;  // printable ASCII 32..126 plus newline
  int context = 32;  // tokens per training sequence
  int width   = 96;  // model dimension
  int heads   = 3;
  int layers  = 2;
  int hidden  = 384; // MLP width
};

class TinyTransformer : public ProxyModel {
public:
  /// `text`: the corpus; empty reads GPL-3 (or a deterministic generated text if that file is missing).
  explicit TinyTransformer(TransformerConfig config = {}, std::uint64_t seed = 1, std::string text = "");

  const numerics::TensorLayout& layout() const override { return layout_; }
  std::size_t size() const override { return size_; }
  numerics::Vec initial_params(std::uint64_t seed) const override;
  double batch_gradient(const numerics::Vec& params, int examples, std::uint64_t shard, std::uint64_t step,
                        numerics::Vec& grad) const override;
  double eval_loss(const numerics::Vec& params) const override;

  /// Mean next-token cross-entropy of one sequence (context + 1 tokens); adds its gradient into `grad` if given.
  double sequence_loss(const numerics::Vec& params, const std::vector<int>& tokens, numerics::Vec* grad) const;
  /// `count` training windows of shard `shard` at `step` (from the first 90 % of the text).
  std::vector<std::vector<int>> sample(int count, std::uint64_t shard, std::uint64_t step) const;
  /// Window i of `count` evenly spaced windows (context + 1 tokens) over the first 90 % of the text: the finite
  /// training set of the pipelined form, whose examples recur every epoch.
  std::vector<int> train_window(int i, int count) const;

  // The pieces the pipelined form (StagedTransformer) runs stage by stage.
  const TransformerConfig& config() const { return c_; }
  const transformer::Dims& dims() const { return dims_; }
  const transformer::EmbedOffsets& embed_offsets() const { return embed_; }
  const transformer::BlockOffsets& block_offsets(int layer) const { return blocks_.at(static_cast<std::size_t>(layer)); }
  const transformer::HeadOffsets& head_offsets() const { return head_; }

private:
  const numerics::TensorSlice& tensor(const std::string& name) const;
  TransformerConfig c_;
  std::uint64_t seed_;
  std::vector<int> tokens_;
  numerics::TensorLayout layout_;
  std::size_t size_ = 0;
  transformer::Dims dims_;
  transformer::EmbedOffsets embed_;
  std::vector<transformer::BlockOffsets> blocks_;
  transformer::HeadOffsets head_;
};

} // namespace ccsim::workloads
