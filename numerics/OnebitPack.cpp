// Sign packing and the fused error-feedback compressor. Loops run over raw pointers in blocks of 8 (one output
// byte) so the compiler unrolls and vectorises them; this is what bench-kernels measures as onebit_compress /
// onebit_decompress.
#include "numerics/OnebitPack.hpp"

#include <cassert>
#include <cmath>

namespace ccsim::numerics {

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

/// x += error and the sum of squares of the result, in one pass (n a multiple of 8).
double compensate_and_sum_squares(float* x, const float* error, std::size_t n)
{
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (std::size_t i = 0; i < n; i += 8)
    for (int j = 0; j < 8; ++j) {
      const float v = x[i + j] + error[i + j];
      x[i + j]      = v;
      lane[j] += static_cast<double>(v) * v;
    }
  return reduce_lanes(lane);
}
} // namespace

float onebit_scale(const float* x, std::size_t n)
{
  if (n == 0)
    return 0.0f;
  return static_cast<float>(std::sqrt(sum_squares(x, n) / static_cast<double>(n)));
}

float compress_with_feedback(float* x, float* error, std::size_t n, std::uint8_t* bits)
{
  assert(n % 8 == 0);
  if (n == 0)
    return 0.0f;
  // nccl.py l.65–66: compensate, then scale = ||buffer||_2 / sqrt(numel) over the padded buffer.
  const double ss   = compensate_and_sum_squares(x, error, n);
  const float scale = static_cast<float>(std::sqrt(ss / static_cast<double>(n)));
  // nccl.py l.67 + cupy packbits, fused: one pass writes the sign byte and the new error.
  for (std::size_t i = 0; i < n / 8; ++i) {
    const float* v = x + 8 * i;
    float* e       = error + 8 * i;
    unsigned byte  = 0;
    for (int j = 0; j < 8; ++j) {
      const bool positive = v[j] >= 0.0f;
      byte |= static_cast<unsigned>(positive) << (7 - j);
      e[j] = v[j] - (positive ? scale : -scale);
    }
    bits[i] = static_cast<std::uint8_t>(byte);
  }
  return scale;
}

} // namespace ccsim::numerics
