#pragma once
// Weight communication of sharded data parallelism, compressed two ways (SDP4Bit §3.1 and §4.1):
//  - qWD (SDP4Bit's): every rank keeps a bf16 model copy w̃. The shard owner sends Q(bf16(w) - w̃) (difference taken
//    in bf16, docs/design/notes/reference-implementations.md §7.2 sub_quantize.cu), int4, group 2048, stochastic rounding;
//    every rank, the owner included, sets w̃ = bf16(w̃ + bf16(deQ)) (dequantize_add.cu, __hadd in bf16). The next
//    difference is taken against the quantized copy, so no error buffer is needed (Algorithm 4, lines 7–8).
//  - qW (ZeRO++ qwZ, the baseline): send Q(w) itself; the receiver's weights are deQ(Q(w)). SDP4Bit's
//    Counterexample 4.1 shows a biased Q can then stick forever. ccsim uses the same symmetric group quantizer for
//    both, so the comparison isolates "difference vs value" (DeepSpeed's own int8 lattice differs, notes §5.1).

#include "numerics/CompressionKernels.hpp"
#include "numerics/GroupQuantizer.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccsim::numerics {

/// One packed group-quantized message (codes at `bits`, one fp32 scale per group).
struct PackedQuantized {
  int bits          = 4;
  std::size_t group = 2048;
  std::size_t numel = 0;
  std::vector<std::uint8_t> codes; // packed_code_bytes(numel, bits)
  std::vector<float> scales;       // ceil(numel / group)
  std::uint64_t wire_bytes() const { return packed_bytes(numel, bits, group); }
};

PackedQuantized quantize_packed(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                                std::uint64_t seed, const CompressionKernels& kernels = cpu_kernels());
void dequantize_packed(const PackedQuantized& q, float* out, const CompressionKernels& kernels = cpu_kernels());

/// bf16 rounding of a whole buffer, in place (numerics/Rounding.hpp round_to_bf16).
void round_to_bf16(float* x, std::size_t n);

struct WeightDiffConfig {
  int bits           = 4;    // SDP4Bit --weight-quantization-bits (notes §7)
  std::size_t group  = 2048; // --wq-group-size
  Rounding rounding  = Rounding::STOCHASTIC; // SDP4Bit always rounds stochastically (§7.1)
  bool bf16_copy     = true; // difference and add in bf16 (§7.2); false keeps w̃ in fp32 (for toy problems)
};

class WeightDiffQuantizer {
public:
  /// Quantize and dequantize run on `kernels` (a static set, or one that outlives this); bf16 rounding stays here.
  explicit WeightDiffQuantizer(WeightDiffConfig config = {}, std::uint64_t seed = 0,
                               const CompressionKernels& kernels = cpu_kernels())
      : config_(config), seed_(seed), kernels_(&kernels)
  {
  }

  /// Sender (shard owner): Q(w - w̃) with w̃ the model copy every rank holds. `step` varies the stochastic draws.
  PackedQuantized encode(const float* new_weights, const float* model_copy, std::size_t n, std::uint64_t step) const;
  /// Every rank: w̃ += deQ(message) (in bf16 when configured).
  void apply(const PackedQuantized& message, float* model_copy) const;

  const WeightDiffConfig& config() const { return config_; }

private:
  WeightDiffConfig config_;
  std::uint64_t seed_;
  const CompressionKernels* kernels_;
};

/// qW baseline: out = deQ(Q(w)), what a receiver of quantized weights holds (ZeRO++ qwZ, SDP4Bit §4.1).
void quantize_weights(const float* w, std::size_t n, int bits, std::size_t group, Rounding rounding, std::uint64_t seed,
                      float* out, const CompressionKernels& kernels = cpu_kernels());

} // namespace ccsim::numerics
