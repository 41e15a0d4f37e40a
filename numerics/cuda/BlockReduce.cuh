#pragma once
// The block-wide max reduction the per-group and per-channel scale kernels share (one block per group/channel).

namespace ccsim::numerics::cuda {

/// Largest block size block_max supports (its shared array).
constexpr unsigned BLOCK_REDUCE_THREADS = 256;

/// The max of every thread's `value` over the block, returned to every thread. blockDim.x must be a power of two
/// no larger than BLOCK_REDUCE_THREADS, and every thread of the block must call it (it synchronises). Max is exact,
/// so the tree order gives the CPU's sequential result.
__device__ inline float block_max(float value)
{
  __shared__ float part[BLOCK_REDUCE_THREADS];
  part[threadIdx.x] = value;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
    __syncthreads();
  }
  return part[0];
}

} // namespace ccsim::numerics::cuda
