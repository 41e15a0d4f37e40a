// Parameters, FLOPs, tensors, activation memory and message sizes of a transformer from its architecture.
// Every formula below cites the paper it comes from; tests/sim/TransformerArchitecture_test.cpp holds them to
// published counts.
#include "sim/model/TransformerArchitecture.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>

namespace ccsim::sim {

namespace {
/// Parameter counts in double arithmetic: exact while every term stays below 2^53, which the loader guarantees by
/// rejecting an architecture whose total exceeds io::range::kParams (10^15) before anything converts to integers.
struct Counts {
  double attention = 0, expert = 0, router = 0, norms = 0, embedding = 0, positions = 0, final_norm = 0, head = 0;
  double total = 0, active = 0, experts_total = 0, matmul_active = 0;
};

Counts counts(const TransformerArchitecture& a)
{
  const double h = static_cast<double>(a.hidden), q = static_cast<double>(a.query_width()),
               kv = static_cast<double>(a.kv_width()), f = static_cast<double>(a.ffn_hidden),
               L = static_cast<double>(a.layers), V = static_cast<double>(a.vocab), E = static_cast<double>(a.experts),
               k = static_cast<double>(a.top_k);
  const bool bias   = a.linear_bias;
  const bool swiglu = a.activation == Activation::SWIGLU;
  Counts c;
  // Attention: Wq (h x q), Wk and Wv (h x kv each), Wo (q x h); biases q + 2kv + h.
  const double attention_weights = 2 * h * q + 2 * h * kv;
  c.attention = attention_weights + (bias ? q + 2 * kv + h : 0);
  // FFN (one expert): SwiGLU gate, up (h x f each) and down (f x h); GELU fc1 and fc2; biases on the inner and
  // outer widths.
  const double expert_weights = (swiglu ? 3 : 2) * h * f;
  c.expert = expert_weights + (bias ? (swiglu ? 2 * f : f) + h : 0);
  c.router = a.moe() ? h * E : 0;                         // Mixtral's gate: h x E, no bias
  const double norm = a.norm == Norm::LAYERNORM ? 2 * h : h;
  c.norms           = 2 * norm;                           // before attention and before the FFN
  c.embedding       = V * h;
  c.positions       = a.positions == Positions::LEARNED ? static_cast<double>(a.seq_len) * h : 0;
  c.final_norm      = norm;
  c.head            = a.tied_embeddings ? 0 : V * h;
  const double routed = a.moe() ? k : 1;                  // experts one token passes through
  const double outside = c.embedding + c.positions + c.final_norm + c.head;
  c.total         = outside + L * (c.attention + E * c.expert + c.router + c.norms);
  c.active        = outside + L * (c.attention + routed * c.expert + c.router + c.norms);
  c.experts_total = a.moe() ? L * E * c.expert : 0;
  // The GEMMs a token passes through: attention, its k experts, the router and the output head (an input embedding
  // is a lookup, and norms and biases are elementwise; Kaplan et al. 2020 §2.1 and PaLM app. B count the same).
  c.matmul_active = L * (attention_weights + routed * expert_weights + c.router) + V * h;
  return c;
}

std::uint64_t exact(double count)
{
  assert(count >= 0 && count <= 9007199254740992.0); // 2^53: the loader's kParams bound keeps us far below
  return static_cast<std::uint64_t>(count);
}

/// A byte count as an integer. Only absurd shapes (s·b·h beyond 10^18) exceed 64 bits; they saturate rather than wrap,
/// so a run of them is visibly absurd instead of small.
std::uint64_t to_bytes(double bytes)
{
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(bytes);
}

/// 16-bit bytes of one micro-batch's activations, s·b·h·2.
double layer_input_bytes(const TransformerArchitecture& a, std::uint64_t b, std::int64_t s)
{
  return 2.0 * static_cast<double>(s) * static_cast<double>(b) * static_cast<double>(a.hidden);
}
} // namespace

ParameterCounts parameter_counts(const TransformerArchitecture& arch)
{
  const Counts c = counts(arch);
  ParameterCounts p;
  p.attention_per_layer = exact(c.attention);
  p.expert_per_layer    = exact(c.expert);
  p.router_per_layer    = exact(c.router);
  p.norms_per_layer     = exact(c.norms);
  p.embedding           = exact(c.embedding);
  p.positions           = exact(c.positions);
  p.final_norm          = exact(c.final_norm);
  p.output_head         = exact(c.head);
  p.total               = exact(c.total);
  p.active              = exact(c.active);
  p.experts_total       = exact(c.experts_total);
  p.matmul_active       = exact(c.matmul_active);
  return p;
}

double parameter_count_estimate(const TransformerArchitecture& arch)
{
  return counts(arch).total;
}

std::uint64_t tensor_count(const TransformerArchitecture& a)
{
  // Megatron-Core with Transformer Engine: embedding (+ learned positions); per layer linear_qkv, its fused
  // layer_norm_weight, linear_proj, then either linear_fc1 (fused gate+up), its layer_norm_weight and linear_fc2, or
  // for a MoE layer pre_mlp_layernorm, the router and fc1/fc2 per expert; final_layernorm; output_layer unless tied.
  // Each linear counts twice with biases, each norm twice for LayerNorm. Legacy Megatron GPT (query_key_value, dense,
  // dense_h_to_4h, dense_4h_to_h and two LayerNorms, all with biases) counts the same 12 per layer.
  const std::uint64_t linear = a.linear_bias ? 2 : 1, norm = a.norm == Norm::LAYERNORM ? 2 : 1;
  const std::uint64_t attention = 2 * linear + norm;
  const std::uint64_t ffn = a.moe() ? norm + 1 + static_cast<std::uint64_t>(a.experts) * 2 * linear : 2 * linear + norm;
  const std::uint64_t outside = 1 + (a.positions == Positions::LEARNED ? 1 : 0) + norm + (a.tied_embeddings ? 0 : 1);
  return outside + static_cast<std::uint64_t>(a.layers) * (attention + ffn);
}

FlopsPerToken flops_per_token(const TransformerArchitecture& a, std::int64_t seq_len)
{
  const double matmul   = 6.0 * counts(a).matmul_active;
  // QK^T and PV: 2·s·q multiply-adds each per token and layer forward, 4·s·q FLOPs, x3 with backward = 12·s·q;
  // a causal mask halves it when the kernel skips the masked blocks (FlashAttention does).
  const double attention = 12.0 * static_cast<double>(a.layers) * static_cast<double>(seq_len) *
                           static_cast<double>(a.query_width());
  return {matmul, matmul + attention / 2, matmul + attention};
}

double flops_per_sample(const TransformerArchitecture& arch, std::int64_t seq_len)
{
  return flops_per_token(arch, seq_len).of(arch.attention_flops) * static_cast<double>(seq_len);
}

double activation_bytes_per_layer(const TransformerArchitecture& a, std::uint64_t micro_batch, std::int64_t seq_len,
                                  int tp, bool sequence_parallel)
{
  // Korthikanti et al. 2022 §4.1 counts, per token and layer, what backward needs (2 bytes per 16-bit value):
  // replicated over tensor-parallel ranks (without sequence parallelism):
  //   2h norm input + 2h QKV input (the norm's output), twice (before attention, before the FFN)        = 8h
  //   + with dropout, the 1-byte masks after attention and after the FFN                                 + 2h
  // split over the tp ranks:
  //   Q (2q), K and V (4kv), the attention output feeding Wo (2q)                                         = 4q + 4kv
  //   FFN: SwiGLU's gate and up outputs (4f) and the down projection's input (2f) = 6f; GELU's input and
  //   fc2's input = 4f (Korthikanti's 16h at f = 4h)
  //   attention scores: with FlashAttention only the fp32 log-sum-exp per head, 4a (Dao et al. 2022 §3.1);
  //   without, the softmax output 2·a·s, plus with dropout its mask and output 3·a·s (Korthikanti: 5as²b)
  //   MoE: each token's k routed copies, 2h in and the expert's FFN activations, plus fp32 router logits 4E.
  // For GPT (q = kv = h, GELU f = 4h, dropout, no FlashAttention): 10h + (24h + 5as)/t, eq. 2 exactly.
  const double h = static_cast<double>(a.hidden), s = static_cast<double>(seq_len),
               heads = static_cast<double>(a.heads), f = static_cast<double>(a.ffn_hidden);
  const double ffn_per_width = a.activation == Activation::SWIGLU ? 6 : 4;
  double replicated = 8 * h + (a.dropout ? 2 * h : 0);
  double split      = 4.0 * static_cast<double>(a.query_width()) + 4.0 * static_cast<double>(a.kv_width());
  split += a.flash_attention ? 4 * heads : 2 * heads * s + (a.dropout ? 3 * heads * s : 0);
  split += a.moe() ? static_cast<double>(a.top_k) * (2 * h + ffn_per_width * f) + 4.0 * static_cast<double>(a.experts)
                   : ffn_per_width * f;
  const double t      = tp;
  const double tokens = s * static_cast<double>(micro_batch);
  return sequence_parallel ? tokens * (replicated + split) / t : tokens * (replicated + split / t);
}

double recomputed_activation_bytes_per_layer(const TransformerArchitecture& a, std::uint64_t micro_batch,
                                             std::int64_t seq_len, int tp, bool sequence_parallel)
{
  return layer_input_bytes(a, micro_batch, seq_len) / (sequence_parallel ? tp : 1);
}

std::uint64_t tp_all_reduce_bytes(const TransformerArchitecture& arch, std::uint64_t micro_batch, std::int64_t seq_len)
{
  return to_bytes(layer_input_bytes(arch, micro_batch, seq_len));
}

std::uint64_t pp_boundary_bytes(const TransformerArchitecture& arch, std::uint64_t micro_batch, std::int64_t seq_len)
{
  return to_bytes(layer_input_bytes(arch, micro_batch, seq_len));
}

std::uint64_t cp_kv_block_bytes(const TransformerArchitecture& arch, std::uint64_t micro_batch, std::int64_t seq_len,
                                int tp, int cp)
{
  const std::int64_t kv_heads = std::max<std::int64_t>(1, arch.kv_heads / std::max(1, tp));
  const std::int64_t tokens   = seq_len / std::max(1, cp);
  return micro_batch * static_cast<std::uint64_t>(tokens) * static_cast<std::uint64_t>(kv_heads) *
         static_cast<std::uint64_t>(arch.head_dim) * 2 /* K, V */ * 2 /* bf16 */;
}

std::uint64_t moe_all_to_all_bytes(const TransformerArchitecture& arch, std::uint64_t micro_batch, std::int64_t seq_len)
{
  if (!arch.moe())
    return 0;
  return to_bytes(layer_input_bytes(arch, micro_batch, seq_len) * static_cast<double>(arch.top_k));
}

} // namespace ccsim::sim
