// The CPU kernel set: each method forwards to the numerics/ function of the same name, so a compressor built with
// cpu_kernels() computes exactly what it computed before the seam existed.
#include "numerics/CompressionKernels.hpp"

#include "numerics/ActivationQuantizer.hpp"
#include "numerics/Fp4.hpp"
#include "numerics/Hadamard.hpp"
#include "numerics/OnebitPack.hpp"
#include "numerics/Sparsifiers.hpp"

namespace ccsim::numerics {

namespace {
class CpuKernels final : public CompressionKernels {
public:
  const char* name() const override { return "cpu"; }

  float compress_compensated(const float* x, float* compensated, float scale, std::size_t n,
                             std::uint8_t* bits) const override
  {
    return numerics::compress_compensated(x, compensated, scale, n, bits);
  }
  float compress_average(const std::uint8_t* const* worker_bits, const float* scaled, std::size_t workers,
                         float* compensated, float scale, std::size_t n, std::uint8_t* bits) const override
  {
    return numerics::compress_average(worker_bits, scaled, workers, compensated, scale, n, bits);
  }
  void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out) const override
  {
    numerics::unpack_signs(bits, n, scale, out);
  }

  void quantize_groups_packed(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                              std::uint64_t seed, std::uint8_t* codes, float* scales,
                              std::uint64_t first_index) const override
  {
    numerics::quantize_groups_packed(x, n, bits, group, rounding, seed, codes, scales, first_index);
  }
  void dequantize_groups_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                std::size_t group, float* out) const override
  {
    numerics::dequantize_groups_packed(codes, scales, n, bits, group, out);
  }
  void dequantize_accumulate_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                    std::size_t group, float* out) const override
  {
    numerics::dequantize_accumulate_packed(codes, scales, n, bits, group, out);
  }
  void hadamard32(float* x, std::size_t n) const override { numerics::hadamard32(x, n); }

  void gather(const float* x, std::size_t, const std::uint32_t* idx, std::size_t k, float* values) const override
  {
    numerics::gather(x, idx, k, values);
  }
  void scatter(const float* values, const std::uint32_t* idx, std::size_t k, float* x, std::size_t) const override
  {
    numerics::scatter(values, idx, k, x);
  }
  std::vector<std::uint32_t> top_k_indices(const float* x, std::size_t n, std::size_t count) const override
  {
    return numerics::top_k_indices(x, n, count);
  }

  void quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits, std::int8_t* codes,
                         float* scales) const override
  {
    numerics::quantize_channels(x, rows, channels, bits, codes, scales);
  }
  void dequantize_channels(const std::int8_t* codes, const float* scales, std::size_t rows, std::size_t channels,
                           int bits, float* out) const override
  {
    numerics::dequantize_channels(codes, scales, rows, channels, bits, out);
  }
  void quantize_delta_channels(const float* a, float* m, std::size_t rows, std::size_t channels, int bits,
                               std::int8_t* codes, float* scales) const override
  {
    numerics::quantize_delta_channels(a, m, rows, channels, bits, codes, scales);
  }
  void gemm(ConstMatrixView a, ConstMatrixView b, MatrixView c, bool accumulate) const override
  {
    numerics::fixed_gemm(a, b, c, accumulate);
  }
  void quantize_e3m0(const float* x, std::size_t n, float* out) const override
  {
    numerics::quantize_e3m0(x, n, out);
  }
};
} // namespace

const CompressionKernels& cpu_kernels()
{
  static const CpuKernels kernels;
  return kernels;
}

} // namespace ccsim::numerics
