// GroupQuantizer: hand-worked codes, half-to-even ties, the documented stochastic draw, packing and byte counts.
#include "numerics/GroupQuantizer.hpp"
#include "numerics/QuantizedSizes.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace ccsim::numerics;

TEST_CASE("quantize_groups_packed: the issue's int4 vector / codes / nibbles and dequantized values", "[numerics]")
{
  // max|x| = 1, qmax = 7, v = 7x = [7, -3.5, 1.82, -7, 0, 0.7, -0.42, 3.5]. Round half to even:
  // -3.5 -> -4 and 3.5 -> 4 (4 is even), 1.82 -> 2, 0.7 -> 1, -0.42 -> 0. Codes [7, -4, 2, -7, 0, 1, 0, 4].
  // Nibbles, first element high: (7,-4) = 0x7C, (2,-7) = 0x29 (-7 = 1001b), (0,1) = 0x01, (0,4) = 0x04.
  const std::vector<float> x = {1, -0.5f, 0.26f, -1, 0, 0.1f, -0.06f, 0.5f};
  std::vector<std::uint8_t> codes(packed_code_bytes(8, 4));
  float scale = 0;
  quantize_groups_packed(x.data(), 8, 4, 8, Rounding::NEAREST, 0, codes.data(), &scale);
  CHECK(codes == std::vector<std::uint8_t>{0x7C, 0x29, 0x01, 0x04});
  CHECK(scale == Approx(1.0 / 7).epsilon(1e-7));
  std::vector<float> back(8);
  dequantize_groups_packed(codes.data(), &scale, 8, 4, 8, back.data());
  const double expect[] = {1, -4.0 / 7, 2.0 / 7, -1, 0, 1.0 / 7, 0, 4.0 / 7};
  for (int i = 0; i < 8; ++i)
    CHECK(back[i] == Approx(expect[i]).margin(1e-7));
  CHECK(packed_bytes(8, 4, 8) == 4 + 4); // 8 nibbles + one fp32 scale
}

TEST_CASE("quantize_groups: nearest rounding breaks ties to even", "[numerics]")
{
  // max|x| = 7 = qmax, so v = x exactly: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0, -1.5 -> -2, -2.5 -> -2, 6.5 -> 6.
  // (Half away from zero would give 1, 2, 3, -1, -2, -3, 7.)
  const std::vector<float> x = {7, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 6.5f};
  const auto q = quantize_groups(x.data(), x.size(), 4, 8, Rounding::NEAREST);
  CHECK(q.codes == std::vector<std::int8_t>{7, 0, 2, 2, 0, -2, -2, 6});
}

TEST_CASE("uniform_draw: the documented splitmix64 formula (published splitmix64 outputs for state 0)", "[numerics]")
{
  // (0 ^ 0·G) + G = G is splitmix64's first state from seed 0: output 0xE220A8397B1DCDAF, top 24 bits 0xE220A8.
  // Index 1 gives state 2G: splitmix64's second output 0x6E789E6AA1B965F4, top 24 bits 0x6E789E (Vigna's reference).
  CHECK(uniform_draw(0, 0) == static_cast<float>(0xE220A8) / 16777216.0f);
  CHECK(uniform_draw(0, 1) == static_cast<float>(0x6E789E) / 16777216.0f);
}

TEST_CASE("quantize_groups: stochastic rounding is deterministic per seed and varies across seeds", "[numerics]")
{
  std::mt19937 rng(5);
  std::normal_distribution<float> d;
  std::vector<float> x(1024);
  for (auto& v : x)
    v = d(rng);
  const auto a = quantize_groups(x.data(), x.size(), 4, 128, Rounding::STOCHASTIC, 42);
  const auto b = quantize_groups(x.data(), x.size(), 4, 128, Rounding::STOCHASTIC, 42);
  const auto c = quantize_groups(x.data(), x.size(), 4, 128, Rounding::STOCHASTIC, 43);
  CHECK(a.codes == b.codes);
  CHECK(a.codes != c.codes);
  for (auto code : a.codes)
    CHECK(std::abs(code) <= 7);
}

TEST_CASE("quantize_groups: stochastic rounding is unbiased over many seeds", "[numerics]")
{
  // Group max 1, qmax 7. 0.3 -> v = 2.1: code 3 w.p. 0.1, else 2; deq sd = sqrt(.1·.9)/7 = 0.0429.
  // -0.45 -> v = -3.15: code -3 w.p. 0.85, else -4; deq sd = sqrt(.85·.15)/7 = 0.0510.
  // Mean of 4000 seeds: standard error <= 0.0008; tolerance 0.004 (5 sigma).
  const std::vector<float> x = {1.0f, 0.3f, -0.45f, 0.0f};
  double sum1 = 0, sum2 = 0;
  std::vector<float> back(4);
  const int seeds = 4000;
  for (int s = 0; s < seeds; ++s) {
    const auto q = quantize_groups(x.data(), 4, 4, 4, Rounding::STOCHASTIC, static_cast<std::uint64_t>(s));
    dequantize_groups(q, back.data());
    sum1 += back[1], sum2 += back[2];
    REQUIRE(back[0] == Approx(1.0f)); // the max is on the grid: never moves
    REQUIRE(back[3] == 0.0f);         // zero is on the grid too
  }
  CHECK(sum1 / seeds == Approx(0.3).margin(0.004));
  CHECK(sum2 / seeds == Approx(-0.45).margin(0.004));
}

TEST_CASE("quantize_groups_packed: same codes as quantize_groups + pack_int4 / int8 as bytes", "[numerics]")
{
  // Two code paths (vector API and packed kernel) must agree bit for bit, for both roundings, with a partial group.
  std::mt19937 rng(9);
  std::normal_distribution<float> d;
  const std::size_t n = 1000; // 7 full groups of 128 and one of 104
  std::vector<float> x(n);
  for (auto& v : x)
    v = d(rng);
  for (Rounding r : {Rounding::NEAREST, Rounding::STOCHASTIC}) {
    const auto q = quantize_groups(x.data(), n, 4, 128, r, 77);
    std::vector<std::uint8_t> codes(packed_code_bytes(n, 4));
    std::vector<float> scales(8);
    quantize_groups_packed(x.data(), n, 4, 128, r, 77, codes.data(), scales.data());
    CHECK(codes == pack_int4(q.codes));
    CHECK(scales == q.scales);
    CHECK(unpack_int4(codes, n) == q.codes);

    const auto q8 = quantize_groups(x.data(), n, 8, 128, r, 77);
    std::vector<std::uint8_t> codes8(packed_code_bytes(n, 8));
    quantize_groups_packed(x.data(), n, 8, 128, r, 77, codes8.data(), scales.data());
    for (std::size_t i = 0; i < n; ++i)
      REQUIRE(static_cast<std::int8_t>(codes8[i]) == q8.codes[i]);
  }
}

TEST_CASE("dequantize_accumulate_packed: adds the dequantized values", "[numerics]")
{
  // int8 codes [127, -64] with scale 0.5/127 -> [0.5, -0.2519685]; added to [1, 1].
  const std::vector<std::uint8_t> codes = {127, static_cast<std::uint8_t>(-64)};
  const float scale                    = 0.5f / 127;
  std::vector<float> out               = {1, 1};
  dequantize_accumulate_packed(codes.data(), &scale, 2, 8, 2, out.data());
  CHECK(out[0] == Approx(1.5).epsilon(1e-7));
  CHECK(out[1] == Approx(1 - 64 * 0.5 / 127).epsilon(1e-7));
}

TEST_CASE("packed_bytes: codes plus one fp32 scale per group", "[numerics]")
{
  // 1000 values, 8 groups of 128 (the last partial): int4 500 + 32 = 532; int8 1000 + 32 = 1032.
  CHECK(packed_bytes(1000, 4, 128) == 532);
  CHECK(packed_bytes(1000, 8, 128) == 1032);
  CHECK(packed_bytes(4096, 4, 2048) == 2048 + 8);
  CHECK(packed_bytes(1000, 4, 128) == group_quantized_bytes(1000, 4, 128));
}

TEST_CASE("quantize_groups_packed: stochastic codes follow the documented formula element by element", "[numerics]")
{
  // Restates the header's rule with the public uniform_draw: v = x·(7/max), code = floor(v) + (u(seed, i) <
  // v - floor(v)), clamped to ±7. Covers the vectorised path (8 values per step) and the scalar tail (n = 1003).
  std::mt19937 rng(31);
  std::normal_distribution<float> d;
  const std::size_t n = 1003, group = 1003;
  std::vector<float> x(n);
  for (auto& v : x)
    v = d(rng);
  const auto q = quantize_groups(x.data(), n, 4, group, Rounding::STOCHASTIC, 1234);
  float absmax = 0;
  for (float v : x)
    absmax = std::max(absmax, std::fabs(v));
  const float inv = 7.0f / absmax;
  for (std::size_t i = 0; i < n; ++i) {
    const float v     = x[i] * inv;
    const float lower = std::floor(v);
    const float code  = std::clamp(lower + (uniform_draw(1234, i) < v - lower ? 1.0f : 0.0f), -7.0f, 7.0f);
    REQUIRE(q.codes[i] == static_cast<std::int8_t>(code));
  }
}
