#pragma once
// The 1-bit error-feedback compressor as ccsim ran it before issue 49, kept as the reference the single-pass kernels
// (numerics/OnebitPack.hpp) are held to, byte for byte: an error buffer e, a first pass for the scale, a second that
// writes the signs and the new error. Portable loops; its AVX2 twin was held bit-identical to them (issue 13).
//   p = x + e;  scale = ||p||_2 / sqrt(n) (8 double lanes in index order);  bits = signs(p);  e = p - scale·sign(p).

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ccsim::test {

inline float two_pass_compress(const float* x, float* error, std::size_t n, std::uint8_t* bits)
{
  if (n == 0)
    return 0.0f;
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (std::size_t i = 0; i < n; i += 8)
    for (int j = 0; j < 8; ++j) {
      const float v = x[i + j] + error[i + j];
      lane[j] += static_cast<double>(v) * v;
    }
  const double ss   = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  const float scale = static_cast<float>(std::sqrt(ss / static_cast<double>(n)));
  for (std::size_t i = 0; i < n / 8; ++i) {
    unsigned byte = 0;
    for (int j = 0; j < 8; ++j) {
      const float p       = x[8 * i + j] + error[8 * i + j];
      const bool positive = p >= 0.0f;
      byte |= static_cast<unsigned>(positive) << (7 - j);
      error[8 * i + j] = p - (positive ? scale : -scale);
    }
    bits[i] = static_cast<std::uint8_t>(byte);
  }
  return scale;
}

/// The server's chunk before issue 49: zeros, then each worker's ±scaled added in rank order, then the compressor.
inline float two_pass_server(const std::uint8_t* const* worker_bits, const float* scaled, std::size_t workers,
                             float* chunk, float* error, std::size_t n, std::uint8_t* bits)
{
  for (std::size_t i = 0; i < n; ++i)
    chunk[i] = 0.0f;
  for (std::size_t w = 0; w < workers; ++w)
    for (std::size_t i = 0; i < n; ++i)
      chunk[i] += ((worker_bits[w][i / 8] >> (7 - i % 8)) & 1u) ? scaled[w] : -scaled[w];
  return two_pass_compress(chunk, error, n, bits);
}

} // namespace ccsim::test
