#pragma once
// Symmetric group quantization as SDP4Bit implements it (tools/jet_quant_cuda, notes §7.1): per group of
// `group` values, scale = max|x| / (2^(b-1) - 1), codes in [-(2^(b-1)-1), 2^(b-1)-1], stored as 1/scale in fp32.
// Rounding is to nearest (ties away from zero) or stochastic. SDP4Bit seeds curand with clock(); ccsim uses a
// counter-based hash instead so runs are reproducible and the CUDA twin draws the same numbers:
//   u(seed, i) = (splitmix64(seed ^ (i * 0x9E3779B97F4A7C15)) >> 40) / 2^24, in [0, 1);
//   code = floor(v) + (u < v - floor(v)).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccsim::numerics {

enum class Rounding { NEAREST, STOCHASTIC };

struct QuantizedGroups {
  int bits = 4;
  std::size_t group = 128;
  std::size_t numel = 0;
  std::vector<std::int8_t> codes; // one per value (packed for the wire by pack_int4 / as int8)
  std::vector<float> scales;      // max|x| / qmax per group (0 for an all-zero group)
  /// Bytes on the wire: codes at `bits` each plus one fp32 per group (numerics/QuantizedSizes.hpp).
  std::uint64_t wire_bytes() const;
};

/// The splitmix64-based uniform draw in [0, 1) used for stochastic rounding (see the header comment).
float uniform_draw(std::uint64_t seed, std::uint64_t index);

QuantizedGroups quantize_groups(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                                std::uint64_t seed = 0);
void dequantize_groups(const QuantizedGroups& q, float* out);

/// Two signed 4-bit codes per byte, the first in the high nibble (DeepSpeed PackedInt4, notes §5.1).
std::vector<std::uint8_t> pack_int4(const std::vector<std::int8_t>& codes);
std::vector<std::int8_t> unpack_int4(const std::vector<std::uint8_t>& packed, std::size_t n);

} // namespace ccsim::numerics
