// CompressedAllreduce against an independent fp64 restatement of DeepSpeed's compressed_allreduce
// (docs/design/notes/reference-implementations.md §1.2), with the error state carried over several calls.
#include "numerics/CompressedAllreduce.hpp"
#include "numerics/OnebitPack.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

using namespace ccsim::numerics;

namespace {
/// fp64 reference written from the notes, not from the implementation: padding with zeros, worker error feedback
/// with RMS scale over the padded length, per-chunk server average + server error feedback, concatenation.
struct Reference {
  std::size_t W, n, N, C;
  std::vector<std::vector<double>> we, se;
  Reference(std::size_t w, std::size_t numel) : W(w), n(numel)
  {
    std::size_t lcm = 8;
    while (lcm % w != 0)
      lcm += 8;
    const std::size_t unit = w * lcm;
    N  = (n + unit - 1) / unit * unit;
    C  = N / W;
    we.assign(W, std::vector<double>(N, 0.0));
    se.assign(W, std::vector<double>(C, 0.0));
  }
  static double sgn(double v) { return v >= 0 ? 1.0 : -1.0; }
  std::vector<double> run(const std::vector<std::vector<float>>& x)
  {
    std::vector<double> avg(N, 0.0);
    for (std::size_t w = 0; w < W; ++w) {
      std::vector<double> p(N, 0.0);
      double ss = 0;
      for (std::size_t i = 0; i < N; ++i) {
        p[i] = (i < n ? x[w][i] : 0.0) + we[w][i];
        ss += p[i] * p[i];
      }
      const double s = std::sqrt(ss / static_cast<double>(N));
      for (std::size_t i = 0; i < N; ++i) {
        we[w][i] = p[i] - s * sgn(p[i]);
        avg[i] += s * sgn(p[i]) / static_cast<double>(W);
      }
    }
    std::vector<double> out(N);
    for (std::size_t r = 0; r < W; ++r) {
      double ss = 0;
      std::vector<double> c(C);
      for (std::size_t i = 0; i < C; ++i) {
        c[i] = avg[r * C + i] + se[r][i];
        ss += c[i] * c[i];
      }
      const double s = std::sqrt(ss / static_cast<double>(C));
      for (std::size_t i = 0; i < C; ++i) {
        se[r][i]       = c[i] - s * sgn(c[i]);
        out[r * C + i] = s * sgn(c[i]);
      }
    }
    return out;
  }
};
} // namespace

TEST_CASE("CompressedAllreduce: N = 2 / 4 / 8 workers match the fp64 restatement over 3 calls with error feedback",
          "[numerics]")
{
  // Inputs as in DeepSpeed's test_nccl_backend.py: uniform(-0.5, 0.5) + 0.01·rank, fresh every call.
  // fp32 vs fp64 agree to ~1e-6 relative unless a value sits within ~1e-6 of zero and flips sign; with 300 values
  // and these seeds none does, so the tolerance is 1e-5 relative on every element.
  for (std::size_t W : {2u, 4u, 8u}) {
    const std::size_t n = 300;
    Reference ref(W, n);
    CompressedAllreduce ar(n, W);
    REQUIRE(ar.layout().padded_numel() == ref.N);
    std::mt19937 rng(static_cast<unsigned>(100 + W));
    std::uniform_real_distribution<float> u(-0.5f, 0.5f);
    for (int call = 0; call < 3; ++call) {
      std::vector<std::vector<float>> x(W, std::vector<float>(n));
      for (std::size_t w = 0; w < W; ++w)
        for (auto& v : x[w])
          v = u(rng) + 0.01f * static_cast<float>(w);
      const auto expect = ref.run(x);
      std::vector<float*> bufs;
      for (auto& v : x)
        bufs.push_back(v.data());
      ar.run(bufs);
      INFO("W = " << W << ", call " << call);
      for (std::size_t w = 0; w < W; ++w)
        for (std::size_t i = 0; i < n; ++i)
          REQUIRE(x[w][i] == Approx(expect[i]).epsilon(1e-5));
      // The persistent error state matches too, padded tail included (notes §1.4).
      for (std::size_t i = 0; i < ref.N; ++i)
        REQUIRE(ar.worker_error(W - 1)[i] == Approx(ref.we[W - 1][i]).margin(1e-5));
      for (std::size_t i = 0; i < ref.C; ++i)
        REQUIRE(ar.server_error(0)[i] == Approx(ref.se[0][i]).margin(1e-5));
    }
  }
}

TEST_CASE("CompressedAllreduce: every worker's sent signs plus its new error equal its compensated input",
          "[numerics]")
{
  // With zero initial error, worker w's compensated input is its padded buffer x_w (padding = 0), so
  // unpack(bits_w, scale_w) + worker_error_w == x_w to fp32 rounding (1e-6).
  const std::size_t W = 4, n = 100;
  std::mt19937 rng(3);
  std::normal_distribution<float> d;
  std::vector<std::vector<float>> x(W, std::vector<float>(n)), original;
  for (auto& v : x)
    for (auto& e : v)
      e = d(rng);
  original = x;
  CompressedAllreduce ar(n, W);
  std::vector<float*> bufs;
  for (auto& v : x)
    bufs.push_back(v.data());
  ar.run(bufs);
  const std::size_t N = ar.layout().padded_numel();
  std::vector<float> sent(N);
  for (std::size_t w = 0; w < W; ++w) {
    unpack_signs(ar.worker_bits(w).data(), N, ar.worker_scale(w), sent.data());
    for (std::size_t i = 0; i < N; ++i)
      CHECK(sent[i] + ar.worker_error(w)[i] == Approx(i < n ? original[w][i] : 0.0f).margin(1e-6));
  }
}

TEST_CASE("CompressedAllreduce: bytes sent per worker / counted from the packed buffers", "[numerics]")
{
  // W = 4, numel 1000 -> padded 1024: phase 1 sends 3 of its 4 sign chunks (3·32 bytes) and its scale to 3 peers
  // (12 bytes); phase 2 sends its 32-byte server chunk and scale to 3 peers (96 + 12). Total 216 per call.
  CompressedAllreduce ar(1000, 4);
  std::vector<std::vector<float>> x(4, std::vector<float>(1000, 1.0f));
  std::vector<float*> bufs;
  for (auto& v : x)
    bufs.push_back(v.data());
  ar.run(bufs);
  CHECK(ar.bytes_sent_per_worker() == 216);
  ar.run(bufs);
  CHECK(ar.bytes_sent_per_worker() == 432);
  CHECK(ar.layout().wire_bytes_per_worker() == 216);
}

TEST_CASE("CompressedAllreduce: the padding holds zeros or the previous output, and the second call shows which",
          "[numerics]")
{
  // W = 2, n = 15: padded to 16 = 2·lcm(2, 8), one padding slot (index 15, the last element of server 1's chunk).
  // Both workers send x = ±1 (same signs), twice; s1 = sqrt(15/16) = 0.96824584.
  // Call 1 (tail 0 in both modes): worker scale s1 (RMS over 16 slots), sign(0) = +; worker error ±(1 - s1) on the
  //   real slots, 0 - s1 = -s1 on the padding. Every server chunk is ±s1 exactly: output ±s1, padding output +s1.
  // Call 2, compensated input: real slots ±(1 + 1 - s1) = ±(2 - s1); the padding slot
  //   ZEROS:           0 - s1 = -s1 -> scale sqrt((15(2 - s1)² + s1²)/16) = 1.02789986, padding sign -
  //   PREVIOUS_OUTPUT: s1 - s1 = 0  -> scale s1·(2 - s1)                    = 0.99899167, padding sign +
  // and the servers (errors ~0 after call 1, all magnitudes equal) pass the worker scale through: output ±scale.
  // (python3, float64.) fp32: 1e-6 relative.
  struct Case {
    PaddingTail tail;
    double magnitude;
    int padding_bit; // 1 = non-negative (OnebitPack: 0 -> +1)
  };
  for (const Case c : {Case{PaddingTail::ZEROS, 1.0278998555, 0}, Case{PaddingTail::PREVIOUS_OUTPUT, 0.9989916731, 1}}) {
    const std::size_t W = 2, n = 15;
    CompressedAllreduce ar(n, W, cpu_kernels(), c.tail);
    REQUIRE(ar.layout().padded_numel() == 16);
    std::vector<float> sign(n);
    for (std::size_t i = 0; i < n; ++i)
      sign[i] = i % 3 == 0 ? -1.0f : 1.0f;
    std::vector<std::vector<float>> x;
    for (int call = 0; call < 2; ++call) {
      x.assign(W, sign);
      std::vector<float*> bufs = {x[0].data(), x[1].data()};
      ar.run(bufs);
    }
    INFO("tail " << (c.tail == PaddingTail::ZEROS ? "ZEROS" : "PREVIOUS_OUTPUT"));
    CHECK(ar.worker_scale(0) == Approx(c.magnitude).epsilon(1e-6));
    for (std::size_t w = 0; w < W; ++w)
      for (std::size_t i = 0; i < n; ++i)
        CHECK(x[w][i] == Approx(sign[i] * c.magnitude).epsilon(1e-6));
    // Server 1's chunk is slots 8..15, one byte, first slot in the MSB: the padding slot is its least significant bit.
    CHECK((ar.server_bits(1)[0] & 1) == c.padding_bit);
  }
}
