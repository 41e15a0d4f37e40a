// Issue 49: the single-pass kernels give exactly the bytes of the kernels they replace. The 1-bit worker and server
// compressors keep (compensated vector, scale) instead of the error and rebuild it on the fly; held to the two-pass
// error-buffer kernel (tests/support/TwoPassOnebit.hpp) call after call, on random inputs of odd sizes and on zeros,
// signed zeros, NaN, infinities and subnormals, on every vector path this CPU has. AQ-SGD's delta quantizer is held to
// the row-by-row restatement of its contract (numerics/ActivationQuantizer.hpp), which DeltaBuffers::decode and the
// pipeline loop now rely on when they apply deltas in place.
#include "numerics/ActivationQuantizer.hpp"
#include "numerics/OnebitPack.hpp"
#include "numerics/Rounding.hpp"
#include "numerics/SimdLevel.hpp"
#include "tests/support/TwoPassOnebit.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace ccsim::numerics;

namespace {
std::vector<float> normal(std::size_t n, unsigned seed, float sd = 1.0f)
{
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, sd);
  std::vector<float> v(n);
  for (auto& x : v)
    x = d(rng);
  return v;
}

/// The same bytes, or both NaN: IEEE 754 leaves which NaN an operation on two NaNs returns to the implementation, and
/// C++ lets the compiler swap the operands of a commutative add, so a NaN's sign and payload are not part of any
/// kernel's contract (every comparison treats all NaNs alike). Every other value must match byte for byte.
bool same_bytes(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

bool same_bytes(const std::vector<float>& a, const std::vector<float>& b)
{
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_bytes(a[i], b[i]))
      return false;
  return true;
}

/// The CPU's vector paths, scalar first; the ones this CPU lacks are left out with a warning.
std::vector<SimdLevel> levels()
{
  std::vector<SimdLevel> out = {SimdLevel::SCALAR};
  for (const SimdLevel l : {SimdLevel::AVX2, SimdLevel::AVX512}) {
    if (l <= best_simd_level())
      out.push_back(l);
    else
      WARN("this CPU has no " << to_string(l) << " path: not tested here");
  }
  return out;
}

/// `calls` calls of both worker kernels on the inputs `x_of(call)`: the same bits, scale and error each time.
template <class Inputs>
void check_worker(std::size_t n, int calls, Inputs x_of)
{
  for (const SimdLevel level : levels()) {
    set_simd_level(level);
    INFO(to_string(level) << ", n = " << n);
    std::vector<float> error(n, 0.0f), compensated(n, 0.0f), rebuilt(n);
    std::vector<std::uint8_t> want(n / 8), got(n / 8);
    float scale = 0;
    for (int call = 0; call < calls; ++call) {
      INFO("call " << call);
      const std::vector<float> x = x_of(call);
      const float s_want         = ccsim::test::two_pass_compress(x.data(), error.data(), n, want.data());
      scale                      = compress_compensated(x.data(), compensated.data(), scale, n, got.data());
      feedback_error(compensated.data(), scale, n, rebuilt.data());
      CHECK(same_bytes(scale, s_want));
      CHECK(got == want);
      CHECK(same_bytes(rebuilt, error));
    }
  }
  set_simd_level(std::nullopt);
}
} // namespace

TEST_CASE("compress_compensated: the two-pass kernel's bits, scale and error over 6 calls / odd sizes", "[numerics]")
{
  // 8: one byte; 24: a tail of 8 after one AVX-512 block; 8·1001: 500 blocks of 16 and a tail of 8.
  for (const std::size_t n : {std::size_t{8}, std::size_t{24}, std::size_t{8 * 1001}, std::size_t{4096}})
    check_worker(n, 6, [n](int call) { return normal(n, 100 + static_cast<unsigned>(call), call == 0 ? 1.0f : 0.3f); });
}

TEST_CASE("compress_compensated: the two-pass kernel's bytes on zeros / signed zeros / NaN / infinities / subnormals",
          "[numerics]")
{
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float tiny = std::numeric_limits<float>::denorm_min();
  SECTION("all zeros, then -0.0 and subnormals: scale 0, every sign +")
  {
    check_worker(40, 4, [&](int call) {
      std::vector<float> x(40, 0.0f);
      for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = call == 0 ? 0.0f : call == 1 ? -0.0f : (i % 2 ? tiny : -tiny) * static_cast<float>(call);
      return x;
    });
  }
  SECTION("a NaN, +inf and -inf among finite values, then finite values again")
  {
    check_worker(48, 4, [&](int call) {
      auto x = normal(48, 7 + static_cast<unsigned>(call));
      if (call == 1)
        x[3] = nan, x[17] = inf, x[40] = -inf;
      if (call == 2)
        x[5] = 3e38f, x[6] = -3e38f; // their squares overflow fp32 but not the double sum
      return x;
    });
  }
  SECTION("infinities alone: an infinite scale")
  {
    check_worker(16, 3, [&](int call) {
      std::vector<float> x(16, 1.0f);
      if (call == 0)
        x[0] = inf;
      return x;
    });
  }
}

TEST_CASE("compress_average: the two-pass server's bits, scale and error over 5 calls of 16 workers", "[numerics]")
{
  // The old server: a zero chunk, each worker's ±scale/W added in rank order, then the two-pass compressor.
  const std::size_t n = 8 * 131, W = 16;
  for (const SimdLevel level : levels()) {
    set_simd_level(level);
    INFO(to_string(level));
    std::vector<float> chunk(n), error(n, 0.0f), compensated(n, 0.0f), rebuilt(n);
    std::vector<std::uint8_t> want(n / 8), got(n / 8);
    float scale = 0;
    for (unsigned call = 0; call < 5; ++call) {
      std::vector<std::vector<std::uint8_t>> signs(W, std::vector<std::uint8_t>(n / 8));
      std::vector<const std::uint8_t*> workers;
      std::vector<float> scaled(W);
      for (std::size_t w = 0; w < W; ++w) {
        pack_signs(normal(n, 1000 * call + static_cast<unsigned>(w)).data(), n, signs[w].data());
        workers.push_back(signs[w].data());
        scaled[w] = (0.5f + static_cast<float>(w) * 0.01f) / static_cast<float>(W);
      }
      if (call == 3)
        scaled[4] = 0.0f; // -0.0 + 0.0 in the chunk's first add
      const float s_want =
          ccsim::test::two_pass_server(workers.data(), scaled.data(), W, chunk.data(), error.data(), n, want.data());
      scale = compress_average(workers.data(), scaled.data(), W, compensated.data(), scale, n, got.data());
      feedback_error(compensated.data(), scale, n, rebuilt.data());
      INFO("call " << call);
      CHECK(same_bytes(scale, s_want));
      CHECK(got == want);
      CHECK(same_bytes(rebuilt, error));
    }
  }
  set_simd_level(std::nullopt);
}

TEST_CASE("quantize_delta_channels: the contract's codes / scales and buffer / odd shapes with NaN and infinity",
          "[numerics]")
{
  // The contract (numerics/ActivationQuantizer.hpp) restated element by element: scales = fp16(max over rows
  // |a - m|), code = clamp(round_half_even((a - m)/(scale + 1e-6)·2^(b-1))), m += code / 2^(b-1) · scale. Shapes of
  // few and many rows, channel counts that leave vector tails, NaN and infinity in a and m.
  struct Shape {
    std::size_t rows, channels;
  };
  for (const Shape s : {Shape{5, 1000}, Shape{3000, 77}, Shape{1000, 33}}) {
    INFO(s.rows << " x " << s.channels);
    const std::size_t n = s.rows * s.channels;
    auto a              = normal(n, 31);
    auto m0             = normal(n, 32, 0.5f);
    a[7]                = std::numeric_limits<float>::quiet_NaN();
    m0[n / 2]           = std::numeric_limits<float>::infinity();
    for (const int bits : {2, 4}) {
      const float half = static_cast<float>(1 << (bits - 1));
      std::vector<float> m_want(m0), s_want(s.channels, 0.0f);
      std::vector<std::int8_t> c_want(n);
      for (std::size_t r = 0; r < s.rows; ++r)
        for (std::size_t c = 0; c < s.channels; ++c) {
          const float v = std::fabs(a[r * s.channels + c] - m0[r * s.channels + c]);
          s_want[c]     = s_want[c] < v ? v : s_want[c];
        }
      for (auto& v : s_want)
        v = round_to_fp16(v);
      for (std::size_t r = 0; r < s.rows; ++r)
        for (std::size_t c = 0; c < s.channels; ++c) {
          const std::size_t i = r * s.channels + c;
          const float v       = (a[i] - m_want[i]) / (s_want[c] + 1e-6f) * half;
          const float code    = std::min(half - 1.0f, std::max(-half, round_half_even(v)));
          c_want[i]           = static_cast<std::int8_t>(code);
          m_want[i]           = m_want[i] + code / half * s_want[c];
        }
      std::vector<float> m_got(m0), s_got(s.channels);
      std::vector<std::int8_t> c_got(n);
      quantize_delta_channels(a.data(), m_got.data(), s.rows, s.channels, bits, c_got.data(), s_got.data());
      INFO(bits << " bits");
      CHECK(c_got == c_want);
      CHECK(same_bytes(s_got, s_want));
      CHECK(same_bytes(m_got, m_want));
    }
  }
}
