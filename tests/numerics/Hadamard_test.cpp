// Hadamard32: the Sylvester matrix entries, H·H = I, and the fused quantize / dequantize against the unfused path.
#include "numerics/Hadamard.hpp"

#include <catch2/catch.hpp>

#include <bitset>
#include <cmath>
#include <random>
#include <vector>

using namespace ccsim::numerics;

TEST_CASE("hadamard32: columns are the Sylvester matrix (-1)^popcount(r&c)/sqrt(32) / and H·H = I", "[numerics]")
{
  for (int c = 0; c < 32; ++c) {
    std::vector<float> e(32, 0.0f);
    e[c] = 1.0f;
    hadamard32(e.data(), 32); // column c of H
    for (int r = 0; r < 32; ++r) {
      const double expect = (std::bitset<8>(r & c).count() % 2 ? -1.0 : 1.0) / std::sqrt(32.0);
      REQUIRE(e[r] == Approx(expect).epsilon(1e-6));
    }
    hadamard32(e.data(), 32); // H·(H e_c) = e_c
    for (int r = 0; r < 32; ++r)
      REQUIRE(e[r] == Approx(r == c ? 1.0 : 0.0).margin(1e-6));
  }
}

TEST_CASE("hadamard32_quantize_packed: equals hadamard32 then quantize_groups_packed", "[numerics]")
{
  std::mt19937 rng(2);
  std::normal_distribution<float> d;
  const std::size_t n = 8192; // spans several fused slices
  std::vector<float> x(n);
  for (auto& v : x)
    v = d(rng);
  for (Rounding r : {Rounding::NEAREST, Rounding::STOCHASTIC}) {
    std::vector<std::uint8_t> fused(n / 2), plain(n / 2);
    std::vector<float> fs(n / 128), ps(n / 128);
    hadamard32_quantize_packed(x.data(), n, 4, 128, r, 5, fused.data(), fs.data());
    std::vector<float> hx = x;
    hadamard32(hx.data(), n);
    quantize_groups_packed(hx.data(), n, 4, 128, r, 5, plain.data(), ps.data());
    CHECK(fused == plain);
    CHECK(fs == ps);
  }
}

TEST_CASE("dequantize_hadamard32_packed: round trip within the quantization error bound", "[numerics]")
{
  // Nearest rounding errs by at most scale/2 per element in the Hadamard domain; H is orthogonal, so the L2 error
  // after the inverse is at most sqrt(n)·max(scale)/2.
  std::mt19937 rng(4);
  std::normal_distribution<float> d;
  const std::size_t n = 4096;
  std::vector<float> x(n), back(n), scales(n / 128);
  std::vector<std::uint8_t> codes(n);
  for (auto& v : x)
    v = d(rng);
  hadamard32_quantize_packed(x.data(), n, 8, 128, Rounding::NEAREST, 0, codes.data(), scales.data());
  dequantize_hadamard32_packed(codes.data(), scales.data(), n, 8, 128, back.data());
  double err = 0, smax = 0;
  for (std::size_t i = 0; i < n; ++i)
    err += (back[i] - x[i]) * double(back[i] - x[i]);
  for (float s : scales)
    smax = std::max<double>(smax, s);
  CHECK(std::sqrt(err) <= std::sqrt(double(n)) * smax / 2 * 1.0001);
}

TEST_CASE("hadamard32: smoothing outliers lowers int4 group quantization error (SDP4Bit §3.2.2)", "[numerics]")
{
  // N(0, 1) values with one outlier of 20 in each 32-block, group 128. Direct int4: step 20/7 = 2.86, so the
  // Gaussian values mostly round to 0 (squared error ~0.7 per value, ~90 in all). After H each outlier spreads to
  // ±20/sqrt(32) = ±3.5 over its block, on top of N(0, 1): max ~6.5, step ~0.93, error ~step²/12 = 0.07 per value
  // (~9 in all). Expect at least a 3x lower error; the inverse transform preserves L2 error (H orthogonal).
  std::mt19937 rng(8);
  std::normal_distribution<float> d;
  const std::size_t n = 128;
  std::vector<float> x(n);
  for (auto& v : x)
    v = d(rng);
  for (std::size_t k = 0; k < 4; ++k)
    x[32 * k + 5] = 20.0f;
  std::vector<std::uint8_t> codes(n / 2);
  float scale = 0;
  std::vector<float> direct(n), smoothed(n);
  quantize_groups_packed(x.data(), n, 4, 128, Rounding::NEAREST, 0, codes.data(), &scale);
  dequantize_groups_packed(codes.data(), &scale, n, 4, 128, direct.data());
  hadamard32_quantize_packed(x.data(), n, 4, 128, Rounding::NEAREST, 0, codes.data(), &scale);
  dequantize_hadamard32_packed(codes.data(), &scale, n, 4, 128, smoothed.data());
  double e_direct = 0, e_smooth = 0;
  for (std::size_t i = 0; i < n; ++i) {
    e_direct += (direct[i] - x[i]) * double(direct[i] - x[i]);
    e_smooth += (smoothed[i] - x[i]) * double(smoothed[i] - x[i]);
  }
  CHECK(3 * e_smooth < e_direct);
}
