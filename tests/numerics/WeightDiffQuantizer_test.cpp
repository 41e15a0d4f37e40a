// WeightDiffQuantizer: SDP4Bit's Counterexample 4.1 (quantized weights stick, quantized differences converge) and
// the qWD message mechanics.
#include "numerics/GroupQuantizer.hpp"
#include "numerics/Rounding.hpp"
#include "numerics/WeightDiffQuantizer.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

using namespace ccsim::numerics;

namespace {
/// SDP4Bit §4.1's nearest ternary quantizer: s = max|w|, q(w) = round(w/s)·s with round to {-1, 0, 1}. That is the
/// symmetric group quantizer at 2 bits (qmax = 2^1 - 1 = 1, scale = max|w|) with one group and nearest rounding.
std::vector<float> ternary(const std::vector<float>& w)
{
  const auto q = quantize_groups(w.data(), w.size(), 2, w.size(), Rounding::NEAREST);
  std::vector<float> out(w.size());
  dequantize_groups(q, out.data());
  return out;
}

/// g(w) = (4·w1, 0) or (0, 4·w2) with probability 1/2 each (E[g] = ∇||w||² = 2w).
std::vector<float> gradient(const std::vector<float>& w, bool first)
{
  return first ? std::vector<float>{4 * w[0], 0} : std::vector<float>{0, 4 * w[1]};
}
} // namespace

TEST_CASE("WeightDiffQuantizer: SDP4Bit Counterexample 4.1 / quantized weights stick at (1/-1) / qWD converges",
          "[numerics]")
{
  // η = 0.1 < 0.125. qW: w <- q(w - η·g(w)); from (1,-1) the pre-quantization weights are (0.6,-1) or (1,-0.6),
  // and round(0.6) = 1, so q gives back (1,-1) forever (§4.1). qWD (Algorithm 4): w <- w - η·g(w̃),
  // w̃ <- w̃ + q(w - w̃). Here w - w̃ has one non-zero entry per step, which the ternary quantizer sends exactly,
  // so w̃ follows SGD: each coordinate shrinks by (1 - 4η) = 0.6 when drawn; after 400 steps both were drawn
  // about 200 times: |w̃| ~ 0.6^200 ≈ 1e-44. Bound checked: 1e-6.
  const float eta = 0.1f;
  std::mt19937 rng(4);
  std::bernoulli_distribution coin(0.5);
  std::vector<float> qw = {1, -1};                 // qW: only the quantized weights exist
  std::vector<float> w = {1, -1}, wt = {1, -1};    // qWD: main weights and the compressed copy
  std::vector<float> sgd = {1, -1};                // uncompressed SGD
  for (int t = 0; t < 400; ++t) {
    const bool first = coin(rng);
    const auto g_qw  = gradient(qw, first);
    qw               = ternary({qw[0] - eta * g_qw[0], qw[1] - eta * g_qw[1]});
    REQUIRE(qw == std::vector<float>{1, -1});

    const auto g = gradient(wt, first);
    w            = {w[0] - eta * g[0], w[1] - eta * g[1]};
    const auto d = ternary({w[0] - wt[0], w[1] - wt[1]});
    wt           = {wt[0] + d[0], wt[1] + d[1]};

    const auto gs = gradient(sgd, first);
    sgd           = {sgd[0] - eta * gs[0], sgd[1] - eta * gs[1]};
  }
  CHECK(std::hypot(wt[0], wt[1]) < 1e-6);
  CHECK(std::hypot(sgd[0], sgd[1]) < 1e-6);
  CHECK(std::hypot(qw[0], qw[1]) == Approx(std::sqrt(2.0)));
}

TEST_CASE("WeightDiffQuantizer: int4 qWD on the counterexample also converges (fp32 copy / nearest)", "[numerics]")
{
  // Same problem through the WeightDiffQuantizer class: one non-zero difference per step is its group's max, so
  // it is sent exactly (code ±7 · max/7), and w̃ follows SGD as above.
  WeightDiffConfig c;
  c.group     = 2;
  c.rounding  = Rounding::NEAREST;
  c.bf16_copy = false;
  const WeightDiffQuantizer q(c);
  std::mt19937 rng(4);
  std::bernoulli_distribution coin(0.5);
  std::vector<float> w = {1, -1}, wt = {1, -1};
  for (std::uint64_t t = 0; t < 400; ++t) {
    const auto g = gradient(wt, coin(rng));
    w            = {w[0] - 0.1f * g[0], w[1] - 0.1f * g[1]};
    q.apply(q.encode(w.data(), wt.data(), 2, t), wt.data());
  }
  CHECK(std::hypot(wt[0], wt[1]) < 1e-6);
}

TEST_CASE("WeightDiffQuantizer: every rank applying the message holds the same bf16 copy", "[numerics]")
{
  // Sender and two receivers start from the same bf16 copy; after each message all three are bit-identical and
  // bf16-representable (round_to_bf16(v) == v). Message size: 4096 int4 codes + 2 fp32 scales = 2056 bytes.
  const std::size_t n = 4096;
  std::mt19937 rng(6);
  std::normal_distribution<float> d;
  std::vector<float> w(n);
  for (auto& v : w)
    v = round_to_bf16(d(rng));
  std::vector<float> owner = w, peer1 = w, peer2 = w;
  const WeightDiffQuantizer q({}, 12);
  for (std::uint64_t step = 0; step < 3; ++step) {
    for (auto& v : w)
      v -= 0.01f * d(rng);
    const auto msg = q.encode(w.data(), owner.data(), n, step);
    CHECK(msg.wire_bytes() == 2056);
    q.apply(msg, owner.data());
    q.apply(msg, peer1.data());
    q.apply(msg, peer2.data());
    CHECK(owner == peer1);
    CHECK(owner == peer2);
  }
  for (float v : owner)
    REQUIRE(round_to_bf16(v) == v);
  // The copy tracks the weights: each diff is ~0.01-0.03, quantized with step max|diff|/7 per 2048 values, and
  // bf16 rounding of values ~1 adds up to 2^-9; the copy stays within 0.05 of w everywhere.
  for (std::size_t i = 0; i < n; ++i)
    REQUIRE(std::fabs(owner[i] - w[i]) < 0.05f);
}

TEST_CASE("quantize_weights: qW returns the receiver's dequantized weights", "[numerics]")
{
  // The int4 vector as weights: deQ(Q(w)) = code · max/7 with codes [7,-4,2,-7,0,1,0,4] (see
  // GroupQuantizer_test for the derivation).
  const std::vector<float> w = {1, -0.5f, 0.26f, -1, 0, 0.1f, -0.06f, 0.5f};
  std::vector<float> out(8);
  quantize_weights(w.data(), 8, 4, 8, Rounding::NEAREST, 0, out.data());
  const double expect[] = {1, -4.0 / 7, 2.0 / 7, -1, 0, 1.0 / 7, 0, 4.0 / 7};
  for (int i = 0; i < 8; ++i)
    CHECK(out[i] == Approx(expect[i]).margin(1e-7));
}
