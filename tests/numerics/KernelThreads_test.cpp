// The kernels' `threads` argument (what `ccsim bench-kernels --threads` uses): the work is split where a group, a
// packed byte or a row ends, so every thread count must give the one-thread bytes exactly. Thread
// counts that do not divide the work (3, 7) and sizes with odd tails are the cases that could go wrong.
#include "numerics/ActivationQuantizer.hpp"
#include "numerics/GroupQuantizer.hpp"
#include "numerics/Hadamard.hpp"
#include "numerics/OnebitPack.hpp"
#include "numerics/Sparsifiers.hpp"
#include "tests/support/CompressorRuns.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

using namespace ccsim::numerics;
using ccsim::test::normal_vector;

namespace {
bool same_bits(const std::vector<float>& a, const std::vector<float>& b)
{
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), 4 * a.size()) == 0;
}

const std::size_t THREAD_COUNTS[] = {2, 3, 7};
} // namespace

TEST_CASE("KernelThreads: group quantization and fused Hadamard quantization are the one-thread bytes", "[numerics]")
{
  const std::size_t n = 128 * 41 + 77; // 41 whole groups and an odd tail
  const auto x        = normal_vector(n, 21);
  for (int bits : {4, 8}) {
    std::vector<std::uint8_t> c1(packed_code_bytes(n, bits)), ct(c1.size());
    std::vector<float> s1((n + 127) / 128), st(s1.size());
    quantize_groups_packed(x.data(), n, bits, 128, Rounding::STOCHASTIC, 9, c1.data(), s1.data(), 1000);
    for (std::size_t t : THREAD_COUNTS) {
      quantize_groups_packed(x.data(), n, bits, 128, Rounding::STOCHASTIC, 9, ct.data(), st.data(), 1000, t);
      INFO("bits " << bits << ", threads " << t);
      CHECK(ct == c1);
      CHECK(same_bits(st, s1));
    }
  }
  const std::size_t h = 128 * 37; // the transform needs a multiple of the group
  std::vector<std::uint8_t> c1(h / 2), ct(h / 2);
  std::vector<float> s1(h / 128), st(h / 128);
  hadamard32_quantize_packed(x.data(), h, 4, 128, Rounding::STOCHASTIC, 9, c1.data(), s1.data(), 5);
  for (std::size_t t : THREAD_COUNTS) {
    hadamard32_quantize_packed(x.data(), h, 4, 128, Rounding::STOCHASTIC, 9, ct.data(), st.data(), 5, t);
    INFO("threads " << t);
    CHECK(ct == c1);
    CHECK(same_bits(st, s1));
  }
}

TEST_CASE("KernelThreads: sign unpacking and gather are the one-thread bits", "[numerics]")
{
  // (1-bit compression itself is one serial pass: numerics/OnebitPack.hpp.)
  const std::size_t n = 8 * 1001;
  const auto x        = normal_vector(n, 22);
  std::vector<std::uint8_t> b1(n / 8);
  pack_signs(x.data(), n, b1.data());
  std::vector<float> u1(n);
  unpack_signs(b1.data(), n, 0.5f, u1.data());
  const auto idx = random_k_indices(n, 0.1, 3, 0);
  std::vector<float> g1(idx.size());
  gather(x.data(), idx.data(), idx.size(), g1.data());
  for (std::size_t t : THREAD_COUNTS) {
    std::vector<float> ut(n), gt(idx.size());
    unpack_signs(b1.data(), n, 0.5f, ut.data(), t);
    gather(x.data(), idx.data(), idx.size(), gt.data(), t);
    INFO("threads " << t);
    CHECK(same_bits(ut, u1));
    CHECK(same_bits(gt, g1));
  }
}

TEST_CASE("KernelThreads: AQ-SGD delta quantization is the one-thread codes, scales and buffer", "[numerics]")
{
  const std::size_t rows = 37, channels = 1000; // 37 rows split unevenly over 2, 3 and 7 threads
  const auto a           = normal_vector(rows * channels, 23);
  const auto m0          = normal_vector(rows * channels, 24);
  std::vector<float> m1(m0), s1(channels);
  std::vector<std::int8_t> c1(rows * channels);
  quantize_delta_channels(a.data(), m1.data(), rows, channels, 4, c1.data(), s1.data());
  for (std::size_t t : THREAD_COUNTS) {
    std::vector<float> mt(m0), st(channels);
    std::vector<std::int8_t> ct(rows * channels);
    quantize_delta_channels(a.data(), mt.data(), rows, channels, 4, ct.data(), st.data(), t);
    INFO("threads " << t);
    CHECK(ct == c1);
    CHECK(same_bits(st, s1));
    CHECK(same_bits(mt, m1));
  }
}
