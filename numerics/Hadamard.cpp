// Fast Walsh-Hadamard butterflies on blocks of 32, and the fused transform + (de)quantization that works on
// cache-sized, group-aligned slices so the data crosses memory once.
#include "numerics/Hadamard.hpp"

#include "numerics/HadamardBlock.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "numerics/Avx2.hpp"
#include "numerics/SimdLevel.hpp"

namespace ccsim::numerics {

namespace {
#if CCSIM_HAVE_AVX2_PATH
/// One butterfly stage inside each 8-lane register: partner t = r with lanes j and j^h swapped; lanes whose bit h is
/// clear get r + t (= a + c), the others t - r (= a - c). Same operands and operations as hadamard_block.
template <int BLEND>
__attribute__((target("avx2"))) inline __m256 in_lane_stage(__m256 r, __m256 t)
{
  return _mm256_blend_ps(_mm256_add_ps(r, t), _mm256_sub_ps(t, r), BLEND);
}

__attribute__((target("avx2"))) void hadamard32_avx2(const float* in, float* x, std::size_t n)
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

bool have_avx2()
{
  return simd_level() >= SimdLevel::AVX2; // the CPU has it and neither CCSIM_SIMD nor a test capped it
}
#endif

/// Elements per fused slice: a whole number of groups, about 16 KiB of fp32, so the slice stays in L1/L2.
std::size_t slice_numel(std::size_t group)
{
  return std::max<std::size_t>(1, 4096 / group) * group;
}
} // namespace

namespace {
/// out = H·in (one read of the input, the transform written straight into the slice scratch).
void hadamard32_into(const float* in, float* out, std::size_t n)
{
#if CCSIM_HAVE_AVX2_PATH
  if (have_avx2())
    return hadamard32_avx2(in, out, n);
#endif
  std::copy(in, in + n, out);
  for (std::size_t b = 0; b < n; b += 32)
    hadamard_block(out + b);
}
} // namespace

void hadamard32(float* x, std::size_t n)
{
  assert(n % 32 == 0);
#if CCSIM_HAVE_AVX2_PATH
  if (have_avx2())
    return hadamard32_avx2(x, x, n);
#endif
  for (std::size_t b = 0; b < n; b += 32)
    hadamard_block(x + b);
}

void hadamard32_quantize_packed(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                                std::uint64_t seed, std::uint8_t* codes, float* scales)
{
  assert(n % 32 == 0 && group % 32 == 0);
  const std::size_t slice = slice_numel(group);
  std::vector<float> scratch(std::min(n, slice));
  for (std::size_t s0 = 0; s0 < n; s0 += slice) {
    const std::size_t m = std::min(n - s0, slice);
    hadamard32_into(x + s0, scratch.data(), m);
    // s0 is a multiple of the group: codes start at byte s0·bits/8, scales at group s0/group.
    quantize_groups_packed(scratch.data(), m, bits, group, rounding, seed, codes + s0 * static_cast<std::size_t>(bits) / 8,
                           scales + s0 / group, /*first_index=*/s0);
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
