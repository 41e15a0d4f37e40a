#pragma once
// Launcher of the normalised 32-point Hadamard transform (twin of numerics/Hadamard.hpp hadamard32).

#include <cuda_runtime.h>

#include <cstddef>

namespace ccsim::numerics::cuda {

/// In place on every block of 32 values; n a positive multiple of 32.
void hadamard32(float* d_x, std::size_t n, cudaStream_t stream = 0);

} // namespace ccsim::numerics::cuda
