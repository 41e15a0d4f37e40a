#pragma once
// Launchers of the 1-bit kernels (twins of numerics/OnebitPack.hpp) on device pointers, for the .cu host code.
// Signs MSB-first with 0 -> +1; scale = ||x + e||_2 / sqrt(n) from a double sum of squares; the error-feedback state
// is the last compensated vector and its scale (e = c - s·sign(c)), updated in one pass as on the CPU (issue 49).

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ccsim::numerics::cuda {

/// The scale from the compensated sum of squares, the CPU's expression (numerics::compress_compensated):
/// IEEE double division and square root on host and device alike, then one rounding to float.
__host__ __device__ inline float onebit_scale_from_sum(double sum_squares, std::size_t n)
{
  return static_cast<float>(sqrt(sum_squares / static_cast<double>(n)));
}

/// Bits of the signs of d_x[0..n), n a multiple of 8.
void pack_signs(const float* d_x, std::size_t n, std::uint8_t* d_bits, cudaStream_t stream = 0);

/// numerics::compress_compensated in one pass: p = x + (c - scale·sign(c)), c = p, bits = signs(p), and *d_sum =
/// the sum of p^2 in the CPU's order: 8 lanes (lane j sums elements j, j+8, j+16, ... in index order), combined
/// ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)). One warp of 8 threads, one per lane, walks the bytes in order (a ballot packs
/// each byte): serial, so bit-identical to the CPU, and fast enough for proxy-model sizes. The new scale is
/// onebit_scale_from_sum(*d_sum, n). n > 0, a multiple of 8.
void compress_compensated(const float* d_x, float* d_compensated, float scale, std::size_t n, std::uint8_t* d_bits,
                          double* d_sum, cudaStream_t stream = 0);

/// numerics::compress_average: as compress_compensated with x = 0 + scaled[0]·sign_0 + scaled[1]·sign_1 + ... in
/// rank order, worker w's n/8 bytes at d_worker_bits + w·n/8 and its scale/W at d_scaled[w].
void compress_average(const std::uint8_t* d_worker_bits, const float* d_scaled, std::size_t workers,
                      float* d_compensated, float scale, std::size_t n, std::uint8_t* d_bits, double* d_sum,
                      cudaStream_t stream = 0);

/// d_out[i] = ±scale (bit 1 -> +scale).
void unpack_signs(const std::uint8_t* d_bits, std::size_t n, float scale, float* d_out, cudaStream_t stream = 0);

} // namespace ccsim::numerics::cuda
