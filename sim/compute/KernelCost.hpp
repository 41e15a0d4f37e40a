#pragma once
// What one kernel costs on a GPU of the per-operator model (sim/platform/GpuCompute.hpp): a GEMM from its shape (tile
// and wave quantization over the SMs, split-K, a roofline against HBM), FlashAttention from its FLOPs at its own share
// of peak, and an element-wise kernel from the bytes it moves. Each adds the GPU's launch gap. No SimGrid.

#include "sim/platform/GpuCompute.hpp"

namespace ccsim::sim {

/// C (m x n) = A (m x k) B (k x n), `batch` independent products (attention's per-head GEMMs) in one launch.
/// Dimensions are whole numbers held as doubles so products of large ones never overflow.
struct GemmShape {
  double m     = 0;
  double n     = 0;
  double k     = 0;
  double batch = 1;
  double flops() const { return 2 * m * n * k * batch; }
};

struct KernelCost {
  double seconds      = 0;
  double flops        = 0; // the work the kernel does (0 for element-wise kernels: they are priced by bytes)
  double bytes        = 0; // what it reads and writes in HBM at least once
  bool memory_bound   = false;
  // GEMMs only: the kernel configuration the model chose.
  GemmTile tile{};
  int split_k  = 1;
  double waves = 0;
};

/// Element sizes of a GEMM's operands in HBM.
struct GemmOperands {
  double input_bytes  = 2; // A and B
  double output_bytes = 2; // C; 8 for a weight gradient accumulated into fp32 (read and written)
};

/// A GEMM on `gpu` in format `p` (which the GPU must run: gpu.rate(p) != nullptr). For every candidate tile and
/// split-K factor s in {1, 2, 4, 8, 16} (s > 1 only while each split keeps 128 or more of k):
///   ctas  = ceil(m / tile.m) * ceil(n / tile.n) * batch * s,   waves = ceil(ctas / sms)
///   step  = max(2 tile.m tile.n / (peak x gemm_efficiency / sms),  (tile.m + tile.n) x input_bytes / (l2 / sms))
///   compute = waves x (step x ceil(k / s) + tile_overhead_s)
///   memory  = (A + B + C bytes, plus 2 s m n x 4 bytes of fp32 partial sums when s > 1) / (memory bandwidth x
///             memory_efficiency)
/// and the kernel takes the fastest candidate's max(compute, memory), plus gpu.launch_s. A GEMM whose tiles fill
/// whole waves of a large k therefore runs at peak x gemm_efficiency; a skinny one at the memory roofline.
KernelCost gemm_cost(const GemmShape& shape, const GemmOperands& operands, Precision p, const GpuCompute& gpu,
                     double memory_bytes_per_s);

/// FlashAttention (Dao et al. 2022, 2023): `flops` of attention work at the format's peak x the GPU's flash
/// forward (or backward) efficiency, or the bytes it moves at the memory roofline if that is slower; plus one launch.
KernelCost flash_attention_cost(double flops, double bytes, bool backward, Precision p, const GpuCompute& gpu,
                                double memory_bytes_per_s);

/// An element-wise or reduction kernel (norms, softmax, dropout, activations, residual adds): its bytes at memory
/// bandwidth x memory_efficiency, plus one launch.
KernelCost elementwise_cost(double bytes, const GpuCompute& gpu, double memory_bytes_per_s);

} // namespace ccsim::sim
