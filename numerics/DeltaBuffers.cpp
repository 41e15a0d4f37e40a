// AQ-SGD's per-example buffers and DirectQ on a kernel set: the bookkeeping around the per-channel kernels
// (numerics/ActivationQuantizer.hpp), which run wherever the kernel set runs them.
#include "numerics/DeltaBuffers.hpp"

#include "numerics/QuantizedSizes.hpp"

#include <vector>

namespace ccsim::numerics {

std::uint64_t ChannelQuantized::wire_bytes() const
{
  return channel_quantized_bytes(rows, channels, bits);
}

ChannelQuantized quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits,
                                   const CompressionKernels& kernels)
{
  ChannelQuantized q;
  q.bits = bits, q.rows = rows, q.channels = channels;
  q.codes.resize(rows * channels);
  q.scales.resize(channels);
  kernels.quantize_channels(x, rows, channels, bits, q.codes.data(), q.scales.data());
  return q;
}

void dequantize_channels(const ChannelQuantized& q, float* out, const CompressionKernels& kernels)
{
  kernels.dequantize_channels(q.codes.data(), q.scales.data(), q.rows, q.channels, q.bits, out);
}

std::uint64_t direct_quantize(const float* x, std::size_t rows, std::size_t channels, int bits, float* out,
                              const CompressionKernels& kernels)
{
  const auto q = quantize_channels(x, rows, channels, bits, kernels);
  dequantize_channels(q, out, kernels);
  return q.wire_bytes();
}

std::uint64_t DeltaMessage::wire_bytes() const
{
  return full ? 4ull * values.size() : delta.wire_bytes();
}

DeltaMessage DeltaBuffers::encode(std::uint64_t example, const float* a)
{
  const std::size_t n = rows_ * channels_;
  DeltaMessage msg;
  auto it = m_.find(example);
  if (it == m_.end()) {
    // Algorithm 1, lines 4–5: the first time ξ is sampled, send a(ξ) uncompressed; both sides store it.
    msg.full   = true;
    msg.values.assign(a, a + n);
    m_[example] = msg.values;
  } else {
    // Lines 7–9: send Q(a - m(ξ)); m(ξ) <- m(ξ) + deQ(Q(a - m(ξ))) on both sides.
    ChannelQuantized& q = msg.delta;
    q.bits = bits_, q.rows = rows_, q.channels = channels_;
    q.codes.resize(n);
    q.scales.resize(channels_);
    kernels_->quantize_delta_channels(a, it->second.data(), rows_, channels_, bits_, q.codes.data(), q.scales.data());
  }
  bytes_ += msg.wire_bytes();
  return msg;
}

const std::vector<float>& DeltaBuffers::decode(std::uint64_t example, const DeltaMessage& message)
{
  if (message.full)
    return m_[example] = message.values;
  std::vector<float>& m = m_.at(example);
  // m(ξ) += deQ: the same per-element expression m + code / 2^(b-1) · scale as the sender's update.
  std::vector<float> delta(m.size());
  dequantize_channels(message.delta, delta.data(), *kernels_);
  for (std::size_t i = 0; i < m.size(); ++i)
    m[i] = m[i] + delta[i];
  return m;
}

std::vector<float> DeltaBuffers::send(std::uint64_t example, const float* activation)
{
  encode(example, activation);
  return m_.at(example);
}

} // namespace ccsim::numerics
