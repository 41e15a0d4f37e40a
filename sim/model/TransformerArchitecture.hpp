#pragma once
// A decoder transformer described by its architecture (a workload's `architecture` block, workloads/SCHEMA.md), and
// what follows from it by arithmetic alone: parameters (total and active per token), training FLOPs per token under
// the three conventions in use, the parameter tensor count, activation memory per layer, and the tensor-, pipeline-
// and expert-parallel message sizes. No SimGrid: the loader, the memory model and the plans all read these numbers,
// so each is derived once.
//
// Notation (as in Korthikanti et al. 2022 and the Llama/Mixtral configs): L layers, h hidden, a query heads, g kv
// heads, d head dim, q = a·d, kv = g·d, f FFN width (per expert), V vocabulary, s sequence, b micro-batch, E experts,
// k experts per token, t tensor-parallel degree. Activations and messages are 16-bit (bf16).

#include <cstdint>

namespace ccsim::sim {

enum class Activation { GELU, SWIGLU };       // GELU: fc1, fc2; SwiGLU: gate, up, down (Shazeer 2020)
enum class Norm { LAYERNORM, RMSNORM };       // LayerNorm: weight + bias; RMSNorm: weight only
enum class Positions { LEARNED, ROPE };       // learned: a seq_len x h table (GPT-2); RoPE: no parameters
enum class AttentionFlops { CAUSAL, FULL };   // which attention term model FLOPs count (see FlopsPerToken)

struct TransformerArchitecture {
  std::int64_t layers     = 0;
  std::int64_t hidden     = 0;
  std::int64_t heads      = 0; // query heads
  std::int64_t kv_heads   = 0; // key/value heads (grouped-query attention when < heads)
  std::int64_t head_dim   = 0; // hidden / heads unless the config says otherwise
  std::int64_t ffn_hidden = 0; // FFN width; per expert for a mixture of experts
  Activation activation   = Activation::SWIGLU;
  Norm norm               = Norm::RMSNORM;
  std::int64_t vocab      = 0;
  std::int64_t seq_len    = 0;
  bool tied_embeddings    = false; // the output head reuses the input embedding
  bool linear_bias        = false; // biases on the attention and FFN projections (GPT-2, BERT)
  Positions positions     = Positions::ROPE;
  std::int64_t experts    = 1; // 1 = dense FFN
  std::int64_t top_k      = 1; // experts each token is routed to
  bool flash_attention    = true;  // the s x s attention matrices are never stored (Dao et al. 2022)
  bool dropout            = false; // GPT/BERT train with dropout; Llama and Mixtral without
  AttentionFlops attention_flops = AttentionFlops::CAUSAL;

  std::int64_t query_width() const { return heads * head_dim; }  // q
  std::int64_t kv_width() const { return kv_heads * head_dim; }  // kv
  bool moe() const { return experts > 1; }
};

/// Parameter counts, every trainable element (embeddings, norms, biases, router) included.
struct ParameterCounts {
  std::uint64_t attention_per_layer = 0; // Wq, Wk, Wv, Wo (+ biases)
  std::uint64_t expert_per_layer    = 0; // one dense FFN (or one expert) with its biases
  std::uint64_t router_per_layer    = 0; // h·E for a mixture of experts
  std::uint64_t norms_per_layer     = 0;
  std::uint64_t embedding           = 0; // V·h
  std::uint64_t positions           = 0; // seq_len·h when learned
  std::uint64_t final_norm          = 0;
  std::uint64_t output_head         = 0; // V·h unless tied
  std::uint64_t total               = 0;
  std::uint64_t active              = 0; // touched by one token: k of the E experts
  std::uint64_t experts_total       = 0; // L·E·expert_per_layer: what expert parallelism shards (0 when dense)
  std::uint64_t matmul_active       = 0; // weights of the GEMMs one token passes through (6N counts these)
};

ParameterCounts parameter_counts(const TransformerArchitecture& arch);

/// The parameter count as a double, without integer arithmetic: the loader checks it against the limits before
/// parameter_counts() forms 64-bit products (parameter_counts() is exact below 2^53, far above kParams).
double parameter_count_estimate(const TransformerArchitecture& arch);

/// Parameter tensors in Megatron-Core's layout (fused QKV, fused gate+up, each norm its own tensor, one fc1/fc2
/// pair per expert): the layout the papers' GPT presets count (gpt-6.7b: 388).
std::uint64_t tensor_count(const TransformerArchitecture& arch);

/// Training FLOPs per token (forward + backward = 3 x forward, no recomputation), three conventions:
/// - no_attention: 6·N_matmul (Kaplan et al. 2020 §2.1), N_matmul = ParameterCounts::matmul_active;
/// - causal: + 6·L·s·q, only the lower triangle of QK^T and PV (FlashAttention's work; Megatron-Bridge's
///   flop_utils.py "model TFLOP/s");
/// - full: + 12·L·s·q (PaLM, Chowdhery et al. 2022 app. B: 6N + 12·L·H·Q·T; Narayanan et al. 2021 §5.1, the
///   formula of ccsim's GPT presets).
struct FlopsPerToken {
  double no_attention = 0;
  double causal       = 0;
  double full         = 0;
  double of(AttentionFlops convention) const { return convention == AttentionFlops::CAUSAL ? causal : full; }
};

FlopsPerToken flops_per_token(const TransformerArchitecture& arch, std::int64_t seq_len);
/// Training FLOPs of one sample of `seq_len` tokens in the architecture's own convention (attention_flops).
double flops_per_sample(const TransformerArchitecture& arch, std::int64_t seq_len);

/// Bytes one layer stores for backward per micro-batch of `micro_batch` sequences of `seq_len` tokens, on one of
/// `tp` tensor-parallel ranks. Korthikanti et al. 2022 §4.1 eq. 2 adapted to GQA, SwiGLU, FlashAttention and MoE
/// (derivation in the .cpp); for a GPT layer without FlashAttention it is exactly eq. 2, s·b·h·(34 + 5·a·s/h) at
/// t = 1. With sequence parallelism (Korthikanti §4.2.2) every term is split over the tp ranks.
double activation_bytes_per_layer(const TransformerArchitecture& arch, std::uint64_t micro_batch,
                                  std::int64_t seq_len, int tp, bool sequence_parallel);
/// With full activation recomputation only the layer's input stays: 2·s·b·h (split over tp with sequence
/// parallelism).
double recomputed_activation_bytes_per_layer(const TransformerArchitecture& arch, std::uint64_t micro_batch,
                                             std::int64_t seq_len, int tp, bool sequence_parallel);

/// One tensor-parallel all-reduce of a micro-batch's activations, 2·s·b·h bytes (Shoeybi et al. 2019 §3: two
/// forward and two backward per layer; one more after the vocabulary-parallel embedding and one for the output
/// head's input gradient). With sequence parallelism each becomes an all-gather plus a reduce-scatter moving the
/// same bytes (Korthikanti §4.2.2).
std::uint64_t tp_all_reduce_bytes(const TransformerArchitecture& arch, std::uint64_t micro_batch, std::int64_t seq_len);
inline constexpr int kTpAllReducesPerLayer = 4;

/// One pipeline-stage boundary, one way: the activation forward (the gradient backward is the same size), 2·s·b·h.
std::uint64_t pp_boundary_bytes(const TransformerArchitecture& arch, std::uint64_t micro_batch, std::int64_t seq_len);

/// One expert-parallel all-to-all of a mixture-of-experts layer, each rank's send buffer: its s·b tokens, each
/// routed to k experts, 2·s·b·k·h bytes (GShard, Lepikhin et al. 2021 §2.2 dispatch/combine). A MoE layer runs
/// four per micro-batch: dispatch and combine forward, and their gradients backward. 0 for a dense model.
std::uint64_t moe_all_to_all_bytes(const TransformerArchitecture& arch, std::uint64_t micro_batch, std::int64_t seq_len);
inline constexpr int kMoeAllToAllsPerLayer = 4;

/// Context parallelism: the K and V block one of `cp` ranks holds for one micro-batch and sends around the ring at
/// each step of ring attention (sim/model/CommPlan.hpp, RingAttention): b·(s/cp) tokens x the kv heads on one of `tp`
/// tensor-parallel ranks (at least one: Megatron replicates kv heads when tp exceeds them) x d x 2 tensors (K, V),
/// 16-bit. Transformer Engine sends K and V as one concatenated buffer (context_parallel.py, p2p_comm_buffers).
std::uint64_t cp_kv_block_bytes(const TransformerArchitecture& arch, std::uint64_t micro_batch, std::int64_t seq_len,
                                int tp, int cp);

} // namespace ccsim::sim
