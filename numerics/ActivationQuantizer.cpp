// Per-channel activation quantizer and per-example delta buffers.
#include "numerics/ActivationQuantizer.hpp"

#include "numerics/QuantizedSizes.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::numerics {

namespace {
/// fixpoint.py rounds the scale to fp16 before using it; emulate the 10-bit mantissa.
float round_to_half(float v)
{
  if (v == 0 || !std::isfinite(v))
    return v;
  int e;
  const float m = std::frexp(v, &e);
  return std::ldexp(std::round(m * 2048.0f) / 2048.0f, e);
}
} // namespace

std::uint64_t ChannelQuantized::wire_bytes() const
{
  return channel_quantized_bytes(rows, channels, bits);
}

ChannelQuantized quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits)
{
  ChannelQuantized q;
  q.bits = bits, q.rows = rows, q.channels = channels;
  q.codes.resize(rows * channels);
  q.scales.assign(channels, 0.0f);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < channels; ++c)
      q.scales[c] = std::max(q.scales[c], std::fabs(x[r * channels + c]));
  for (auto& s : q.scales)
    s = round_to_half(s);
  const float half = static_cast<float>(1 << (bits - 1));
  std::vector<float> mult(channels);
  for (std::size_t c = 0; c < channels; ++c)
    mult[c] = half / (q.scales[c] + 1e-6f);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x + r * channels;
    std::int8_t* out = q.codes.data() + r * channels;
    for (std::size_t c = 0; c < channels; ++c) {
      // torch.round is half-to-even: adding and removing 1.5·2^23 rounds that way in the default FP mode.
      const float v = (row[c] * mult[c] + 12582912.0f) - 12582912.0f;
      out[c]        = static_cast<std::int8_t>(std::clamp(v, -half, half - 1));
    }
  }
  return q;
}

void dequantize_channels(const ChannelQuantized& q, float* out)
{
  const float half = static_cast<float>(1 << (q.bits - 1));
  for (std::size_t r = 0; r < q.rows; ++r)
    for (std::size_t c = 0; c < q.channels; ++c)
      out[r * q.channels + c] = static_cast<float>(q.codes[r * q.channels + c]) / half * q.scales[c];
}

std::vector<float> DeltaBuffers::send(std::uint64_t example, const float* a)
{
  const std::size_t n = rows_ * channels_;
  auto it             = m_.find(example);
  if (it == m_.end()) {
    // Algorithm 1, lines 4-5: the first time ξ is sampled, send a(ξ) uncompressed; both sides store it.
    bytes_ += 4ull * n;
    return m_[example] = std::vector<float>(a, a + n);
  }
  std::vector<float> delta(n);
  for (std::size_t i = 0; i < n; ++i)
    delta[i] = a[i] - it->second[i];
  const auto q = quantize_channels(delta.data(), rows_, channels_, bits_);
  bytes_ += q.wire_bytes();
  std::vector<float> dq(n);
  dequantize_channels(q, dq.data());
  for (std::size_t i = 0; i < n; ++i)
    it->second[i] += dq[i]; // m(ξ) <- m(ξ) + deQ(Q(a - m(ξ))), on both sides
  return it->second;
}

} // namespace ccsim::numerics
