// The kernel list of a transformer layer held to the architecture's own arithmetic: a layer's forward and backward
// GEMM FLOPs times the layers, plus the output layer's, are the training FLOPs TransformerArchitecture counts; tensor
// and context parallelism divide them; recomputation reruns the forward ops its mode names; sequence parallelism
// divides the replicated element-wise bytes.
#include "sim/compute/TransformerOps.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace ccsim::sim;

namespace {
/// GPT-1.3B's shape (Narayanan et al.'s GPT family: h 2048, 16 heads, 24 layers, FFN 4h) with a vocabulary that needs
/// no padding at tp 8 (50,176 = 49 x 1,024), so the output GEMM's width is exactly V / tp.
TransformerArchitecture gpt()
{
  TransformerArchitecture a;
  a.layers = 24, a.hidden = 2048, a.heads = 16, a.kv_heads = 16, a.head_dim = 128, a.ffn_hidden = 8192;
  a.activation = Activation::GELU, a.norm = Norm::LAYERNORM, a.vocab = 50176, a.seq_len = 2048;
  a.linear_bias = true, a.positions = Positions::LEARNED, a.flash_attention = false, a.dropout = true;
  a.attention_flops = AttentionFlops::FULL;
  return a;
}

/// A small mixture (8 experts, top 2, SwiGLU, grouped-query attention) with flash attention.
TransformerArchitecture mixture()
{
  TransformerArchitecture a;
  a.layers = 4, a.hidden = 1024, a.heads = 16, a.kv_heads = 4, a.head_dim = 64, a.ffn_hidden = 2048;
  a.activation = Activation::SWIGLU, a.norm = Norm::RMSNORM, a.vocab = 32768, a.seq_len = 4096;
  a.experts = 8, a.top_k = 2;
  return a;
}

double flops_of(const std::vector<OpSpec>& ops, Pass pass)
{
  double sum = 0;
  for (const auto& op : ops)
    if (op.pass == pass)
      sum += op.flops;
  return sum;
}

/// Forward + backward FLOPs of one micro-batch through the whole model, on one GPU.
double model_flops(const TransformerArchitecture& a, const ComputeSplit& split)
{
  const auto layer = layer_ops(a, split), out = output_ops(a, split);
  return a.layers * (flops_of(layer, Pass::FORWARD) + flops_of(layer, Pass::BACKWARD)) + flops_of(out, Pass::FORWARD) +
         flops_of(out, Pass::BACKWARD);
}
} // namespace

TEST_CASE("layer_ops: the GEMMs of every layer and the output layer are the architecture's training FLOPs", "[sim]")
{
  // TransformerArchitecture's full-attention count: 6 x matmul weights + 12 x layers x s x q per token (PaLM app. B).
  // The kernel list gets there GEMM by GEMM: each forward GEMM 2mnk, its dgrad and wgrad as much again each, the
  // unfused attention's QK^T and PV 2 x s x s x d per head each.
  const auto a = gpt();
  ComputeSplit split;
  split.micro_batch = 2;
  split.seq_len     = 2048;
  const double expected = 2 * flops_per_sample(a, 2048);
  CHECK(model_flops(a, split) == Approx(expected).epsilon(1e-12));
  // Eight tensor-parallel ranks each do an eighth.
  split.tp = 8;
  CHECK(8 * model_flops(a, split) == Approx(expected).epsilon(1e-12));
}

TEST_CASE("layer_ops: a mixture's router and its top-k experts are the architecture's FLOPs", "[sim]")
{
  // matmul_active counts the router (h x E) and k of the E experts per token; the op list routes T x k tokens over
  // the experts (grouped GEMMs of T x k / E rows each). FlashAttention's causal half is checked on its own below, so
  // the attention term is taken out of both sides here.
  auto a            = mixture();
  a.flash_attention = false;
  ComputeSplit split;
  split.micro_batch = 1;
  split.seq_len     = 4096;
  const auto layer  = layer_ops(a, split);
  double attention  = 0;
  for (const auto& op : layer)
    if (op.name.rfind("attention_", 0) == 0)
      attention += op.flops;
  const double no_attention = model_flops(a, split) - a.layers * attention;
  CHECK(no_attention == Approx(flops_per_token(a, 4096).no_attention * 4096).epsilon(1e-12));
}

TEST_CASE("layer_ops: FlashAttention computes the causal half plus the diagonal blocks and 2.5x that backward",
          "[sim]")
{
  // 4 x b x heads x d x s (s + 128) / 2: the lower triangle of 128 x 128 blocks, diagonal blocks whole (Dao 2023).
  const auto a = mixture();
  ComputeSplit split;
  split.micro_batch = 1;
  split.seq_len     = 4096;
  const auto ops    = layer_ops(a, split);
  const auto fwd    = std::find_if(ops.begin(), ops.end(), [](const OpSpec& o) { return o.name == "attention"; });
  const auto bwd = std::find_if(ops.begin(), ops.end(), [](const OpSpec& o) { return o.name == "attention.backward"; });
  REQUIRE(fwd != ops.end());
  REQUIRE(bwd != ops.end());
  CHECK(fwd->flops == Approx(4.0 * 16 * 64 * 4096.0 * (4096 + 128) / 2).epsilon(1e-12));
  CHECK(bwd->flops == Approx(2.5 * fwd->flops).epsilon(1e-12));
  // Context parallelism over 4 ranks: each does a quarter of the causal work and a quarter of the GEMM rows.
  split.cp          = 4;
  const auto cp_ops = layer_ops(a, split);
  const auto cp_fwd = std::find_if(cp_ops.begin(), cp_ops.end(), [](const OpSpec& o) { return o.name == "attention"; });
  const auto qkv    = std::find_if(cp_ops.begin(), cp_ops.end(), [](const OpSpec& o) { return o.name == "qkv"; });
  CHECK(cp_fwd->flops == Approx(fwd->flops / 4).epsilon(1e-12));
  CHECK(qkv->gemm.m == 1024);
}

TEST_CASE("layer_ops: selective recomputation reruns the attention core and full reruns the whole forward", "[sim]")
{
  const auto a = gpt();
  ComputeSplit split;
  split.micro_batch = 1;
  split.seq_len     = 2048;
  split.recompute   = Recompute::SELECTIVE;
  std::set<std::string> rerun;
  for (const auto& op : layer_ops(a, split))
    if (op.pass == Pass::RECOMPUTE)
      rerun.insert(op.name);
  // Korthikanti et al. 2022 §5: QK^T, softmax, softmax dropout, attention over V.
  CHECK(rerun == std::set<std::string>{"attention_scores", "softmax", "attention_dropout", "attention_values"});

  split.recompute = Recompute::FULL;
  const auto full = layer_ops(a, split);
  CHECK(flops_of(full, Pass::RECOMPUTE) == Approx(flops_of(full, Pass::FORWARD)).epsilon(1e-12));
  split.recompute = Recompute::NONE;
  CHECK(flops_of(layer_ops(a, split), Pass::RECOMPUTE) == 0);
}

TEST_CASE("layer_ops: sequence parallelism splits the norms and residual adds over the tensor-parallel ranks", "[sim]")
{
  // The input norm reads and writes s x b x h 16-bit values: 2 x 2048 x 2048 x 2 bytes, an eighth of it per rank
  // with sequence parallelism at tp 8 (Korthikanti §4.2.2); without it every rank does the whole.
  const auto a = gpt();
  ComputeSplit split;
  split.micro_batch = 1;
  split.seq_len     = 2048;
  split.tp          = 8;
  auto norm_bytes   = [&](bool sp) {
    split.sequence_parallel = sp;
    for (const auto& op : layer_ops(a, split))
      if (op.name == "input_norm")
        return op.bytes;
    return -1.0;
  };
  CHECK(norm_bytes(false) == Approx(2.0 * 2048 * 2048 * 2).epsilon(1e-12));
  CHECK(norm_bytes(true) == Approx(2.0 * 2048 * 2048 * 2 / 8).epsilon(1e-12));
}

TEST_CASE("output_ops: the vocabulary is padded to a multiple of 128 x tp as Megatron pads it", "[sim]")
{
  // GPT-2's 50,257 at tp 8 becomes 51,200 (50 x 1,024): 6,400 columns per rank.
  auto a  = gpt();
  a.vocab = 50257;
  ComputeSplit split;
  split.micro_batch = 1;
  split.seq_len     = 2048;
  split.tp          = 8;
  for (const auto& op : output_ops(a, split))
    if (op.name == "logits")
      CHECK(op.gemm.n == 6400);
}
