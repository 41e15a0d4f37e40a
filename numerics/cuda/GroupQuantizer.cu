// CUDA twin of numerics/GroupQuantizer.cpp's packed kernels: one warp per group reduces max|x|, then writes the
// codes byte by byte. Same float operations as the CPU (no FMA contraction: products feeding a sum use __fmul_rn),
// so codes and scales are bit-identical; the stochastic draw is the CPU's splitmix64 hash of (seed, index).
#include "numerics/cuda/GroupQuantizer.cuh"

#include "numerics/cuda/BlockReduce.cuh"
#include "numerics/cuda/DeviceMemory.cuh"

#include <cstdint>

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

/// One warp per group (issue 45: a block of 256 threads per 128-value group left half its threads idle and spent its
/// time in the block's barriers, at 14 % of a device copy's bandwidth). max|x| over the warp's lanes is exact in any
/// order (fmaxf of non-negative values; NaN is skipped by fmaxf, as on the CPU), so the scale is the CPU's bit for bit.
/// `Chunks` > 0: the group is Chunks x 128 values, 16-byte aligned, and each lane holds 4 consecutive values of each
/// 128 in registers (one float4 load each, the group read once) and writes their 4 codes in one store; 0: any group
/// size, read twice, value by value.
constexpr unsigned WARPS_PER_BLOCK = 8;

__device__ float warp_absmax(float m)
{
  for (int o = 16; o > 0; o >>= 1)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  return m;
}

template <int Chunks>
__global__ void quantize_groups_packed_kernel(const float* __restrict__ d_x, std::size_t n, int bits,
                                              std::size_t group, bool stochastic, std::uint64_t seed,
                                              std::uint64_t first_index, std::uint8_t* __restrict__ d_codes,
                                              float* __restrict__ d_scales, std::size_t groups)
{
  const unsigned lane  = threadIdx.x % 32;
  const std::size_t g  = blockIdx.x * std::size_t{WARPS_PER_BLOCK} + threadIdx.x / 32;
  if (g >= groups)
    return; // a whole warp: the shuffles below involve no lane of another warp
  const std::size_t g0 = g * group, g1 = min(n, g0 + group);
  const float qmax     = static_cast<float>((1 << (bits - 1)) - 1);
  if constexpr (Chunks > 0) {
    if (g1 - g0 == group) { // a whole group (the last may be short: the generic path below)
      float4 v[Chunks];
      float m = 0;
      for (int c = 0; c < Chunks; ++c) {
        v[c] = reinterpret_cast<const float4*>(d_x + g0)[c * 32 + lane];
        m    = fmaxf(fmaxf(m, fmaxf(fabsf(v[c].x), fabsf(v[c].y))), fmaxf(fabsf(v[c].z), fabsf(v[c].w)));
      }
      const float absmax = warp_absmax(m);
      const float inv    = absmax > 0.0f ? qmax / absmax : 0.0f;
      if (lane == 0)
        d_scales[g] = absmax / qmax;
      for (int c = 0; c < Chunks; ++c) {
        const std::size_t i = g0 + 4 * (static_cast<std::size_t>(c) * 32 + lane);
        const float q0 = group_code(v[c].x, inv, qmax, stochastic, seed, first_index + i);
        const float q1 = group_code(v[c].y, inv, qmax, stochastic, seed, first_index + i + 1);
        const float q2 = group_code(v[c].z, inv, qmax, stochastic, seed, first_index + i + 2);
        const float q3 = group_code(v[c].w, inv, qmax, stochastic, seed, first_index + i + 3);
        if (bits == 8) { // bytes i..i+3, the first at the lowest address
          const auto byte = [](float q) { return static_cast<unsigned>(static_cast<int>(q)) & 0xFFu; };
          *reinterpret_cast<std::uint32_t*>(d_codes + i) =
              byte(q0) | (byte(q1) << 8) | (byte(q2) << 16) | (byte(q3) << 24);
        } else { // bytes i/2 (elements i, i+1) and i/2 + 1 (i+2, i+3)
          const unsigned b0 = (nibble_of(q0) << 4) | nibble_of(q1), b1 = (nibble_of(q2) << 4) | nibble_of(q3);
          *reinterpret_cast<std::uint16_t*>(d_codes + i / 2) = static_cast<std::uint16_t>(b0 | (b1 << 8));
        }
      }
      return;
    }
  }
  float m = 0;
  for (std::size_t i = g0 + lane; i < g1; i += 32)
    m = fmaxf(m, fabsf(d_x[i]));
  const float absmax = warp_absmax(m);
  const float inv    = absmax > 0.0f ? qmax / absmax : 0.0f;
  if (lane == 0)
    d_scales[g] = absmax / qmax;
  if (bits == 8) {
    for (std::size_t i = g0 + lane; i < g1; i += 32)
      d_codes[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(
          group_code(d_x[i], inv, qmax, stochastic, seed, first_index + i)));
    return;
  }
  // 4 bits: g0 is even (group is even), so byte b holds elements 2b (high nibble) and 2b + 1 (low, 0 past the end).
  for (std::size_t b = g0 / 2 + lane; 2 * b < g1; b += 32) {
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
  const std::size_t groups = (n + group - 1) / group;
  if (groups == 0)
    return;
  const auto blocks = static_cast<unsigned>((groups + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK);
  // The register path where the group is 128 or 2,048 values (SDP4Bit's gradient and weight groups) and the buffers
  // are aligned for its vector loads and stores.
  const bool aligned = aligned_to(d_x, 16) && aligned_to(d_codes, 4);
  const auto launch  = [&](auto kernel) {
    kernel<<<blocks, 32 * WARPS_PER_BLOCK, 0, stream>>>(d_x, n, bits, group, stochastic, seed, first_index, d_codes,
                                                        d_scales, groups);
  };
  if (aligned && group == 128)
    launch(quantize_groups_packed_kernel<1>);
  else if (aligned && group == 2048)
    launch(quantize_groups_packed_kernel<16>);
  else
    launch(quantize_groups_packed_kernel<0>);
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
