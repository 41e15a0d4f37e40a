#pragma once
// The CUDA kernel set as seen from plain C++ (no CUDA types): the compressors of numerics/ run on the GPU when
// given it (ccsim train --backend cuda).

#include "numerics/CompressionKernels.hpp"

namespace ccsim::numerics::cuda {

/// The CUDA twins behind numerics::CompressionKernels, bit-identical to cpu_kernels() (tests/numerics/
/// CudaParity_test.cpp). Each call copies its inputs to the device, runs the kernels and copies the outputs back:
/// the compressors keep their host buffers, which is enough for proxy-model sizes. A static object.
/// Throws std::runtime_error when ccsim was built without CUDA or no CUDA device is found.
const CompressionKernels& cuda_kernels();

} // namespace ccsim::numerics::cuda
