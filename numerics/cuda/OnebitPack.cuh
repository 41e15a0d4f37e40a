#pragma once
// Launchers of the 1-bit kernels (twins of numerics/OnebitPack.hpp) on device pointers, for the .cu host code.
// Signs MSB-first with 0 -> +1; scale = ||x + e||_2 / sqrt(n) from a double sum of squares.

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ccsim::numerics::cuda {

/// The worker scale from the compensated sum of squares, the CPU's expression (numerics::compress_with_feedback):
/// IEEE double division and square root on host and device alike, then one rounding to float.
__host__ __device__ inline float onebit_scale_from_sum(double sum_squares, std::size_t n)
{
  return static_cast<float>(sqrt(sum_squares / static_cast<double>(n)));
}

/// Bits of the signs of d_x[0..n), n a multiple of 8.
void pack_signs(const float* d_x, std::size_t n, std::uint8_t* d_bits, cudaStream_t stream = 0);

/// *d_sum = sum of (x + e)^2 in the CPU's order: 8 lanes (lane j sums elements j, j+8, j+16, ... in index order),
/// combined ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)). One thread per lane: serial, so bit-identical to the CPU, and fast
/// enough for proxy-model sizes (n/8 dependent double adds).
void compensated_sum_squares(const float* d_x, const float* d_error, std::size_t n, double* d_sum,
                             cudaStream_t stream = 0);

/// Second pass: with p = x + e and scale = onebit_scale_from_sum(*d_sum, n), bits = signs(p), e = p - scale·sign(p).
void signs_and_error(const float* d_x, float* d_error, std::size_t n, const double* d_sum, std::uint8_t* d_bits,
                     cudaStream_t stream = 0);

/// Both passes (numerics::compress_with_feedback); the scale is onebit_scale_from_sum(*d_sum, n). n > 0.
void compress_with_feedback(const float* d_x, float* d_error, std::size_t n, std::uint8_t* d_bits, double* d_sum,
                            cudaStream_t stream = 0);

/// d_out[i] = ±scale (bit 1 -> +scale).
void unpack_signs(const std::uint8_t* d_bits, std::size_t n, float scale, float* d_out, cudaStream_t stream = 0);

/// d_out[i] += ±scaled, one fp32 add per element as on the CPU.
void accumulate_signs(const std::uint8_t* d_bits, std::size_t n, float scaled, float* d_out, cudaStream_t stream = 0);

} // namespace ccsim::numerics::cuda
