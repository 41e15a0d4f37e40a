#pragma once
// Launchers of AQ-SGD's per-channel activation quantizer (twin of numerics/ActivationQuantizer.hpp) on device
// pointers, [rows x channels] row-major: scale_c = fp16(max_r |x - m|), code = clamp(rint((x - m) / (scale_c + 1e-6)
// · 2^(b-1)), -2^(b-1), 2^(b-1) - 1), deQ = code / 2^(b-1) · scale_c.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace ccsim::numerics::cuda {

/// DirectQ's sender (numerics::quantize_channels): codes and scales of x itself. rows·channels > 0.
void quantize_channels(const float* d_x, std::size_t rows, std::size_t channels, int bits, std::int8_t* d_codes,
                       float* d_scales, cudaStream_t stream = 0);

/// AQ-SGD's sender (numerics::quantize_delta_channels): codes of a - m, then m += deQ(codes). rows·channels > 0.
void quantize_delta_channels(const float* d_a, float* d_m, std::size_t rows, std::size_t channels, int bits,
                             std::int8_t* d_codes, float* d_scales, cudaStream_t stream = 0);

/// The receiver: d_out = deQ(codes). rows·channels > 0.
void dequantize_channels(const std::int8_t* d_codes, const float* d_scales, std::size_t rows, std::size_t channels,
                         int bits, float* d_out, cudaStream_t stream = 0);

} // namespace ccsim::numerics::cuda
