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

TEST_CASE("unpack_signs: bit 1 is +scale / read from the MSB", "[numerics]")
{
  const std::uint8_t byte = 0b1010'0001; // + - + - - - - +
  std::array<float, 8> out{};
  unpack_signs(&byte, 8, 0.5f, out.data());
  CHECK(out == std::array<float, 8>{0.5f, -0.5f, 0.5f, -0.5f, -0.5f, -0.5f, -0.5f, 0.5f});
}

TEST_CASE("compress_average: hand-worked average of two workers' signs from a zero state", "[numerics]")
{
  // Worker 0's signs + - + - - - - + at 0.5, worker 1's + + + + - - - - at 0.25 (scale / W each): v = [0.75, -0.25,
  // 0.75, -0.25, -0.75, -0.75, -0.75, 0.25], exact. No error yet, so p = v: ||p||^2 = 5·0.5625 + 3·0.0625 = 3,
  // scale = sqrt(3/8); signs + - + - - - - + = 0xA1; the state becomes p.
  const std::uint8_t b0 = 0b1010'0001, b1 = 0b1111'0000;
  const std::uint8_t* workers[] = {&b0, &b1};
  const float scaled[]          = {0.5f, 0.25f};
  std::array<float, 8> c{};
  std::uint8_t bits = 0;
  const float scale = compress_average(workers, scaled, 2, c.data(), 0.0f, 8, &bits);
  CHECK(scale == Approx(std::sqrt(3.0 / 8)).epsilon(1e-7));
  CHECK(bits == 0xA1);
  CHECK(c == std::array<float, 8>{0.75f, -0.25f, 0.75f, -0.25f, -0.75f, -0.75f, -0.75f, 0.25f});
}

TEST_CASE("onebit_scale: the RMS ||x||_2 / sqrt(n)", "[numerics]")
{
  const std::array<float, 8> x{3, 4, 0, 0, 0, 0, 0, 0}; // ||x|| = 5, sqrt(25/8) = 1.7677669529663689
  CHECK(onebit_scale(x.data(), x.size()) == Approx(1.7677669529663689).epsilon(1e-7));
}

TEST_CASE("compress_compensated: hand-worked compensated signs / scale and new error", "[numerics]")
{
  // The state c = [1, 0, 0, 0, 0, 0, 0, -0.5] with scale 0.5 stands for e = c - 0.5·sign(c) = [0.5, -0.5, -0.5,
  // -0.5, -0.5, -0.5, -0.5, 0] (sign(0) = +1). x = [1, -1.5, 3.5, -3.5, 0.5, 0.5, 0.5, -1] gives p = x + e =
  // [1.5, -2, 3, -4, 0, 0, 0, -1]; ||p||^2 = 2.25+4+9+16+1 = 32.25; scale = sqrt(32.25/8) = 2.0077973...;
  // signs + - + - + + + - = 1010'1110 = 0xAE; c becomes p, and e' = p - scale·sign(p).
  const std::array<float, 8> x{1, -1.5f, 3.5f, -3.5f, 0.5f, 0.5f, 0.5f, -1};
  std::array<float, 8> c{1, 0, 0, 0, 0, 0, 0, -0.5f};
  std::uint8_t bits = 0;
  const double s    = std::sqrt(32.25 / 8);
  const float scale = compress_compensated(x.data(), c.data(), 0.5f, 8, &bits);
  CHECK(scale == Approx(s).epsilon(1e-7));
  CHECK(bits == 0xAE);
  const std::array<double, 8> p{1.5, -2, 3, -4, 0, 0, 0, -1};
  std::array<float, 8> e{};
  feedback_error(c.data(), scale, 8, e.data());
  for (int i = 0; i < 8; ++i) {
    CHECK(c[i] == p[i]);
    CHECK(e[i] == Approx(p[i] - (p[i] >= 0 ? s : -s)).margin(1e-6));
  }
}

TEST_CASE("compress_compensated: over many steps / sent + final error telescopes to the sum of inputs", "[numerics]")
{
  // Each step: sent_t + e_t = x_t + e_{t-1}. Summed over T steps: sum(sent) + e_T = sum(x) + e_0 (e_0 = 0).
  // fp32 accumulation of 20 steps of O(1) values: tolerance 1e-5 absolute.
  const std::size_t n = 1024;
  std::mt19937 rng(11);
  std::normal_distribution<float> d;
  std::vector<float> c(n, 0.0f), e(n), sum_x(n, 0.0f), sum_sent(n, 0.0f), x(n), sent(n);
  std::vector<std::uint8_t> bits(n / 8);
  float scale = 0;
  for (int t = 0; t < 20; ++t) {
    for (std::size_t i = 0; i < n; ++i)
      x[i] = d(rng), sum_x[i] += x[i];
    scale = compress_compensated(x.data(), c.data(), scale, n, bits.data());
    unpack_signs(bits.data(), n, scale, sent.data());
    for (std::size_t i = 0; i < n; ++i)
      sum_sent[i] += sent[i];
  }
  feedback_error(c.data(), scale, n, e.data());
  for (std::size_t i = 0; i < n; ++i)
    CHECK(sum_sent[i] + e[i] == Approx(sum_x[i]).margin(1e-5));
}
