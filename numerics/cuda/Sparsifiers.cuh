#pragma once
// Launchers of the sparsification kernels (twins of numerics/Sparsifiers.hpp) on device pointers: random-k
// gather/scatter by a given index list, and the magnitude sort behind top-k.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace ccsim::numerics::cuda {

/// d_values[i] = d_x[d_idx[i]] for i < k (k > 0).
void gather(const float* d_x, const std::uint32_t* d_idx, std::size_t k, float* d_values, cudaStream_t stream = 0);
/// d_x[d_idx[i]] = d_values[i] for i < k (k > 0; indices distinct).
void scatter(const float* d_values, const std::uint32_t* d_idx, std::size_t k, float* d_x, cudaStream_t stream = 0);

/// Buffers of the magnitude sort: keys and indices (n each, before and after the sort) and CUB's temporary storage.
struct MagnitudeSortBuffers {
  float* d_key;
  float* d_key_sorted;
  std::uint32_t* d_idx;
  std::uint32_t* d_idx_sorted;
  void* d_temp;
  std::size_t temp_bytes; // from magnitude_sort_temp_bytes
};

/// CUB's temporary storage for sorting n pairs (n < 2^31).
std::size_t magnitude_sort_temp_bytes(std::size_t n);

/// d_idx_sorted = 0..n-1 ordered by decreasing |x|, equal magnitudes in increasing index order (a stable radix sort
/// of -|x|): its first `count` entries are numerics::top_k_indices(x, n, count) before that sorts them by index.
void sort_by_magnitude(const float* d_x, std::size_t n, const MagnitudeSortBuffers& buffers, cudaStream_t stream = 0);

} // namespace ccsim::numerics::cuda
