#pragma once
// `ccsim bench-compute` (issue 46): the GEMMs and element-wise kernels of transformer layers timed on a CUDA device
// (numerics/cuda/ComputeBenchCuda.hpp), as a measurement document; and the same document compared with what the
// per-operator model (sim/compute/KernelCost.hpp) predicts for each kernel on a topology's GPU.

#include "sim/compute/TransformerOps.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ccsim::api {

/// A Megatron-LM GPT layer as bench-compute and the device's PyTorch layer build it: GPT-3's shape (biases, dropout,
/// LayerNorm, a tanh-GELU FFN of width `ffn`, learned positions), FlashAttention or not.
sim::TransformerArchitecture gpt_bench_layer(std::int64_t hidden, std::int64_t heads, std::int64_t ffn, std::int64_t seq,
                                             bool flash);

/// One GEMM of the grid: which layer it comes from and which of its kernels it is.
struct ComputeBenchGemm {
  std::string layer; // "h8192 tp4 tokens8192 bf16"
  sim::OpSpec op;
};

/// The GEMMs of Megatron-LM GPT layers over hidden sizes 1K-32K, tp 1-8 and micro-batch x sequence 2K-32K tokens, in
/// bf16 and fp8 (fp16 at tp 1), plus unfused attention at a few sizes; one entry per distinct shape, none above
/// `max_flops`. `quick`: a sample of it for a smoke run.
std::vector<ComputeBenchGemm> compute_bench_grid(bool quick, double max_flops);

/// Times the grid, the element-wise kernels and the launch gap on the CUDA device: the measurement document (device,
/// versions, a `source` line, and rows in microseconds). Throws io::InputError without a device.
nlohmann::json measure_compute(bool quick, int trials);

} // namespace ccsim::api
