// CUDA twin of numerics/GroupQuantizer.cpp's packed kernels: one block per group reduces max|x|, then writes the
// codes byte by byte. Same float operations as the CPU (no FMA contraction: products feeding a sum use __fmul_rn),
// so codes and scales are bit-identical; the stochastic draw is the CPU's splitmix64 hash of (seed, index).
#include "numerics/cuda/GroupQuantizer.cuh"

#include "numerics/cuda/BlockReduce.cuh"
#include "numerics/cuda/DeviceMemory.cuh"

namespace ccsim::numerics::cuda {

namespace {
constexpr unsigned THREADS = BLOCK_REDUCE_THREADS;

/// numerics::uniform_draw: splitmix64's finaliser of seed ^ (index · golden) + golden, top 24 bits in [0, 1).
__device__ float uniform_draw(std::uint64_t seed, std::uint64_t index)
{
  constexpr std::uint64_t GOLDEN = 0x9E3779B97F4A7C15ull;
  std::uint64_t z                = (seed ^ (index * GOLDEN)) + GOLDEN;
  z                              = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z                              = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(static_cast<std::int32_t>(z >> 40)) * (1.0f / 16777216.0f);
}

/// The code of one value as a float in [-qmax, qmax] (numerics/GroupQuantizer.cpp code_slice_portable).
__device__ float group_code(float x, float inv, float qmax, bool stochastic, std::uint64_t seed, std::uint64_t index)
{
  const float v = __fmul_rn(x, inv); // not contracted into the subtraction below
  float code;
  if (stochastic) {
    const float lower = floorf(v);
    code              = __fadd_rn(lower, uniform_draw(seed, index) < __fsub_rn(v, lower) ? 1.0f : 0.0f);
  } else {
    code = rintf(v); // round half to even, as round_half_even
  }
  return fminf(qmax, fmaxf(-qmax, code));
}

/// A two's-complement nibble of a code (the CPU packs static_cast<int>(code) & 0xF).
__device__ unsigned nibble_of(float code)
{
  return static_cast<unsigned>(static_cast<int>(code)) & 0xFu;
}

__global__ void quantize_groups_packed_kernel(const float* __restrict__ d_x, std::size_t n, int bits,
                                              std::size_t group, bool stochastic, std::uint64_t seed,
                                              std::uint64_t first_index, std::uint8_t* __restrict__ d_codes,
                                              float* __restrict__ d_scales)
{
  const std::size_t g0 = blockIdx.x * group, g1 = min(n, g0 + group);
  float m = 0;
  for (std::size_t i = g0 + threadIdx.x; i < g1; i += blockDim.x)
    m = fmaxf(m, fabsf(d_x[i]));
  const float absmax = block_max(m);
  const float qmax   = static_cast<float>((1 << (bits - 1)) - 1);
  const float inv    = absmax > 0.0f ? qmax / absmax : 0.0f;
  if (threadIdx.x == 0)
    d_scales[blockIdx.x] = absmax / qmax;
  if (bits == 8) {
    for (std::size_t i = g0 + threadIdx.x; i < g1; i += blockDim.x)
      d_codes[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(
          group_code(d_x[i], inv, qmax, stochastic, seed, first_index + i)));
    return;
  }
  // 4 bits: g0 is even (group is even), so byte b holds elements 2b (high nibble) and 2b + 1 (low, 0 past the end).
  for (std::size_t b = g0 / 2 + threadIdx.x; 2 * b < g1; b += blockDim.x) {
    const std::size_t i = 2 * b;
    const unsigned hi   = nibble_of(group_code(d_x[i], inv, qmax, stochastic, seed, first_index + i));
    const unsigned lo =
        i + 1 < g1 ? nibble_of(group_code(d_x[i + 1], inv, qmax, stochastic, seed, first_index + i + 1)) : 0u;
    d_codes[b] = static_cast<std::uint8_t>((hi << 4) | lo);
  }
}

__global__ void dequantize_groups_packed_kernel(const std::uint8_t* __restrict__ d_codes,
                                                const float* __restrict__ d_scales, std::size_t n, int bits,
                                                std::size_t group, bool accumulate, float* __restrict__ d_out)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n)
    return;
  float code;
  if (bits == 8) {
    code = static_cast<float>(static_cast<std::int8_t>(d_codes[i]));
  } else {
    const unsigned nibble = (i % 2 == 0) ? (d_codes[i / 2] >> 4) : (d_codes[i / 2] & 0xFu);
    code                  = static_cast<float>(static_cast<int>(nibble ^ 8u) - 8); // sign-extend, as nibble_value
  }
  const float v = __fmul_rn(code, d_scales[i / group]); // not contracted into the accumulation
  d_out[i]      = accumulate ? __fadd_rn(d_out[i], v) : v;
}
} // namespace

void quantize_groups_packed(const float* d_x, std::size_t n, int bits, std::size_t group, bool stochastic,
                            std::uint64_t seed, std::uint8_t* d_codes, float* d_scales, std::uint64_t first_index,
                            cudaStream_t stream)
{
  const auto groups = static_cast<unsigned>((n + group - 1) / group);
  quantize_groups_packed_kernel<<<groups, THREADS, 0, stream>>>(d_x, n, bits, group, stochastic, seed, first_index,
                                                                d_codes, d_scales);
  check_cuda(cudaGetLastError(), "quantize_groups_packed");
}

void dequantize_groups_packed(const std::uint8_t* d_codes, const float* d_scales, std::size_t n, int bits,
                              std::size_t group, bool accumulate, float* d_out, cudaStream_t stream)
{
  dequantize_groups_packed_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(d_codes, d_scales, n, bits, group,
                                                                                  accumulate, d_out);
  check_cuda(cudaGetLastError(), "dequantize_groups_packed");
}

} // namespace ccsim::numerics::cuda
