// Group quantizer with nearest and reproducible stochastic rounding.
#include "numerics/GroupQuantizer.hpp"

#include "numerics/QuantizedSizes.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ccsim::numerics {

std::uint64_t QuantizedGroups::wire_bytes() const
{
  return group_quantized_bytes(numel, bits, group);
}

float uniform_draw(std::uint64_t seed, std::uint64_t index)
{
  std::uint64_t z = seed ^ (index * 0x9E3779B97F4A7C15ull);
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
}

QuantizedGroups quantize_groups(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                                std::uint64_t seed)
{
  assert(bits >= 2 && bits <= 8 && group > 0);
  QuantizedGroups q;
  q.bits  = bits;
  q.group = group;
  q.numel = n;
  q.codes.resize(n);
  const int qmax = (1 << (bits - 1)) - 1; // SDP4Bit: ±7 at 4 bits, ±127 at 8 bits (quantization_utils.h l.73)
  for (std::size_t g0 = 0; g0 < n; g0 += group) {
    const std::size_t g1 = std::min(n, g0 + group);
    float absmax         = 0;
    for (std::size_t i = g0; i < g1; ++i)
      absmax = std::max(absmax, std::fabs(x[i]));
    const float scale = absmax / static_cast<float>(qmax);
    q.scales.push_back(scale);
    const float inv = absmax > 0 ? static_cast<float>(qmax) / absmax : 0.0f;
    for (std::size_t i = g0; i < g1; ++i) {
      const float v = x[i] * inv;
      float code;
      if (rounding == Rounding::NEAREST) {
        code = std::round(v);
      } else {
        const float lower = std::floor(v);
        code              = lower + (uniform_draw(seed, i) < v - lower ? 1.0f : 0.0f);
      }
      q.codes[i] = static_cast<std::int8_t>(std::clamp(code, static_cast<float>(-qmax), static_cast<float>(qmax)));
    }
  }
  return q;
}

void dequantize_groups(const QuantizedGroups& q, float* out)
{
  for (std::size_t i = 0; i < q.numel; ++i)
    out[i] = static_cast<float>(q.codes[i]) * q.scales[i / q.group];
}

std::vector<std::uint8_t> pack_int4(const std::vector<std::int8_t>& codes)
{
  std::vector<std::uint8_t> out((codes.size() + 1) / 2, 0);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const auto nibble = static_cast<std::uint8_t>(codes[i] & 0xF);
    out[i / 2] |= (i % 2 == 0) ? static_cast<std::uint8_t>(nibble << 4) : nibble;
  }
  return out;
}

std::vector<std::int8_t> unpack_int4(const std::vector<std::uint8_t>& packed, std::size_t n)
{
  std::vector<std::int8_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t nibble = (i % 2 == 0) ? packed[i / 2] >> 4 : packed[i / 2] & 0xF;
    out[i] = static_cast<std::int8_t>(nibble >= 8 ? static_cast<int>(nibble) - 16 : nibble); // sign-extend
  }
  return out;
}

} // namespace ccsim::numerics
