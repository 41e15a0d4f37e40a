#pragma once
// The compression kernels the training loops call, behind one small interface, so the same compressors run their
// kernels on the CPU (cpu_kernels(): the numerics/ functions) or on a GPU (numerics/cuda/CudaKernels.hpp) without
// knowing which — DeepSpeed's split between the compressed-allreduce backend and the optimizers that use it.
// Every method has exactly the contract of the numerics/ function of the same name (raw host pointers in and out);
// an implementation must give the CPU's bits wherever the CPU is deterministic, which all of these are.
// Plain C++17, no Eigen: numerics/cuda/ implements it in a .cu file.

#include "numerics/FixedOrder.hpp"
#include "numerics/GroupQuantizer.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccsim::numerics {

class CompressionKernels {
public:
  virtual ~CompressionKernels() = default;

  /// What `ccsim train` reports as its backend: "cpu" or "cuda".
  virtual const char* name() const = 0;

  // ---- 1-bit compression (numerics/OnebitPack.hpp): single-pass error feedback, the state (compensated, scale) ----
  virtual float compress_compensated(const float* x, float* compensated, float scale, std::size_t n,
                                     std::uint8_t* bits) const = 0;
  virtual float compress_average(const std::uint8_t* const* worker_bits, const float* scaled, std::size_t workers,
                                 float* compensated, float scale, std::size_t n, std::uint8_t* bits) const = 0;
  virtual void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out) const = 0;

  // ---- group quantization and the Hadamard transform (numerics/GroupQuantizer.hpp, numerics/Hadamard.hpp) ----
  virtual void quantize_groups_packed(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                                      std::uint64_t seed, std::uint8_t* codes, float* scales,
                                      std::uint64_t first_index) const = 0;
  virtual void dequantize_groups_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                        std::size_t group, float* out) const = 0;
  virtual void dequantize_accumulate_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                            std::size_t group, float* out) const = 0;
  virtual void hadamard32(float* x, std::size_t n) const = 0;

  // ---- sparsification (numerics/Sparsifiers.hpp); n is the length of x, which a device copy needs ----
  virtual void gather(const float* x, std::size_t n, const std::uint32_t* idx, std::size_t k, float* values) const = 0;
  virtual void scatter(const float* values, const std::uint32_t* idx, std::size_t k, float* x, std::size_t n) const = 0;
  virtual std::vector<std::uint32_t> top_k_indices(const float* x, std::size_t n, std::size_t count) const = 0;

  // ---- per-channel activation quantization of AQ-SGD / DirectQ (numerics/ActivationQuantizer.hpp) ----
  virtual void quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits, std::int8_t* codes,
                                 float* scales) const = 0;
  virtual void dequantize_channels(const std::int8_t* codes, const float* scales, std::size_t rows,
                                   std::size_t channels, int bits, float* out) const = 0;
  virtual void quantize_delta_channels(const float* a, float* m, std::size_t rows, std::size_t channels, int bits,
                                       std::int8_t* codes, float* scales) const = 0;

  // ---- the low-communication methods (issue 47) ----
  /// numerics::fixed_gemm: PowerSGD's projections M·Q, Mᵀ·P and P·Qᵀ (numerics/PowerSgd.hpp) and DeMo's chunked DCT
  /// (numerics/Demo.hpp), on host views of any strides.
  virtual void gemm(ConstMatrixView a, ConstMatrixView b, MatrixView c, bool accumulate) const = 0;
  /// numerics::quantize_e3m0: Streaming DiLoCo's 4-bit outer gradients (numerics/Fp4.hpp).
  virtual void quantize_e3m0(const float* x, std::size_t n, float* out) const = 0;
};

/// The numerics/ functions themselves: the default of every compressor, so callers that name no kernel set keep
/// today's behaviour. A static object: a pointer to it stays valid for the whole program.
const CompressionKernels& cpu_kernels();

} // namespace ccsim::numerics
