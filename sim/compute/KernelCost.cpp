// Kernel times of the per-operator model. The GEMM follows NVIDIA's account of how cuBLAS runs one ("Matrix
// Multiplication Background User's Guide", DU-09799-001, §2-3): the output is cut into tiles, one thread block per
// tile, the SMs run them in waves, and a partial last tile or wave costs as much as a full one (tile and wave
// quantization). What the guide leaves to measurement, how fast a full wave runs, is the GPU's published sustained
// GEMM rate (gemm_efficiency), with two limits below it: the L2 bandwidth that feeds small tiles, and HBM (the
// roofline) for skinny shapes.
#include "sim/compute/KernelCost.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ccsim::sim {

namespace {
/// Split-K keeps at least this much of k per split: below it a split's main loop is shorter than the pipeline the
/// kernel fills (CUTLASS's split-K examples split k of thousands, never of a few hundred).
constexpr double kMinSplitK = 128;
constexpr double kFp32      = 4;

double memory_rate(const GpuCompute& gpu, double memory_bytes_per_s)
{
  return memory_bytes_per_s * gpu.memory_efficiency;
}
} // namespace

KernelCost gemm_cost(const GemmShape& s, const GemmOperands& operands, Precision p, const GpuCompute& gpu,
                     double memory_bytes_per_s)
{
  const TensorRate* rate = gpu.rate(p);
  assert(rate != nullptr && !gpu.tiles.empty() && gpu.sms > 0);
  const double sms          = gpu.sms;
  const double per_sm_flops = rate->peak_flops * rate->gemm_efficiency / sms;
  const double per_sm_feed  = gpu.l2_bytes_per_s / sms;
  const double base_bytes   = s.batch * ((s.m * s.k + s.k * s.n) * operands.input_bytes + s.m * s.n * operands.output_bytes);
  const double memory       = memory_rate(gpu, memory_bytes_per_s);

  KernelCost best;
  best.seconds = INFINITY;
  for (const GemmTile& tile : gpu.tiles) {
    const double tm = tile.m, tn = tile.n;
    const double tiles = std::ceil(s.m / tm) * std::ceil(s.n / tn) * s.batch;
    // One k-step of a tile: its tm x tn multiply-adds on the SM's share of the sustained rate, or loading its tm + tn
    // input elements from L2 if that is slower (a 64x64 tile does half the math per byte of a 128x128 one).
    const double step = std::max(2 * tm * tn / per_sm_flops, (tm + tn) * operands.input_bytes / per_sm_feed);
    for (int split = 1; split <= 16; split *= 2) {
      if (split > 1 && s.k / split < kMinSplitK)
        break;
      const double waves   = std::ceil(tiles * split / sms);
      const double compute = waves * (step * std::ceil(s.k / split) + gpu.tile_overhead_s);
      // Split-K writes each split's fp32 partial C and reads them back to reduce them.
      const double bytes = base_bytes + (split > 1 ? 2.0 * split * s.m * s.n * s.batch * kFp32 : 0);
      const double time  = std::max(compute, bytes / memory);
      if (time < best.seconds) {
        best.seconds      = time;
        best.bytes        = bytes;
        best.memory_bound = bytes / memory > compute;
        best.tile         = tile;
        best.split_k      = split;
        best.waves        = waves;
      }
    }
  }
  best.flops = s.flops();
  best.seconds += gpu.launch_s;
  return best;
}

KernelCost flash_attention_cost(double flops, double bytes, bool backward, Precision p, const GpuCompute& gpu,
                                double memory_bytes_per_s)
{
  const TensorRate* rate = gpu.rate(p);
  assert(rate != nullptr);
  const double efficiency = backward ? gpu.flash_backward_efficiency : gpu.flash_forward_efficiency;
  const double compute    = flops / (rate->peak_flops * efficiency);
  const double memory     = bytes / memory_rate(gpu, memory_bytes_per_s);
  KernelCost c;
  c.flops        = flops;
  c.bytes        = bytes;
  c.memory_bound = memory > compute;
  c.seconds      = std::max(compute, memory) + gpu.launch_s;
  return c;
}

KernelCost elementwise_cost(double bytes, const GpuCompute& gpu, double memory_bytes_per_s)
{
  KernelCost c;
  c.bytes        = bytes;
  c.memory_bound = true;
  c.seconds      = bytes / memory_rate(gpu, memory_bytes_per_s) + gpu.launch_s;
  return c;
}

} // namespace ccsim::sim
