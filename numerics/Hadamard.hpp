#pragma once
// The 32x32 Sylvester Hadamard transform SDP4Bit uses to smooth gradient outliers before quantization
// (SDP4Bit §3.2.2 "TLq-HS", Algorithm 3; hadamard_order = 5, docs/design/notes/reference-implementations.md §7.4).
// ccsim applies the normalised form H/sqrt(32), which is orthogonal and its own inverse (H·H = 32·I); SDP4Bit's
// unnormalised forward with a 1/32 inverse gives the same round trip, and the same quantized codes up to fp32
// rounding, because the per-group scale absorbs the constant factor (max|Hx| scales with it). Sylvester order: H_1 = [1],
// H_2k = [[H_k, H_k], [H_k, -H_k]], so row r, column c of H_32 is (-1)^popcount(r & c).
// Fused variants transform one quantization group at a time in cache, as SDP4Bit's swizzled_quantize_ht.cu does;
// the group size must be a multiple of 32 so no block straddles two groups (SDP4Bit §3.3, "group size alignment").

#include "numerics/GroupQuantizer.hpp"

#include <cstddef>
#include <cstdint>

namespace ccsim::numerics {

/// In place on every block of 32 values; n must be a multiple of 32.
void hadamard32(float* x, std::size_t n);

/// codes/scales = quantize_groups_packed(H·x) without modifying x (n and group multiples of 32). `first_index` is
/// the buffer index of x[0] in the stochastic draw, and `threads` splits at groups, as in quantize_groups_packed.
void hadamard32_quantize_packed(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                                std::uint64_t seed, std::uint8_t* codes, float* scales, std::uint64_t first_index = 0,
                                std::size_t threads = 1);

/// out = H · dequantize(codes, scales): the inverse of hadamard32_quantize_packed up to quantization error.
void dequantize_hadamard32_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                  std::size_t group, float* out);

} // namespace ccsim::numerics
