#pragma once
// Test helper for the parity tests against reference code run elsewhere (scripts/reference/): the fixtures those
// scripts wrote, and the gradients they made to order, computed here from the same integers
// (scripts/reference/reference_common.py, grad_value).

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <string>

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

} // namespace ccsim::test
