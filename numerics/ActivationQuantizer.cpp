// Per-channel activation quantizer. Loops go row by row with the channel index innermost, so per-channel scales stay
// in cache and the compiler vectorises across channels.
#include "numerics/ActivationQuantizer.hpp"

#include "numerics/ActivationQuantizerPaths.hpp"
#include "numerics/ParallelFor.hpp"
#include "numerics/Rounding.hpp"
#include "numerics/SimdLevel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ccsim::numerics {

namespace {
using detail::AQ_EPS;

/// Codes of one row and, when `m` is given, m += deQ(code) — the same value as dequantize_channels' expression:
/// code / half is exact (half is a power of two, |code| <= half), so it is computed as code x (1 / half), one
/// division per value fewer (issue 49).
CCSIM_VECTOR_CLONES
void encode_row(const float* x, const float* m_old, float* m_new, const float* scales, std::size_t channels,
                float half, std::int8_t* codes)
{
  const float inv_half = 1.0f / half;
  for (std::size_t c = 0; c < channels; ++c) {
    const float v    = (m_old ? x[c] - m_old[c] : x[c]) / (scales[c] + AQ_EPS) * half;
    const float code = std::min(half - 1.0f, std::max(-half, round_half_even(v)));
    codes[c]         = static_cast<std::int8_t>(code);
    if (m_new)
      m_new[c] = m_old[c] + code * inv_half * scales[c];
  }
}
} // namespace

float round_to_fp16(float v)
{
  const float a = std::fabs(v);
  if (!(a < 65520.0f)) // NaN stays NaN; from 65520 up fp16 rounds to inf (max finite 65504)
    return std::isnan(v) ? v : std::copysign(std::numeric_limits<float>::infinity(), v);
  if (a < 6.103515625e-05f) // below 2^-14: fp16 subnormals, a fixed quantum of 2^-24
    return std::ldexp(round_half_even(std::ldexp(v, 24)), -24);
  int e;
  const float m = std::frexp(v, &e); // |m| in [0.5, 1): 11 significant bits -> steps of 2^-11
  return std::ldexp(round_half_even(m * 2048.0f) / 2048.0f, e);
}

void quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits, std::int8_t* codes,
                       float* scales)
{
  std::fill(scales, scales + channels, 0.0f);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < channels; ++c)
      scales[c] = std::max(scales[c], std::fabs(x[r * channels + c]));
  for (std::size_t c = 0; c < channels; ++c)
    scales[c] = round_to_fp16(scales[c]);
  const float half = static_cast<float>(1 << (bits - 1));
  for (std::size_t r = 0; r < rows; ++r)
    encode_row(x + r * channels, nullptr, nullptr, scales, channels, half, codes + r * channels);
}

void dequantize_channels(const std::int8_t* codes, const float* scales, std::size_t rows, std::size_t channels,
                         int bits, float* out)
{
  const float half = static_cast<float>(1 << (bits - 1));
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < channels; ++c)
      out[r * channels + c] = static_cast<float>(codes[r * channels + c]) / half * scales[c];
}

namespace {
/// Per-channel running max of |a - m| over rows [r0, r1) (channel innermost, so it vectorises across channels).
CCSIM_VECTOR_CLONES
void channel_absmax_of_difference(const float* a, const float* m, std::size_t r0, std::size_t r1,
                                  std::size_t channels, float* scales)
{
  std::fill(scales, scales + channels, 0.0f);
  for (std::size_t r = r0; r < r1; ++r) {
    const float* ar = a + r * channels;
    const float* mr = m + r * channels;
    for (std::size_t c = 0; c < channels; ++c) {
      const float v = std::fabs(ar[c] - mr[c]);
      scales[c]     = scales[c] < v ? v : scales[c];
    }
  }
}

void encode_rows_scalar(const float* a, float* m, std::size_t r0, std::size_t r1, std::size_t channels,
                        const float* scales, float half, std::int8_t* codes)
{
  for (std::size_t r = r0; r < r1; ++r)
    encode_row(a + r * channels, m + r * channels, m + r * channels, scales, channels, half, codes + r * channels);
}

const detail::DeltaQuantKernels& delta_quant_kernels()
{
#if CCSIM_HAVE_X86_SIMD
  // AVX2 keeps the compiler's clone of the scalar loops: a hand-written AVX2 pair measured 7 % slower in cache.
  if (simd_level() == SimdLevel::AVX512)
    return detail::AVX512_DELTA_QUANT_KERNELS;
#endif
  return detail::SCALAR_DELTA_QUANT_KERNELS;
}
} // namespace

namespace detail {
void encode_row_scalar(const float* a, float* m, std::size_t c0, std::size_t channels, const float* scales,
                       float half, std::int8_t* codes)
{
  if (c0 < channels)
    encode_row(a + c0, m + c0, m + c0, scales + c0, channels - c0, half, codes + c0);
}

const DeltaQuantKernels SCALAR_DELTA_QUANT_KERNELS = {channel_absmax_of_difference, encode_rows_scalar};
} // namespace detail

void quantize_delta_channels(const float* a, float* m, std::size_t rows, std::size_t channels, int bits,
                             std::int8_t* codes, float* scales, std::size_t threads)
{
  const detail::DeltaQuantKernels& k = delta_quant_kernels();
  // Each thread takes whole rows into its own maxima, merged with the same comparison: max is exact and a NaN never
  // wins it, so any split gives the one-thread scales.
  const std::size_t parts = std::max<std::size_t>(1, std::min(threads, rows));
  std::vector<float> partial((parts - 1) * channels);
  parallel_for_on(parts, parts, [&](std::size_t t) {
    k.delta_absmax(a, m, rows * t / parts, rows * (t + 1) / parts, channels,
                   t == 0 ? scales : partial.data() + (t - 1) * channels);
  });
  for (std::size_t t = 1; t < parts; ++t)
    for (std::size_t c = 0; c < channels; ++c) {
      const float v = partial[(t - 1) * channels + c];
      scales[c]     = scales[c] < v ? v : scales[c];
    }
  for (std::size_t c = 0; c < channels; ++c)
    scales[c] = round_to_fp16(scales[c]);
  const float half = static_cast<float>(1 << (bits - 1));
  parallel_ranges(threads, rows, 1,
                  [&](std::size_t r0, std::size_t r1) { k.encode_rows(a, m, r0, r1, channels, scales, half, codes); });
}

} // namespace ccsim::numerics
