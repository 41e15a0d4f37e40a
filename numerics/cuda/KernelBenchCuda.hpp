#pragma once
// The CUDA backend's kernel benchmark as seen from plain C++ (no CUDA types), and the one host wrapper the parity
// tests need beyond the kernel set of numerics/cuda/CudaKernels.hpp. Without CUDA (NoCuda.cpp) both throw
// std::runtime_error.

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

/// numerics::pack_signs on the device: copy in, run the kernel, copy out (n a multiple of 8).
void pack_signs_host(const float* x, std::size_t n, std::uint8_t* bits);

} // namespace ccsim::numerics::cuda
