#pragma once
// The 4-bit float Streaming DiLoCo sends its outer gradients in (Douillard et al. 2025 §2.4: "1 sign bit, 3 exponent
// bits, and 0 mantissa bit", E3M0, after Agrawal et al. 2024), accumulated in fp32 once received. With no mantissa
// the codes are 0 and ±2^e for eight exponents; the paper does not say how values are scaled onto them, so ccsim
// scales each tensor by its largest magnitude: the codes are 0 and ±absmax·2^-k, k = 0..6, and a value goes to the
// nearest code (ties away from zero). The scale is ccsim's hypothesis, and the paper's Fig. 11 (no loss from fp32
// down to fp4) is what it is checked against on the proxies.

#include <cstddef>

namespace ccsim::numerics {

/// The E3M0 codes' magnitudes below absmax: 2^-k for k = 0 .. kE3M0Steps - 1, and zero.
inline constexpr int kE3M0Steps = 7;

/// out[i] = x[i] rounded to the nearest E3M0 code of the tensor's scale (its largest |x|); zeros stay zero and a
/// tensor of zeros (or one holding a NaN or an infinity, which has no finite scale) is copied unchanged. out may be x.
void quantize_e3m0(const float* x, std::size_t n, float* out);

} // namespace ccsim::numerics
