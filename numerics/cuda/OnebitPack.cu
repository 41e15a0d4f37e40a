// CUDA twin of numerics/OnebitPack.cpp: sign bits 8 per byte, first element in the MSB, 0 -> +1 (DeepSpeed's
// cupy.packbits, bitorder 'big'), and the single-pass error-feedback compressor (worker and server). Every float operation that the CPU
// does separately is written with __fadd_rn/__fsub_rn/__dmul_rn/__dadd_rn, so nvcc cannot contract it into an FMA
// and change the bits.
#include "numerics/cuda/OnebitPack.cuh"

#include "numerics/cuda/DeviceMemory.cuh"

#include <cstdint>

namespace ccsim::numerics::cuda {

namespace {
constexpr unsigned THREADS = 256;

/// One thread per byte of signs, its 8 floats read as two float4 where aligned (issue 45: one float per load kept
/// too few bytes in flight to stream at HBM's rate).
__global__ void pack_signs_kernel(const float* __restrict__ d_x, std::size_t n_bytes, std::uint8_t* __restrict__ d_bits)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n_bytes)
    return;
  float v[8];
  if (aligned_to(d_x, 16)) {
    const float4 a = reinterpret_cast<const float4*>(d_x)[2 * i], b = reinterpret_cast<const float4*>(d_x)[2 * i + 1];
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
  } else {
    for (int j = 0; j < 8; ++j)
      v[j] = d_x[8 * i + j];
  }
  unsigned byte = 0;
  for (int j = 0; j < 8; ++j)
    byte |= static_cast<unsigned>(v[j] >= 0.0f) << (7 - j);
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

/// One thread per 4 values (half a byte of signs), written as one float4 where whole and aligned, so that a warp's
/// stores are 512 contiguous bytes (issue 45: a thread per value, then two float4 per thread 32 bytes apart, wrote at
/// 30-43 % of HBM's rate).
__global__ void unpack_signs_kernel(const std::uint8_t* __restrict__ d_bits, std::size_t n, float scale,
                                    float* __restrict__ d_out)
{
  const std::size_t f = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; // values 4f .. 4f + 3
  if (4 * f >= n)
    return;
  const unsigned nibble = (d_bits[f / 2] >> (f % 2 == 0 ? 4 : 0)) & 0xFu; // the first value in the byte's MSB
  float v[4];
  for (int j = 0; j < 4; ++j)
    v[j] = ((nibble >> (3 - j)) & 1u) ? scale : -scale;
  if (4 * f + 4 <= n && aligned_to(d_out, 16)) {
    reinterpret_cast<float4*>(d_out)[f] = make_float4(v[0], v[1], v[2], v[3]);
  } else {
    for (std::size_t j = 0; j < 4 && 4 * f + j < n; ++j)
      d_out[4 * f + j] = v[j];
  }
}

} // namespace

void pack_signs(const float* d_x, std::size_t n, std::uint8_t* d_bits, cudaStream_t stream)
{
  if (n / 8 == 0)
    return;
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
  if (n == 0)
    return;
  unpack_signs_kernel<<<blocks_for((n + 3) / 4, THREADS), THREADS, 0, stream>>>(d_bits, n, scale, d_out);
  check_cuda(cudaGetLastError(), "unpack_signs");
}


} // namespace ccsim::numerics::cuda
