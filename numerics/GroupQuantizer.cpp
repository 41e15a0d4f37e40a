// Group quantizer with nearest and reproducible stochastic rounding. The hot loops work one group at a time on
// raw pointers: a max|x| pass, then a code pass, with branch-free rounding so the compiler can vectorise them.
#include "numerics/GroupQuantizer.hpp"

#include "numerics/QuantizedSizes.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ccsim::numerics {

namespace {
constexpr std::uint64_t GOLDEN = 0x9E3779B97F4A7C15ull;

std::uint64_t splitmix64_finalise(std::uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Round half to even for |v| < 2^22: adding 1.5·2^23 pushes the fraction out of the mantissa under the default
/// round-to-nearest-even mode (no FMA is involved, so no contraction can change it). Equals rintf / __float2int_rn.
inline float round_half_even(float v)
{
  constexpr float MAGIC = 12582912.0f; // 1.5 · 2^23
  return (v + MAGIC) - MAGIC;
}

/// floor for |v| < 2^31 without a libm call: truncate, then step down for negative non-integers.
inline float floor_small(float v)
{
  const float t = static_cast<float>(static_cast<std::int32_t>(v));
  return t > v ? t - 1.0f : t;
}

float group_absmax(const float* x, std::size_t n)
{
  float m = 0.0f;
  for (std::size_t i = 0; i < n; ++i)
    m = std::max(m, std::fabs(x[i]));
  return m;
}

/// Codes of one group as floats in [-qmax, qmax]; `first` is the buffer index of x[0] (for the stochastic draw).
inline float code_of(float v, float qmax, Rounding rounding, std::uint64_t seed, std::uint64_t index)
{
  float c;
  if (rounding == Rounding::NEAREST) {
    c = round_half_even(v);
  } else {
    const float lower = floor_small(v);
    c                 = lower + (uniform_draw(seed, index) < v - lower ? 1.0f : 0.0f);
  }
  return std::min(qmax, std::max(-qmax, c));
}

/// Quantizes one group [g0, g1) into float codes (scratch) and returns its stored scale.
float quantize_group(const float* x, std::size_t g0, std::size_t g1, int bits, Rounding rounding, std::uint64_t seed,
                     float* code_out)
{
  const float qmax   = static_cast<float>(max_code(bits));
  const float absmax = group_absmax(x + g0, g1 - g0);
  const float inv    = absmax > 0.0f ? qmax / absmax : 0.0f; // SDP4Bit: scale = (2^(b-1)-1)/absmax (§7.1)
  if (rounding == Rounding::NEAREST) {
    for (std::size_t i = g0; i < g1; ++i)
      code_out[i - g0] = std::min(qmax, std::max(-qmax, round_half_even(x[i] * inv)));
  } else {
    for (std::size_t i = g0; i < g1; ++i)
      code_out[i - g0] = code_of(x[i] * inv, qmax, rounding, seed, i);
  }
  return absmax / qmax;
}

inline float nibble_value(unsigned nibble)
{
  return static_cast<float>(static_cast<int>(nibble ^ 8u) - 8); // sign-extend a two's-complement nibble
}

template <bool ACCUMULATE>
void dequantize_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits, std::size_t group,
                       float* out)
{
  assert(bits == 4 || bits == 8);
  for (std::size_t g0 = 0, g = 0; g0 < n; g0 += group, ++g) {
    const std::size_t g1 = std::min(n, g0 + group);
    const float s        = scales[g];
    if (bits == 8) {
      const auto* c = reinterpret_cast<const std::int8_t*>(codes);
      for (std::size_t i = g0; i < g1; ++i) {
        const float v = static_cast<float>(c[i]) * s;
        out[i]        = ACCUMULATE ? out[i] + v : v;
      }
    } else {
      // g0 is even (group is even at 4 bits): walk whole bytes, high nibble first.
      std::size_t i = g0;
      for (; i + 1 < g1; i += 2) {
        const unsigned byte = codes[i / 2];
        const float hi      = nibble_value(byte >> 4) * s;
        const float lo      = nibble_value(byte & 0xFu) * s;
        out[i]              = ACCUMULATE ? out[i] + hi : hi;
        out[i + 1]          = ACCUMULATE ? out[i + 1] + lo : lo;
      }
      if (i < g1) {
        const float hi = nibble_value(static_cast<unsigned>(codes[i / 2]) >> 4) * s;
        out[i]         = ACCUMULATE ? out[i] + hi : hi;
      }
    }
  }
}
} // namespace

std::uint64_t QuantizedGroups::wire_bytes() const
{
  return group_quantized_bytes(numel, bits, group);
}

float uniform_draw(std::uint64_t seed, std::uint64_t index)
{
  const std::uint64_t z = splitmix64_finalise((seed ^ (index * GOLDEN)) + GOLDEN);
  return static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b)
{
  return splitmix64_finalise(seed ^ (a * 0xD1B54A32D192ED03ull) ^ (b * 0x8CB92BA72F3D8DD7ull));
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
  q.scales.resize((n + group - 1) / group);
  std::vector<float> code(std::min(n, group));
  for (std::size_t g0 = 0, g = 0; g0 < n; g0 += group, ++g) {
    const std::size_t g1 = std::min(n, g0 + group);
    q.scales[g]          = quantize_group(x, g0, g1, bits, rounding, seed, code.data());
    for (std::size_t i = g0; i < g1; ++i)
      q.codes[i] = static_cast<std::int8_t>(code[i - g0]);
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
    const unsigned nibble = (i % 2 == 0) ? packed[i / 2] >> 4 : packed[i / 2] & 0xFu;
    out[i]                = static_cast<std::int8_t>(nibble_value(nibble));
  }
  return out;
}

std::size_t packed_code_bytes(std::size_t n, int bits)
{
  assert(bits == 4 || bits == 8);
  return bits == 8 ? n : (n + 1) / 2;
}

std::uint64_t packed_bytes(std::size_t n, int bits, std::size_t group)
{
  return group_quantized_bytes(n, bits, group);
}

void quantize_groups_packed(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                            std::uint64_t seed, std::uint8_t* codes, float* scales, std::uint64_t first_index)
{
  assert((bits == 4 && group % 2 == 0) || bits == 8);
  // One group of float codes lives on the stack-sized scratch; groups beyond it are processed in slices of the
  // same group (the scale is per group, so slice only the code pass).
  constexpr std::size_t SLICE = 4096;
  float code[SLICE];
  const float qmax = static_cast<float>(max_code(bits));
  for (std::size_t g0 = 0, g = 0; g0 < n; g0 += group, ++g) {
    const std::size_t g1 = std::min(n, g0 + group);
    const float absmax   = group_absmax(x + g0, g1 - g0);
    const float inv      = absmax > 0.0f ? qmax / absmax : 0.0f;
    scales[g]            = absmax / qmax;
    for (std::size_t s0 = g0; s0 < g1; s0 += SLICE) {
      const std::size_t s1 = std::min(g1, s0 + SLICE);
      if (rounding == Rounding::NEAREST) {
        for (std::size_t i = s0; i < s1; ++i)
          code[i - s0] = std::min(qmax, std::max(-qmax, round_half_even(x[i] * inv)));
      } else {
        for (std::size_t i = s0; i < s1; ++i)
          code[i - s0] = code_of(x[i] * inv, qmax, rounding, seed, first_index + i);
      }
      if (bits == 8) {
        for (std::size_t i = s0; i < s1; ++i)
          codes[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(code[i - s0]));
      } else {
        // s0 is even (group and SLICE are even); a final odd element gets a zero low nibble.
        const std::size_t m = s1 - s0;
        for (std::size_t k = 0; k + 1 < m; k += 2) {
          const auto hi          = static_cast<unsigned>(static_cast<int>(code[k])) & 0xFu;
          const auto lo          = static_cast<unsigned>(static_cast<int>(code[k + 1])) & 0xFu;
          codes[(s0 + k) / 2] = static_cast<std::uint8_t>((hi << 4) | lo);
        }
        if (m % 2 == 1)
          codes[(s1 - 1) / 2] = static_cast<std::uint8_t>((static_cast<unsigned>(static_cast<int>(code[m - 1])) & 0xFu) << 4);
      }
    }
  }
}

void dequantize_groups_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                              std::size_t group, float* out)
{
  dequantize_packed<false>(codes, scales, n, bits, group, out);
}

void dequantize_accumulate_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                  std::size_t group, float* out)
{
  dequantize_packed<true>(codes, scales, n, bits, group, out);
}

} // namespace ccsim::numerics
