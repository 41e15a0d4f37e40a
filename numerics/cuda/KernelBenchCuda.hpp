#pragma once
// The CUDA backend as seen from plain C++ (no CUDA types): kernel benchmark and host-side wrappers used by the
// CUDA/CPU parity tests. Without CUDA (NoCuda.cpp) every function throws std::runtime_error.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ccsim::numerics::cuda {

struct CudaKernelRate {
  std::string kernel;
  std::uint64_t bytes;
  double gbps;
};

/// Same kernel names as the CPU benchmark; median of `repeats` timed launches with CUDA events.
std::vector<CudaKernelRate> bench_kernels(std::uint64_t bytes, int repeats);

/// Host wrappers: copy in, run the kernel, copy out (for parity tests against numerics/).
void pack_signs_host(const float* x, std::size_t n, std::uint8_t* bits);
float compress_with_feedback_host(const float* x, float* error, std::size_t n, std::uint8_t* bits);
void quantize_groups_host(const float* x, std::size_t n, int bits, std::size_t group, bool stochastic,
                          std::uint64_t seed, std::int8_t* codes, float* scales);
void hadamard32_host(float* x, std::size_t n);
void unpack_signs_host(const std::uint8_t* bits, std::size_t n, float scale, float* out);
void dequantize_groups_host(const std::int8_t* codes, const float* scales, std::size_t n, std::size_t group, float* out);
void gather_host(const float* x, std::size_t n, const std::uint32_t* idx, std::size_t k, float* values);
void scatter_host(const float* values, const std::uint32_t* idx, std::size_t k, float* x, std::size_t n);
/// AQ-SGD's sender kernel (numerics::quantize_delta_channels): codes = Q(a - m) per channel, m += deQ(codes).
void quantize_delta_channels_host(const float* a, float* m, std::size_t rows, std::size_t channels, int bits,
                                  std::int8_t* codes, float* scales);
/// Indices of the k largest |x| in increasing order (ties to the lower index), by a CUB radix sort.
std::vector<std::uint32_t> top_k_host(const float* x, std::size_t n, std::size_t k);

} // namespace ccsim::numerics::cuda
