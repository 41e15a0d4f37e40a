#pragma once
// Launchers of the packed group quantizer (twin of numerics/GroupQuantizer.hpp's raw-pointer contract) on device
// pointers: codes ±(2^(b-1)-1) at 4 or 8 bits, one fp32 scale max|x|/qmax per group, round half to even or the
// splitmix64 stochastic draw u(seed, first_index + i).

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace ccsim::numerics::cuda {

/// Codes packed as numerics::quantize_groups_packed writes them (4 bits: element 2k in the high nibble; group
/// even); d_codes holds ceil(n·bits/8) bytes, d_scales ceil(n/group) floats. n > 0.
void quantize_groups_packed(const float* d_x, std::size_t n, int bits, std::size_t group, bool stochastic,
                            std::uint64_t seed, std::uint8_t* d_codes, float* d_scales, std::uint64_t first_index,
                            cudaStream_t stream = 0);

/// d_out[i] = code_i · scale_{i/group}, or d_out[i] += that when `accumulate` (fp32, one rounding per operation as
/// numerics::dequantize_groups_packed / dequantize_accumulate_packed). n > 0.
void dequantize_groups_packed(const std::uint8_t* d_codes, const float* d_scales, std::size_t n, int bits,
                              std::size_t group, bool accumulate, float* d_out, cudaStream_t stream = 0);

} // namespace ccsim::numerics::cuda
