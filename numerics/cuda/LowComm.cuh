#pragma once
// Launchers of the low-communication methods' kernels (twins of numerics/FixedOrder.hpp's fixed_gemm and
// numerics/Fp4.hpp's quantize_e3m0) on device pointers.

#include <cuda_runtime.h>

#include <cstddef>

namespace ccsim::numerics::cuda {

/// A strided matrix on the device: element (r, c) at data[r·row_stride + c·col_stride].
struct DeviceMatrix {
  const float* data;
  long rows, cols, row_stride, col_stride;
};

/// c = a·b (or c += a·b): each element's sum over p = 0 .. k-1 in order from 0, each product rounded to fp32 before
/// it is added (never fused), then added to c once with `accumulate`: fixed_gemm's order, so bit for bit its result.
/// c has a.rows x b.cols elements at (c_row_stride, c_col_stride) and must not overlap a or b.
void fixed_gemm(DeviceMatrix a, DeviceMatrix b, float* d_c, long c_row_stride, long c_col_stride, bool accumulate,
                cudaStream_t stream = 0);

/// d_out = E3M0 codes of d_x at its absmax scale, numerics::quantize_e3m0's rounding (d_out may be d_x); a vector
/// holding a NaN or an infinity, or only zeros, is copied unchanged. d_flags: two unsigned ints of scratch.
void quantize_e3m0(const float* d_x, std::size_t n, float* d_out, unsigned* d_flags, cudaStream_t stream = 0);

} // namespace ccsim::numerics::cuda
