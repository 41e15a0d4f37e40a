// The kernel list of a transformer layer, its embedding and its output layer on one GPU. Byte counts are what each
// kernel must read and write in HBM at least once, with Megatron-LM's fusions (bias folded into the GEMM or into the
// next element-wise kernel); element-wise FLOPs are not counted (they are priced by their bytes).
#include "sim/compute/TransformerOps.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ccsim::sim {

namespace {
/// FlashAttention computes the diagonal blocks of a causal mask whole: 128 keys per block (FlashAttention-2's kBlockN
/// for head dimensions up to 128; Dao 2023 §3.1).
constexpr double kFlashBlock = 128;
constexpr double kMaskByte   = 1; // a dropout mask element (torch.bool)
constexpr double kFp32       = 4;

/// Builds one block's forward kernels and, beside each, what its backward runs; marks the attention core (what
/// selective recomputation runs again).
class Builder {
public:
  Builder(Precision p, Precision attention) : p_(p), attention_(attention) {}

  /// Y (m x n) = X (m x k) W (k x n): backward dX = dY W^T (m x k, inner n) and dW = X^T dY (k x n, inner m),
  /// accumulated in fp32 (Megatron's gradient_accumulation_fusion writes into the fp32 main_grad).
  void weight_gemm(const std::string& name, double m, double n, double k, double batch = 1)
  {
    const GemmOperands plain{input_bytes(p_), activation_bytes(p_)};
    const GemmOperands accumulate{input_bytes(p_), 2 * kFp32};
    forward(gemm(name, {m, n, k, batch}, plain, p_));
    backward({gemm(name + ".dgrad", {m, k, n, batch}, plain, p_), gemm(name + ".wgrad", {k, n, m, batch}, accumulate, p_)});
  }

  /// C = A B of two activations (attention's per-head GEMMs, always 16-bit): backward dA = dC B^T and dB = A^T dC.
  void activation_gemm(const std::string& name, const std::string& grad_a, const std::string& grad_b, double m,
                       double n, double k, double batch)
  {
    const GemmOperands sixteen{activation_bytes(attention_), activation_bytes(attention_)};
    forward(gemm(name, {m, n, k, batch}, sixteen, attention_), /*core=*/true);
    backward({gemm(name + "." + grad_a, {m, k, n, batch}, sixteen, attention_),
              gemm(name + "." + grad_b, {k, n, m, batch}, sixteen, attention_)});
  }

  void elementwise(const std::string& name, double forward_bytes, double backward_bytes, bool core = false)
  {
    OpSpec op;
    op.name  = name;
    op.kind  = OpKind::ELEMENTWISE;
    op.bytes = forward_bytes;
    forward(op, core);
    op.name  = name + ".backward";
    op.bytes = backward_bytes;
    backward({op});
  }

  void flash(double flops, double forward_bytes, double backward_bytes)
  {
    OpSpec op;
    op.name  = "attention";
    op.kind  = OpKind::ATTENTION;
    op.flops = flops;
    op.bytes = forward_bytes;
    forward(op, /*core=*/true);
    // The backward runs five GEMMs (S = QK^T again, dP, dV, dQ, dK) where the forward ran two (Dao 2023 §3.1.2).
    op.name  = "attention.backward";
    op.flops = 2.5 * flops;
    op.bytes = backward_bytes;
    backward({op});
  }

  /// Forward ops in order, the backward in reverse order, then what `mode` recomputes (run before the backward).
  std::vector<OpSpec> finish(Recompute mode)
  {
    std::vector<OpSpec> out = forward_;
    for (auto it = backward_.rbegin(); it != backward_.rend(); ++it)
      out.insert(out.end(), it->begin(), it->end());
    for (std::size_t i = 0; i < forward_.size(); ++i) {
      if (mode == Recompute::FULL || (mode == Recompute::SELECTIVE && core_[i])) {
        OpSpec again = forward_[i];
        again.pass   = Pass::RECOMPUTE;
        out.push_back(again);
      }
    }
    return out;
  }

private:
  static OpSpec gemm(const std::string& name, const GemmShape& shape, const GemmOperands& operands, Precision p)
  {
    OpSpec op;
    op.name      = name;
    op.kind      = OpKind::GEMM;
    op.gemm      = shape;
    op.operands  = operands;
    op.flops     = shape.flops();
    op.precision = p;
    return op;
  }
  void forward(OpSpec op, bool core = false)
  {
    op.pass = Pass::FORWARD;
    if (op.kind != OpKind::GEMM)
      op.precision = op.kind == OpKind::ATTENTION ? attention_ : p_;
    forward_.push_back(std::move(op));
    core_.push_back(core);
  }
  void backward(std::vector<OpSpec> ops)
  {
    for (auto& op : ops) {
      op.pass = Pass::BACKWARD;
      if (op.kind != OpKind::GEMM)
        op.precision = op.kind == OpKind::ATTENTION ? attention_ : p_;
    }
    backward_.push_back(std::move(ops));
  }

  Precision p_, attention_;
  std::vector<OpSpec> forward_;
  std::vector<bool> core_;
  std::vector<std::vector<OpSpec>> backward_;
};

/// The attention core runs 16-bit when the GEMMs run FP8 (Transformer Engine keeps the core in BF16).
Precision attention_precision(Precision p)
{
  return p == Precision::FP8 ? Precision::BF16 : p;
}

/// Sizes one rank sees.
struct Local {
  double b, s, t, sq, tokens, replicated_tokens, h, heads, head_dim, q, kv, f, e;
};

Local local(const TransformerArchitecture& a, const ComputeSplit& split)
{
  Local l;
  l.b        = static_cast<double>(split.micro_batch);
  l.s        = static_cast<double>(split.seq_len);
  l.t        = split.tp;
  l.sq       = l.s / split.cp;
  l.tokens   = l.b * l.sq;
  l.replicated_tokens = split.sequence_parallel ? l.tokens / l.t : l.tokens;
  l.h        = static_cast<double>(a.hidden);
  l.heads    = static_cast<double>(a.heads) / l.t;
  l.head_dim = static_cast<double>(a.head_dim);
  l.q        = static_cast<double>(a.query_width()) / l.t;
  // With more tensor-parallel ranks than kv heads each rank keeps one kv head (Megatron replicates them).
  l.kv = std::max(static_cast<double>(a.kv_heads) / l.t, 1.0) * l.head_dim;
  l.f  = static_cast<double>(a.ffn_hidden) / l.t;
  l.e  = activation_bytes(split.precision);
  return l;
}
} // namespace

std::vector<OpSpec> layer_ops(const TransformerArchitecture& a, const ComputeSplit& split)
{
  const Local l      = local(a, split);
  const double drop  = a.dropout ? kMaskByte : 0;
  const double T     = l.tokens, Tr = l.replicated_tokens, h = l.h, e = l.e;
  Builder b(split.precision, attention_precision(split.precision));

  b.elementwise("input_norm", 2 * Tr * h * e, 3 * Tr * h * e); // read x, write y; backward reads x, dy, writes dx
  b.weight_gemm("qkv", T, l.q + 2 * l.kv, h);
  if (a.flash_attention) {
    // Each context-parallel rank does 1/cp of the causal work over the whole sequence (Megatron's load-balanced
    // split: rank i holds chunks i and 2cp-1-i).
    const double pairs = std::min(l.s * l.s, l.s * (l.s + kFlashBlock) / 2) / split.cp;
    const double flops = 4 * l.b * l.heads * l.head_dim * pairs;
    const double kv    = l.b * l.s * l.kv;
    b.flash(flops, (2 * T * l.q + 2 * kv) * e, (4 * T * l.q + 4 * kv) * e);
  } else {
    const double scores = l.b * l.heads * l.sq * l.s; // elements of the score matrix
    b.activation_gemm("attention_scores", "dgrad_q", "dgrad_k", l.sq, l.s, l.head_dim, l.b * l.heads);
    b.elementwise("softmax", 2 * scores * e, 3 * scores * e, /*core=*/true); // fused scale, mask, softmax
    if (a.dropout)
      b.elementwise("attention_dropout", scores * (2 * e + drop), scores * (2 * e + drop), /*core=*/true);
    b.activation_gemm("attention_values", "dgrad_p", "dgrad_v", l.sq, l.head_dim, l.s, l.b * l.heads);
  }
  b.weight_gemm("out_proj", T, h, l.q);
  b.elementwise("attention_residual", Tr * h * (3 * e + drop), Tr * h * (3 * e + drop)); // bias-dropout-add
  b.elementwise("mlp_norm", 2 * Tr * h * e, 3 * Tr * h * e);

  const bool swiglu   = a.activation == Activation::SWIGLU;
  const double inner  = swiglu ? 2 * l.f : l.f; // gate and up fused into one GEMM
  double routed       = T;                      // tokens through the FFN (k copies of each in a mixture)
  double experts_here = 1, per_expert = T;
  if (a.moe()) {
    const double E = static_cast<double>(a.experts), k = static_cast<double>(a.top_k), ep = split.ep;
    routed       = T * k;
    experts_here = E / ep;
    per_expert   = T * k * ep / E; // balanced routing: the ep ranks' tokens spread evenly over the experts
    b.weight_gemm("router", T, E, h);
    b.elementwise("moe_dispatch", 2 * routed * h * e, 2 * routed * h * e);
  }
  b.weight_gemm("fc1", per_expert, inner, h, experts_here);
  b.elementwise("activation", (swiglu ? 3 : 2) * routed * l.f * e, (swiglu ? 5 : 3) * routed * l.f * e);
  b.weight_gemm("fc2", per_expert, h, l.f, experts_here);
  if (a.moe())
    b.elementwise("moe_combine", 2 * routed * h * e, 2 * routed * h * e);
  b.elementwise("mlp_residual", Tr * h * (3 * e + drop), Tr * h * (3 * e + drop));
  return b.finish(split.recompute);
}

std::vector<OpSpec> embedding_ops(const TransformerArchitecture& a, const ComputeSplit& split)
{
  const Local l   = local(a, split);
  const double th = l.tokens * l.h;
  // A row gather (read and write each token's row); backward adds each token's gradient into its fp32 row. Learned
  // positions and embedding dropout add one such pass each.
  double forward  = 2 * th * l.e, backward = th * (l.e + 2 * kFp32);
  if (a.positions == Positions::LEARNED) {
    forward += 2 * th * l.e;
    backward += th * (l.e + 2 * kFp32);
  }
  if (a.dropout) {
    forward += th * (2 * l.e + kMaskByte);
    backward += th * (2 * l.e + kMaskByte);
  }
  Builder b(split.precision, attention_precision(split.precision));
  b.elementwise("embedding", forward, backward);
  return b.finish(Recompute::NONE);
}

std::vector<OpSpec> output_ops(const TransformerArchitecture& a, const ComputeSplit& split)
{
  const Local l = local(a, split);
  // Megatron pads the vocabulary to a multiple of 128 x tp (--make-vocab-size-divisible-by 128).
  const double padded = std::ceil(static_cast<double>(a.vocab) / (128 * l.t)) * 128;
  Builder b(split.precision, attention_precision(split.precision));
  b.elementwise("final_norm", 2 * l.replicated_tokens * l.h * l.e, 3 * l.replicated_tokens * l.h * l.e);
  b.weight_gemm("logits", l.tokens, padded, l.h);
  // Megatron's vocabulary-parallel cross entropy in fp32 (megatron/core/tensor_parallel/cross_entropy.py, with
  // fp16_lm_cross_entropy off, its default): cast the logits to fp32, max, subtract, exp, sum, divide (one 16-bit read
  // and nine fp32 reads or writes per logit); backward: the softmax less the one-hot, times the loss gradient, cast back.
  const double logits = l.tokens * padded;
  b.elementwise("cross_entropy", logits * (l.e + 9 * kFp32), logits * (l.e + 5 * kFp32));
  return b.finish(Recompute::NONE);
}

} // namespace ccsim::sim
