// Sign packing and the fused error-feedback compressor. Loops are over raw pointers so the compiler
// vectorises them; this is what bench-kernels measures as onebit_compress / onebit_decompress.
#include "numerics/OnebitPack.hpp"

#include <cassert>
#include <cmath>

namespace ccsim::numerics {

void pack_signs(const float* x, std::size_t n, std::uint8_t* bits)
{
  assert(n % 8 == 0);
  for (std::size_t i = 0; i < n / 8; ++i) {
    const float* v     = x + 8 * i;
    std::uint8_t byte  = 0;
    for (int j = 0; j < 8; ++j)
      byte |= static_cast<std::uint8_t>((v[j] >= 0.0f) << (7 - j)); // 0 and -0.0 count as +1, as in DeepSpeed
    bits[i] = byte;
  }
}

void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out)
{
  assert(n % 8 == 0);
  for (std::size_t i = 0; i < n / 8; ++i)
    for (int j = 0; j < 8; ++j)
      out[8 * i + j] = ((bits[i] >> (7 - j)) & 1) ? scale : -scale;
}

void accumulate_signs(const std::uint8_t* bits, std::size_t n, float scaled, float* out)
{
  assert(n % 8 == 0);
  for (std::size_t i = 0; i < n / 8; ++i)
    for (int j = 0; j < 8; ++j)
      out[8 * i + j] += ((bits[i] >> (7 - j)) & 1) ? scaled : -scaled;
}

float compress_with_feedback(float* x, float* error, std::size_t n, std::uint8_t* bits)
{
  double sum_sq = 0;
  for (std::size_t i = 0; i < n; ++i) {
    x[i] += error[i];
    sum_sq += static_cast<double>(x[i]) * x[i];
  }
  // nccl.py l.66: scale = ||buffer||2 / sqrt(numel) over the padded buffer.
  const float scale = static_cast<float>(std::sqrt(sum_sq) / std::sqrt(static_cast<double>(n)));
  pack_signs(x, n, bits);
  for (std::size_t i = 0; i < n; ++i)
    error[i] = x[i] - (x[i] >= 0.0f ? scale : -scale);
  return scale;
}

} // namespace ccsim::numerics
