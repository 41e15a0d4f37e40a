#pragma once
// Where the compression kernels run: "cpu" (numerics/) or "cuda" (numerics/cuda/), as `train --backend` and
// `bench-kernels --backend` choose it, and the kernel benchmark of either.

#include "numerics/CompressionKernels.hpp"
#include "numerics/KernelBench.hpp"

#include <nlohmann/json.hpp>

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

/// `ccsim bench-kernels --format json`'s document: the CPU's SIMD path, the threads, and a row per kernel (kernel,
/// backend, bytes, GBps, vs_memcpy: its rate over memcpy's, the first row).
nlohmann::json bench_kernels_json(const std::vector<numerics::KernelRate>& rows, std::size_t threads);

} // namespace ccsim::api
