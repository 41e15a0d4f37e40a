// OnebitPack: bit order, sign convention, the RMS scale and the fused error-feedback step on hand-worked vectors.
#include "numerics/OnebitPack.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <random>
#include <vector>

using namespace ccsim::numerics;

TEST_CASE("pack_signs: two bytes / MSB first / -0.0 and 0 count as +1", "[numerics]")
{
  // signs + + - - + + + - | all + : 1100'1110 = 0xCE, 1111'1111 = 0xFF (cupy.packbits bitorder 'big', notes §1.3)
  const std::array<float, 16> x{-0.0f, 1, -1, -1e-30f, 0, 2, 3, -2, 1, 1, 1, 1, 1, 1, 1, 1};
  std::array<std::uint8_t, 2> bits{};
  pack_signs(x.data(), x.size(), bits.data());
  CHECK(bits[0] == 0xCE);
  CHECK(bits[1] == 0xFF);
}

TEST_CASE("unpack_signs and accumulate_signs: bit 1 is +scale / read from the MSB", "[numerics]")
{
  const std::uint8_t byte = 0b1010'0001; // + - + - - - - +
  std::array<float, 8> out{};
  unpack_signs(&byte, 8, 0.5f, out.data());
  CHECK(out == std::array<float, 8>{0.5f, -0.5f, 0.5f, -0.5f, -0.5f, -0.5f, -0.5f, 0.5f});
  accumulate_signs(&byte, 8, 0.25f, out.data()); // adds ±0.25 with the same pattern
  CHECK(out == std::array<float, 8>{0.75f, -0.75f, 0.75f, -0.75f, -0.75f, -0.75f, -0.75f, 0.75f});
}

TEST_CASE("onebit_scale: the RMS ||x||_2 / sqrt(n)", "[numerics]")
{
  const std::array<float, 8> x{3, 4, 0, 0, 0, 0, 0, 0}; // ||x|| = 5, sqrt(25/8) = 1.7677669529663689
  CHECK(onebit_scale(x.data(), x.size()) == Approx(1.7677669529663689).epsilon(1e-7));
}

TEST_CASE("compress_with_feedback: hand-worked compensated signs / scale and new error", "[numerics]")
{
  // p = x + e = [1.5, -2, 3, -4, 0, 0, 0, -1]; ||p||^2 = 2.25+4+9+16+1 = 32.25; scale = sqrt(32.25/8) = 2.0077973...
  // signs + - + - + + + - = 1010'1110 = 0xAE; e' = p - scale·sign(p).
  std::array<float, 8> x{1, -2, 3, -4, 0, 0, 0, 0};
  std::array<float, 8> e{0.5f, 0, 0, 0, 0, 0, 0, -1};
  std::uint8_t bits  = 0;
  const double s     = std::sqrt(32.25 / 8);
  const float scale  = compress_with_feedback(x.data(), e.data(), 8, &bits);
  CHECK(scale == Approx(s).epsilon(1e-7));
  CHECK(bits == 0xAE);
  const std::array<double, 8> p{1.5, -2, 3, -4, 0, 0, 0, -1};
  CHECK(x == std::array<float, 8>{1, -2, 3, -4, 0, 0, 0, 0}); // the input is not modified
  for (int i = 0; i < 8; ++i) {
    CHECK(e[i] == Approx(p[i] - (p[i] >= 0 ? s : -s)).margin(1e-6));
  }
}

TEST_CASE("compress_with_feedback: over many steps / sent + final error telescopes to the sum of inputs", "[numerics]")
{
  // Each step: sent_t + e_t = x_t + e_{t-1}. Summed over T steps: sum(sent) + e_T = sum(x) + e_0 (e_0 = 0).
  // fp32 accumulation of 20 steps of O(1) values: tolerance 1e-5 absolute.
  const std::size_t n = 1024;
  std::mt19937 rng(11);
  std::normal_distribution<float> d;
  std::vector<float> e(n, 0.0f), sum_x(n, 0.0f), sum_sent(n, 0.0f), x(n), sent(n);
  std::vector<std::uint8_t> bits(n / 8);
  for (int t = 0; t < 20; ++t) {
    for (std::size_t i = 0; i < n; ++i)
      x[i] = d(rng), sum_x[i] += x[i];
    const float scale = compress_with_feedback(x.data(), e.data(), n, bits.data());
    unpack_signs(bits.data(), n, scale, sent.data());
    for (std::size_t i = 0; i < n; ++i)
      sum_sent[i] += sent[i];
  }
  for (std::size_t i = 0; i < n; ++i)
    CHECK(sum_sent[i] + e[i] == Approx(sum_x[i]).margin(1e-5));
}
