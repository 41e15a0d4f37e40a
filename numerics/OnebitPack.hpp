#pragma once
// 1-bit sign compression as DeepSpeed's compressed allreduce does it: sign bits packed 8 per byte, first element
// in the most significant bit, x >= 0 (0 and -0.0 included) -> bit 1 -> +1, x < 0 -> bit 0 -> -1: cupy.packbits
// with bitorder 'big' on (sign(x)+1).bool() (docs/design/notes/reference-implementations.md §1.3, deepspeed/runtime/comm/nccl.py
// l.67). These raw-pointer functions are the contract the CUDA twins (numerics/cuda/OnebitPack.cu) mirror.

#include <cstddef>
#include <cstdint>

namespace ccsim::numerics {

/// Packs the signs of x[0..n) into n/8 bytes; n must be a multiple of 8. Bit 1 = non-negative.
void pack_signs(const float* x, std::size_t n, std::uint8_t* bits);

/// Writes ±scale for each of the n packed signs (bit 1 -> +scale), on `threads` threads split at bytes.
void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out, std::size_t threads);
void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out);

/// Adds ±scaled for each packed sign into out (the server's average of W workers' chunks: scaled = scale_i / W).
void accumulate_signs(const std::uint8_t* bits, std::size_t n, float scaled, float* out);

/// scale = ||x||_2 / sqrt(n), the RMS (nccl.py l.66), accumulated in double so it does not depend on n's size.
float onebit_scale(const float* x, std::size_t n);

/// The fused worker step of 1-bit compression with error feedback (nccl.py l.65–67), in two passes:
///   p = x + error;  scale = ||p||_2 / sqrt(n);  bits = signs(p);  error = p - scale·sign(p).
/// Returns scale. x is not modified. n must be a multiple of 8.
/// Identity (tested): unpack(bits, scale) + error_new == x + error_old, up to one fp32 rounding.
/// `threads` > 1 runs the second pass on that many threads (split at bytes: bit-identical); the first pass stays
/// serial, because its eight double accumulators each add their elements in index order.
float compress_with_feedback(const float* x, float* error, std::size_t n, std::uint8_t* bits, std::size_t threads = 1);

} // namespace ccsim::numerics
