// Sign packing and the fused error-feedback compressor. Loops run over raw pointers in blocks of 8 (one output
// byte) so the compiler unrolls and vectorises them; this is what bench-kernels measures as onebit_compress /
// onebit_decompress.
#include "numerics/OnebitPack.hpp"

#include "numerics/ParallelFor.hpp"
#include "numerics/Rounding.hpp"

#include <array>
#include <cassert>
#include <cmath>
#include <vector>

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

/// The error the last call left at one element: the two-pass kernel's e = p - scale·sign(p), from c = p.
inline float error_of(float compensated, float scale)
{
  return compensated - (compensated >= 0.0f ? scale : -scale);
}

/// One compensated element: c = p = x + e, its sign bit (returned) and its square into the lane.
inline unsigned compensate(float x, float& c, float scale, double& lane)
{
  const float p = x + error_of(c, scale);
  c             = p;
  lane += static_cast<double>(p) * p;
  return static_cast<unsigned>(p >= 0.0f); // -0.0 >= 0 holds: +1, as DeepSpeed
}

/// The single pass on bytes [0, n/8) (portable): x is given, or (worker_bits, scaled, workers) average to it.
void compress_bytes_portable(const float* x, const std::uint8_t* const* worker_bits, const float* scaled,
                             std::size_t workers, float* c, float scale, std::size_t n, std::uint8_t* bits,
                             double* lane)
{
  for (std::size_t i = 0; i < n / 8; ++i) {
    float v[8];
    if (x != nullptr) {
      for (int j = 0; j < 8; ++j)
        v[j] = x[8 * i + j];
    } else {
      for (int j = 0; j < 8; ++j)
        v[j] = 0.0f; // the server's chunk starts at zero (nccl.py l.108), then each worker's ±scale/W in rank order
      for (std::size_t w = 0; w < workers; ++w) {
        const unsigned byte = worker_bits[w][i];
        for (int j = 0; j < 8; ++j)
          v[j] += ((byte >> (7 - j)) & 1u) ? scaled[w] : -scaled[w];
      }
    }
    unsigned byte = 0;
    for (int j = 0; j < 8; ++j)
      byte |= compensate(v[j], c[8 * i + j], scale, lane[j]) << (7 - j);
    bits[i] = static_cast<std::uint8_t>(byte);
  }
}

#if CCSIM_HAVE_X86_SIMD
/// Bit j of a movemask (element j) becomes bit 7 - j of the packed byte (MSB first).
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

/// The same pass with AVX2, 8 elements (one byte) at a time: the portable arithmetic per element, the squares in two
/// double vectors holding lanes 0-3 and 4-7.
CCSIM_TARGET_AVX2 void compress_bytes_avx2(const float* x, const std::uint8_t* const* worker_bits, const float* scaled,
                                           std::size_t workers, float* c, float scale, std::size_t n,
                                           std::uint8_t* bits, double* lane)
{
  const __m256 zero = _mm256_setzero_ps(), plus = _mm256_set1_ps(scale), minus = _mm256_set1_ps(-scale);
  // Element j of a byte's 8 takes bit 7 - j.
  const __m256i select = _mm256_setr_epi32(128, 64, 32, 16, 8, 4, 2, 1);
  __m256d lo = _mm256_loadu_pd(lane), hi = _mm256_loadu_pd(lane + 4);
  for (std::size_t i = 0; i < n / 8; ++i) {
    __m256 v;
    if (x != nullptr) {
      v = _mm256_loadu_ps(x + 8 * i);
    } else {
      v = _mm256_setzero_ps();
      for (std::size_t w = 0; w < workers; ++w) {
        const __m256i set  = _mm256_and_si256(_mm256_set1_epi32(worker_bits[w][i]), select);
        const __m256 pos   = _mm256_castsi256_ps(_mm256_cmpeq_epi32(set, select));
        const __m256 value = _mm256_blendv_ps(_mm256_set1_ps(-scaled[w]), _mm256_set1_ps(scaled[w]), pos);
        v                  = _mm256_add_ps(v, value);
      }
    }
    const __m256 old  = _mm256_loadu_ps(c + 8 * i);
    const __m256 sign = _mm256_blendv_ps(minus, plus, _mm256_cmp_ps(old, zero, _CMP_GE_OQ));
    const __m256 p    = _mm256_add_ps(v, _mm256_sub_ps(old, sign));
    _mm256_storeu_ps(c + 8 * i, p);
    bits[i]         = REVERSED_BITS[static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(p, zero, _CMP_GE_OQ)))];
    const __m256d a = _mm256_cvtps_pd(_mm256_castps256_ps128(p));
    const __m256d b = _mm256_cvtps_pd(_mm256_extractf128_ps(p, 1));
    lo              = _mm256_add_pd(lo, _mm256_mul_pd(a, a));
    hi              = _mm256_add_pd(hi, _mm256_mul_pd(b, b));
  }
  _mm256_storeu_pd(lane, lo);
  _mm256_storeu_pd(lane + 4, hi);
}

/// The worker pass with AVX-512, 16 elements (two bytes) at a time: one vector of 8 doubles is the 8 lanes, and
/// elements i..i+7 are added before i+8..i+15, each lane in index order as the portable loop adds them.
CCSIM_TARGET_AVX512 std::size_t compress_bytes_avx512(const float* x, float* c, float scale, std::size_t n,
                                                      std::uint8_t* bits, double* lane)
{
  const __m512 zero = _mm512_setzero_ps(), plus = _mm512_set1_ps(scale), minus = _mm512_set1_ps(-scale);
  __m512d acc       = _mm512_loadu_pd(lane);
  std::size_t i     = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 old = _mm512_loadu_ps(c + i);
    const __m512 e   = _mm512_sub_ps(old, _mm512_mask_blend_ps(_mm512_cmp_ps_mask(old, zero, _CMP_GE_OQ), minus, plus));
    const __m512 p   = _mm512_add_ps(_mm512_loadu_ps(x + i), e);
    _mm512_storeu_ps(c + i, p);
    const unsigned positive = _mm512_cmp_ps_mask(p, zero, _CMP_GE_OQ);
    bits[i / 8]             = REVERSED_BITS[positive & 0xFFu];
    bits[i / 8 + 1]         = REVERSED_BITS[positive >> 8];
    // The zero-masking forms: GCC 12 warns that the plain ones' undefined pass-through may be uninitialized (GCC
    // bug 105593); with a full mask the results are the same.
    const __m512d a = _mm512_maskz_cvtps_pd(0xFF, _mm512_maskz_extractf32x8_ps(0xFF, p, 0));
    const __m512d b = _mm512_maskz_cvtps_pd(0xFF, _mm512_maskz_extractf32x8_ps(0xFF, p, 1));
    acc                     = _mm512_add_pd(acc, _mm512_mul_pd(a, a));
    acc                     = _mm512_add_pd(acc, _mm512_mul_pd(b, b));
  }
  _mm512_storeu_pd(lane, acc);
  return i; // the elements done; the rest (fewer than 16, a multiple of 8) is left to the caller
}
#endif

/// The pass on the best path this CPU has; returns the scale from the lanes.
float compress_pass(const float* x, const std::uint8_t* const* worker_bits, const float* scaled, std::size_t workers,
                    float* c, float scale, std::size_t n, std::uint8_t* bits)
{
  assert(n % 8 == 0);
  if (n == 0)
    return 0.0f;
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t done = 0;
#if CCSIM_HAVE_X86_SIMD
  if (x != nullptr && simd_level() >= SimdLevel::AVX512)
    done = compress_bytes_avx512(x, c, scale, n, bits, lane);
  if (simd_level() >= SimdLevel::AVX2) {
    std::vector<const std::uint8_t*> rest(workers);
    for (std::size_t w = 0; w < workers; ++w)
      rest[w] = worker_bits[w] + done / 8;
    compress_bytes_avx2(x != nullptr ? x + done : nullptr, rest.data(), scaled, workers, c + done, scale, n - done,
                        bits + done / 8, lane);
    done = n;
  }
#endif
  if (done < n) {
    std::vector<const std::uint8_t*> rest(workers);
    for (std::size_t w = 0; w < workers; ++w)
      rest[w] = worker_bits[w] + done / 8;
    compress_bytes_portable(x != nullptr ? x + done : nullptr, rest.data(), scaled, workers, c + done, scale,
                            n - done, bits + done / 8, lane);
  }
  // nccl.py l.66: scale = ||p||_2 / sqrt(numel) over the padded buffer.
  const double ss = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  return static_cast<float>(std::sqrt(ss / static_cast<double>(n)));
}
} // namespace

float onebit_scale(const float* x, std::size_t n)
{
  if (n == 0)
    return 0.0f;
  return static_cast<float>(std::sqrt(sum_squares(x, n) / static_cast<double>(n)));
}

float compress_compensated(const float* x, float* compensated, float scale, std::size_t n, std::uint8_t* bits)
{
  return compress_pass(x, nullptr, nullptr, 0, compensated, scale, n, bits);
}

float compress_average(const std::uint8_t* const* worker_bits, const float* scaled, std::size_t workers,
                       float* compensated, float scale, std::size_t n, std::uint8_t* bits)
{
  return compress_pass(nullptr, worker_bits, scaled, workers, compensated, scale, n, bits);
}

void feedback_error(const float* compensated, float scale, std::size_t n, float* error)
{
  for (std::size_t i = 0; i < n; ++i)
    error[i] = error_of(compensated[i], scale);
}

} // namespace ccsim::numerics
