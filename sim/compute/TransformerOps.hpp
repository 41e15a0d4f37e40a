#pragma once
// The kernels of one transformer layer, of the embedding and of the output layer on one GPU, for a given split of the
// work (tensor, sequence, context and expert parallelism), recomputation mode and number format: every GEMM of the
// forward pass, its two backward GEMMs (data and weight gradients) and what recomputation runs again, with (m, n, k);
// the attention core with or without FlashAttention; and the element-wise kernels with the bytes they move. The op
// list follows Megatron-LM's GPT layer (megatron/core/transformer: fused QKV, fused bias-GELU / SwiGLU, fused
// scale-mask-softmax, fused bias-dropout-add, vocabulary-parallel embedding and cross entropy). Pricing is
// sim/compute/OperatorCost.hpp; nothing here depends on the GPU.

#include "sim/compute/KernelCost.hpp"
#include "sim/model/TrainingRecipe.hpp"
#include "sim/model/TransformerArchitecture.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ccsim::sim {

enum class Pass { FORWARD, BACKWARD, RECOMPUTE };
enum class OpKind {
  GEMM,        // priced by sim::gemm_cost from its shape
  ATTENTION,   // FlashAttention: priced by sim::flash_attention_cost from its FLOPs and bytes
  ELEMENTWISE, // norms, softmax, dropout, activations, residual adds, cross entropy: priced by the bytes they move
};

struct OpSpec {
  std::string name; // "qkv", "qkv.dgrad", "qkv.wgrad", "attention", "softmax.backward", ...
  Pass pass           = Pass::FORWARD;
  OpKind kind         = OpKind::GEMM;
  Precision precision = Precision::BF16; // the format it runs in (attention stays 16-bit under an FP8 recipe)
  GemmShape gemm{};        // GEMM
  GemmOperands operands{}; // GEMM: element sizes (a weight gradient accumulates into fp32)
  double flops = 0;        // ATTENTION: the attention work of the kernel (GEMM: gemm.flops())
  double bytes = 0;        // ATTENTION, ELEMENTWISE: bytes read and written
};

/// How one micro-batch's work is split over GPUs, and how it is trained: the inputs of the per-operator model.
struct ComputeSplit {
  std::uint64_t micro_batch = 1;
  std::int64_t seq_len      = 0;     // the whole sequence; each context-parallel rank holds seq_len / cp of it
  int tp                    = 1;     // tensor parallelism (Megatron: heads and FFN columns split tp ways)
  bool sequence_parallel    = false; // norms, dropouts and residual adds on seq_len / tp tokens (Korthikanti §4.2.2)
  int cp                    = 1;     // context parallelism: queries split cp ways, attention over the whole sequence
  int ep                    = 1;     // expert parallelism: each rank runs experts / ep experts (a mixture only)
  Recompute recompute       = Recompute::NONE;
  Precision precision       = Precision::BF16;
};

/// One transformer layer's kernels on one GPU: forward, backward, then what `split.recompute` runs again (tagged
/// Pass::RECOMPUTE). A decoder's causal mask is assumed: FlashAttention skips the masked blocks; an unfused attention
/// computes the whole s x s score matrix (Megatron's fused softmax masks it after the GEMM).
std::vector<OpSpec> layer_ops(const TransformerArchitecture& arch, const ComputeSplit& split);
/// The first pipeline stage's extra work: the (vocabulary-parallel) input embedding and learned positions.
std::vector<OpSpec> embedding_ops(const TransformerArchitecture& arch, const ComputeSplit& split);
/// The last stage's: the final norm, the output projection to the vocabulary (split tp ways) and the cross entropy.
std::vector<OpSpec> output_ops(const TransformerArchitecture& arch, const ComputeSplit& split);

} // namespace ccsim::sim
