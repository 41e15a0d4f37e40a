#pragma once
// Test helper: a kernel set that counts its calls per kernel and forwards them to another set (the CPU's by
// default). Passed to a compressor or a training run, it shows the seam is really used — which kernels run, how
// often — without a GPU; forwarding to the CPU set must then give the default path's bits.

#include "numerics/CompressionKernels.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace ccsim::test {

class RecordingKernels final : public numerics::CompressionKernels {
public:
  explicit RecordingKernels(const numerics::CompressionKernels& inner = numerics::cpu_kernels()) : inner_(inner) {}

  /// Calls of `kernel` (a method name) so far.
  int calls(const std::string& kernel) const
  {
    const std::lock_guard<std::mutex> lock(*mutex_);
    const auto it = calls_.find(kernel);
    return it == calls_.end() ? 0 : it->second;
  }
  /// The kernels called at least once.
  std::set<std::string> called() const
  {
    const std::lock_guard<std::mutex> lock(*mutex_);
    std::set<std::string> out;
    for (const auto& [kernel, _] : calls_)
      out.insert(kernel);
    return out;
  }

  const char* name() const override { return "recording"; }

  float compress_compensated(const float* x, float* compensated, float scale, std::size_t n,
                             std::uint8_t* bits) const override
  {
    count("compress_compensated");
    return inner_.compress_compensated(x, compensated, scale, n, bits);
  }
  float compress_average(const std::uint8_t* const* worker_bits, const float* scaled, std::size_t workers,
                         float* compensated, float scale, std::size_t n, std::uint8_t* bits) const override
  {
    count("compress_average");
    return inner_.compress_average(worker_bits, scaled, workers, compensated, scale, n, bits);
  }
  void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out) const override
  {
    count("unpack_signs");
    inner_.unpack_signs(bits, n, scale, out);
  }
  void quantize_groups_packed(const float* x, std::size_t n, int bits, std::size_t group, numerics::Rounding rounding,
                              std::uint64_t seed, std::uint8_t* codes, float* scales,
                              std::uint64_t first_index) const override
  {
    count("quantize_groups_packed");
    inner_.quantize_groups_packed(x, n, bits, group, rounding, seed, codes, scales, first_index);
  }
  void dequantize_groups_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                std::size_t group, float* out) const override
  {
    count("dequantize_groups_packed");
    inner_.dequantize_groups_packed(codes, scales, n, bits, group, out);
  }
  void dequantize_accumulate_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                    std::size_t group, float* out) const override
  {
    count("dequantize_accumulate_packed");
    inner_.dequantize_accumulate_packed(codes, scales, n, bits, group, out);
  }
  void hadamard32(float* x, std::size_t n) const override
  {
    count("hadamard32");
    inner_.hadamard32(x, n);
  }
  void gather(const float* x, std::size_t n, const std::uint32_t* idx, std::size_t k, float* values) const override
  {
    count("gather");
    inner_.gather(x, n, idx, k, values);
  }
  void scatter(const float* values, const std::uint32_t* idx, std::size_t k, float* x, std::size_t n) const override
  {
    count("scatter");
    inner_.scatter(values, idx, k, x, n);
  }
  std::vector<std::uint32_t> top_k_indices(const float* x, std::size_t n, std::size_t k) const override
  {
    count("top_k_indices");
    return inner_.top_k_indices(x, n, k);
  }
  void quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits, std::int8_t* codes,
                         float* scales) const override
  {
    count("quantize_channels");
    inner_.quantize_channels(x, rows, channels, bits, codes, scales);
  }
  void dequantize_channels(const std::int8_t* codes, const float* scales, std::size_t rows, std::size_t channels,
                           int bits, float* out) const override
  {
    count("dequantize_channels");
    inner_.dequantize_channels(codes, scales, rows, channels, bits, out);
  }
  void quantize_delta_channels(const float* a, float* m, std::size_t rows, std::size_t channels, int bits,
                               std::int8_t* codes, float* scales) const override
  {
    count("quantize_delta_channels");
    inner_.quantize_delta_channels(a, m, rows, channels, bits, codes, scales);
  }
  void gemm(numerics::ConstMatrixView a, numerics::ConstMatrixView b, numerics::MatrixView c,
            bool accumulate) const override
  {
    count("gemm");
    inner_.gemm(a, b, c, accumulate);
  }
  void quantize_e3m0(const float* x, std::size_t n, float* out) const override
  {
    count("quantize_e3m0");
    inner_.quantize_e3m0(x, n, out);
  }

private:
  void count(const char* kernel) const
  {
    const std::lock_guard<std::mutex> lock(*mutex_); // DeMo's workers call their kernels from several threads
    ++calls_[kernel];
  }

  const numerics::CompressionKernels& inner_;
  mutable std::map<std::string, int> calls_; // counting is not part of the kernels' observable result
  std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>(); // movable, as recorded() returns one
};

} // namespace ccsim::test
