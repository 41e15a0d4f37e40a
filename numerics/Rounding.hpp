#pragma once
// Scalar rounding helpers shared by the quantizers, written so loops that use them vectorise without -ffast-math
// and give the same bits as their CUDA counterparts (named in each comment).

#include <cstdint>
#include <cstring>

/// Hot loops are compiled twice, for AVX2 and for the x86-64 baseline, and picked at load time (GCC function
/// multiversioning): the project builds without -march flags, and SSE2 alone cannot vectorise the 64-bit hash or
/// float rounding well. Neither clone enables FMA, so results are bit-identical across clones.
/// The scalar test build (CCSIM_SCALAR_BUILD) compiles the baseline only.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(CCSIM_SCALAR_BUILD)
#define CCSIM_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CCSIM_VECTOR_CLONES
#endif

namespace ccsim::numerics {

/// Round half to even for |v| < 2^22 (CUDA: rintf / __float2int_rn; torch.round): adding 1.5·2^23 pushes the
/// fraction out of the mantissa under the default round-to-nearest-even mode, subtracting it back is exact.
inline float round_half_even(float v)
{
  constexpr float MAGIC = 12582912.0f; // 1.5 · 2^23
  return (v + MAGIC) - MAGIC;
}

/// floor for |v| < 2^31 without a libm call (CUDA: floorf): truncate, then step down for negative non-integers.
inline float floor_small(float v)
{
  const float t = static_cast<float>(static_cast<std::int32_t>(v));
  return t > v ? t - 1.0f : t;
}

/// fp32 -> bf16 -> fp32 with round-to-nearest-even on the dropped 16 bits (CUDA: __float2bfloat16_rn);
/// NaN stays NaN (quiet bit kept). bf16 keeps fp32's exponent range and 8 bits of significand.
inline float round_to_bf16(float v)
{
  std::uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0)
    u |= 0x00400000u; // NaN: keep it a (quiet) NaN after truncation
  else
    u += 0x7FFFu + ((u >> 16) & 1u);
  u &= 0xFFFF0000u;
  float r;
  std::memcpy(&r, &u, sizeof r);
  return r;
}

} // namespace ccsim::numerics
