#include "algorithms/MemoryFootprint.hpp"

#include "algorithms/Registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ccsim::algorithms {

MemoryFootprint memory_footprint(const PlanAlgorithm& algorithm, const sim::Workload& work, const sim::StepShape& shape)
{
  MemoryFootprint m;
  // Parameters on one rank: its tp x pp slice, and with expert parallelism 1/ep of a mixture's experts.
  const double psi = work.params_held(shape.ep) / (shape.tp * shape.pp);
  // The ranks a sharded optimizer shards over: data and context parallelism together (Megatron-Core's distributed
  // optimizer uses the data-parallel group with context parallelism), dp x cp.
  const double dp  = shape.grad_group();
  if (algorithm.parallelism() == Parallelism::SHARDED_DATA_PARALLEL) {
    // Megatron's distributed optimizer: bf16 weights, an fp32 gradient buffer (the fp32 reduce-scatter), fp32 master
    // weights and both moments sharded over dp (12 bytes / dp per parameter). An expert's states are sharded over
    // the dp/ep ranks that hold it, so all ep x dp/ep shards together are again the whole model over dp.
    m.weights_bytes   = 2 * psi;
    m.gradients_bytes = 4 * psi;
    m.optimizer_bytes = 12 * (static_cast<double>(work.params) / (shape.tp * shape.pp)) / dp;
    // ZeRO-2 keeps only its shard of the (fp32) gradients; ZeRO-3 also only its shard of the bf16 weights, plus
    // what one layer needs unsharded: its gathered weights and those of the next layer being prefetched, and the
    // layer's gradients before their reduce-scatter (Rajbhandari et al. 2020 §5: 2Ψ + 14Ψ/N, then 16Ψ/N).
    const double layer = psi / std::max(1, work.layers / shape.pp);
    if (shape.zero_stage >= 2)
      m.gradients_bytes = 4 * psi / dp;
    if (shape.zero_stage == 3) {
      m.weights_bytes = 2 * psi / dp + 2 * (2 * layer);
      m.gradients_bytes += shape.grad_bytes * layer;
    }
  } else {
    // DeepSpeed fp16 training: fp16 weights and gradients, fp32 master weights, m and v (ZeRO §3.1: 16 bytes).
    m.weights_bytes   = 2 * psi;
    m.gradients_bytes = 2 * psi;
    m.optimizer_bytes = 12 * psi;
  }
  // The algorithm's own buffers (its descriptor's, with their sources); a plan no algorithm registered is an error.
  const ExtraCopies& extra = algorithm_named(algorithm.name()).memory;
  const double per_node  = shape.zero_stage == 3 ? extra.per_node_at_stage3 / std::max(1, shape.dp_per_node) : 0;
  m.compression_bytes    = 4 * psi * (extra.persistent + extra.per_dp / dp + per_node);
  m.step_transient_bytes = 4 * psi * extra.transient;

  // Activations of a transformer layer per micro-batch, 16-bit, tensor parallel without sequence parallelism
  // (Korthikanti et al. 2022, "Reducing activation recomputation", eq. 2): s·b·h·(10 + 24/t + 5·a·s/(h·t)) bytes;
  // with full recomputation only each layer's input stays, 2·s·b·h, plus one layer recomputed at a time.
  const double s = shape.seq_len > 0 ? shape.seq_len : work.seq_len, b = static_cast<double>(shape.micro_batch);
  const double h = work.hidden, a = work.heads, t = shape.tp;
  if (s <= 0 || h <= 0 || a <= 0 || work.layers <= 0) {
    m.activations_note = "unknown: the workload has no seq_len, hidden, heads or layers";
    return m;
  }
  // A workload with an architecture counts its own layer (sim/model/TransformerArchitecture.hpp: GQA, SwiGLU,
  // FlashAttention, MoE, sequence parallelism); the papers' GPT, BERT and Swin layers keep eq. 2.
  const auto& arch = work.architecture;
  const bool sp    = work.sequence_parallel;
  // Context parallelism: each rank holds seq_len / cp tokens of every sequence, and with FlashAttention (which context
  // parallelism needs) everything a layer stores is linear in its tokens: Transformer Engine keeps the rank's own Q,
  // output and one K,V block (context_parallel.py saves q, kv, out). A cp split therefore divides the activations by
  // cp; the unfused layer of eq. 2 below never runs with cp > 1 (resolve_run refuses it).
  const auto seq   = static_cast<std::int64_t>(s) / std::max(1, shape.cp);
  // Selective recomputation (Korthikanti §5) stores what a FlashAttention layer stores: no score matrices.
  auto stored = arch;
  if (stored && work.recompute == sim::Recompute::SELECTIVE)
    stored->flash_attention = true;
  const double per_layer = stored ? sim::activation_bytes_per_layer(*stored, shape.micro_batch, seq, shape.tp, sp)
                                  : s * b * h * (10 + 24 / t + 5 * a * s / (h * t));
  const double kept_per_layer =
      arch ? sim::recomputed_activation_bytes_per_layer(*arch, shape.micro_batch, seq, shape.tp, sp) : 2 * s * b * h;
  const double layers       = std::ceil(static_cast<double>(work.layers) / shape.pp);
  // The first stage holds the most micro-batches: 1F1B keeps pp in flight (Megatron), GPipe all of them (AQ-SGD).
  // Interleaving vpp chunks per rank warms the pipeline up with more chunks: its first stage holds 1 + (pp - 1) /
  // (pp vpp) times 1F1B's activations (Korthikanti et al. 2022 §4.2.3).
  const double micro_batches = shape.grad_accumulation;
  const double interleaved   = shape.vpp > 1 ? 1 + (shape.pp - 1.0) / (shape.pp * shape.vpp) : 1;
  const double in_flight = shape.pp == 1 ? 1
                           : algorithm.parallelism() == Parallelism::PIPELINE ? micro_batches
                                                                              : std::min<double>(shape.pp, micro_batches) * interleaved;
  // The last stage's fp32 logits for the loss: 4·s·b·V / t (Korthikanti et al. §4.3), when the vocabulary is known.
  const double logits = work.vocab > 0 ? 4 * (s / std::max(1, shape.cp)) * b * work.vocab / t : 0;
  m.activations_bytes           = per_layer * layers * in_flight + logits;
  m.activations_recompute_bytes = kept_per_layer * layers * in_flight + per_layer + logits;
  m.activations_note =
      fmt::format("{} layers x {} micro-batch(es) in flight{}{}, {}", layers,
                  in_flight == std::floor(in_flight) ? fmt::format("{}", in_flight) : fmt::format("{:.4g}", in_flight),
                  interleaved > 1 ? fmt::format(" (interleaved, {} chunks per stage)", shape.vpp) : "",
                  shape.cp > 1 ? fmt::format(", {} tokens per sequence (context parallel {})", seq, shape.cp) : "",
                  !arch ? "Korthikanti et al. 2022 eq. 2"
                        : fmt::format("Korthikanti et al. 2022 eq. 2 adapted to the architecture ({}{})",
                                      arch->flash_attention                       ? "FlashAttention"
                                      : work.recompute == sim::Recompute::SELECTIVE ? "attention core recomputed"
                                                                                  : "attention scores stored",
                                      sp && shape.tp > 1 ? ", sequence parallel" : ""));
  return m;
}

} // namespace ccsim::algorithms
