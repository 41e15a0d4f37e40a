#pragma once
// The compute benchmark behind `ccsim bench-compute --backend cuda` (issue 46), as seen from plain C++ (no CUDA
// types): cuBLASLt GEMMs of the shapes a transformer layer runs, the element-wise kernels a layer runs, and the gap
// between two dependent kernel launches, timed with CUDA events on device-resident buffers. cuBLASLt is loaded at run
// time (dlopen), so ccsim needs no cuBLAS to start and a missing library is one message. Without CUDA (NoCuda.cpp)
// every function throws std::runtime_error.

#include <cstdint>
#include <string>
#include <vector>

namespace ccsim::numerics::cuda {

/// One GEMM to time: C (m x n) = A (m x k) B (k x n), `batch` independent products in one launch (strided).
/// `layout` is cuBLAS's (column-major) transposes, as PyTorch calls them for a linear layer: "TN" the forward
/// (y = x W^T), "NN" the data gradient (dx = dy W), "NT" the weight gradient (dW = dy^T x). `dtype` is "bf16", "fp16"
/// or "fp8" (e4m3 inputs, bf16 output; cuBLASLt runs FP8 only as "TN", which it then uses whatever `layout` says).
/// `fp32_accumulate`: C is fp32 and read back (beta = 1), as Megatron's weight gradients accumulate into main_grad.
struct GemmBenchShape {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string layout = "TN";
  std::string dtype  = "bf16";
  bool fp32_accumulate = false;
};

struct GemmBenchResult {
  GemmBenchShape shape;
  double seconds = 0;  // per launch, back to back in one stream (the launch gap included, as in training)
  int launches   = 0;  // timed launches per trial
  std::string error;   // non-empty when cuBLASLt refused the shape; seconds is then 0
};

struct ElementwiseBenchResult {
  std::string kernel;  // "copy", "add", "gelu", "dropout", "layernorm", "softmax"
  double bytes   = 0;  // read + written per launch
  double seconds = 0;
};

struct ComputeDevice {
  std::string name;
  int sms = 0;
  int runtime_version = 0, driver_version = 0, cublaslt_version = 0;
  int memory_bus_bits = 0;
};

/// The device, its driver, runtime and cuBLASLt versions. Throws when no device or no cuBLASLt is found.
ComputeDevice compute_device();

/// Median over `trials` of each shape's time per launch; each trial launches enough times to run >= `min_trial_ms`.
/// Inputs are filled with seeded pseudo-random values (a GEMM on zeros runs faster than on data).
std::vector<GemmBenchResult> bench_gemms(const std::vector<GemmBenchShape>& shapes, int trials, double min_trial_ms);

/// The element-wise kernels on bf16 tensors of `elements` values, median of `trials`.
std::vector<ElementwiseBenchResult> bench_elementwise(std::int64_t elements, int trials);

/// GPU time between two dependent, empty kernels launched back to back (seconds).
double bench_launch_gap(int launches);

} // namespace ccsim::numerics::cuda
