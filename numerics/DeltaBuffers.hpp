#pragma once
// What crosses a pipeline cut under AQ-SGD and DirectQ, on a kernel set (numerics/CompressionKernels.hpp; the CPU's
// by default). AQ-SGD sends Q(a - m(ξ)) and both sides update m(ξ) += deQ; DirectQ sends Q(a). The first time an
// example is seen it goes in full precision and both sides store it (AQ-SGD Algorithm 1, lines 4–5; AC-SGD's warm-up
// epoch does the same for the whole first epoch). Buffers are fp32 here (AC-SGD keeps fp16 caches; ccsim's proxies
// are fp32). Q and deQ are the per-channel quantizer of numerics/ActivationQuantizer.hpp.

#include "numerics/ActivationQuantizer.hpp"
#include "numerics/CompressionKernels.hpp"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ccsim::numerics {

struct ChannelQuantized {
  int bits = 4;
  std::size_t rows = 0, channels = 0;
  std::vector<std::int8_t> codes; // rows x channels, row-major, signed (AC-SGD adds 2^(b-1) for the wire)
  std::vector<float> scales;      // per channel, fp16-representable
  std::uint64_t wire_bytes() const; // numerics/QuantizedSizes.hpp: channel_quantized_bytes
};

ChannelQuantized quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits,
                                   const CompressionKernels& kernels = cpu_kernels());
void dequantize_channels(const ChannelQuantized& q, float* out, const CompressionKernels& kernels = cpu_kernels());

/// DirectQ baseline (AQ-SGD §4.1): out = deQ(Q(x)) — what the next stage receives. Returns the bytes sent.
std::uint64_t direct_quantize(const float* x, std::size_t rows, std::size_t channels, int bits, float* out,
                              const CompressionKernels& kernels = cpu_kernels());

/// One forward message across a pipeline cut.
struct DeltaMessage {
  bool full = false;         // first sight of the example: the activation itself, fp32
  std::vector<float> values; // when full
  ChannelQuantized delta;    // otherwise: Q(a - m(ξ))
  std::uint64_t wire_bytes() const;
};

/// One side's per-example buffers m(ξ). The sender encodes, the receiver decodes; both keep identical buffers.
class DeltaBuffers {
public:
  DeltaBuffers(std::size_t rows, std::size_t channels, int bits, const CompressionKernels& kernels = cpu_kernels())
      : rows_(rows), channels_(channels), bits_(bits), kernels_(&kernels)
  {
  }

  /// Sender: the message for `example`, updating this side's m(ξ); counts the bytes sent.
  DeltaMessage encode(std::uint64_t example, const float* activation);
  /// Receiver: applies a message to this side's m(ξ) and returns the activation the next stage uses.
  const std::vector<float>& decode(std::uint64_t example, const DeltaMessage& message);
  /// Sender shortcut: encode and return what the receiver reconstructs (= this side's m(ξ) afterwards).
  std::vector<float> send(std::uint64_t example, const float* activation);

  /// m(ξ) for `example` (throws std::out_of_range if never seen).
  const std::vector<float>& buffer(std::uint64_t example) const { return m_.at(example); }
  bool has(std::uint64_t example) const { return m_.count(example) != 0; }
  std::uint64_t bytes_sent() const { return bytes_; }

private:
  std::size_t rows_, channels_;
  int bits_;
  const CompressionKernels* kernels_; // a static kernel set (cpu_kernels(), cuda_kernels()) or one that outlives this
  std::unordered_map<std::uint64_t, std::vector<float>> m_;
  std::uint64_t bytes_ = 0;
};

} // namespace ccsim::numerics
