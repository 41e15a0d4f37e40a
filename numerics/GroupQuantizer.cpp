// Group quantizer with nearest and reproducible stochastic rounding. The hot loops work one group at a time on
// raw pointers: a max|x| pass, then a code pass, with branch-free rounding so the compiler can vectorise them.
#include "numerics/GroupQuantizer.hpp"

#include "numerics/QuantizedSizes.hpp"
#include "numerics/Rounding.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "numerics/Avx2.hpp"
#include "numerics/SimdLevel.hpp"

namespace ccsim::numerics {

namespace {
constexpr std::uint64_t GOLDEN = 0x9E3779B97F4A7C15ull;

inline std::uint64_t splitmix64_finalise(std::uint64_t z)
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

/// u(seed, index) of the header comment. (z >> 40) < 2^24 converts exactly through int32.
inline float draw(std::uint64_t seed, std::uint64_t index)
{
  const std::uint64_t z = splitmix64_finalise((seed ^ (index * GOLDEN)) + GOLDEN);
  return static_cast<float>(static_cast<std::int32_t>(z >> 40)) * (1.0f / 16777216.0f);
}

/// Codes (as floats in [-qmax, qmax]) of m values scaled by inv; the draw index of x[i] is first + i.
void code_slice_portable(const float* x, std::size_t m, float inv, float qmax, Rounding rounding, std::uint64_t seed,
                         std::uint64_t first, float* code)
{
  if (rounding == Rounding::NEAREST) {
    for (std::size_t i = 0; i < m; ++i)
      code[i] = std::min(qmax, std::max(-qmax, round_half_even(x[i] * inv)));
  } else {
    for (std::size_t i = 0; i < m; ++i) {
      const float v     = x[i] * inv;
      const float lower = floor_small(v);
      const float c     = lower + (draw(seed, first + i) < v - lower ? 1.0f : 0.0f);
      code[i]           = std::min(qmax, std::max(-qmax, c));
    }
  }
}

#if CCSIM_HAVE_AVX2_PATH
/// a · C mod 2^64 for 4 lanes (AVX2 has no 64-bit multiply): lo·lo + ((hi·lo + lo·hi) << 32).
__attribute__((target("avx2"))) inline __m256i mul64(__m256i a, std::uint64_t c)
{
  const __m256i b     = _mm256_set1_epi64x(static_cast<long long>(c));
  const __m256i lolo  = _mm256_mul_epu32(a, b);
  const __m256i hilo  = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), b);
  const __m256i lohi  = _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32));
  const __m256i cross = _mm256_slli_epi64(_mm256_add_epi64(hilo, lohi), 32);
  return _mm256_add_epi64(lolo, cross);
}

/// The 24-bit draws of 4 lanes whose index·GOLDEN products are `ig` (splitmix64 finaliser, header formula).
__attribute__((target("avx2"))) inline __m256i draw24(__m256i seed, __m256i ig)
{
  __m256i z = _mm256_add_epi64(_mm256_xor_si256(seed, ig), _mm256_set1_epi64x(static_cast<long long>(GOLDEN)));
  z         = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), 0xBF58476D1CE4E5B9ull);
  z         = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), 0x94D049BB133111EBull);
  z         = _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
  return _mm256_srli_epi64(z, 40);
}

/// Stochastic codes, 8 values per iteration, bit-identical to the portable loop (same draws, same float ops).
__attribute__((target("avx2"))) void stochastic_codes_avx2(const float* x, std::size_t m, float inv, float qmax,
                                                           std::uint64_t seed, std::uint64_t first, float* code)
{
  const __m256i vseed = _mm256_set1_epi64x(static_cast<long long>(seed));
  const __m256i step  = _mm256_set1_epi64x(static_cast<long long>(8 * GOLDEN));
  __m256i ig0 = _mm256_setr_epi64x(static_cast<long long>((first + 0) * GOLDEN), static_cast<long long>((first + 1) * GOLDEN),
                                   static_cast<long long>((first + 2) * GOLDEN), static_cast<long long>((first + 3) * GOLDEN));
  __m256i ig1 = _mm256_setr_epi64x(static_cast<long long>((first + 4) * GOLDEN), static_cast<long long>((first + 5) * GOLDEN),
                                   static_cast<long long>((first + 6) * GOLDEN), static_cast<long long>((first + 7) * GOLDEN));
  const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  const __m256 vinv = _mm256_set1_ps(inv), vq = _mm256_set1_ps(qmax), vnq = _mm256_set1_ps(-qmax);
  const __m256 one = _mm256_set1_ps(1.0f), unit = _mm256_set1_ps(1.0f / 16777216.0f);
  std::size_t i = 0;
  for (; i + 8 <= m; i += 8) {
    // Low dwords of the 8 draws in element order: lanes 0-3 from ig0, 4-7 from ig1.
    const __m256i d0 = _mm256_permutevar8x32_epi32(draw24(vseed, ig0), even);
    const __m256i d1 = _mm256_permutevar8x32_epi32(draw24(vseed, ig1), even);
    const __m256i d  = _mm256_permute2x128_si256(d0, d1, 0x20);
    const __m256 u   = _mm256_mul_ps(_mm256_cvtepi32_ps(d), unit);
    const __m256 v   = _mm256_mul_ps(_mm256_loadu_ps(x + i), vinv);
    __m256 lower     = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(v));
    lower            = _mm256_sub_ps(lower, _mm256_and_ps(_mm256_cmp_ps(lower, v, _CMP_GT_OQ), one));
    const __m256 up  = _mm256_and_ps(_mm256_cmp_ps(u, _mm256_sub_ps(v, lower), _CMP_LT_OQ), one);
    const __m256 c   = _mm256_add_ps(lower, up);
    _mm256_storeu_ps(code + i, _mm256_min_ps(vq, _mm256_max_ps(vnq, c)));
    ig0 = _mm256_add_epi64(ig0, step);
    ig1 = _mm256_add_epi64(ig1, step);
  }
  code_slice_portable(x + i, m - i, inv, qmax, Rounding::STOCHASTIC, seed, first + i, code + i);
}

bool have_avx2()
{
  return simd_level() >= SimdLevel::AVX2; // the CPU has it and neither CCSIM_SIMD nor a test capped it
}

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() and trip -Wmaybe-uninitialized inside its own headers
// (GCC bug 105593, fixed in GCC 13): a false positive, silenced for these two functions only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// The draws of 8 lanes with AVX-512DQ's native 64-bit multiply (AVX2 builds each from three 32-bit ones: the
/// hash was 80 % of the AVX2 loop's time, perf, issue 13). Same integer operations, so the same draws.
__attribute__((target("avx512f,avx512dq"))) inline __m512i draw24_512(__m512i seed, __m512i ig)
{
  __m512i z = _mm512_add_epi64(_mm512_xor_si512(seed, ig), _mm512_set1_epi64(static_cast<long long>(GOLDEN)));
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)),
                         _mm512_set1_epi64(static_cast<long long>(0xBF58476D1CE4E5B9ull)));
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)),
                         _mm512_set1_epi64(static_cast<long long>(0x94D049BB133111EBull)));
  z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
  return _mm512_srli_epi64(z, 40);
}

/// Stochastic codes, 16 values per iteration, bit-identical to the portable loop (same draws, same float ops:
/// multiply, truncate, compare, add or subtract one, clamp; no FMA).
__attribute__((target("avx512f,avx512dq"))) void stochastic_codes_avx512(const float* x, std::size_t m, float inv,
                                                                           float qmax, std::uint64_t seed,
                                                                           std::uint64_t first, float* code)
{
  const __m512i vseed = _mm512_set1_epi64(static_cast<long long>(seed));
  const __m512i step  = _mm512_set1_epi64(static_cast<long long>(16 * GOLDEN));
  __m512i ig0 = _mm512_mullo_epi64(_mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(first)),
                                                    _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7)),
                                   _mm512_set1_epi64(static_cast<long long>(GOLDEN)));
  __m512i ig1 = _mm512_add_epi64(ig0, _mm512_set1_epi64(static_cast<long long>(8 * GOLDEN)));
  const __m512 vinv = _mm512_set1_ps(inv), vq = _mm512_set1_ps(qmax), vnq = _mm512_set1_ps(-qmax);
  const __m512 one = _mm512_set1_ps(1.0f), unit = _mm512_set1_ps(1.0f / 16777216.0f);
  std::size_t i = 0;
  for (; i + 16 <= m; i += 16) {
    const __m256i d0 = _mm512_cvtepi64_epi32(draw24_512(vseed, ig0)); // < 2^24: the narrowing keeps every bit
    const __m256i d1 = _mm512_cvtepi64_epi32(draw24_512(vseed, ig1));
    const __m512i d  = _mm512_inserti64x4(_mm512_castsi256_si512(d0), d1, 1);
    const __m512 u   = _mm512_mul_ps(_mm512_cvtepi32_ps(d), unit);
    const __m512 v   = _mm512_mul_ps(_mm512_loadu_ps(x + i), vinv);
    __m512 lower     = _mm512_cvtepi32_ps(_mm512_cvttps_epi32(v));
    lower            = _mm512_mask_sub_ps(lower, _mm512_cmp_ps_mask(lower, v, _CMP_GT_OQ), lower, one);
    const __m512 c   = _mm512_mask_add_ps(lower, _mm512_cmp_ps_mask(u, _mm512_sub_ps(v, lower), _CMP_LT_OQ), lower, one);
    _mm512_storeu_ps(code + i, _mm512_min_ps(vq, _mm512_max_ps(vnq, c)));
    ig0 = _mm512_add_epi64(ig0, step);
    ig1 = _mm512_add_epi64(ig1, step);
  }
  stochastic_codes_avx2(x + i, m - i, inv, qmax, seed, first + i, code + i);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

void code_slice(const float* x, std::size_t m, float inv, float qmax, Rounding rounding, std::uint64_t seed,
                std::uint64_t first, float* code)
{
#if CCSIM_HAVE_AVX2_PATH
  if (rounding == Rounding::STOCHASTIC && simd_level() == SimdLevel::AVX512)
    return stochastic_codes_avx512(x, m, inv, qmax, seed, first, code);
  if (rounding == Rounding::STOCHASTIC && have_avx2())
    return stochastic_codes_avx2(x, m, inv, qmax, seed, first, code);
#endif
  code_slice_portable(x, m, inv, qmax, rounding, seed, first, code);
}

/// max|x| with 8 independent lanes: a single running max is a serial dependency chain the compiler will not
/// reorder; max is exact, so any order gives the same result.
CCSIM_VECTOR_CLONES
float group_absmax(const float* x, std::size_t n)
{
  float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) {
      const float a = std::fabs(x[i + j]);
      lane[j]       = lane[j] < a ? a : lane[j];
    }
  float m = 0.0f;
  for (float l : lane)
    m = std::max(m, l);
  for (; i < n; ++i)
    m = std::max(m, std::fabs(x[i]));
  return m;
}

/// Quantizes one group [g0, g1) into float codes (scratch) and returns its stored scale.
float quantize_group(const float* x, std::size_t g0, std::size_t g1, int bits, Rounding rounding, std::uint64_t seed,
                     float* code_out)
{
  const float qmax   = static_cast<float>(max_code(bits));
  const float absmax = group_absmax(x + g0, g1 - g0);
  const float inv    = absmax > 0.0f ? qmax / absmax : 0.0f; // SDP4Bit: scale = (2^(b-1)-1)/absmax (§7.1)
  code_slice(x + g0, g1 - g0, inv, qmax, rounding, seed, g0, code_out);
  return absmax / qmax;
}

inline float nibble_value(unsigned nibble)
{
  return static_cast<float>(static_cast<int>(nibble ^ 8u) - 8); // sign-extend a two's-complement nibble
}

template <bool ACCUMULATE>
CCSIM_VECTOR_CLONES void dequantize_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits, std::size_t group,
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
  return draw(seed, index);
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
      code_slice(x + s0, s1 - s0, inv, qmax, rounding, seed, first_index + s0, code);
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
