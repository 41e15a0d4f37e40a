#pragma once
// SDP4Bit's quantized gradient reduce-scatter over G nodes x g GPUs per node, in memory (SDP4Bit §3.2, Algorithm 3,
// Fig. 3; quantization_helper.py l.267–348, docs/design/notes/reference-implementations.md §7.3–7.4):
//   1. every worker quantizes its whole (pre-divided, fp32) gradient at `intra_bits` (TLq: 8) — after a 32-point
//      Hadamard transform for TLq-HS;
//   2. intra-node all-to-all: local rank l receives, from each of the g workers on its node, the shards owned by the
//      ranks (node a', local l) for every node a' — the DeepSpeed/SDP4Bit swizzle delivers exactly these (§5.3);
//   3. dequantize and reduce in fp32 (dequantize_reduce_quant.cu), then re-quantize the G partial shards at
//      `inter_bits` (4) — in the Hadamard domain for TLq-HS (§3.3 "Simplifying Hadamard Transforms");
//   4. inter-node all-to-all among ranks of equal local index: shard (a', l) goes to node a';
//   5. dequantize and reduce in fp32 over the G nodes, then the inverse Hadamard for TLq-HS: the rank's shard.
// ULq (ZeRO++ qgZ, the one-level baseline) is the same pipeline at 4 bits in both stages without Hadamard (§5.3).
// Gradients are averaged: each input is pre-divided by W = G·g as SDP4Bit's grad_buffer.py l.114 does (ZeRO++'s
// literal "/num_nodes" is a reported oddity, §5.3, not followed). g = 1 skips stage 1-3 quantization (inter only),
// G = 1 ends after stage 3's reduce (intra only), like SDP4Bit's intra-only / inter-only variants (l.350–443).
// Stochastic draws: worker of global rank r uses derive_seed(seed, r, stage) keyed by the element's index in the
// padded buffer, so a run is reproducible and the CUDA twin can draw the same numbers.

#include "numerics/CompressionKernels.hpp"
#include "numerics/GroupQuantizer.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccsim::numerics {

struct TwoLevelConfig {
  std::size_t nodes           = 1;   // G
  std::size_t gpus_per_node   = 1;   // g
  int intra_bits              = 8;   // --gradient-quantization-bits-intra
  std::size_t intra_group     = 128; // paper scripts: 128 (notes §7)
  int inter_bits              = 4;   // --gradient-quantization-bits-inter
  std::size_t inter_group     = 128;
  bool hadamard               = false; // TLq-HS
  Rounding rounding           = Rounding::STOCHASTIC; // SDP4Bit always stochastic (§7.1)

  static TwoLevelConfig tlq(std::size_t nodes, std::size_t gpus_per_node);
  static TwoLevelConfig tlq_hs(std::size_t nodes, std::size_t gpus_per_node);
  static TwoLevelConfig ulq(std::size_t nodes, std::size_t gpus_per_node);
};

class TwoLevelQuantizer {
public:
  /// `numel` gradient values per worker; the buffer is padded with zeros to a multiple of
  /// W·lcm(intra_group, inter_group[, 32]) (grad_buffer.py l.243–254) so every shard holds whole groups.
  /// Hadamard, quantize and dequantize-accumulate run on `kernels` (a static set, or one that outlives this).
  TwoLevelQuantizer(std::size_t numel, TwoLevelConfig config, std::uint64_t seed = 0,
                    const CompressionKernels& kernels = cpu_kernels());

  std::size_t workers() const { return config_.nodes * config_.gpus_per_node; }
  std::size_t padded_numel() const { return padded_; }
  /// Elements of each rank's output shard: padded_numel() / W. Rank r owns [r·shard, (r+1)·shard) of the buffer.
  std::size_t shard_numel() const { return padded_ / workers(); }

  /// grads[r] (numel values each, rank r = node·g + local) -> shards[r] (shard_numel() values): rank r's shard of
  /// the average gradient. `step` varies the stochastic draws.
  void reduce_scatter(const std::vector<const float*>& grads, std::vector<std::vector<float>>& shards,
                      std::uint64_t step = 0);

  /// Stage-1 message of one worker (its whole quantized buffer, all-to-all'd within the node).
  std::uint64_t intra_bytes() const;
  /// Stage-2 message of one worker (its G quantized partial shards, all-to-all'd across nodes).
  std::uint64_t inter_bytes() const;

  const TwoLevelConfig& config() const { return config_; }

private:
  TwoLevelConfig config_;
  std::uint64_t seed_;
  const CompressionKernels* kernels_;
  std::size_t numel_;
  std::size_t padded_;
};

} // namespace ccsim::numerics
