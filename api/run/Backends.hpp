#pragma once
// Where the compression kernels run: "cpu" (numerics/) or "cuda" (numerics/cuda/), as `train --backend` and
// `bench-kernels --backend` choose it, and the kernel benchmark of either.

#include "numerics/CompressionKernels.hpp"
#include "numerics/KernelBench.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ccsim::api {

/// The kernel set of `backend` ("cpu" | "cuda"); "cuda" without a device (or without CUDA in this build) throws
/// io::InputError("--backend", ...).
const numerics::CompressionKernels& kernels_for(const std::string& backend);

/// Every compression kernel's throughput on `backend`, memcpy first (numerics/KernelBench.hpp; the CUDA one in
/// numerics/cuda/KernelBenchCuda.hpp). `threads` applies to the CPU only.
std::vector<numerics::KernelRate> bench_kernels(const std::string& backend, std::uint64_t bytes, int repeats,
                                                std::size_t threads);

} // namespace ccsim::api
