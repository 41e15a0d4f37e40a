// CUDA twin of numerics/ActivationQuantizer.cpp: per-channel maxima by atomicMax over row chunks, then one thread per
// element encodes. Written with explicit-rounding intrinsics so every operation rounds as the CPU's (AC-SGD
// compress/fixpoint.py l.21–45); the fp16 rounding of the scale is __float2half_rn, the CPU's round_to_fp16.
#include "numerics/cuda/ActivationQuantizer.cuh"

#include "numerics/cuda/DeviceMemory.cuh"

#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

namespace ccsim::numerics::cuda {

namespace {
constexpr unsigned THREADS = 256;

/// max_r |a - m| per channel (m may be null: max |a|) as the bits of a non-negative float, which order as unsigned
/// ints, so atomicMax gives the exact maximum in any order. Thread t of a block takes channel blockIdx.y x 256 + t over
/// the rows of its chunk (blockIdx.x): a warp reads 32 adjacent channels of a row, contiguous bytes (issue 45: a block
/// per channel read the rows `channels` floats apart, 5x the bytes at 34 % of HBM's rate). fmaxf skips NaN, as the
/// CPU's reduction does. d_bits starts at 0.
constexpr std::size_t ROWS_PER_CHUNK = 64;

__global__ void channel_absmax_kernel(const float* __restrict__ d_a, const float* __restrict__ d_m, std::size_t rows,
                                      std::size_t channels, unsigned* __restrict__ d_bits)
{
  const std::size_t c = blockIdx.y * std::size_t{blockDim.x} + threadIdx.x;
  if (c >= channels)
    return;
  const std::size_t r0 = blockIdx.x * ROWS_PER_CHUNK, r1 = min(rows, r0 + ROWS_PER_CHUNK);
  float mx = 0;
  for (std::size_t r = r0; r < r1; ++r) {
    const std::size_t i = r * channels + c;
    mx                  = fmaxf(mx, fabsf(d_m ? __fsub_rn(d_a[i], d_m[i]) : d_a[i]));
  }
  atomicMax(&d_bits[c], __float_as_uint(mx));
}

/// The maxima to scales in place: fp16(absmax) (AC-SGD rounds the scale to fp16 before use).
__global__ void round_scales_kernel(float* __restrict__ d_scales, std::size_t channels)
{
  const std::size_t c = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (c < channels)
    d_scales[c] = __half2float(__float2half_rn(d_scales[c])); // the bits atomicMax left are the float itself
}

/// numerics/ActivationQuantizer.cpp encode_row for one element; with m, also m += deQ(code). code / half is exact (half
/// is a power of two and |code| <= half), so it is written as code x (1 / half): the same bits without a division.
__device__ inline std::int8_t encode_one(float a, float* m, float den, float scale, float half)
{
  const float x    = m ? __fsub_rn(a, *m) : a;
  const float v    = __fmul_rn(__fdiv_rn(x, den), half);
  const float code = fminf(half - 1.0f, fmaxf(-half, rintf(v)));
  if (m)
    *m = __fadd_rn(*m, __fmul_rn(__fmul_rn(code, 1.0f / half), scale));
  return static_cast<std::int8_t>(code);
}

/// One block per row (and per 65,535 x 256 channels of it), the channel from the thread's position: no 64-bit modulo
/// per element.
__global__ void encode_kernel(const float* __restrict__ d_a, float* __restrict__ d_m, std::size_t rows,
                              std::size_t channels, int bits, const float* __restrict__ d_scales,
                              std::int8_t* __restrict__ d_codes)
{
  const std::size_t c = blockIdx.y * std::size_t{blockDim.x} + threadIdx.x;
  if (c >= channels)
    return;
  const float half  = static_cast<float>(1 << (bits - 1));
  const float scale = d_scales[c], den = __fadd_rn(scale, 1e-6f);
  for (std::size_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const std::size_t i = r * channels + c;
    float m             = d_m ? d_m[i] : 0.0f;
    d_codes[i]          = encode_one(d_a[i], d_m ? &m : nullptr, den, scale, half);
    if (d_m)
      d_m[i] = m;
  }
}

/// encode_kernel with 4 adjacent channels per thread, moved as float4 and one 4-byte store (channels a multiple of 4,
/// buffers aligned): issue 45, one byte stored per thread kept the store unit busier than HBM.
__global__ void encode4_kernel(const float4* __restrict__ d_a, float4* __restrict__ d_m, std::size_t rows,
                               std::size_t quads, int bits, const float4* __restrict__ d_scales,
                               std::uint32_t* __restrict__ d_codes)
{
  const std::size_t q = blockIdx.y * std::size_t{blockDim.x} + threadIdx.x;
  if (q >= quads)
    return;
  const float half = static_cast<float>(1 << (bits - 1));
  const float4 s   = d_scales[q];
  const float scale[4] = {s.x, s.y, s.z, s.w};
  for (std::size_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const std::size_t i = r * quads + q;
    const float4 a4     = d_a[i];
    float4 m4           = d_m ? d_m[i] : make_float4(0, 0, 0, 0);
    const float a[4]    = {a4.x, a4.y, a4.z, a4.w};
    float m[4]          = {m4.x, m4.y, m4.z, m4.w};
    std::uint32_t packed = 0;
    for (int j = 0; j < 4; ++j) {
      const std::int8_t code = encode_one(a[j], d_m ? &m[j] : nullptr, __fadd_rn(scale[j], 1e-6f), scale[j], half);
      packed |= (static_cast<std::uint32_t>(static_cast<std::uint8_t>(code))) << (8 * j);
    }
    d_codes[i] = packed;
    if (d_m)
      d_m[i] = make_float4(m[0], m[1], m[2], m[3]);
  }
}

__global__ void dequantize_kernel(const std::int8_t* __restrict__ d_codes, const float* __restrict__ d_scales,
                                  std::size_t rows, std::size_t channels, int bits, float* __restrict__ d_out)
{
  const std::size_t c = blockIdx.y * std::size_t{blockDim.x} + threadIdx.x;
  if (c >= channels)
    return;
  const float half  = static_cast<float>(1 << (bits - 1));
  const float scale = d_scales[c];
  for (std::size_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const std::size_t i = r * channels + c;
    d_out[i]            = __fmul_rn(__fdiv_rn(static_cast<float>(d_codes[i]), half), scale);
  }
}

/// A grid of one block per row (at most 2^31 - 1, rows beyond loop) by the channels' 256-wide slices.
dim3 row_grid(std::size_t rows, std::size_t channels)
{
  return dim3(static_cast<unsigned>(std::min<std::size_t>(rows, 0x7FFFFFFF)),
              static_cast<unsigned>((channels + THREADS - 1) / THREADS));
}

/// Scales, then codes (and the buffer update when d_m is given).
void encode(const float* d_a, float* d_m, std::size_t rows, std::size_t channels, int bits, std::int8_t* d_codes,
            float* d_scales, cudaStream_t stream, const char* what)
{
  if (rows == 0 || channels == 0)
    return;
  auto* bits_of = reinterpret_cast<unsigned*>(d_scales); // the maxima's bits, then their scales, in place
  check_cuda(cudaMemsetAsync(bits_of, 0, channels * sizeof(float), stream), what);
  const dim3 chunks(static_cast<unsigned>((rows + ROWS_PER_CHUNK - 1) / ROWS_PER_CHUNK),
                    static_cast<unsigned>((channels + THREADS - 1) / THREADS));
  channel_absmax_kernel<<<chunks, THREADS, 0, stream>>>(d_a, d_m, rows, channels, bits_of);
  round_scales_kernel<<<blocks_for(channels, THREADS), THREADS, 0, stream>>>(d_scales, channels);
  if (channels % 4 == 0 && aligned_to(d_a, 16) && aligned_to(d_m, 16) && aligned_to(d_scales, 16) &&
      aligned_to(d_codes, 4))
    encode4_kernel<<<row_grid(rows, channels / 4), THREADS, 0, stream>>>(
        reinterpret_cast<const float4*>(d_a), reinterpret_cast<float4*>(d_m), rows, channels / 4, bits,
        reinterpret_cast<const float4*>(d_scales), reinterpret_cast<std::uint32_t*>(d_codes));
  else
    encode_kernel<<<row_grid(rows, channels), THREADS, 0, stream>>>(d_a, d_m, rows, channels, bits, d_scales, d_codes);
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
  if (rows == 0 || channels == 0)
    return;
  dequantize_kernel<<<row_grid(rows, channels), THREADS, 0, stream>>>(d_codes, d_scales, rows, channels, bits, d_out);
  check_cuda(cudaGetLastError(), "dequantize_channels");
}

} // namespace ccsim::numerics::cuda
