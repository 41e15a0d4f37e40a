#pragma once
// AQ-SGD's activation compression (AQ-SGD §3, Algorithm 1; AC-SGD compress/fixpoint.py and delta_modules.py,
// notes §8): per-channel scale = max|x| over the micro-batch's rows (fp16-rounded), codes
// round(x / scale · 2^(b-1)) clipped to [-2^(b-1), 2^(b-1)-1]. AQ-SGD sends Q(a - m(ξ)) and both sides update
// m(ξ) += deQ; DirectQ sends Q(a). The first time an example is seen it goes in full precision.

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ccsim::numerics {

struct ChannelQuantized {
  int bits = 4;
  std::size_t rows = 0, channels = 0;
  std::vector<std::int8_t> codes; // rows x channels, row-major
  std::vector<float> scales;      // per channel
  std::uint64_t wire_bytes() const; // numerics/QuantizedSizes.hpp: channel_quantized_bytes
};

ChannelQuantized quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits);
void dequantize_channels(const ChannelQuantized& q, float* out);

/// One side's per-example buffers m(ξ) (sender and receiver each hold one; they stay identical).
class DeltaBuffers {
public:
  DeltaBuffers(std::size_t rows, std::size_t channels, int bits) : rows_(rows), channels_(channels), bits_(bits) {}

  /// Sender: returns what the receiver reconstructs, and counts the bytes sent. First sight: full precision.
  std::vector<float> send(std::uint64_t example, const float* activation);
  /// Receiver mirror of the last message for `example` (what m(ξ) holds after it).
  const std::vector<float>& buffer(std::uint64_t example) const { return m_.at(example); }
  std::uint64_t bytes_sent() const { return bytes_; }

private:
  std::size_t rows_, channels_;
  int bits_;
  std::unordered_map<std::uint64_t, std::vector<float>> m_;
  std::uint64_t bytes_ = 0;
};

} // namespace ccsim::numerics
