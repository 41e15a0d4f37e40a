// Group quantizer, int4 packing, Hadamard, sparsifiers and AQ-SGD's activation quantizer.
#include "numerics/ActivationQuantizer.hpp"
#include "numerics/DeltaBuffers.hpp"
#include "numerics/GroupQuantizer.hpp"
#include "numerics/Hadamard.hpp"
#include "numerics/Sparsifiers.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <set>

using namespace ccsim::numerics;

TEST_CASE("GroupQuantizer: the issue's int4 vector rounds to nearest on a 1/7 grid", "[numerics]")
{
  // max|x| = 1, qmax = 7: codes = round(7x) = round(7, -3.5, 1.82, -7, 0, 0.7, -0.42, 3.5) (ties away from zero)
  const std::vector<float> x = {1, -0.5f, 0.26f, -1, 0, 0.1f, -0.06f, 0.5f};
  const auto q = quantize_groups(x.data(), x.size(), 4, 8, Rounding::NEAREST);
  CHECK(q.codes == std::vector<std::int8_t>{7, -4, 2, -7, 0, 1, 0, 4});
  CHECK(q.scales.at(0) == Approx(1.0 / 7));
  std::vector<float> back(8);
  dequantize_groups(q, back.data());
  CHECK(back[2] == Approx(2.0 / 7));
  CHECK(q.wire_bytes() == 4 + 4); // 8 codes x 4 bits + one fp32 scale
}

TEST_CASE("GroupQuantizer: int8 uses ±127 and one scale per group", "[numerics]")
{
  const std::vector<float> x = {0.5f, -0.25f, 2, -1};
  const auto q = quantize_groups(x.data(), 4, 8, 2, Rounding::NEAREST);
  CHECK(q.scales == std::vector<float>{0.5f / 127, 2.0f / 127});
  CHECK(q.codes == std::vector<std::int8_t>{127, -64, 127, -64}); // -63.5 rounds away from zero
}

TEST_CASE("GroupQuantizer: stochastic rounding is deterministic per seed and unbiased", "[numerics]")
{
  const std::vector<float> x(4096, 0.3f);
  std::vector<float> pad = x;
  pad.push_back(1.0f); // max 1 -> 0.3 x 7 = 2.1: code 2 with p = 0.9, 3 with p = 0.1
  const auto a = quantize_groups(pad.data(), pad.size(), 4, pad.size(), Rounding::STOCHASTIC, 42);
  const auto b = quantize_groups(pad.data(), pad.size(), 4, pad.size(), Rounding::STOCHASTIC, 42);
  CHECK(a.codes == b.codes);
  double mean = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    mean += a.codes[i];
  mean /= static_cast<double>(x.size());
  // E[code] = 2.1; the standard error of the mean of 4096 Bernoulli(0.1) draws is 0.0047: allow 4 sigma.
  CHECK(mean == Approx(2.1).margin(0.019));
}

TEST_CASE("pack_int4: the first code sits in the high nibble / sign-extended back", "[numerics]")
{
  const std::vector<std::int8_t> codes = {7, -4, 2, -7, 0};
  const auto packed = pack_int4(codes);
  CHECK(packed == std::vector<std::uint8_t>{0x7C, 0x29, 0x00});
  CHECK(unpack_int4(packed, codes.size()) == codes);
}

TEST_CASE("hadamard32: orthonormal and its own inverse", "[numerics]")
{
  std::vector<float> x(64);
  std::iota(x.begin(), x.end(), -10.0f);
  const auto original = x;
  double norm_in = 0, norm_out = 0;
  for (float v : x)
    norm_in += v * v;
  hadamard32(x.data(), x.size());
  for (float v : x)
    norm_out += v * v;
  CHECK(norm_out == Approx(norm_in).epsilon(1e-6)); // H/sqrt(32) is orthogonal
  // A constant block maps to (sqrt(32)·c, 0, ..., 0).
  std::vector<float> ones(32, 1.0f);
  hadamard32(ones.data(), 32);
  CHECK(ones[0] == Approx(std::sqrt(32.0f)));
  CHECK(ones[5] == Approx(0).margin(1e-6));
  hadamard32(x.data(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    CHECK(x[i] == Approx(original[i]).margin(1e-4));
}

TEST_CASE("random_k_indices: the same mask on every worker / of size ceil(k·n) / distinct", "[numerics]")
{
  const auto a = random_k_indices(1000, 0.1, 5, 17);
  const auto b = random_k_indices(1000, 0.1, 5, 17);
  const auto c = random_k_indices(1000, 0.1, 5, 18);
  CHECK(a == b);
  CHECK(a != c);
  CHECK(a.size() == 100);
  CHECK(std::set<std::uint32_t>(a.begin(), a.end()).size() == 100);
  CHECK(a.back() < 1000);
}

TEST_CASE("top_k_indices: picks the k largest magnitudes", "[numerics]")
{
  const std::vector<float> x = {0.1f, -5, 3, 0, -0.2f, 4};
  CHECK(top_k_indices(x.data(), x.size(), 3) == std::vector<std::uint32_t>{1, 2, 5});
  std::vector<float> values(3);
  const auto idx = top_k_indices(x.data(), x.size(), 3);
  gather(x.data(), idx, values.data());
  CHECK(values == std::vector<float>{-5, 3, 4});
}

TEST_CASE("quantize_channels: one scale per channel / codes on a 2^(b-1) grid", "[numerics]")
{
  // 2 rows x 2 channels, 2 bits: channel 0 max 1 -> 1·2 = 2 clipped to 1, -0.5·2 = -1; channel 1 max 4.
  const std::vector<float> x = {1, 4, -0.5f, -4};
  const auto q = quantize_channels(x.data(), 2, 2, 2);
  CHECK(q.scales == std::vector<float>{1, 4});
  CHECK(q.codes == std::vector<std::int8_t>{1, 1, -1, -2});
  CHECK(q.wire_bytes() == 1 + 4); // 4 codes x 2 bits + 2 fp16 scales
}

TEST_CASE("DeltaBuffers: the first sight is exact / later messages move m(ξ) toward the activation", "[numerics]")
{
  DeltaBuffers buf(1, 4, 4);
  const std::vector<float> a0 = {1, 2, 3, 4};
  CHECK(buf.send(9, a0.data()) == a0);
  CHECK(buf.bytes_sent() == 16);
  const std::vector<float> a1 = {1.1f, 2, 2.9f, 4.2f};
  const auto got = buf.send(9, a1.data());
  // delta = (0.1, 0, -0.1, 0.2) per channel = its own max: codes +-8 clip to 7 -> 7/8 of each delta
  CHECK(got[0] == Approx(1 + 0.1 * 7 / 8).epsilon(1e-3));
  CHECK(got[3] == Approx(4 + 0.2 * 7 / 8).epsilon(1e-3));
  CHECK(got[2] == Approx(3 - 0.1).epsilon(1e-3)); // -8 is representable: exact
  CHECK(buf.buffer(9) == got);
}
