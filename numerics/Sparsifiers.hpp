#pragma once
// Sparsification for SLAMB and the naive sparse baselines. Random-k draws the SAME index set on every worker
// from a shared seed and the step number (SLAMB §4.1: "a mask shared by all workers"; the reference draws it from a
// fixed seed too, docs/design/notes/reference-implementations.md §6), so only the k values travel and a dense allreduce of
// k floats averages them. Top-k picks each worker's own k largest magnitudes, so indices travel too.
// Index sets are generated on the CPU; the CUDA twins of gather/scatter take them as a device copy.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccsim::numerics {

/// Number of kept coordinates for a fraction k of n: min(n, ceil(k·n)).
std::size_t k_count(std::size_t n, double k);

/// k_count(n, k) distinct indices in increasing order, identical for equal (n, k, seed, step): Floyd's sampling
/// on std::mt19937_64 seeded with seed·0x9E3779B97F4A7C15 + step.
std::vector<std::uint32_t> random_k_indices(std::size_t n, double k, std::uint64_t seed, std::uint64_t step);

/// The `count` indices of largest |x| (ties: lower index first), in increasing order. Exact radix selection on
/// the bits of |x| (two 16-bit histogram passes and one collect pass), no sort of the whole buffer.
std::vector<std::uint32_t> top_k_indices(const float* x, std::size_t n, std::size_t count);

/// values[i] = x[idx[i]].
void gather(const float* x, const std::vector<std::uint32_t>& idx, float* values);
/// x[idx[i]] = values[i] (other coordinates untouched).
void scatter(const float* values, const std::vector<std::uint32_t>& idx, float* x);
/// The same on k raw indices: the kernel contract numerics/CompressionKernels.hpp and the CUDA twins share.
void gather(const float* x, const std::uint32_t* idx, std::size_t k, float* values);
/// The same on `threads` threads, each a contiguous range of idx.
void gather(const float* x, const std::uint32_t* idx, std::size_t k, float* values, std::size_t threads);
void scatter(const float* values, const std::uint32_t* idx, std::size_t k, float* x);

/// A top-k message: the kept coordinates and their values.
struct SparseVector {
  std::vector<std::uint32_t> indices; // increasing
  std::vector<float> values;
  /// fp32 value + uint32 index per kept coordinate.
  std::uint64_t wire_bytes() const { return 8ull * indices.size(); }
};

/// top_k_indices + gather.
SparseVector top_k(const float* x, std::size_t n, std::size_t count);

/// Bytes one worker contributes for random-k: the fp32 values only (the mask is implied by the shared seed).
inline std::uint64_t random_k_bytes(std::size_t count) { return 4ull * count; }
/// Bytes one worker contributes for top-k: fp32 values plus uint32 indices.
inline std::uint64_t top_k_bytes(std::size_t count) { return 8ull * count; }

} // namespace ccsim::numerics
