#pragma once
// AQ-SGD's activation compression (AQ-SGD §3.1, Algorithm 1; AC-SGD compress/fixpoint.py and delta_modules.py,
// notes/reference-implementations.md §8). Activations are [rows = micro_batch·seq, channels = hidden], row-major:
//   scale_c = fp16(max_r |x[r][c]|)            one scale per hidden channel (fixpoint.py scale_dims=(0,1)),
//                                              rounded to fp16 BEFORE use (notes §8.1, §14.8);
//   code    = clamp(round_half_even(x / (scale_c + 1e-6) · 2^(b-1)), -2^(b-1), 2^(b-1) - 1)   (torch.round);
//   deQ     = code / 2^(b-1) · scale_c          (the 1e-6 is not re-added).
// Wire: codes as a dense b-bit stream plus one fp16 scale per channel (numerics/QuantizedSizes.hpp).
// AQ-SGD sends Q(a - m(ξ)) and both sides update m(ξ) += deQ; DirectQ sends Q(a). The first time an example is
// seen it goes in full precision and both sides store it (Algorithm 1, lines 4–5; AC-SGD's warm-up epoch does the
// same for the whole first epoch). Buffers are fp32 here (AC-SGD keeps fp16 caches; ccsim's proxies are fp32).

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

/// fp32 -> fp16 -> fp32 with round-half-to-even (subnormals kept, overflow to inf), as torch's .half().
float round_to_fp16(float v);

ChannelQuantized quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits,
                                   const CompressionKernels& kernels = cpu_kernels());
void dequantize_channels(const ChannelQuantized& q, float* out, const CompressionKernels& kernels = cpu_kernels());

/// The raw-pointer kernels behind them (the contract of numerics/CompressionKernels.hpp): codes has rows·channels
/// entries, scales `channels`.
void quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits, std::int8_t* codes,
                       float* scales);
void dequantize_channels(const std::int8_t* codes, const float* scales, std::size_t rows, std::size_t channels,
                         int bits, float* out);

/// DirectQ baseline (AQ-SGD §4.1): out = deQ(Q(x)) — what the next stage receives. Returns the bytes sent.
std::uint64_t direct_quantize(const float* x, std::size_t rows, std::size_t channels, int bits, float* out,
                              const CompressionKernels& kernels = cpu_kernels());

/// The fused sender kernel of AQ-SGD (what bench-kernels times as aq_delta_quant and the CUDA twin mirrors):
///   delta = a - m;  scales = per-channel fp16(max|delta|);  codes = Q(delta);  m += deQ(codes).
/// codes has rows·channels entries, scales `channels`. `threads` > 1 splits both passes by rows (maxima merged with
/// the same exact comparison; each row's codes depend only on the scales: bit-identical to one thread).
void quantize_delta_channels(const float* a, float* m, std::size_t rows, std::size_t channels, int bits,
                             std::int8_t* codes, float* scales, std::size_t threads = 1);

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
