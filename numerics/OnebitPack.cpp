// Sign packing and the fused error-feedback compressor. Loops run over raw pointers in blocks of 8 (one output
// byte) so the compiler unrolls and vectorises them; this is what bench-kernels measures as onebit_compress /
// onebit_decompress.
#include "numerics/OnebitPack.hpp"

#include "numerics/ParallelFor.hpp"
#include "numerics/Rounding.hpp"

#include <array>

#include <cassert>
#include <cmath>

#include "numerics/SimdLevel.hpp"
#include "numerics/SimdTarget.hpp"

namespace ccsim::numerics {

CCSIM_VECTOR_CLONES
void pack_signs(const float* x, std::size_t n, std::uint8_t* bits)
{
  assert(n % 8 == 0);
  for (std::size_t i = 0; i < n / 8; ++i) {
    const float* v    = x + 8 * i;
    unsigned byte     = 0;
    for (int j = 0; j < 8; ++j)
      byte |= static_cast<unsigned>(v[j] >= 0.0f) << (7 - j); // 0 and -0.0 count as +1, as in DeepSpeed
    bits[i] = static_cast<std::uint8_t>(byte);
  }
}

CCSIM_VECTOR_CLONES
void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out)
{
  assert(n % 8 == 0);
  for (std::size_t i = 0; i < n / 8; ++i) {
    const unsigned byte = bits[i];
    float* o            = out + 8 * i;
    for (int j = 0; j < 8; ++j)
      o[j] = ((byte >> (7 - j)) & 1u) ? scale : -scale;
  }
}

void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out, std::size_t threads)
{
  parallel_ranges(threads, n, 8, [&](std::size_t b, std::size_t e) { unpack_signs(bits + b / 8, e - b, scale, out + b); });
}

CCSIM_VECTOR_CLONES
void accumulate_signs(const std::uint8_t* bits, std::size_t n, float scaled, float* out)
{
  assert(n % 8 == 0);
  for (std::size_t i = 0; i < n / 8; ++i) {
    const unsigned byte = bits[i];
    float* o            = out + 8 * i;
    for (int j = 0; j < 8; ++j)
      o[j] += ((byte >> (7 - j)) & 1u) ? scaled : -scaled;
  }
}

namespace {
/// Sums of squares use 8 independent double lanes: the lanes break the serial dependency of one accumulator
/// (which would cap the loop at one add per FP latency) and let the compiler vectorise without -ffast-math.
double reduce_lanes(const double* lane)
{
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

CCSIM_VECTOR_CLONES
double sum_squares(const float* x, std::size_t n)
{
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i  = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j)
      lane[j] += static_cast<double>(x[i + j]) * x[i + j];
  double total = reduce_lanes(lane);
  for (; i < n; ++i)
    total += static_cast<double>(x[i]) * x[i];
  return total;
}

/// The sum of squares of x + error without writing anything (n a multiple of 8): the first of the two passes.
double compensated_sum_squares_portable(const float* x, const float* error, std::size_t n)
{
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (std::size_t i = 0; i < n; i += 8)
    for (int j = 0; j < 8; ++j) {
      const float v = x[i + j] + error[i + j];
      lane[j] += static_cast<double>(v) * v;
    }
  return reduce_lanes(lane);
}

/// Second pass: signs of x + error into bits, error = (x + error) - scale·sign.
void signs_and_error_portable(const float* x, float* error, std::size_t n, float scale, std::uint8_t* bits)
{
  for (std::size_t i = 0; i < n / 8; ++i) {
    const float* v = x + 8 * i;
    float* e       = error + 8 * i;
    unsigned byte  = 0;
    for (int j = 0; j < 8; ++j) {
      const float p       = v[j] + e[j];
      const bool positive = p >= 0.0f;
      byte |= static_cast<unsigned>(positive) << (7 - j);
      e[j] = p - (positive ? scale : -scale);
    }
    bits[i] = static_cast<std::uint8_t>(byte);
  }
}

#if CCSIM_HAVE_X86_SIMD
/// The same two passes with AVX2: identical results (same per-lane double sums in the same order; compare,
/// movemask and a bit-reversal table instead of eight shifts per byte).
const std::array<std::uint8_t, 256> REVERSED_BITS = [] {
  std::array<std::uint8_t, 256> t{};
  for (unsigned b = 0; b < 256; ++b) {
    unsigned r = 0;
    for (int j = 0; j < 8; ++j)
      r |= ((b >> j) & 1u) << (7 - j);
    t[b] = static_cast<std::uint8_t>(r);
  }
  return t;
}();

CCSIM_TARGET_AVX2 double compensated_sum_squares_avx2(const float* x, const float* error, std::size_t n)
{
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd(); // lanes 0-3 and 4-7 of the portable version
  for (std::size_t i = 0; i < n; i += 8) {
    const __m256 p  = _mm256_add_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(error + i));
    const __m256d a = _mm256_cvtps_pd(_mm256_castps256_ps128(p));
    const __m256d b = _mm256_cvtps_pd(_mm256_extractf128_ps(p, 1));
    lo              = _mm256_add_pd(lo, _mm256_mul_pd(a, a));
    hi              = _mm256_add_pd(hi, _mm256_mul_pd(b, b));
  }
  double lane[8];
  _mm256_storeu_pd(lane, lo);
  _mm256_storeu_pd(lane + 4, hi);
  return reduce_lanes(lane);
}

CCSIM_TARGET_AVX2 void signs_and_error_avx2(const float* x, float* error, std::size_t n, float scale,
                                                          std::uint8_t* bits)
{
  const __m256 zero = _mm256_setzero_ps(), plus = _mm256_set1_ps(scale), minus = _mm256_set1_ps(-scale);
  for (std::size_t i = 0; i < n / 8; ++i) {
    const __m256 p        = _mm256_add_ps(_mm256_loadu_ps(x + 8 * i), _mm256_loadu_ps(error + 8 * i));
    const __m256 positive = _mm256_cmp_ps(p, zero, _CMP_GE_OQ); // -0.0 >= 0 holds: +1, as the portable path
    bits[i]               = REVERSED_BITS[static_cast<unsigned>(_mm256_movemask_ps(positive))];
    _mm256_storeu_ps(error + 8 * i, _mm256_sub_ps(p, _mm256_blendv_ps(minus, plus, positive)));
  }
}

/// The AVX2 path serves the AVX-512 level too (no wider version yet).
bool have_avx2() { return simd_level() >= SimdLevel::AVX2; }
#endif

double compensated_sum_squares(const float* x, const float* error, std::size_t n)
{
#if CCSIM_HAVE_X86_SIMD
  if (have_avx2())
    return compensated_sum_squares_avx2(x, error, n);
#endif
  return compensated_sum_squares_portable(x, error, n);
}

void signs_and_error(const float* x, float* error, std::size_t n, float scale, std::uint8_t* bits)
{
#if CCSIM_HAVE_X86_SIMD
  if (have_avx2())
    return signs_and_error_avx2(x, error, n, scale, bits);
#endif
  signs_and_error_portable(x, error, n, scale, bits);
}
} // namespace

float onebit_scale(const float* x, std::size_t n)
{
  if (n == 0)
    return 0.0f;
  return static_cast<float>(std::sqrt(sum_squares(x, n) / static_cast<double>(n)));
}

float compress_with_feedback(const float* x, float* error, std::size_t n, std::uint8_t* bits, std::size_t threads)
{
  assert(n % 8 == 0);
  if (n == 0)
    return 0.0f;
  // nccl.py l.65–66: compensate, then scale = ||buffer||_2 / sqrt(numel) over the padded buffer. The compensated
  // value is recomputed in the second pass instead of stored: 5 memory streams instead of 6.
  const double ss   = compensated_sum_squares(x, error, n);
  const float scale = static_cast<float>(std::sqrt(ss / static_cast<double>(n)));
  // nccl.py l.67 + cupy packbits, fused: one pass writes the sign byte and the new error.
  parallel_ranges(threads, n, 8, [&](std::size_t b, std::size_t e) {
    signs_and_error(x + b, error + b, e - b, scale, bits + b / 8);
  });
  return scale;
}

} // namespace ccsim::numerics
