// CUDA twin of numerics/ActivationQuantizer.cpp: one block per channel finds the scale, one thread per element
// encodes. Written with explicit-rounding intrinsics so every operation rounds as the CPU's (AC-SGD
// compress/fixpoint.py l.21–45); the fp16 rounding of the scale is __float2half_rn, the CPU's round_to_fp16.
#include "numerics/cuda/ActivationQuantizer.cuh"

#include "numerics/cuda/BlockReduce.cuh"
#include "numerics/cuda/DeviceMemory.cuh"

#include <cuda_fp16.h>

namespace ccsim::numerics::cuda {

namespace {
constexpr unsigned THREADS = BLOCK_REDUCE_THREADS;

/// One block per channel: fp16(max_r |a - m|) (m may be null: max |a|).
__global__ void channel_scale_kernel(const float* __restrict__ d_a, const float* __restrict__ d_m, std::size_t rows,
                                     std::size_t channels, float* __restrict__ d_scales)
{
  float mx = 0;
  for (std::size_t r = threadIdx.x; r < rows; r += blockDim.x) {
    const std::size_t i = r * channels + blockIdx.x;
    mx                  = fmaxf(mx, fabsf(d_m ? __fsub_rn(d_a[i], d_m[i]) : d_a[i]));
  }
  const float absmax = block_max(mx);
  if (threadIdx.x == 0)
    d_scales[blockIdx.x] = __half2float(__float2half_rn(absmax)); // AC-SGD rounds the scale to fp16 before use
}

/// numerics/ActivationQuantizer.cpp encode_row for one element; with m, also m += deQ(code).
__global__ void encode_kernel(const float* __restrict__ d_a, float* __restrict__ d_m, std::size_t rows,
                              std::size_t channels, int bits, const float* __restrict__ d_scales,
                              std::int8_t* __restrict__ d_codes)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= rows * channels)
    return;
  const float half  = static_cast<float>(1 << (bits - 1));
  const float scale = d_scales[i % channels];
  const float x     = d_m ? __fsub_rn(d_a[i], d_m[i]) : d_a[i];
  const float v     = __fmul_rn(__fdiv_rn(x, __fadd_rn(scale, 1e-6f)), half);
  const float code  = fminf(half - 1.0f, fmaxf(-half, rintf(v)));
  d_codes[i]        = static_cast<std::int8_t>(code);
  if (d_m)
    d_m[i] = __fadd_rn(d_m[i], __fmul_rn(__fdiv_rn(code, half), scale));
}

__global__ void dequantize_kernel(const std::int8_t* __restrict__ d_codes, const float* __restrict__ d_scales,
                                  std::size_t rows, std::size_t channels, int bits, float* __restrict__ d_out)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= rows * channels)
    return;
  const float half = static_cast<float>(1 << (bits - 1));
  d_out[i]         = __fmul_rn(__fdiv_rn(static_cast<float>(d_codes[i]), half), d_scales[i % channels]);
}

/// Scales, then codes (and the buffer update when d_m is given).
void encode(const float* d_a, float* d_m, std::size_t rows, std::size_t channels, int bits, std::int8_t* d_codes,
            float* d_scales, cudaStream_t stream, const char* what)
{
  channel_scale_kernel<<<static_cast<unsigned>(channels), THREADS, 0, stream>>>(d_a, d_m, rows, channels, d_scales);
  encode_kernel<<<blocks_for(rows * channels, THREADS), THREADS, 0, stream>>>(d_a, d_m, rows, channels, bits,
                                                                               d_scales, d_codes);
  check_cuda(cudaGetLastError(), what);
}
} // namespace

void quantize_channels(const float* d_x, std::size_t rows, std::size_t channels, int bits, std::int8_t* d_codes,
                       float* d_scales, cudaStream_t stream)
{
  encode(d_x, nullptr, rows, channels, bits, d_codes, d_scales, stream, "quantize_channels");
}

void quantize_delta_channels(const float* d_a, float* d_m, std::size_t rows, std::size_t channels, int bits,
                             std::int8_t* d_codes, float* d_scales, cudaStream_t stream)
{
  encode(d_a, d_m, rows, channels, bits, d_codes, d_scales, stream, "quantize_delta_channels");
}

void dequantize_channels(const std::int8_t* d_codes, const float* d_scales, std::size_t rows, std::size_t channels,
                         int bits, float* d_out, cudaStream_t stream)
{
  dequantize_kernel<<<blocks_for(rows * channels, THREADS), THREADS, 0, stream>>>(d_codes, d_scales, rows, channels,
                                                                                   bits, d_out);
  check_cuda(cudaGetLastError(), "dequantize_channels");
}

} // namespace ccsim::numerics::cuda
