// ActivationQuantizer: AQ-SGD's per-channel quantizer, the sender/receiver delta buffers and DirectQ.
#include "numerics/ActivationQuantizer.hpp"
#include "numerics/DeltaBuffers.hpp"
#include "numerics/QuantizedSizes.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

using namespace ccsim::numerics;

TEST_CASE("round_to_fp16: 11 significant bits / ties to even / subnormals and overflow", "[numerics]")
{
  // 0.1 = 1.6·2^-4; 1.6·1024 = 1638.4 -> 1638: 1638/1024·2^-4 = 0.0999755859375.
  CHECK(round_to_fp16(0.1f) == 0.0999755859375f);
  CHECK(round_to_fp16(2049.0f) == 2048.0f);  // tie between 2048 (even) and 2050
  CHECK(round_to_fp16(2051.0f) == 2052.0f);  // tie between 2050 (odd) and 2052
  CHECK(round_to_fp16(1e-7f) == std::ldexp(2.0f, -24)); // subnormal step 2^-24: 1e-7/2^-24 = 1.68 -> 2
  CHECK(std::isinf(round_to_fp16(70000.0f)));
}

TEST_CASE("quantize_channels: hand-worked 2x3 activation at 3 bits", "[numerics]")
{
  // Channels (columns) maxima: 1, 0.5, 4 (all fp16-exact). 3 bits: ×2^2 = 4, codes clip to [-4, 3].
  // v = x/(max+1e-6)·4: col0 [1, -0.25] -> [3.999996 -> 4 -> clip 3, -0.999999 -> -1];
  // col1 [0.5, 0.3] -> [3.999992 -> 4 -> 3, 2.399995 -> 2]; col2 [-4, 2.5] -> [-3.999999 -> -4, 2.4999994 -> 2].
  const std::vector<float> x = {1, 0.5f, -4, -0.25f, 0.3f, 2.5f};
  const auto q = quantize_channels(x.data(), 2, 3, 3);
  CHECK(q.scales == std::vector<float>{1, 0.5f, 4});
  CHECK(q.codes == std::vector<std::int8_t>{3, 3, -4, -1, 2, 2});
  std::vector<float> back(6);
  dequantize_channels(q, back.data()); // code/4·scale
  CHECK(back == std::vector<float>{0.75f, 0.375f, -4, -0.25f, 0.25f, 2});
  CHECK(q.wire_bytes() == 3 + 6); // 6 codes x 3 bits = 18 bits -> 3 bytes, 3 fp16 scales
  CHECK(channel_quantized_bytes(2, 3, 3) == 9);
}

TEST_CASE("DeltaBuffers: the receiver reconstructs exactly what the sender holds / epoch after epoch", "[numerics]")
{
  // Sender and receiver are separate objects; only messages pass between them. First sight: fp32, 4·n bytes;
  // afterwards Q(a - m): channel_quantized_bytes. After every message both m(ξ) are bit-identical.
  const std::size_t rows = 4, channels = 16, n = rows * channels;
  DeltaBuffers sender(rows, channels, 2), receiver(rows, channels, 2);
  std::mt19937 rng(3);
  std::normal_distribution<float> d;
  std::vector<std::vector<float>> act(3, std::vector<float>(n));
  for (auto& a : act)
    for (auto& v : a)
      v = d(rng);
  std::uint64_t expect_bytes = 0;
  for (int epoch = 0; epoch < 4; ++epoch)
    for (std::uint64_t ex = 0; ex < 3; ++ex) {
      for (auto& v : act[ex])
        v += 0.05f * d(rng); // the activation drifts as the model trains
      const auto msg = sender.encode(100 + ex, act[ex].data());
      CHECK(msg.full == (epoch == 0));
      expect_bytes += epoch == 0 ? 4 * n : channel_quantized_bytes(rows, channels, 2);
      const auto& got = receiver.decode(100 + ex, msg);
      REQUIRE(got == sender.buffer(100 + ex));
      if (epoch == 0)
        REQUIRE(got == act[ex]); // Algorithm 1 lines 4–5: the first message is exact
    }
  CHECK(sender.bytes_sent() == expect_bytes);
}

TEST_CASE("DeltaBuffers: repeated sends of a fixed activation contract the error by 2^(b-1) per send", "[numerics]")
{
  // With a fixed, m moves by deQ(Q(a - m)): per channel the step is scale/2^(b-1) and the residual is at most
  // half a step, except the positive maximum, clipped from 2^(b-1) to 2^(b-1)-1: a full step. So
  // max|a - m'| <= max|a - m|/2^(b-1) (times 1 + 2^-11 for the fp16 scale, plus fp32 slack).
  const std::size_t rows = 8, channels = 8, n = rows * channels;
  std::mt19937 rng(5);
  std::normal_distribution<float> d;
  std::vector<float> a0(n), a(n);
  for (std::size_t i = 0; i < n; ++i)
    a0[i] = d(rng), a[i] = a0[i] + d(rng); // m starts at a0, the target is a
  DeltaBuffers buf(rows, channels, 4);
  buf.send(1, a0.data());
  double prev = 0;
  for (std::size_t i = 0; i < n; ++i)
    prev = std::max(prev, double(std::fabs(a[i] - a0[i])));
  for (int k = 0; k < 4; ++k) {
    const auto m = buf.send(1, a.data());
    double now = 0;
    for (std::size_t i = 0; i < n; ++i)
      now = std::max(now, double(std::fabs(a[i] - m[i])));
    CHECK(now <= prev / 8 * (1 + 1.0 / 2048) + 1e-6);
    prev = now;
  }
}

TEST_CASE("quantize_delta_channels: equals quantize_channels of the difference plus the buffer update", "[numerics]")
{
  const std::size_t rows = 5, channels = 12, n = rows * channels;
  std::mt19937 rng(7);
  std::normal_distribution<float> d;
  std::vector<float> a(n), m(n), delta(n);
  for (std::size_t i = 0; i < n; ++i)
    a[i] = d(rng), m[i] = d(rng), delta[i] = a[i] - m[i];
  const auto q = quantize_channels(delta.data(), rows, channels, 4);
  std::vector<float> dq(n);
  dequantize_channels(q, dq.data());
  std::vector<std::int8_t> codes(n);
  std::vector<float> scales(channels), m2 = m;
  quantize_delta_channels(a.data(), m2.data(), rows, channels, 4, codes.data(), scales.data());
  CHECK(codes == q.codes);
  CHECK(scales == q.scales);
  for (std::size_t i = 0; i < n; ++i)
    REQUIRE(m2[i] == m[i] + dq[i]);
}

TEST_CASE("DeltaBuffers vs DirectQ: quantizing deltas of slowly changing activations is far more accurate",
          "[numerics]")
{
  // AQ-SGD §3.1: once m(ξ) is close, the delta is small, so its quantization error is small; DirectQ's error
  // scales with the activation itself. Activation ~N(0,1), drift 0.01 per epoch, 2 bits: DirectQ's error is
  // ~scale/2 ~ 1; AQ's is ~drift-sized. Require a 10x gap after 5 epochs.
  const std::size_t rows = 16, channels = 32, n = rows * channels;
  std::mt19937 rng(9);
  std::normal_distribution<float> d;
  std::vector<float> act(n);
  for (auto& v : act)
    v = d(rng);
  DeltaBuffers buf(rows, channels, 2);
  std::vector<float> aq, direct(n);
  for (int epoch = 0; epoch < 5; ++epoch) {
    for (auto& v : act)
      v += 0.01f * d(rng);
    aq = buf.send(0, act.data());
  }
  const auto bytes = direct_quantize(act.data(), rows, channels, 2, direct.data());
  CHECK(bytes == channel_quantized_bytes(rows, channels, 2));
  double e_aq = 0, e_direct = 0;
  for (std::size_t i = 0; i < n; ++i) {
    e_aq += (aq[i] - act[i]) * double(aq[i] - act[i]);
    e_direct += (direct[i] - act[i]) * double(direct[i] - act[i]);
  }
  CHECK(10 * std::sqrt(e_aq) < std::sqrt(e_direct));
}
