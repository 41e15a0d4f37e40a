#pragma once
// Test helper for the parity tests against reference code run elsewhere (scripts/reference/): the fixtures those
// scripts wrote, and the gradients they made to order, computed here from the same integers
// (scripts/reference/reference_common.py, grad_value).

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace ccsim::test {

/// An integer hash of (worker, step, tensor, index) to a multiple of 1/1024 in [-1000/1024, 1000/1024], exact in fp32.
inline float reference_grad(std::uint64_t worker, std::uint64_t step, std::uint64_t tensor, std::uint64_t index)
{
  std::uint64_t x = (worker * 1000003 + step * 10007 + tensor * 101 + index * 7919 + 12345) & 0xFFFFFFFFull;
  x               = (x * 2654435761ull) & 0xFFFFFFFFull;
  x ^= x >> 15;
  return static_cast<float>(static_cast<double>(static_cast<long>(x % 2001) - 1000) / 1024.0);
}

/// tests/data/reference/`file`, parsed.
inline nlohmann::json reference_fixture(const std::string& file)
{
  std::ifstream in(std::string(CCSIM_SOURCE_DIR) + "/tests/data/reference/" + file);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

/// The largest |got - want| / (1e-3 + |want|) over a vector: relative, with an absolute floor for values near zero.
inline double worst_gap(const Eigen::VectorXf& got, const std::vector<float>& want)
{
  REQUIRE(static_cast<std::size_t>(got.size()) == want.size());
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got[static_cast<long>(i)] - want[i]) / (1e-3 + std::abs(want[i])));
  return worst;
}

} // namespace ccsim::test
