#pragma once
// What a GPU's compute units are, as the per-operator cost model needs them (a topology's `gpu.compute` block,
// topologies/SCHEMA.md): SM count, tensor-core peak and the share of it a large GEMM sustains per number format, the
// output tiles cuBLAS chooses from, what a tile costs beyond its main loop, the L2 bandwidth that feeds the tiles,
// FlashAttention's share of peak, the share of HBM bandwidth element-wise kernels reach, and the gap each kernel
// launch adds. SI units (FLOP/s, bytes/s, seconds); the loader converts once (sim/platform/GpuComputeJson.hpp).

#include "sim/model/TrainingRecipe.hpp"

#include <map>
#include <string>
#include <vector>

namespace ccsim::sim {

/// One output tile a GEMM kernel computes per thread block (NVIDIA, "Matrix Multiplication Background User's Guide",
/// §2.3: cuBLAS's typical tiles run from 256x128 down to 64x64).
struct GemmTile {
  int m = 0;
  int n = 0;
};

/// One number format on the tensor cores.
struct TensorRate {
  double peak_flops      = 0; // dense FLOP/s at the boost clock (vendor datasheet)
  double gemm_efficiency = 0; // share of peak a large, well-shaped GEMM sustains (a published GEMM benchmark)
};

struct GpuCompute {
  int sms = 0;                           // streaming multiprocessors: one tile per SM per wave
  std::vector<GemmTile> tiles;           // candidate tiles, the kernel picks the fastest for each shape
  std::map<Precision, TensorRate> rates; // the formats the GPU's tensor cores run
  double tile_overhead_s      = 0;       // a tile's fixed cost beyond its main loop (prologue, epilogue)
  double l2_bytes_per_s       = 0;       // aggregate L2 read bandwidth: bounds how fast small tiles are fed
  double launch_s             = 0;       // time each kernel adds (launch and the gap between kernels)
  double flash_forward_efficiency  = 0;  // FlashAttention forward: share of the format's peak
  double flash_backward_efficiency = 0;  // its backward (five GEMMs for the forward's two)
  double memory_efficiency    = 0;       // share of gpu.memory_gbps element-wise kernels stream at
  /// framework_efficiency: the rate a training stack runs a micro-batch's kernels at, as a share of what these
  /// constants give (they were fitted on Megatron-LM, whose share is 1 by definition), by the stack's name
  /// (Workload::framework).
  std::map<std::string, double> framework_efficiency;
  std::string framework_efficiency_source;
  std::string source;

  /// The format's rate, or nullptr when the tensor cores do not run it (FP8 before Hopper, BF16 on V100).
  const TensorRate* rate(Precision p) const
  {
    const auto it = rates.find(p);
    return it == rates.end() ? nullptr : &it->second;
  }
  /// The 16-bit format a run uses when its workload names none: bf16 where the GPU has it, else fp16.
  Precision default_precision() const { return rate(Precision::BF16) ? Precision::BF16 : Precision::FP16; }
};

} // namespace ccsim::sim
