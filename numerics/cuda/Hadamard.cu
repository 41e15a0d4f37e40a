// CUDA twin of numerics/Hadamard.cpp: one thread per block of 32 running the CPU's own butterfly code
// (numerics/HadamardBlock.hpp), so the output is bit-identical to the CPU's.
#include "numerics/cuda/Hadamard.cuh"

#include "numerics/HadamardBlock.hpp"
#include "numerics/cuda/DeviceMemory.cuh"

namespace ccsim::numerics::cuda {

namespace {
__global__ void hadamard32_kernel(float* __restrict__ d_x, std::size_t blocks)
{
  const std::size_t b = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (b >= blocks)
    return;
  float v[32]; // in registers: the block is loaded once and stored once
  for (int i = 0; i < 32; ++i)
    v[i] = d_x[32 * b + i];
  hadamard_block(v);
  for (int i = 0; i < 32; ++i)
    d_x[32 * b + i] = v[i];
}
} // namespace

void hadamard32(float* d_x, std::size_t n, cudaStream_t stream)
{
  constexpr unsigned threads = 128;
  hadamard32_kernel<<<blocks_for(n / 32, threads), threads, 0, stream>>>(d_x, n / 32);
  check_cuda(cudaGetLastError(), "hadamard32");
}

} // namespace ccsim::numerics::cuda
