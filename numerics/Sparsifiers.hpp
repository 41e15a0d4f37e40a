#pragma once
// Sparsification for SLAMB and the naive sparse baselines. Random-k draws the SAME index set on every worker
// from a shared seed and the step number (SLAMB §4.1: "a mask shared by all workers"), so only values travel;
// top-k picks each worker's own k largest magnitudes, so indices travel too.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccsim::numerics {

/// ceil(k·n) distinct indices in increasing order, identical for equal (n, k, seed, step).
std::vector<std::uint32_t> random_k_indices(std::size_t n, double k, std::uint64_t seed, std::uint64_t step);

/// The `count` indices of largest |x| (ties: lower index first), in increasing order.
std::vector<std::uint32_t> top_k_indices(const float* x, std::size_t n, std::size_t count);

void gather(const float* x, const std::vector<std::uint32_t>& idx, float* values);
void scatter(const float* values, const std::vector<std::uint32_t>& idx, float* x);

} // namespace ccsim::numerics
