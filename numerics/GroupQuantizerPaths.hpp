#pragma once
// Internal to the group quantizer: the per-element rules every path shares, and the per-group kernels of
// quantize_groups_packed for each path (scalar, AVX2, AVX-512) that numerics/GroupQuantizer.cpp chooses by simd_level().
// The vector bodies apply the element rules below lane by lane with the same fp32 operations, so their codes and
// scales are bit-identical to the scalar body's (tests/numerics/SimdParity_test.cpp holds them to it).

#include "numerics/GroupQuantizer.hpp"
#include "numerics/Rounding.hpp"
#include "numerics/SimdTarget.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ccsim::numerics::detail {

inline constexpr std::uint64_t GOLDEN = 0x9E3779B97F4A7C15ull;
inline constexpr std::uint64_t MIX1   = 0xBF58476D1CE4E5B9ull;
inline constexpr std::uint64_t MIX2   = 0x94D049BB133111EBull;

inline std::uint64_t splitmix64_finalise(std::uint64_t z)
{
  z = (z ^ (z >> 30)) * MIX1;
  z = (z ^ (z >> 27)) * MIX2;
  return z ^ (z >> 31);
}

/// u(seed, index) of numerics/GroupQuantizer.hpp. (z >> 40) < 2^24 converts exactly through int32. The vector paths
/// skip the finaliser's last z ^= z >> 31: it only changes bits 0..32, and u reads bits 40..63.
inline float draw(std::uint64_t seed, std::uint64_t index)
{
  const std::uint64_t z = splitmix64_finalise((seed ^ (index * GOLDEN)) + GOLDEN);
  return static_cast<float>(static_cast<std::int32_t>(z >> 40)) * (1.0f / 16777216.0f);
}

/// Nearest code of x·inv as a float in [-qmax, qmax] (std::max/min order matters for NaN: NaN gives -qmax).
inline float nearest_code(float x, float inv, float qmax)
{
  return std::min(qmax, std::max(-qmax, round_half_even(x * inv)));
}

/// Stochastic code of x·inv with draw u: floor(v) + (u < v - floor(v)), clamped.
inline float stochastic_code(float x, float inv, float qmax, float u)
{
  const float v     = x * inv;
  const float lower = floor_small(v);
  const float c     = lower + (u < v - lower ? 1.0f : 0.0f);
  return std::min(qmax, std::max(-qmax, c));
}

/// Packed codes of x[0..m) (x[0] at an even buffer index when bits = 4; an odd m leaves the last low nibble 0) into
/// codes[0..]; the draw index of x[i] is first + i. The scalar body, and the vector bodies' tails.
void encode_range_scalar(const float* x, std::size_t m, int bits, Rounding rounding, float inv, float qmax,
                         std::uint64_t seed, std::uint64_t first, std::uint8_t* codes);

/// inv = qmax / max|x| (0 for an all-zero group) and the stored scale max|x| / qmax (SDP4Bit §7.1).
inline float group_inverse(float absmax, float qmax) { return absmax > 0.0f ? qmax / absmax : 0.0f; }

/// One path's two per-group steps; the group loop that calls them is shared (numerics/GroupQuantizer.cpp).
struct GroupKernels {
  /// max|x| of m values, NaNs skipped (a NaN never wins the comparison acc < |x|).
  float (*absmax)(const float* x, std::size_t m);
  /// encode_range_scalar's contract for a whole group; [bits == 8][rounding == STOCHASTIC].
  void (*encode[2][2])(const float* x, std::size_t m, float inv, float qmax, std::uint64_t seed, std::uint64_t first,
                       std::uint8_t* codes);
};

/// quantize_groups_packed's step for one group whose max|x| is already known: its scale (max|x| / qmax) and its codes,
/// on the path simd_level() chooses. The fused Hadamard transform takes the maximum from its own registers instead of
/// reading the group again (numerics/Hadamard.cpp).
void encode_group_known_max(const float* x, std::size_t m, float absmax, int bits, Rounding rounding,
                            std::uint64_t seed, std::uint64_t first, std::uint8_t* codes, float* scale);

#if CCSIM_HAVE_X86_SIMD
/// The vector paths' kernels, used only when simd_level() says the CPU has them.
extern const GroupKernels AVX2_GROUP_KERNELS;
extern const GroupKernels AVX512_GROUP_KERNELS;
#endif

} // namespace ccsim::numerics::detail
