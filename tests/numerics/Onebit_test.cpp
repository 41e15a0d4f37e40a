// 1-bit packing, the error-feedback compressor and the compressed allreduce against hand-worked values.
#include "numerics/CompressedAllreduce.hpp"
#include "numerics/OnebitLayout.hpp"
#include "numerics/OnebitPack.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <random>

using namespace ccsim::numerics;

TEST_CASE("pack_signs: the first element lands in the most significant bit / 0 counts as +1", "[numerics]")
{
  const std::array<float, 8> x{-1, 2, 0, -0.5f, 3, -4, 5, 6}; // signs - + + - + - + + -> 0110 1011
  std::uint8_t byte = 0;
  pack_signs(x.data(), x.size(), &byte);
  CHECK(byte == 0b0110'1011);
}

TEST_CASE("OnebitLayout: padding to a multiple of W·lcm(W / 8)", "[numerics]")
{
  CHECK(OnebitLayout(100, 2).padded_numel() == 112);  // 2·lcm(2,8) = 16 -> 7·16
  CHECK(OnebitLayout(100, 3).padded_numel() == 144);  // 3·24 = 72 -> 2·72
  CHECK(OnebitLayout(64, 8).padded_numel() == 64);    // 8·8
  CHECK(OnebitLayout(65, 8).padded_numel() == 128);
  const OnebitLayout l(1000, 4);                      // 4·8 = 32 -> 1024
  CHECK(l.alltoall_bytes() == 128);                   // 1024 signs / 8
  CHECK(l.chunk_numel() == 256);
  // sent to others: 2 phases x 128 x 3/4 bytes + 2 x 3 fp32 scales
  CHECK(l.wire_bytes_per_worker() == 2 * 96 + 24);
}

TEST_CASE("compress_compensated: sent + new error equals input + old error exactly", "[numerics]")
{
  // A first call from a zero state leaves some error e0 = c0 - s0·sign(c0); the second call's identity is
  // unpack(bits, s1) + e1 == x + e0, to fp32 rounding (one subtraction each side).
  std::mt19937 rng(7);
  std::normal_distribution<float> d;
  std::vector<float> first(64), x(64), c(64, 0.0f), old_err(64), err(64);
  for (int i = 0; i < 64; ++i)
    first[i] = 0.1f * d(rng), x[i] = d(rng);
  std::vector<std::uint8_t> bits(8);
  const float s0 = compress_compensated(first.data(), c.data(), 0.0f, 64, bits.data());
  feedback_error(c.data(), s0, 64, old_err.data());
  const float s1 = compress_compensated(x.data(), c.data(), s0, 64, bits.data());
  feedback_error(c.data(), s1, 64, err.data());
  std::vector<float> sent(64);
  unpack_signs(bits.data(), 64, s1, sent.data());
  for (int i = 0; i < 64; ++i)
    CHECK(sent[i] + err[i] == Approx(x[i] + old_err[i]).margin(1e-6));
}

TEST_CASE("CompressedAllreduce: DeepSpeed's two-worker vector (notes §1.6) over two iterations", "[numerics]")
{
  // Hand-restated DeepSpeed compressed_allreduce in fp64 (docs/design/notes/reference-implementations.md §1.6).
  const std::vector<float> x0 = {0.5f, -0.25f, 0, 1, -1, 0.125f, 0.75f, -0.5f, 0.3f, -0.2f, 0.1f, -0.9f, 0.6f, 0, -0.05f, 0.4f};
  const std::vector<float> x1 = {-0.5f, 0.25f, 0.2f, 0.5f, -0.5f, -0.125f, 0.25f, 0.5f, -0.3f, -0.1f, 0.2f, 0.9f, -0.6f, 0.1f, 0.05f, -0.4f};
  CompressedAllreduce ar(16, 2);
  std::vector<float> a = x0, b = x1;
  std::vector<float*> bufs = {a.data(), b.data()};
  ar.run(bufs);
  CHECK(ar.worker_bits(0) == std::vector<std::uint8_t>{182, 173});
  CHECK(ar.worker_bits(1) == std::vector<std::uint8_t>{115, 54});
  CHECK(ar.worker_scale(0) == Approx(0.536954665).epsilon(1e-6));
  CHECK(ar.worker_scale(1) == Approx(0.407977098).epsilon(1e-6));
  CHECK(ar.server_scale(0) == Approx(0.337181563).epsilon(1e-6));
  CHECK(ar.server_scale(1) == Approx(0.293782667).epsilon(1e-6));
  const float A = 0.337181563f, B = 0.293782667f;
  const std::vector<float> expected = {A, -A, A, A, -A, A, A, -A, B, -B, B, -B, B, B, -B, B};
  for (int i = 0; i < 16; ++i) {
    CHECK(a[i] == Approx(expected[i]).epsilon(1e-6));
    CHECK(b[i] == a[i]);
  }
  const std::vector<double> server_error0 = {-0.272693, 0.272693, 0.135284, 0.135284, -0.135284, -0.272693, 0.135284, 0.272693};
  for (int i = 0; i < 8; ++i)
    CHECK(ar.server_error(0)[i] == Approx(server_error0[i]).margin(2e-6));

  a = x0, b = x1;
  ar.run(bufs);
  CHECK(ar.worker_bits(0) == std::vector<std::uint8_t>{210, 203});
  CHECK(ar.worker_bits(1) == std::vector<std::uint8_t>{87, 80});
  CHECK(ar.worker_scale(0) == Approx(0.738619296).epsilon(1e-6));
  CHECK(ar.worker_scale(1) == Approx(0.523266576).epsilon(1e-6));
  CHECK(ar.server_scale(0) == Approx(0.614683771).epsilon(1e-6));
  CHECK(ar.server_scale(1) == Approx(0.313514115).epsilon(1e-6));
}

TEST_CASE("CompressedAllreduce: N = 2 / 4 / 8 workers match a direct fp64 computation", "[numerics]")
{
  for (std::size_t W : {2u, 4u, 8u}) {
    const std::size_t n = 37; // padded to W·lcm(W, 8)
    std::mt19937 rng(static_cast<unsigned>(W));
    std::normal_distribution<double> d;
    std::vector<std::vector<float>> x(W, std::vector<float>(n));
    for (auto& v : x)
      for (auto& e : v)
        e = static_cast<float>(d(rng));
    // Direct computation: per-worker sign x RMS, average, per-chunk sign x RMS (errors start at zero).
    const OnebitLayout L(n, W);
    const std::size_t N = L.padded_numel(), C = L.chunk_numel();
    std::vector<double> avg(N, 0.0);
    for (std::size_t w = 0; w < W; ++w) {
      double ss = 0;
      for (std::size_t i = 0; i < n; ++i)
        ss += double(x[w][i]) * x[w][i];
      const double s = std::sqrt(ss / N);
      for (std::size_t i = 0; i < N; ++i)
        avg[i] += (i < n && x[w][i] < 0 ? -s : s) / W; // padding zeros count as +1
    }
    std::vector<double> expect(N);
    for (std::size_t r = 0; r < W; ++r) {
      double ss = 0;
      for (std::size_t i = r * C; i < (r + 1) * C; ++i)
        ss += avg[i] * avg[i];
      const double s = std::sqrt(ss / C);
      for (std::size_t i = r * C; i < (r + 1) * C; ++i)
        expect[i] = avg[i] < 0 ? -s : s;
    }
    CompressedAllreduce ar(n, W);
    std::vector<float*> bufs;
    for (auto& v : x)
      bufs.push_back(v.data());
    ar.run(bufs);
    INFO("W = " << W);
    for (std::size_t w = 0; w < W; ++w)
      for (std::size_t i = 0; i < n; ++i)
        CHECK(x[w][i] == Approx(expect[i]).epsilon(1e-5));
    CHECK(ar.bytes_sent_per_worker() == L.wire_bytes_per_worker());
  }
}
