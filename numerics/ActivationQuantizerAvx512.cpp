// quantize_delta_channels' two passes with AVX-512, 16 channels per step: the scalar loops of
// numerics/ActivationQuantizer.cpp in vector lanes, the same fp32 operations in the same order (issue 49: a buffer
// that stays in cache is bound by the arithmetic, where the auto-vectorised AVX2 clone of the scalar loops was slower).
#include "numerics/ActivationQuantizerPaths.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::numerics::detail {

#if CCSIM_HAVE_X86_SIMD
#if defined(__GNUC__) && !defined(__clang__) // GCC bug 105593 (numerics/GroupQuantizerAvx512.cpp)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
namespace {
CCSIM_TARGET_AVX512 void delta_absmax(const float* a, const float* m, std::size_t r0, std::size_t r1,
                                      std::size_t channels, float* scales)
{
  // Row by row, as the scalar loop, with the running maxima in `scales` (L1): walking a channel block down the rows
  // instead strides by a whole row and measured at half the rate.
  const std::size_t whole = channels / 16 * 16;
  std::fill(scales, scales + channels, 0.0f);
  for (std::size_t r = r0; r < r1; ++r) {
    const float* ar = a + r * channels;
    const float* mr = m + r * channels;
    for (std::size_t c = 0; c < whole; c += 16) {
      const auto v = _mm512_abs_ps(_mm512_sub_ps(_mm512_loadu_ps(ar + c), _mm512_loadu_ps(mr + c)));
      // A NaN in v: max_ps returns its second operand, the running maximum.
      _mm512_storeu_ps(scales + c, _mm512_max_ps(v, _mm512_loadu_ps(scales + c)));
    }
    for (std::size_t c = whole; c < channels; ++c) {
      const float v = std::fabs(ar[c] - mr[c]);
      scales[c]     = scales[c] < v ? v : scales[c];
    }
  }
}

CCSIM_TARGET_AVX512 void encode_rows(const float* a, float* m, std::size_t r0, std::size_t r1, std::size_t channels,
                                     const float* scales, float half, std::int8_t* codes)
{
  const __m512 vhalf = _mm512_set1_ps(half), vinv = _mm512_set1_ps(1.0f / half);
  const __m512 lo = _mm512_set1_ps(-half), hi = _mm512_set1_ps(half - 1.0f);
  const __m512 eps = _mm512_set1_ps(AQ_EPS), magic = _mm512_set1_ps(12582912.0f); // round_half_even's 1.5 x 2^23
  const std::size_t whole = channels / 16 * 16;
  for (std::size_t r = r0; r < r1; ++r) {
    const float* ar = a + r * channels;
    float* mr       = m + r * channels;
    std::int8_t* qr = codes + r * channels;
    for (std::size_t c = 0; c < whole; c += 16) {
      const __m512 s     = _mm512_loadu_ps(scales + c);
      const __m512 old   = _mm512_loadu_ps(mr + c);
      const __m512 delta = _mm512_sub_ps(_mm512_loadu_ps(ar + c), old);
      const __m512 v     = _mm512_mul_ps(_mm512_div_ps(delta, _mm512_add_ps(s, eps)), vhalf);
      const __m512 round = _mm512_sub_ps(_mm512_add_ps(v, magic), magic);
      // std::min(half - 1, std::max(-half, round)): max_ps/min_ps return their second operand on NaN, as std does.
      const __m512 code = _mm512_min_ps(_mm512_max_ps(round, lo), hi);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(qr + c), _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(code)));
      _mm512_storeu_ps(mr + c, _mm512_add_ps(old, _mm512_mul_ps(_mm512_mul_ps(code, vinv), s)));
    }
    encode_row_scalar(ar, mr, whole, channels, scales, half, qr);
  }
}
} // namespace

const DeltaQuantKernels AVX512_DELTA_QUANT_KERNELS = {delta_absmax, encode_rows};
#endif

} // namespace ccsim::numerics::detail
