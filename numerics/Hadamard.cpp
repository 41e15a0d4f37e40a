// Fast Walsh-Hadamard butterflies on blocks of 32, and the fused transform + (de)quantization that works on
// cache-sized, group-aligned slices so the data crosses memory once.
#include "numerics/Hadamard.hpp"

#include "numerics/GroupQuantizerPaths.hpp"
#include "numerics/HadamardBlock.hpp"
#include "numerics/ParallelFor.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "numerics/SimdLevel.hpp"
#include "numerics/SimdTarget.hpp"

namespace ccsim::numerics {

namespace {
#if CCSIM_HAVE_X86_SIMD
/// One butterfly stage inside each 8-lane register: partner t = r with lanes j and j^h swapped; lanes whose bit h is
/// clear get r + t (= a + c), the others t - r (= a - c). Same operands and operations as hadamard_block.
template <int BLEND>
CCSIM_TARGET_AVX2 inline __m256 in_lane_stage(__m256 r, __m256 t)
{
  return _mm256_blend_ps(_mm256_add_ps(r, t), _mm256_sub_ps(t, r), BLEND);
}

CCSIM_TARGET_AVX2 void hadamard32_avx2(const float* in, float* x, std::size_t n)
{
  const __m256 norm = _mm256_set1_ps(0.17677669529663687f);
  for (std::size_t b = 0; b < n; b += 32) {
    __m256 r[4];
    for (int k = 0; k < 4; ++k) {
      __m256 v = _mm256_loadu_ps(in + b + 8 * k);
      v        = in_lane_stage<0xAA>(v, _mm256_permute_ps(v, 0xB1));            // h = 1
      v        = in_lane_stage<0xCC>(v, _mm256_permute_ps(v, 0x4E));            // h = 2
      v        = in_lane_stage<0xF0>(v, _mm256_permute2f128_ps(v, v, 0x01));    // h = 4
      r[k]     = v;
    }
    for (int k : {0, 2}) { // h = 8: registers (0,1), (2,3)
      const __m256 a = r[k], c = r[k + 1];
      r[k]           = _mm256_add_ps(a, c);
      r[k + 1]       = _mm256_sub_ps(a, c);
    }
    for (int k : {0, 1}) { // h = 16: registers (0,2), (1,3)
      const __m256 a = r[k], c = r[k + 2];
      r[k]           = _mm256_add_ps(a, c);
      r[k + 2]       = _mm256_sub_ps(a, c);
    }
    for (int k = 0; k < 4; ++k)
      _mm256_storeu_ps(x + b + 8 * k, _mm256_mul_ps(r[k], norm));
  }
}

// GCC 12 false positive inside its own AVX-512 intrinsics (bug 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
/// The same stage on 16-lane registers: r·sign + t with sign = -1 in the lanes whose bit h is set, one fused
/// multiply-add that equals r + t or t - r exactly (r·±1 is exact, and the fused add rounds once, as add/sub do).
CCSIM_TARGET_AVX512 inline __m512 stage16(__m512 r, __m512 t, __m512 sign)
{
  return _mm512_fmadd_ps(r, sign, t);
}

/// ±1 per lane: -1 where lane bit h is set.
CCSIM_TARGET_AVX512 inline __m512 stage_sign(__mmask16 set)
{
  return _mm512_mask_blend_ps(set, _mm512_set1_ps(1.0f), _mm512_set1_ps(-1.0f));
}

/// The stage signs of h = 1, 2, 4, 8 and the norm, built once per call.
struct Block32Constants {
  __m512 norm, s1, s2, s4, s8;
};

CCSIM_TARGET_AVX512 inline Block32Constants block32_constants()
{
  return {_mm512_set1_ps(0.17677669529663687f), stage_sign(0xAAAA), stage_sign(0xCCCC), stage_sign(0xF0F0),
          stage_sign(0xFF00)};
}

/// One normalised block of 32 at `in`: values 0-15 in lo, 16-31 in hi.
CCSIM_TARGET_AVX512 inline void block32_avx512(const float* in, const Block32Constants& c, __m512& lo, __m512& hi)
{
  __m512 r[2];
  for (int k = 0; k < 2; ++k) {
    __m512 v = _mm512_loadu_ps(in + 16 * k);
    v        = stage16(v, _mm512_permute_ps(v, 0xB1), c.s1);          // h = 1
    v        = stage16(v, _mm512_permute_ps(v, 0x4E), c.s2);          // h = 2
    v        = stage16(v, _mm512_shuffle_f32x4(v, v, 0xB1), c.s4);    // h = 4: swap 128-bit quarters pairwise
    v        = stage16(v, _mm512_shuffle_f32x4(v, v, 0x4E), c.s8);    // h = 8: swap 256-bit halves
    r[k]     = v;
  }
  // h = 16: registers (0, 1).
  lo = _mm512_mul_ps(_mm512_add_ps(r[0], r[1]), c.norm);
  hi = _mm512_mul_ps(_mm512_sub_ps(r[0], r[1]), c.norm);
}

CCSIM_TARGET_AVX512 void hadamard32_avx512(const float* in, float* x, std::size_t n)
{
  const Block32Constants c = block32_constants();
  for (std::size_t b = 0; b < n; b += 32) {
    __m512 lo, hi;
    block32_avx512(in + b, c, lo, hi);
    _mm512_storeu_ps(x + b, lo);
    _mm512_storeu_ps(x + b + 16, hi);
  }
}

/// hadamard32_avx512 of whole groups (n and group multiples of 32), and each group's max|value| taken from the
/// registers as they are stored, so the quantizer need not read the group again. The same result as the group
/// quantizer's absmax: max is exact, so the order of the comparisons does not matter, and max_ps keeps its second
/// operand (the running maximum, never NaN) when |value| is NaN, as `acc < |x| ? |x| : acc` skips a NaN.
CCSIM_TARGET_AVX512 void hadamard32_absmax_avx512(const float* in, float* x, std::size_t n, std::size_t group,
                                                  float* absmax)
{
  const Block32Constants c = block32_constants();
  for (std::size_t g0 = 0, g = 0; g0 < n; g0 += group, ++g) {
    __m512 acc = _mm512_setzero_ps();
    for (std::size_t b = g0; b < std::min(n, g0 + group); b += 32) {
      __m512 lo, hi;
      block32_avx512(in + b, c, lo, hi);
      _mm512_storeu_ps(x + b, lo);
      _mm512_storeu_ps(x + b + 16, hi);
      acc = _mm512_max_ps(_mm512_abs_ps(lo), acc);
      acc = _mm512_max_ps(_mm512_abs_ps(hi), acc);
    }
    absmax[g] = _mm512_reduce_max_ps(acc);
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

/// out = H·in for n a multiple of 32 (in == out allowed): the best vector path, else the scalar blocks.
void hadamard32_into(const float* in, float* out, std::size_t n)
{
#if CCSIM_HAVE_X86_SIMD
  switch (simd_level()) {
  case SimdLevel::AVX512: return hadamard32_avx512(in, out, n);
  case SimdLevel::AVX2: return hadamard32_avx2(in, out, n);
  default: break;
  }
#endif
  if (in != out)
    std::copy(in, in + n, out);
  for (std::size_t b = 0; b < n; b += 32)
    hadamard_block(out + b);
}

/// Elements per fused slice: a whole number of groups, about 2 KiB of fp32. Small slices let the out-of-order core
/// overlap the transform's memory reads with the quantizer's arithmetic on the previous slice; at 16 KiB the two
/// phases alternate (AVX-512, 64 MiB: 9.6 GB/s at 4096 values, 10.6 at 1024, 12.3 at 512, 10.9 at 256, 9.1 at 128).
std::size_t slice_numel(std::size_t group)
{
  return std::max<std::size_t>(1, 512 / group) * group;
}
} // namespace

void hadamard32(float* x, std::size_t n)
{
  assert(n % 32 == 0);
  hadamard32_into(x, x, n);
}

void hadamard32_quantize_packed(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                                std::uint64_t seed, std::uint8_t* codes, float* scales, std::uint64_t first_index,
                                std::size_t threads)
{
  assert(n % 32 == 0 && group % 32 == 0);
  if (threads > 1)
    return parallel_ranges(threads, n, group, [&](std::size_t b, std::size_t e) {
      hadamard32_quantize_packed(x + b, e - b, bits, group, rounding, seed,
                                 codes + b * static_cast<std::size_t>(bits) / 8, scales + b / group, first_index + b);
    });
  const std::size_t slice = slice_numel(group);
  std::vector<float> scratch(std::min(n, slice));
#if CCSIM_HAVE_X86_SIMD
  if (simd_level() == SimdLevel::AVX512) {
    // The group maxima come with the transform (hadamard32_absmax_avx512); the codes are the same bits.
    std::vector<float> maxima(slice / group);
    for (std::size_t s0 = 0; s0 < n; s0 += slice) {
      const std::size_t m = std::min(n - s0, slice);
      hadamard32_absmax_avx512(x + s0, scratch.data(), m, group, maxima.data());
      for (std::size_t g0 = 0; g0 < m; g0 += group)
        detail::encode_group_known_max(scratch.data() + g0, std::min(m - g0, group), maxima[g0 / group], bits,
                                       rounding, seed, first_index + s0 + g0,
                                       codes + (s0 + g0) * static_cast<std::size_t>(bits) / 8,
                                       scales + (s0 + g0) / group);
    }
    return;
  }
#endif
  for (std::size_t s0 = 0; s0 < n; s0 += slice) {
    const std::size_t m = std::min(n - s0, slice);
    hadamard32_into(x + s0, scratch.data(), m);
    // s0 is a multiple of the group: codes start at byte s0·bits/8, scales at group s0/group.
    quantize_groups_packed(scratch.data(), m, bits, group, rounding, seed, codes + s0 * static_cast<std::size_t>(bits) / 8,
                           scales + s0 / group, first_index + s0);
  }
}

void dequantize_hadamard32_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                  std::size_t group, float* out)
{
  assert(n % 32 == 0 && group % 32 == 0);
  const std::size_t slice = slice_numel(group);
  for (std::size_t s0 = 0; s0 < n; s0 += slice) {
    const std::size_t m = std::min(n - s0, slice);
    dequantize_groups_packed(codes + s0 * static_cast<std::size_t>(bits) / 8, scales + s0 / group, m, bits, group,
                             out + s0);
    hadamard32(out + s0, m); // H is its own inverse in the normalised form
  }
}

} // namespace ccsim::numerics
