#pragma once
// AQ-SGD's activation quantizer (AQ-SGD §3.1, Algorithm 1; AC-SGD compress/fixpoint.py and delta_modules.py,
// docs/design/notes/reference-implementations.md §8): the per-channel kernels on raw host pointers, the contract the kernel sets
// implement (numerics/CompressionKernels.hpp; the CUDA twin is numerics/cuda/ActivationQuantizer.cuh).
// Activations are [rows = micro_batch·seq, channels = hidden], row-major:
//   scale_c = fp16(max_r |x[r][c]|)            one scale per hidden channel (fixpoint.py scale_dims=(0,1)),
//                                              rounded to fp16 BEFORE use (notes §8.1, §14.8);
//   code    = clamp(round_half_even(x / (scale_c + 1e-6) · 2^(b-1)), -2^(b-1), 2^(b-1) - 1)   (torch.round);
//   deQ     = code / 2^(b-1) · scale_c          (the 1e-6 is not re-added).
// Wire: codes as a dense b-bit stream plus one fp16 scale per channel (numerics/QuantizedSizes.hpp).
// The messages built from them and AQ-SGD's per-example buffers are numerics/DeltaBuffers.hpp.

#include <cstddef>
#include <cstdint>

namespace ccsim::numerics {

/// fp32 -> fp16 -> fp32 with round-half-to-even (subnormals kept, overflow to inf), as torch's .half().
float round_to_fp16(float v);

/// codes and per-channel scales of x: codes has rows·channels entries, scales `channels`.
void quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits, std::int8_t* codes,
                       float* scales);
/// out = deQ(codes): rows·channels values.
void dequantize_channels(const std::int8_t* codes, const float* scales, std::size_t rows, std::size_t channels,
                         int bits, float* out);

/// The fused sender kernel of AQ-SGD (what bench-kernels times as aq_delta_quant and the CUDA twin mirrors):
///   delta = a - m;  scales = per-channel fp16(max|delta|);  codes = Q(delta);  m += deQ(codes).
/// codes has rows·channels entries, scales `channels`. `threads` > 1 splits both passes by rows (maxima merged with
/// the same exact comparison; each row's codes depend only on the scales: bit-identical to one thread).
void quantize_delta_channels(const float* a, float* m, std::size_t rows, std::size_t channels, int bits,
                             std::int8_t* codes, float* scales, std::size_t threads = 1);

} // namespace ccsim::numerics
