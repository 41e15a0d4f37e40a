// Every vector path of the CPU kernels gives the bits of the portable scalar path (issue 13): the stochastic
// quantizer (AVX-512 and AVX2 hash lanes), the Hadamard quantizer and the 1-bit compressor with error feedback, on
// random inputs whose lengths leave odd tails for every vector width. A path this CPU lacks is skipped, and says so.
#include "numerics/GroupQuantizer.hpp"
#include "numerics/Hadamard.hpp"
#include "numerics/OnebitPack.hpp"
#include "numerics/SimdLevel.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

using namespace ccsim::numerics;

namespace {
std::vector<float> normal(std::size_t n, unsigned seed)
{
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 3.0f);
  std::vector<float> v(n);
  for (auto& x : v)
    x = d(rng);
  return v;
}

struct Outputs {
  std::vector<std::uint8_t> codes4, codes8, hcodes, bits;
  std::vector<float> scales4, scales8, hscales, error;
  float onebit_scale = 0;
};

/// Every kernel under test at the current SIMD level.
Outputs run_all(std::size_t n, std::size_t nh)
{
  const auto x = normal(n, 7);
  Outputs o;
  o.codes4.resize(packed_code_bytes(n, 4));
  o.scales4.resize((n + 127) / 128);
  quantize_groups_packed(x.data(), n, 4, 128, Rounding::STOCHASTIC, 99, o.codes4.data(), o.scales4.data(), 12345);
  o.codes8.resize(packed_code_bytes(n, 8));
  o.scales8.resize((n + 127) / 128);
  quantize_groups_packed(x.data(), n, 8, 128, Rounding::STOCHASTIC, 5, o.codes8.data(), o.scales8.data(), 7);
  o.hcodes.resize(packed_code_bytes(nh, 4));
  o.hscales.resize(nh / 128);
  hadamard32_quantize_packed(x.data(), nh, 4, 128, Rounding::STOCHASTIC, 3, o.hcodes.data(), o.hscales.data());
  // The 1-bit compressor takes a multiple of 8 (its contract): 100,008 leaves a tail of 8 after the 16-wide blocks.
  const std::size_t n8 = n / 8 * 8 + 8;
  const auto x8        = normal(n8, 13);
  o.error = normal(n8, 11); // the compensated state, updated in place
  o.bits.resize(n8 / 8);
  o.onebit_scale = compress_compensated(x8.data(), o.error.data(), 0.75f, n8, o.bits.data());
  return o;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b)
{
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}
} // namespace

TEST_CASE("SIMD paths: AVX-512 and AVX2 kernels are bit-identical to the scalar path", "[numerics]")
{
  // 100,003 values: 6,250 full 16-lane blocks plus 3; the Hadamard length is a multiple of 128 as it requires.
  const std::size_t n = 100003, nh = 99968;
  set_simd_level(SimdLevel::SCALAR);
  const Outputs scalar = run_all(n, nh);
  for (const auto level : {SimdLevel::AVX2, SimdLevel::AVX512}) {
    if (best_simd_level() < level) {
      WARN("this CPU has no " << to_string(level) << ": that path is not tested here");
      continue;
    }
    set_simd_level(level);
    REQUIRE(simd_level() == level);
    const Outputs v = run_all(n, nh);
    INFO(to_string(level));
    CHECK(v.codes4 == scalar.codes4);
    CHECK(same_bits(v.scales4, scalar.scales4));
    CHECK(v.codes8 == scalar.codes8);
    CHECK(same_bits(v.scales8, scalar.scales8));
    CHECK(v.hcodes == scalar.hcodes);
    CHECK(same_bits(v.hscales, scalar.hscales));
    CHECK(v.bits == scalar.bits);
    CHECK(same_bits(v.error, scalar.error));
    CHECK(std::memcmp(&v.onebit_scale, &scalar.onebit_scale, sizeof(float)) == 0);
  }
  set_simd_level(std::nullopt);
}

TEST_CASE("SIMD paths: CCSIM_SIMD names are parsed and a level is never above the CPU's", "[numerics]")
{
  CHECK(parse_simd_level("scalar") == SimdLevel::SCALAR);
  CHECK(parse_simd_level("avx512") == SimdLevel::AVX512);
  CHECK_FALSE(parse_simd_level("sse9").has_value());
  CHECK_FALSE(parse_simd_level("").has_value());
  set_simd_level(SimdLevel::AVX512);
  CHECK(simd_level() <= best_simd_level());
  set_simd_level(std::nullopt);
}
