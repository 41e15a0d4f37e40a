// Sparsifiers: shared random-k masks, exact top-k with ties, gather/scatter and message sizes.
#include "numerics/Sparsifiers.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <vector>

using namespace ccsim::numerics;

TEST_CASE("random_k_indices: every worker draws the same mask of k_count distinct sorted indices", "[numerics]")
{
  // 8 "workers" call with the same (seed, step): identical masks. ceil(0.013·1000) = 13.
  const auto first = random_k_indices(1000, 0.013, 99, 5);
  for (int w = 1; w < 8; ++w)
    CHECK(random_k_indices(1000, 0.013, 99, 5) == first);
  CHECK(first.size() == 13);
  CHECK(k_count(1000, 0.013) == 13);
  CHECK(std::is_sorted(first.begin(), first.end()));
  CHECK(std::set<std::uint32_t>(first.begin(), first.end()).size() == 13);
  CHECK(first.back() < 1000);
  CHECK(random_k_indices(1000, 0.013, 99, 6) != first); // a new step, a new mask
  CHECK(random_k_indices(10, 1.0, 1, 1).size() == 10);  // k = 1 keeps everything
}

TEST_CASE("random_k_indices: every coordinate is picked with probability k", "[numerics]")
{
  // n = 100, k = 0.1, 2000 steps: each index is expected 200 times, sd sqrt(2000·0.1·0.9) = 13.4.
  // Allow 5.5 sd (74) for the most deviant of 100 indices.
  std::vector<int> hits(100, 0);
  for (std::uint64_t step = 0; step < 2000; ++step)
    for (auto i : random_k_indices(100, 0.1, 3, step))
      ++hits[i];
  for (int h : hits)
    CHECK(std::abs(h - 200) < 74);
}

TEST_CASE("top_k_indices: picks the k largest magnitudes / ties to the lower index", "[numerics]")
{
  // |x| = [.5, 2, 2, .5, .5, 1, 0]: k = 3 -> {1, 2, 5}; k = 4 adds the first 0.5, index 0; k = 5 adds index 3.
  const std::vector<float> x = {0.5f, -2, 2, 0.5f, -0.5f, 1, -0.0f};
  CHECK(top_k_indices(x.data(), x.size(), 3) == std::vector<std::uint32_t>{1, 2, 5});
  CHECK(top_k_indices(x.data(), x.size(), 4) == std::vector<std::uint32_t>{0, 1, 2, 5});
  CHECK(top_k_indices(x.data(), x.size(), 5) == std::vector<std::uint32_t>{0, 1, 2, 3, 5});
  CHECK(top_k_indices(x.data(), x.size(), 7).size() == 7);
  CHECK(top_k_indices(x.data(), x.size(), 0).empty());
}

TEST_CASE("top_k_indices: agrees with a full sort on data with many ties", "[numerics]")
{
  // Values on a 1/8 grid in [-4, 4] give many equal magnitudes; the reference sorts (|x| desc, index asc).
  std::mt19937 rng(21);
  std::uniform_int_distribution<int> u(-32, 32);
  std::vector<float> x(5000);
  for (auto& v : x)
    v = static_cast<float>(u(rng)) / 8.0f;
  std::vector<std::uint32_t> order(x.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::fabs(x[a]) != std::fabs(x[b]) ? std::fabs(x[a]) > std::fabs(x[b]) : a < b;
  });
  for (std::size_t k : {1u, 10u, 77u, 2500u, 5000u}) {
    std::vector<std::uint32_t> expect(order.begin(), order.begin() + static_cast<long>(k));
    std::sort(expect.begin(), expect.end());
    INFO("k = " << k);
    CHECK(top_k_indices(x.data(), x.size(), k) == expect);
  }
}

TEST_CASE("top_k: values match the indices - gather then scatter restores the kept coordinates", "[numerics]")
{
  const std::vector<float> x = {0.1f, -5, 3, 0, -0.2f, 4};
  const auto s = top_k(x.data(), x.size(), 3);
  CHECK(s.indices == std::vector<std::uint32_t>{1, 2, 5});
  CHECK(s.values == std::vector<float>{-5, 3, 4});
  CHECK(s.wire_bytes() == 3 * (4 + 4)); // fp32 value + uint32 index each
  std::vector<float> y(x.size(), 0.0f);
  scatter(s.values.data(), s.indices, y.data());
  CHECK(y == std::vector<float>{0, -5, 3, 0, 0, 4});
  CHECK(random_k_bytes(13) == 52);
  CHECK(top_k_bytes(13) == 104);
}

TEST_CASE("top_k_indices: large buffers (sampled threshold and its fallback) agree with a full sort", "[numerics]")
{
  // n = 100000 takes the sampled path; values on a 1/8 grid make ties. The second buffer puts its 1563 largest
  // values exactly on the sampled positions (i % 64 == 0), so for k = 2000 the sampled threshold collects too few
  // candidates and the exact radix path must take over.
  const std::size_t n = 100000;
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> u(-64, 64);
  std::vector<float> grid(n), trap(n);
  for (std::size_t i = 0; i < n; ++i) {
    grid[i] = static_cast<float>(u(rng)) / 8.0f;
    trap[i] = i % 64 == 0 ? 100.0f : static_cast<float>(u(rng)) / 64.0f;
  }
  for (const auto* x : {&grid, &trap}) {
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return std::fabs((*x)[a]) > std::fabs((*x)[b]); });
    for (std::size_t k : {1u, 1000u, 2000u, 12500u}) {
      std::vector<std::uint32_t> expect(order.begin(), order.begin() + static_cast<long>(k));
      std::sort(expect.begin(), expect.end());
      INFO("k = " << k << (x == &trap ? " (trap)" : " (grid)"));
      CHECK(top_k_indices(x->data(), n, k) == expect);
    }
  }
}
