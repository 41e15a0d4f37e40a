// CUDA twin of numerics/Sparsifiers.cpp's kernels. Index lists for random-k are drawn on the host (the shared
// seed's mt19937_64, numerics::random_k_indices) and come in as a device copy; top-k sorts by magnitude with CUB.
#include "numerics/cuda/Sparsifiers.cuh"

#include "numerics/cuda/DeviceMemory.cuh"

#include <cub/device/device_radix_sort.cuh>

namespace ccsim::numerics::cuda {

namespace {
constexpr unsigned THREADS = 256;

__global__ void gather_kernel(const float* __restrict__ d_x, const std::uint32_t* __restrict__ d_idx, std::size_t k,
                              float* __restrict__ d_values)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < k)
    d_values[i] = d_x[d_idx[i]];
}

__global__ void scatter_kernel(const float* __restrict__ d_values, const std::uint32_t* __restrict__ d_idx,
                               std::size_t k, float* __restrict__ d_x)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < k)
    d_x[d_idx[i]] = d_values[i];
}

__global__ void magnitude_key_kernel(const float* __restrict__ d_x, std::size_t n, float* __restrict__ d_key,
                                     std::uint32_t* __restrict__ d_idx)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) {
    d_key[i] = -fabsf(d_x[i]); // ascending sort of -|x| puts the largest magnitudes first
    d_idx[i] = static_cast<std::uint32_t>(i);
  }
}
} // namespace

void gather(const float* d_x, const std::uint32_t* d_idx, std::size_t k, float* d_values, cudaStream_t stream)
{
  gather_kernel<<<blocks_for(k, THREADS), THREADS, 0, stream>>>(d_x, d_idx, k, d_values);
  check_cuda(cudaGetLastError(), "gather");
}

void scatter(const float* d_values, const std::uint32_t* d_idx, std::size_t k, float* d_x, cudaStream_t stream)
{
  scatter_kernel<<<blocks_for(k, THREADS), THREADS, 0, stream>>>(d_values, d_idx, k, d_x);
  check_cuda(cudaGetLastError(), "scatter");
}

std::size_t magnitude_sort_temp_bytes(std::size_t n)
{
  std::size_t temp = 0;
  check_cuda(cub::DeviceRadixSort::SortPairs(nullptr, temp, static_cast<const float*>(nullptr),
                                             static_cast<float*>(nullptr), static_cast<const std::uint32_t*>(nullptr),
                                             static_cast<std::uint32_t*>(nullptr), static_cast<int>(n)),
             "top_k temp size");
  return temp;
}

void sort_by_magnitude(const float* d_x, std::size_t n, const MagnitudeSortBuffers& b, cudaStream_t stream)
{
  magnitude_key_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(d_x, n, b.d_key, b.d_idx);
  check_cuda(cudaGetLastError(), "top_k keys");
  // A stable radix sort keeps equal magnitudes in index order: ties go to the lower index, as on the CPU.
  std::size_t temp = b.temp_bytes;
  check_cuda(cub::DeviceRadixSort::SortPairs(b.d_temp, temp, b.d_key, b.d_key_sorted, b.d_idx, b.d_idx_sorted,
                                             static_cast<int>(n), 0, static_cast<int>(8 * sizeof(float)), stream),
             "top_k sort");
}

} // namespace ccsim::numerics::cuda
