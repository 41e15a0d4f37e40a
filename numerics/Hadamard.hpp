#pragma once
// The 32x32 Sylvester Hadamard transform SDP4Bit uses to smooth gradient outliers before quantization
// (§4.2 "TLq-HS"; hadamard_order = 5, notes §7.4). ccsim applies the normalised form H/sqrt(32), which is its own
// inverse; SDP4Bit's unnormalised forward with a 1/32 inverse gives the same round trip.

#include <cstddef>

namespace ccsim::numerics {

/// In place on every block of 32 values; n must be a multiple of 32.
void hadamard32(float* x, std::size_t n);

} // namespace ccsim::numerics
