// CUDA twins of the low-communication methods' kernels: the fixed-order GEMM (PowerSGD's projections, DeMo's
// chunked DCT) and E3M0 rounding (Streaming DiLoCo's outer gradients), bit for bit the CPU's (numerics/FixedOrder.cpp,
// numerics/Fp4.cpp): products and sums in __fmul_rn / __fadd_rn so that nvcc's default -fmad=true fuses nothing.
#include "numerics/cuda/LowComm.cuh"

#include "numerics/cuda/DeviceMemory.cuh"

#include <cstdint>

namespace ccsim::numerics::cuda {

namespace {
constexpr unsigned THREADS = 256;
constexpr int kE3M0Steps   = 7; // numerics::kE3M0Steps

__global__ void fixed_gemm_kernel(DeviceMatrix a, DeviceMatrix b, float* __restrict__ c, long c_rs, long c_cs,
                                  bool accumulate)
{
  const long j = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  const long i = blockIdx.y;
  if (j >= b.cols)
    return;
  float acc = 0.0f;
  for (long p = 0; p < a.cols; ++p)
    acc = __fadd_rn(acc, __fmul_rn(a.data[i * a.row_stride + p * a.col_stride],
                                   b.data[p * b.row_stride + j * b.col_stride]));
  float& out = c[i * c_rs + j * c_cs];
  out        = accumulate ? __fadd_rn(out, acc) : acc;
}

// flags[0]: the largest |x| as its bits (non-negative floats order as unsigned ints, so atomicMax is exact in any
// order); flags[1]: nonzero when some x is NaN or infinite.
__global__ void absmax_kernel(const float* __restrict__ x, std::size_t n, unsigned* flags)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n)
    return;
  const float v = x[i];
  if (!isfinite(v)) {
    atomicOr(&flags[1], 1u);
    return;
  }
  atomicMax(&flags[0], __float_as_uint(fabsf(v)));
}

__global__ void e3m0_kernel(const float* x, std::size_t n, const unsigned* flags, float* out)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n)
    return;
  const float v     = x[i];
  const float scale = __uint_as_float(flags[0]);
  if (flags[1] != 0 || scale == 0.0f) { // numerics::quantize_e3m0 copies such a vector (zeros stay zeros)
    out[i] = v;
    return;
  }
  const float r = __fdiv_rn(fabsf(v), scale);
  float code    = 0.0f;
  if (r > 0.0f) {
    int e         = 0;
    const float m = frexpf(r, &e);
    int k         = m >= 0.75f ? e : e - 1;
    if (k > 0)
      k = 0;
    if (k < -(kE3M0Steps - 1))
      code = r >= ldexpf(1.0f, -kE3M0Steps) ? ldexpf(1.0f, -(kE3M0Steps - 1)) : 0.0f;
    else
      code = ldexpf(1.0f, k);
  }
  out[i] = copysignf(__fmul_rn(code, scale), v);
}
} // namespace

void fixed_gemm(DeviceMatrix a, DeviceMatrix b, float* d_c, long c_row_stride, long c_col_stride, bool accumulate,
                cudaStream_t stream)
{
  if (a.rows == 0 || b.cols == 0)
    return;
  const dim3 grid(blocks_for(static_cast<std::size_t>(b.cols), THREADS), static_cast<unsigned>(a.rows));
  fixed_gemm_kernel<<<grid, THREADS, 0, stream>>>(a, b, d_c, c_row_stride, c_col_stride, accumulate);
  check_cuda(cudaGetLastError(), "fixed_gemm");
}

void quantize_e3m0(const float* d_x, std::size_t n, float* d_out, unsigned* d_flags, cudaStream_t stream)
{
  if (n == 0)
    return;
  check_cuda(cudaMemsetAsync(d_flags, 0, 2 * sizeof(unsigned), stream), "quantize_e3m0 flags");
  absmax_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(d_x, n, d_flags);
  check_cuda(cudaGetLastError(), "quantize_e3m0 absmax");
  e3m0_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(d_x, n, d_flags, d_out);
  check_cuda(cudaGetLastError(), "quantize_e3m0");
}

} // namespace ccsim::numerics::cuda
