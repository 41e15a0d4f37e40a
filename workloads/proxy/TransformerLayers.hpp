#pragma once
// The layers of the tiny transformer, each with its hand-written backward, on one sequence at a time. Activations
// are row-major [positions x width], so one sequence's activation has the same memory layout as the column-major
// [width x positions] block a pipeline cut carries (workloads/proxy/PipelineModel.hpp). Weights live in one flat
// parameter vector; the *Offsets structs say where each tensor starts. Used whole by TinyTransformer (data
// parallel) and stage by stage by StagedTransformer (pipelines).

#include <Eigen/Core>

#include <cstddef>
#include <vector>

namespace ccsim::workloads::transformer {

using RMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>; // rows = positions

/// The offset of a tensor the model does not have (the bias-free char-gpt's biases): the layer skips it.
inline constexpr std::size_t kNoTensor = static_cast<std::size_t>(-1);

struct Dims {
  long positions = 32; // T
  long width     = 96; // d
  long hidden    = 384;
  long vocab     = 96;
  long heads     = 3;
  bool gelu      = false; // the MLP's activation: ReLU, or GELU (GPT-2, nanoGPT)
};

struct EmbedOffsets {
  std::size_t tok = 0, pos = 0;
};
/// One pre-LN block: x1 = x + Attn(LN1(x)) Wo + bo;  x2 = x1 + act(LN2(x1) W1 + b1) W2 + b2. Any bias (and a
/// LayerNorm's shift) may be kNoTensor.
struct BlockOffsets {
  std::size_t ln1_g = 0, ln1_b = 0, wq = 0, wq_b = 0, wk = 0, wk_b = 0, wv = 0, wv_b = 0, wo = 0, wo_b = 0;
  std::size_t ln2_g = 0, ln2_b = 0, w1 = 0, b1 = 0, w2 = 0, b2 = 0;
};
/// Final LayerNorm and the output projection to vocabulary logits. With tied embeddings w_out is the token embedding:
/// its [vocab x width] row-major rows are the [width x vocab] column-major projection, the same memory.
struct HeadOffsets {
  std::size_t lnf_g = 0, lnf_b = 0, w_out = 0, b_out = 0;
};

struct LayerNormCache {
  RMat xhat;
  Eigen::VectorXf rstd;
};
struct BlockCache {
  RMat h, q, k, v, o, x1, h2, u, r;
  LayerNormCache ln1, ln2;
  std::vector<RMat> attn; // softmax probabilities per head
};
struct HeadCache {
  RMat hf;
  LayerNormCache lnf;
};

/// x[t] = tok_emb[tokens[t]] + pos_emb[t] for t < positions.
RMat embed(const float* params, const EmbedOffsets& o, const Dims& d, const int* tokens);
void embed_backward(const RMat& dx, const EmbedOffsets& o, const Dims& d, const int* tokens, float* grad);

/// Causal multi-head self-attention block; fills `cache` for block_backward.
RMat block_forward(const float* params, const BlockOffsets& o, const Dims& d, const RMat& x, BlockCache& cache);
/// Adds the block's weight gradients into `grad` and returns dL/dx.
RMat block_backward(const float* params, const BlockOffsets& o, const Dims& d, const BlockCache& cache, const RMat& dx,
                    float* grad);

/// Logits [positions x vocab] = LN_f(x) W_out + b_out.
RMat head_forward(const float* params, const HeadOffsets& o, const Dims& d, const RMat& x, HeadCache& cache);
RMat head_backward(const float* params, const HeadOffsets& o, const Dims& d, const HeadCache& cache,
                   const RMat& d_logits, float* grad);

} // namespace ccsim::workloads::transformer
