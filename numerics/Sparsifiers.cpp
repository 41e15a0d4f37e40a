// Random-k with a shared seed (partial Fisher-Yates on a counter-seeded generator) and exact top-k.
#include "numerics/Sparsifiers.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <unordered_map>

namespace ccsim::numerics {

std::vector<std::uint32_t> random_k_indices(std::size_t n, double k, std::uint64_t seed, std::uint64_t step)
{
  const auto count = std::min(n, static_cast<std::size_t>(std::ceil(k * static_cast<double>(n))));
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + step);
  // Partial Fisher-Yates over a virtual identity permutation: O(count) memory, exactly `count` distinct indices.
  std::unordered_map<std::size_t, std::size_t> swapped;
  auto at = [&](std::size_t i) {
    const auto it = swapped.find(i);
    return it == swapped.end() ? i : it->second;
  };
  std::vector<std::uint32_t> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t j = i + static_cast<std::size_t>(rng() % (n - i));
    const std::size_t vi = at(i), vj = at(j);
    swapped[j] = vi;
    out[i]     = static_cast<std::uint32_t>(vj);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint32_t> top_k_indices(const float* x, std::size_t n, std::size_t count)
{
  count = std::min(count, n);
  std::vector<std::uint32_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0u);
  std::nth_element(idx.begin(), idx.begin() + static_cast<long>(count), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
    const float fa = std::fabs(x[a]), fb = std::fabs(x[b]);
    return fa > fb || (fa == fb && a < b);
  });
  idx.resize(count);
  std::sort(idx.begin(), idx.end());
  return idx;
}

void gather(const float* x, const std::vector<std::uint32_t>& idx, float* values)
{
  for (std::size_t i = 0; i < idx.size(); ++i)
    values[i] = x[idx[i]];
}

void scatter(const float* values, const std::vector<std::uint32_t>& idx, float* x)
{
  for (std::size_t i = 0; i < idx.size(); ++i)
    x[idx[i]] = values[i];
}

} // namespace ccsim::numerics
