// In-memory TLq / TLq-HS / ULq reduce-scatter: the messages are really packed and unpacked, so the result carries
// exactly the quantization error the wire format implies.
#include "numerics/TwoLevelQuantizer.hpp"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace ccsim::numerics {

TwoLevelConfig TwoLevelConfig::tlq(std::size_t nodes, std::size_t gpus_per_node)
{
  TwoLevelConfig c;
  c.nodes         = nodes;
  c.gpus_per_node = gpus_per_node;
  return c;
}

TwoLevelConfig TwoLevelConfig::tlq_hs(std::size_t nodes, std::size_t gpus_per_node)
{
  TwoLevelConfig c = tlq(nodes, gpus_per_node);
  c.hadamard       = true;
  return c;
}

TwoLevelConfig TwoLevelConfig::ulq(std::size_t nodes, std::size_t gpus_per_node)
{
  TwoLevelConfig c = tlq(nodes, gpus_per_node);
  c.intra_bits     = 4; // ZeRO++ qgZ: 4 bits in both stages (notes §5.3)
  return c;
}

TwoLevelQuantizer::TwoLevelQuantizer(std::size_t numel, TwoLevelConfig config, std::uint64_t seed,
                                     const CompressionKernels& kernels)
    : config_(config), seed_(seed), kernels_(&kernels), numel_(numel)
{
  assert(config_.nodes >= 1 && config_.gpus_per_node >= 1);
  std::size_t align = std::lcm(config_.intra_group, config_.inter_group);
  if (config_.hadamard)
    align = std::lcm(align, std::size_t{32});
  const std::size_t unit = align * workers();
  padded_                = std::max<std::size_t>(1, (numel + unit - 1) / unit) * unit;
}

std::uint64_t TwoLevelQuantizer::intra_bytes() const
{
  if (config_.gpus_per_node == 1)
    return 0;
  return packed_bytes(padded_, config_.intra_bits, config_.intra_group);
}

std::uint64_t TwoLevelQuantizer::inter_bytes() const
{
  if (config_.nodes == 1)
    return 0;
  return packed_bytes(padded_ / config_.gpus_per_node, config_.inter_bits, config_.inter_group);
}

void TwoLevelQuantizer::reduce_scatter(const std::vector<const float*>& grads, std::vector<std::vector<float>>& shards,
                                       std::uint64_t step)
{
  const std::size_t G = config_.nodes, g = config_.gpus_per_node, W = G * g, N = padded_, S = N / W;
  assert(grads.size() == W);
  const int b1 = config_.intra_bits, b2 = config_.inter_bits;
  const std::size_t q1 = config_.intra_group, q2 = config_.inter_group;
  auto seed_for = [&](std::size_t rank, std::uint64_t stage) { return derive_seed(seed_, rank, 4 * step + stage); };

  // Stage 0: pad, pre-divide by W (grad_buffer.py l.114), Hadamard for TLq-HS.
  std::vector<std::vector<float>> x(W, std::vector<float>(N, 0.0f));
  const float inv_w = 1.0f / static_cast<float>(W);
  for (std::size_t r = 0; r < W; ++r) {
    for (std::size_t i = 0; i < numel_; ++i)
      x[r][i] = grads[r][i] * inv_w;
    if (config_.hadamard)
      kernels_->hadamard32(x[r].data(), N);
  }

  // Stage 1: intra_bits quantization of every worker's whole buffer (skipped without intra-node peers).
  std::vector<std::vector<std::uint8_t>> codes1(W);
  std::vector<std::vector<float>> scales1(W);
  if (g > 1)
    for (std::size_t r = 0; r < W; ++r) {
      codes1[r].resize(packed_code_bytes(N, b1));
      scales1[r].resize(N / q1);
      kernels_->quantize_groups_packed(x[r].data(), N, b1, q1, config_.rounding, seed_for(r, 1), codes1[r].data(),
                                       scales1[r].data(), /*first_index=*/0);
    }

  // Stage 2: rank (a, l) receives from its g node peers the shards s = a'·g + l of every node a', dequantizes and
  // reduces them in fp32. partial[r] holds G shards, region a' for the shard of rank (a', l).
  std::vector<std::vector<float>> partial(W, std::vector<float>(G * S, 0.0f));
  for (std::size_t a = 0; a < G; ++a)
    for (std::size_t l = 0; l < g; ++l) {
      float* p = partial[a * g + l].data();
      for (std::size_t a2 = 0; a2 < G; ++a2) {
        const std::size_t s = a2 * g + l;
        for (std::size_t l2 = 0; l2 < g; ++l2) {
          const std::size_t sender = a * g + l2;
          if (g == 1)
            std::copy(x[sender].begin() + static_cast<long>(s * S), x[sender].begin() + static_cast<long>((s + 1) * S),
                      p + a2 * S);
          else
            kernels_->dequantize_accumulate_packed(codes1[sender].data() + s * S * static_cast<std::size_t>(b1) / 8,
                                         scales1[sender].data() + s * S / q1, S, b1, q1, p + a2 * S);
        }
      }
    }

  shards.assign(W, std::vector<float>(S, 0.0f));
  if (G == 1) {
    for (std::size_t l = 0; l < g; ++l)
      std::copy(partial[l].begin(), partial[l].end(), shards[l].begin());
  } else {
    // Stage 3: re-quantize each partial shard at inter_bits; stage 4: rank (a2, l) reduces the G nodes' messages.
    std::vector<std::uint8_t> codes2(packed_code_bytes(S, b2));
    std::vector<float> scales2(S / q2);
    for (std::size_t a = 0; a < G; ++a)
      for (std::size_t l = 0; l < g; ++l)
        for (std::size_t a2 = 0; a2 < G; ++a2) {
          const std::size_t s = a2 * g + l;
          kernels_->quantize_groups_packed(partial[a * g + l].data() + a2 * S, S, b2, q2, config_.rounding,
                                           seed_for(a * g + l, 2), codes2.data(), scales2.data(),
                                           /*first_index=*/s * S);
          kernels_->dequantize_accumulate_packed(codes2.data(), scales2.data(), S, b2, q2, shards[s].data());
        }
  }
  // Inverse Hadamard once, after the final reduction (linearity, SDP4Bit §3.3).
  if (config_.hadamard)
    for (auto& shard : shards)
      kernels_->hadamard32(shard.data(), S);
}

} // namespace ccsim::numerics
