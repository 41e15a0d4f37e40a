// Every vector path of the CPU kernels (numerics/SimdLevel.hpp: AVX2, AVX-512) against the scalar path, beyond
// SimdPaths_test.cpp's normal inputs: odd groups (6, 130, 4096), nearest rounding, special values (zeros, -0,
// subnormal maxima that make qmax/max|x| infinite, inf, NaN), unaligned draw offsets, and top-k with ties. The bytes
// must be identical, because the vector paths apply the scalar element rules lane by lane. A level this CPU lacks
// is skipped with a message.
#include "numerics/ActivationQuantizer.hpp"
#include "numerics/GroupQuantizer.hpp"
#include "numerics/Hadamard.hpp"
#include "numerics/OnebitPack.hpp"
#include "numerics/SimdLevel.hpp"
#include "numerics/SimdTarget.hpp"
#include "numerics/Sparsifiers.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace ccsim::numerics;

namespace {
/// Returns the kernels to their default level when the test ends.
struct LevelGuard {
  ~LevelGuard() { set_simd_level(std::nullopt); }
};

/// Normal values with a sprinkling of specials; every 7th 128-block is scaled to subnormals.
std::vector<float> awkward_vector(std::size_t n, unsigned seed)
{
  std::mt19937 rng(seed);
  std::normal_distribution<float> d;
  std::uniform_int_distribution<int> pick(0, 99);
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = d(rng);
    if ((i / 128) % 7 == 3)
      x[i] *= 1e-44f; // a group whose max is subnormal: qmax / max overflows to inf
    const int p = pick(rng);
    if (p == 0)
      x[i] = 0.0f;
    else if (p == 1)
      x[i] = -0.0f;
    else if (p == 2 && i % 3 == 0)
      x[i] = std::numeric_limits<float>::quiet_NaN();
    else if (p == 3 && i % 5 == 0)
      x[i] = -std::numeric_limits<float>::infinity();
  }
  return x;
}

std::vector<SimdLevel> vector_levels()
{
  std::vector<SimdLevel> out;
  for (SimdLevel l : {SimdLevel::AVX2, SimdLevel::AVX512}) {
    if (l <= best_simd_level())
      out.push_back(l);
    else
      WARN("SimdParity: this CPU has no " << to_string(l) << ": that path is not tested here");
  }
  return out;
}

struct Packed {
  std::vector<std::uint8_t> codes;
  std::vector<float> scales;
  bool operator==(const Packed& o) const
  {
    // Scales compared as bits (NaN == NaN, -0 != +0).
    return codes == o.codes && scales.size() == o.scales.size() &&
           std::memcmp(scales.data(), o.scales.data(), 4 * scales.size()) == 0;
  }
};

Packed quantize(const std::vector<float>& x, std::size_t n, int bits, std::size_t group, Rounding r,
                std::uint64_t seed, std::uint64_t first)
{
  Packed p{std::vector<std::uint8_t>(packed_code_bytes(n, bits), 0xAB), std::vector<float>((n + group - 1) / group)};
  quantize_groups_packed(x.data(), n, bits, group, r, seed, p.codes.data(), p.scales.data(), first);
  return p;
}
} // namespace

TEST_CASE("SimdParity: packed group quantization is byte-identical to the scalar path", "[numerics]")
{
  LevelGuard guard;
  const auto x = awkward_vector(20000, 11);
  // (n, group): odd tails, a group that is not a multiple of the vector width, a group larger than the slice, and
  // groups whose 32-code steps (4 bits, AVX-512) leave 16 (48) or 16 + 8 (56) codes to the narrower loops.
  const std::pair<std::size_t, std::size_t> shapes[] = {{1, 128},     {15, 8},   {17, 16},      {1001, 128},
                                                        {4097, 130},  {8192, 6}, {19999, 4096}, {20000, 2},
                                                        {3000, 48},   {2000, 56}};
  for (SimdLevel level : vector_levels())
    for (auto [n, group] : shapes)
      for (int bits : {4, 8})
        for (Rounding r : {Rounding::NEAREST, Rounding::STOCHASTIC})
          for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{(1ull << 40) + 3}}) {
            set_simd_level(SimdLevel::SCALAR);
            const Packed want = quantize(x, n, bits, group, r, 77, first);
            set_simd_level(level);
            const Packed got = quantize(x, n, bits, group, r, 77, first);
            INFO(to_string(level) << " n=" << n << " group=" << group << " bits=" << bits
                                        << " stochastic=" << (r == Rounding::STOCHASTIC) << " first=" << first);
            CHECK(got == want);
          }
}

TEST_CASE("SimdParity: fused Hadamard quantization and its inverse are bit-identical to the scalar path",
          "[numerics]")
{
  LevelGuard guard;
  auto x = awkward_vector(8192 + 96, 12);
  for (auto& v : x) // the transform mixes a NaN or inf into its whole block; keep those out of this one
    if (!std::isfinite(v))
      v = 1.5f;
  const std::size_t n = x.size();
  // Groups below, at and above the 512-value slice (AVX-512 takes each group's maximum from the transform's
  // registers, slice by slice), both code widths and both roundings; n leaves a partial last group.
  for (std::size_t group : {32, 64, 128, 256, 1024})
    for (int bits : {4, 8})
      for (Rounding rounding : {Rounding::STOCHASTIC, Rounding::NEAREST})
        for (SimdLevel level : vector_levels()) {
          Packed want, got;
          std::vector<float> back_want(n), back_got(n);
          for (SimdLevel l : {SimdLevel::SCALAR, level}) {
            set_simd_level(l);
            Packed& p = l == SimdLevel::SCALAR ? want : got;
            p = Packed{std::vector<std::uint8_t>(n * bits / 8), std::vector<float>((n + group - 1) / group)};
            hadamard32_quantize_packed(x.data(), n, bits, group, rounding, 5, p.codes.data(), p.scales.data());
            dequantize_hadamard32_packed(p.codes.data(), p.scales.data(), n, bits, group,
                                         (l == SimdLevel::SCALAR ? back_want : back_got).data());
          }
          INFO(to_string(level) << " group " << group << " bits " << bits << " stochastic "
                                << (rounding == Rounding::STOCHASTIC));
          CHECK(got == want);
          CHECK(std::memcmp(back_got.data(), back_want.data(), 4 * n) == 0);
        }
}

TEST_CASE("SimdParity: 1-bit compression with error feedback is bit-identical to the scalar path", "[numerics]")
{
  LevelGuard guard;
  const auto x = awkward_vector(4104, 13);
  std::vector<float> xf(x);
  for (auto& v : xf)
    if (!std::isfinite(v))
      v = -2.0f;
  // 4104 values: 256 blocks of 16 and a tail of 8 for the AVX-512 pass; the server averages 3 workers' signs.
  std::vector<std::vector<std::uint8_t>> signs(3, std::vector<std::uint8_t>(xf.size() / 8));
  std::vector<const std::uint8_t*> workers;
  for (std::size_t w = 0; w < 3; ++w) {
    pack_signs(awkward_vector(xf.size(), 20 + static_cast<unsigned>(w)).data(), xf.size(), signs[w].data());
    workers.push_back(signs[w].data());
  }
  const float scaled[] = {0.25f, 0.125f, 1.5f};
  for (SimdLevel level : vector_levels()) {
    std::vector<float> c_want(xf.size(), 0.25f), c_got(c_want), a_want(c_want), a_got(c_want);
    std::vector<std::uint8_t> bits_want(xf.size() / 8), bits_got(xf.size() / 8), abits_want(bits_want), abits_got(bits_want);
    set_simd_level(SimdLevel::SCALAR);
    const float s_want  = compress_compensated(xf.data(), c_want.data(), 0.5f, xf.size(), bits_want.data());
    const float as_want = compress_average(workers.data(), scaled, 3, a_want.data(), 0.5f, xf.size(), abits_want.data());
    set_simd_level(level);
    const float s_got  = compress_compensated(xf.data(), c_got.data(), 0.5f, xf.size(), bits_got.data());
    const float as_got = compress_average(workers.data(), scaled, 3, a_got.data(), 0.5f, xf.size(), abits_got.data());
    INFO(to_string(level));
    CHECK(std::memcmp(&s_got, &s_want, 4) == 0);
    CHECK(bits_got == bits_want);
    CHECK(std::memcmp(c_got.data(), c_want.data(), 4 * xf.size()) == 0);
    CHECK(std::memcmp(&as_got, &as_want, 4) == 0);
    CHECK(abits_got == abits_want);
    CHECK(std::memcmp(a_got.data(), a_want.data(), 4 * xf.size()) == 0);
  }
}

TEST_CASE("SimdParity: AQ-SGD's delta quantizer is bit-identical to the scalar path", "[numerics]")
{
  LevelGuard guard;
  // 37 channels: two blocks of 16 and a tail of 5 for AVX-512 (AVX2 runs the scalar loops' clone); 29 rows with
  // zeros, -0, inf and NaN (awkward_vector) and deltas of 1e-6, at 2, 4 and 8 bits, one and three threads.
  const std::size_t rows = 29, channels = 37, n = rows * channels;
  const auto a = awkward_vector(n, 41);
  auto m0      = awkward_vector(n, 42);
  // Every third channel's deltas are about 1e-6, where the scale's + 1e-6 halves the quotient.
  for (std::size_t i = 0; i < n; ++i)
    if ((i % channels) % 3 == 1 && std::isfinite(a[i]))
      m0[i] = a[i] - 1e-6f * m0[i];
  for (int bits : {2, 4, 8})
    for (std::size_t threads : {std::size_t{1}, std::size_t{3}}) {
      std::vector<float> m_want(m0), s_want(channels);
      std::vector<std::int8_t> c_want(n);
      set_simd_level(SimdLevel::SCALAR);
      quantize_delta_channels(a.data(), m_want.data(), rows, channels, bits, c_want.data(), s_want.data(), threads);
      for (SimdLevel level : vector_levels()) {
        std::vector<float> m_got(m0), s_got(channels, 7.0f);
        std::vector<std::int8_t> c_got(n, 99);
        set_simd_level(level);
        quantize_delta_channels(a.data(), m_got.data(), rows, channels, bits, c_got.data(), s_got.data(), threads);
        INFO(to_string(level) << ", " << bits << " bits, " << threads << " thread(s)");
        CHECK(c_got == c_want);
        CHECK(std::memcmp(s_got.data(), s_want.data(), 4 * channels) == 0);
        CHECK(std::memcmp(m_got.data(), m_want.data(), 4 * n) == 0);
      }
    }
}

TEST_CASE("SimdParity: top-k selects the scalar path's indices (ties and NaN included)", "[numerics]")
{
  LevelGuard guard;
  // 2^17 + 5 values (the sampled path and an odd tail); coarse rounding makes many ties at the threshold, and the
  // NaNs' keys sort above every finite key in both paths.
  auto x = awkward_vector((1u << 17) + 5, 14);
  for (auto& v : x)
    v = std::round(v * 8.0f) / 8.0f;
  for (std::size_t count : {std::size_t{1}, std::size_t{1311}, std::size_t{9000}}) {
    set_simd_level(SimdLevel::SCALAR);
    const auto want = top_k_indices(x.data(), x.size(), count);
    for (SimdLevel level : vector_levels()) {
      set_simd_level(level);
      INFO(to_string(level) << " count " << count);
      CHECK(top_k_indices(x.data(), x.size(), count) == want);
    }
  }
}
