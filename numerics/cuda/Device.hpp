#pragma once
// Whether CUDA kernels can run here. Plain C++ header (no CUDA types), so CPU code can ask.

namespace ccsim::numerics::cuda {

/// True when ccsim was built with the CUDA backend (CCSIM_CUDA=ON).
bool built_with_cuda() noexcept;

/// Number of usable CUDA devices; 0 when built without CUDA or when the driver reports none
/// (on the build machines cudaGetDeviceCount returns an error: no driver means no device, not a failure).
int device_count() noexcept;

} // namespace ccsim::numerics::cuda
