// bench-kernels' "x memcpy": the median of per-pair ratios, each kernel run against the memcpy timed just before it.
// Worked by hand; no timing is measured here (speed targets live in the benchmark itself).
#include "numerics/KernelBench.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

using ccsim::numerics::paired_ratio;

TEST_CASE("KernelBench: x memcpy is the median of the pairs' ratios, not the ratio of the medians", "[numerics]")
{
  // Pairs (copy, kernel): (1, 2), (2, 1), (10, 100) -> ratios 0.5, 2, 0.1 -> median 0.5. The medians' ratio would be
  // 2 / 2 = 1: the third pair, a slow moment for both, moves it where it does not move the pairs'.
  CHECK(paired_ratio({1, 2, 10}, {2, 1, 100}) == Approx(0.5).epsilon(1e-12));
  // A machine that slows both alike between pairs leaves every pair's ratio, and so the answer, unchanged.
  CHECK(paired_ratio({1, 3, 9, 27}, {2, 6, 18, 54}) == Approx(0.5).epsilon(1e-12));
  // One pair is its own ratio.
  CHECK(paired_ratio({3}, {4}) == Approx(0.75).epsilon(1e-12));
  CHECK_THROWS_AS(paired_ratio({}, {}), std::invalid_argument);
}

TEST_CASE("KernelBench: every row carries its ratio, and memcpy its own (1)", "[numerics]")
{
  const auto rows = ccsim::numerics::bench_cpu(1 << 16, 2);
  REQUIRE(rows.size() == ccsim::numerics::bench_kernel_names().size());
  CHECK(rows.front().kernel == "memcpy");
  CHECK(rows.front().vs_memcpy == 1.0);
  for (const auto& r : rows) {
    CHECK(r.gbps > 0);
    CHECK(r.vs_memcpy > 0);
  }
}
