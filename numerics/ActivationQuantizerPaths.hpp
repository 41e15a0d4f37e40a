#pragma once
// Internal to the activation quantizer (numerics/ActivationQuantizer.cpp): the two passes of quantize_delta_channels
// on the scalar path (the compiler's AVX2 and baseline clones of the loops) and on AVX-512, which the quantizer picks
// by simd_level(). The AVX-512 bodies apply the scalar loops' fp32 operations lane by lane in the same order (no fused
// multiply-add), so their codes, scales and updated m are bit-identical to the scalar path's
// (tests/numerics/SimdParity_test.cpp holds them to it).

#include "numerics/SimdTarget.hpp"

#include <cstddef>
#include <cstdint>

namespace ccsim::numerics::detail {

/// fixpoint.py's x / (scale + 1e-6).
inline constexpr float AQ_EPS = 1e-6f;

struct DeltaQuantKernels {
  /// scales[c] = max over rows [r0, r1) of |a - m| (a NaN never wins the comparison scales[c] < v); scales is
  /// overwritten. Rows of `channels` values, row-major.
  void (*delta_absmax)(const float* a, const float* m, std::size_t r0, std::size_t r1, std::size_t channels,
                       float* scales);
  /// For rows [r0, r1): codes = clamp(round_half_even((a - m) / (scale + AQ_EPS) x half), -half, half - 1) and
  /// m += code x (1 / half) x scale, in place.
  void (*encode_rows)(const float* a, float* m, std::size_t r0, std::size_t r1, std::size_t channels,
                      const float* scales, float half, std::int8_t* codes);
};

/// The scalar path's row, from channel c0 on: also the AVX-512 path's tail of a row (channels not a multiple of 16).
void encode_row_scalar(const float* a, float* m, std::size_t c0, std::size_t channels, const float* scales,
                       float half, std::int8_t* codes);

extern const DeltaQuantKernels SCALAR_DELTA_QUANT_KERNELS;
#if CCSIM_HAVE_X86_SIMD
extern const DeltaQuantKernels AVX512_DELTA_QUANT_KERNELS;
#endif

} // namespace ccsim::numerics::detail
