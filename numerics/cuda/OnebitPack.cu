// CUDA twin of numerics/OnebitPack.cpp: sign bits 8 per byte, first element in the MSB, 0 -> +1 (DeepSpeed's
// cupy.packbits, bitorder 'big'), and the single-pass error-feedback compressor (worker and server). Every float operation that the CPU
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

/// One warp of 8 threads: thread j is the CPU's lane j (numerics/OnebitPack.cpp compress_pass), walking the bytes
/// in order. Each square of a float is exact in double, so the sums round exactly as the CPU's; the error each
/// element carries is rebuilt from (c, scale) with the CPU's expression. Either d_x, or d_worker_bits with
/// d_scaled (the server's rank-ordered average, starting from 0) gives the input.
__global__ void compress_pass_kernel(const float* __restrict__ d_x, const std::uint8_t* __restrict__ d_worker_bits,
                                     const float* __restrict__ d_scaled, std::size_t workers,
                                     float* __restrict__ d_compensated, float scale, std::size_t n,
                                     std::uint8_t* __restrict__ d_bits, double* __restrict__ d_sum)
{
  __shared__ double lane[8];
  const unsigned j = threadIdx.x;
  double s         = 0;
  for (std::size_t i = 0; i < n / 8; ++i) {
    float v = 0.0f;
    if (d_x != nullptr) {
      v = d_x[8 * i + j];
    } else {
      for (std::size_t w = 0; w < workers; ++w) {
        const bool plus = (d_worker_bits[w * (n / 8) + i] >> (7 - j)) & 1u;
        v               = __fadd_rn(v, plus ? d_scaled[w] : -d_scaled[w]);
      }
    }
    const float old     = d_compensated[8 * i + j];
    const float p       = __fadd_rn(v, __fsub_rn(old, old >= 0.0f ? scale : -scale));
    d_compensated[8 * i + j] = p;
    s                   = __dadd_rn(s, __dmul_rn(p, p));
    const bool positive = p >= 0.0f; // -0.0 >= 0 holds: +1, as the CPU
    const unsigned set  = __ballot_sync(0xFFu, positive);
    if (j == 0) { // lane j's bit is bit j of the ballot; the byte takes element j at bit 7 - j
      unsigned byte = 0;
      for (int b = 0; b < 8; ++b)
        byte |= ((set >> b) & 1u) << (7 - b);
      d_bits[i] = static_cast<std::uint8_t>(byte);
    }
  }
  lane[j] = s;
  __syncthreads();
  if (j == 0)
    *d_sum = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
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

} // namespace

void pack_signs(const float* d_x, std::size_t n, std::uint8_t* d_bits, cudaStream_t stream)
{
  pack_signs_kernel<<<blocks_for(n / 8, THREADS), THREADS, 0, stream>>>(d_x, n / 8, d_bits);
  check_cuda(cudaGetLastError(), "pack_signs");
}

void compress_compensated(const float* d_x, float* d_compensated, float scale, std::size_t n, std::uint8_t* d_bits,
                          double* d_sum, cudaStream_t stream)
{
  compress_pass_kernel<<<1, 8, 0, stream>>>(d_x, nullptr, nullptr, 0, d_compensated, scale, n, d_bits, d_sum);
  check_cuda(cudaGetLastError(), "compress_compensated");
}

void compress_average(const std::uint8_t* d_worker_bits, const float* d_scaled, std::size_t workers,
                      float* d_compensated, float scale, std::size_t n, std::uint8_t* d_bits, double* d_sum,
                      cudaStream_t stream)
{
  compress_pass_kernel<<<1, 8, 0, stream>>>(nullptr, d_worker_bits, d_scaled, workers, d_compensated, scale, n, d_bits,
                                            d_sum);
  check_cuda(cudaGetLastError(), "compress_average");
}

void unpack_signs(const std::uint8_t* d_bits, std::size_t n, float scale, float* d_out, cudaStream_t stream)
{
  unpack_signs_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(d_bits, n, scale, d_out);
  check_cuda(cudaGetLastError(), "unpack_signs");
}


} // namespace ccsim::numerics::cuda
