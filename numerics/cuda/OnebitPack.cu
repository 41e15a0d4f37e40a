// CUDA twin of numerics/OnebitPack.cpp: sign bits 8 per byte, first element in the MSB, 0 -> +1 (DeepSpeed's
// cupy.packbits, bitorder 'big'), and the two-pass error-feedback compressor. Every float operation that the CPU
// does separately is written with __fadd_rn/__fsub_rn/__dmul_rn/__dadd_rn, so nvcc cannot contract it into an FMA
// and change the bits.
#include "numerics/cuda/OnebitPack.cuh"

#include "numerics/cuda/DeviceMemory.cuh"

namespace ccsim::numerics::cuda {

namespace {
constexpr unsigned THREADS = 256;

__global__ void pack_signs_kernel(const float* __restrict__ d_x, std::size_t n_bytes, std::uint8_t* __restrict__ d_bits)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n_bytes)
    return;
  unsigned byte = 0;
  for (int j = 0; j < 8; ++j)
    byte |= static_cast<unsigned>(d_x[8 * i + j] >= 0.0f) << (7 - j);
  d_bits[i] = static_cast<std::uint8_t>(byte);
}

/// Launched with one block of 8 threads: thread j is the CPU's lane j (numerics/OnebitPack.cpp
/// compensated_sum_squares). Each square of a float is exact in double, so the sums round exactly as the CPU's.
__global__ void compensated_lane_sums_kernel(const float* __restrict__ d_x, const float* __restrict__ d_error,
                                             std::size_t n, double* __restrict__ d_sum)
{
  __shared__ double lane[8];
  const unsigned j = threadIdx.x;
  double s         = 0;
  for (std::size_t i = j; i < n; i += 8) {
    const double v = __fadd_rn(d_x[i], d_error[i]);
    s              = __dadd_rn(s, __dmul_rn(v, v));
  }
  lane[j] = s;
  __syncthreads();
  if (j == 0)
    *d_sum = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

/// One thread per output byte, as the CPU's signs_and_error loop body.
__global__ void signs_and_error_kernel(const float* __restrict__ d_x, float* __restrict__ d_error, std::size_t n,
                                       const double* __restrict__ d_sum, std::uint8_t* __restrict__ d_bits)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n / 8)
    return;
  const float scale = onebit_scale_from_sum(*d_sum, n);
  unsigned byte     = 0;
  for (int j = 0; j < 8; ++j) {
    const float p       = __fadd_rn(d_x[8 * i + j], d_error[8 * i + j]);
    const bool positive = p >= 0.0f; // -0.0 >= 0 holds: +1, as the CPU
    byte |= static_cast<unsigned>(positive) << (7 - j);
    d_error[8 * i + j] = __fsub_rn(p, positive ? scale : -scale);
  }
  d_bits[i] = static_cast<std::uint8_t>(byte);
}

__device__ float sign_value(const std::uint8_t* d_bits, std::size_t i, float scale)
{
  return ((d_bits[i / 8] >> (7 - i % 8)) & 1u) ? scale : -scale;
}

__global__ void unpack_signs_kernel(const std::uint8_t* __restrict__ d_bits, std::size_t n, float scale,
                                    float* __restrict__ d_out)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n)
    d_out[i] = sign_value(d_bits, i, scale);
}

__global__ void accumulate_signs_kernel(const std::uint8_t* __restrict__ d_bits, std::size_t n, float scaled,
                                        float* __restrict__ d_out)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n)
    d_out[i] = __fadd_rn(d_out[i], sign_value(d_bits, i, scaled));
}
} // namespace

void pack_signs(const float* d_x, std::size_t n, std::uint8_t* d_bits, cudaStream_t stream)
{
  pack_signs_kernel<<<blocks_for(n / 8, THREADS), THREADS, 0, stream>>>(d_x, n / 8, d_bits);
  check_cuda(cudaGetLastError(), "pack_signs");
}

void compensated_sum_squares(const float* d_x, const float* d_error, std::size_t n, double* d_sum, cudaStream_t stream)
{
  compensated_lane_sums_kernel<<<1, 8, 0, stream>>>(d_x, d_error, n, d_sum);
  check_cuda(cudaGetLastError(), "compensated_sum_squares");
}

void signs_and_error(const float* d_x, float* d_error, std::size_t n, const double* d_sum, std::uint8_t* d_bits,
                     cudaStream_t stream)
{
  signs_and_error_kernel<<<blocks_for(n / 8, THREADS), THREADS, 0, stream>>>(d_x, d_error, n, d_sum, d_bits);
  check_cuda(cudaGetLastError(), "signs_and_error");
}

void compress_with_feedback(const float* d_x, float* d_error, std::size_t n, std::uint8_t* d_bits, double* d_sum,
                            cudaStream_t stream)
{
  compensated_sum_squares(d_x, d_error, n, d_sum, stream);
  signs_and_error(d_x, d_error, n, d_sum, d_bits, stream);
}

void unpack_signs(const std::uint8_t* d_bits, std::size_t n, float scale, float* d_out, cudaStream_t stream)
{
  unpack_signs_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(d_bits, n, scale, d_out);
  check_cuda(cudaGetLastError(), "unpack_signs");
}

void accumulate_signs(const std::uint8_t* d_bits, std::size_t n, float scaled, float* d_out, cudaStream_t stream)
{
  accumulate_signs_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(d_bits, n, scaled, d_out);
  check_cuda(cudaGetLastError(), "accumulate_signs");
}

} // namespace ccsim::numerics::cuda
