// CUDA twin of numerics/Hadamard.cpp: one thread per block of 32 running the CPU's own butterfly code
// (numerics/HadamardBlock.hpp), so the output is bit-identical to the CPU's; loads and stores staged in shared memory.
#include "numerics/cuda/Hadamard.cuh"

#include "numerics/HadamardBlock.hpp"
#include "numerics/cuda/DeviceMemory.cuh"

namespace ccsim::numerics::cuda {

namespace {
constexpr unsigned THREADS = 128; // vectors of 32 per block

/// One thread per vector of 32 running the CPU's own butterflies on registers, the block's 128 vectors loaded and
/// stored through shared memory so that a warp's accesses are contiguous (issue 45: a thread reading its own 128 bytes
/// left each warp's loads 32 lines apart, at 6 % of a device copy's bandwidth). Rows padded to 33 floats: thread t
/// reading element i of its row hits bank (t + i) % 32, no conflicts.
__global__ void hadamard32_kernel(float* __restrict__ d_x, std::size_t blocks)
{
  __shared__ float tile[THREADS * 33];
  const std::size_t first = blockIdx.x * std::size_t{THREADS};
  const std::size_t here  = min(std::size_t{THREADS}, blocks - first); // vectors this block holds
  float* x                = d_x + 32 * first;
  for (std::size_t e = threadIdx.x; e < 32 * here; e += THREADS)
    tile[(e / 32) * 33 + e % 32] = x[e];
  __syncthreads();
  if (threadIdx.x < here) {
    float v[32];
    for (int i = 0; i < 32; ++i)
      v[i] = tile[threadIdx.x * 33 + i];
    hadamard_block(v);
    for (int i = 0; i < 32; ++i)
      tile[threadIdx.x * 33 + i] = v[i];
  }
  __syncthreads();
  for (std::size_t e = threadIdx.x; e < 32 * here; e += THREADS)
    x[e] = tile[(e / 32) * 33 + e % 32];
}
} // namespace

void hadamard32(float* d_x, std::size_t n, cudaStream_t stream)
{
  if (n / 32 == 0)
    return;
  hadamard32_kernel<<<blocks_for(n / 32, THREADS), THREADS, 0, stream>>>(d_x, n / 32);
  check_cuda(cudaGetLastError(), "hadamard32");
}

} // namespace ccsim::numerics::cuda
