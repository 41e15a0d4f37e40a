#pragma once
// Sign bits packed 8 per byte, first element in the most significant bit, 0 -> +1: DeepSpeed's
// cupy.packbits with bitorder 'big' on (sign(x)+1).bool() (notes/reference-implementations.md §1.3).

#include <cstddef>
#include <cstdint>

namespace ccsim::numerics {

/// Packs the signs of x[0..n) into n/8 bytes; n must be a multiple of 8. Bit 1 = non-negative.
void pack_signs(const float* x, std::size_t n, std::uint8_t* bits);

/// Writes ±scale for each of the n packed signs.
void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out);

/// Adds ±scale·weight for each packed sign into out (the server's average of W workers' chunks).
void accumulate_signs(const std::uint8_t* bits, std::size_t n, float scaled, float* out);

/// The fused worker step of 1-bit compression with error feedback, in one pass plus a norm:
///   x += error;  scale = ||x||2 / sqrt(n);  bits = signs(x);  error = x - scale·sign(x).
/// Returns scale. `x` is left holding the compensated input.
float compress_with_feedback(float* x, float* error, std::size_t n, std::uint8_t* bits);

} // namespace ccsim::numerics
