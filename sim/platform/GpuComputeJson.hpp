#pragma once
// The topology's "gpu.compute" block read into sim::GpuCompute (topologies/SCHEMA.md, "Compute as GPUs run it"):
// parse, check with the JSON pointer in hand (ranges in io/Limits.hpp), convert to SI once.

#include "sim/platform/GpuCompute.hpp"
#include "io/JsonObject.hpp"

namespace ccsim::sim {

/// Reads `block`; every number format in `tensor_tflops` needs its `gemm_efficiency`.
GpuCompute gpu_compute_from_json(const io::JsonObject& block);

} // namespace ccsim::sim
