// The CUDA kernel set: each method copies its host inputs into per-thread device scratch, runs the twin kernels
// (OnebitPack.cu, GroupQuantizer.cu, Hadamard.cu, Sparsifiers.cu, ActivationQuantizer.cu, LowComm.cu) and copies the outputs
// back, with the contract of the numerics/ function of the same name. Empty inputs return before any launch.
#include "numerics/cuda/CudaKernels.hpp"

#include "numerics/cuda/ActivationQuantizer.cuh"
#include "numerics/cuda/Device.hpp"
#include "numerics/cuda/DeviceMemory.cuh"
#include "numerics/cuda/GroupQuantizer.cuh"
#include "numerics/cuda/Hadamard.cuh"
#include "numerics/cuda/LowComm.cuh"
#include "numerics/cuda/OnebitPack.cuh"
#include "numerics/cuda/Sparsifiers.cuh"

#include <algorithm>
#include <stdexcept>

namespace ccsim::numerics::cuda {

namespace {
/// Scratch slots (numerics/cuda/DeviceMemory.cuh device_scratch): one per buffer role within a call; calls are
/// synchronous, so consecutive calls may reuse them.
enum Slot : std::size_t { IN0, IN1, OUT0, OUT1, OUT2, TEMP };

/// Elements from a strided view's first to its last (rows, cols > 0): what a copy of it must cover.
std::size_t view_span(long rows, long cols, long row_stride, long col_stride)
{
  return static_cast<std::size_t>((rows - 1) * row_stride + (cols - 1) * col_stride + 1);
}

std::size_t packed_code_bytes(std::size_t n, int bits)
{
  return bits == 8 ? n : (n + 1) / 2; // numerics::packed_code_bytes
}

class CudaKernels final : public CompressionKernels {
public:
  const char* name() const override { return "cuda"; }

  float compress_compensated(const float* x, float* compensated, float scale, std::size_t n,
                             std::uint8_t* bits) const override
  {
    if (n == 0)
      return 0.0f;
    float* d_x           = device_scratch<float>(IN0, n);
    float* d_c           = device_scratch<float>(IN1, n);
    std::uint8_t* d_bits = device_scratch<std::uint8_t>(OUT0, n / 8);
    double* d_sum        = device_scratch<double>(OUT1, 1);
    upload(d_x, x, n);
    upload(d_c, compensated, n);
    cuda::compress_compensated(d_x, d_c, scale, n, d_bits, d_sum);
    return finish_compress(d_c, d_bits, d_sum, n, compensated, bits);
  }

  float compress_average(const std::uint8_t* const* worker_bits, const float* scaled, std::size_t workers,
                         float* compensated, float scale, std::size_t n, std::uint8_t* bits) const override
  {
    if (n == 0)
      return 0.0f;
    std::uint8_t* d_workers = device_scratch<std::uint8_t>(IN0, workers * (n / 8));
    float* d_scaled         = device_scratch<float>(TEMP, workers);
    float* d_c              = device_scratch<float>(IN1, n);
    std::uint8_t* d_bits    = device_scratch<std::uint8_t>(OUT0, n / 8);
    double* d_sum           = device_scratch<double>(OUT1, 1);
    for (std::size_t w = 0; w < workers; ++w)
      upload(d_workers + w * (n / 8), worker_bits[w], n / 8);
    upload(d_scaled, scaled, workers);
    upload(d_c, compensated, n);
    cuda::compress_average(d_workers, d_scaled, workers, d_c, scale, n, d_bits, d_sum);
    return finish_compress(d_c, d_bits, d_sum, n, compensated, bits);
  }

  void unpack_signs(const std::uint8_t* bits, std::size_t n, float scale, float* out) const override
  {
    if (n == 0)
      return;
    std::uint8_t* d_bits = device_scratch<std::uint8_t>(IN0, n / 8);
    float* d_out         = device_scratch<float>(OUT0, n);
    upload(d_bits, bits, n / 8);
    cuda::unpack_signs(d_bits, n, scale, d_out);
    download(out, d_out, n);
  }

  void quantize_groups_packed(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                              std::uint64_t seed, std::uint8_t* codes, float* scales,
                              std::uint64_t first_index) const override
  {
    if (n == 0)
      return;
    const std::size_t code_bytes = packed_code_bytes(n, bits), groups = (n + group - 1) / group;
    float* d_x                   = device_scratch<float>(IN0, n);
    std::uint8_t* d_codes        = device_scratch<std::uint8_t>(OUT0, code_bytes);
    float* d_scales              = device_scratch<float>(OUT1, groups);
    upload(d_x, x, n);
    cuda::quantize_groups_packed(d_x, n, bits, group, rounding == Rounding::STOCHASTIC, seed, d_codes, d_scales,
                                 first_index);
    download(codes, d_codes, code_bytes);
    download(scales, d_scales, groups);
  }

  void dequantize_groups_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                std::size_t group, float* out) const override
  {
    dequantize(codes, scales, n, bits, group, /*accumulate=*/false, out);
  }

  void dequantize_accumulate_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                    std::size_t group, float* out) const override
  {
    dequantize(codes, scales, n, bits, group, /*accumulate=*/true, out);
  }

  void hadamard32(float* x, std::size_t n) const override
  {
    if (n == 0)
      return;
    float* d_x = device_scratch<float>(IN0, n);
    upload(d_x, x, n);
    cuda::hadamard32(d_x, n);
    download(x, d_x, n);
  }

  void gather(const float* x, std::size_t n, const std::uint32_t* idx, std::size_t k, float* values) const override
  {
    if (k == 0)
      return;
    float* d_x           = device_scratch<float>(IN0, n);
    std::uint32_t* d_idx = device_scratch<std::uint32_t>(IN1, k);
    float* d_values      = device_scratch<float>(OUT0, k);
    upload(d_x, x, n);
    upload(d_idx, idx, k);
    cuda::gather(d_x, d_idx, k, d_values);
    download(values, d_values, k);
  }

  void scatter(const float* values, const std::uint32_t* idx, std::size_t k, float* x, std::size_t n) const override
  {
    if (k == 0)
      return;
    float* d_values      = device_scratch<float>(IN0, k);
    std::uint32_t* d_idx = device_scratch<std::uint32_t>(IN1, k);
    float* d_x           = device_scratch<float>(OUT0, n);
    upload(d_values, values, k);
    upload(d_idx, idx, k);
    upload(d_x, x, n); // coordinates outside idx keep their values
    cuda::scatter(d_values, d_idx, k, d_x);
    download(x, d_x, n);
  }

  std::vector<std::uint32_t> top_k_indices(const float* x, std::size_t n, std::size_t count) const override
  {
    count = std::min(count, n);
    std::vector<std::uint32_t> out(count);
    if (count == 0)
      return out;
    float* d_x = device_scratch<float>(IN0, n);
    const std::size_t temp = magnitude_sort_temp_bytes(n);
    const MagnitudeSortBuffers b{device_scratch<float>(OUT0, n), device_scratch<float>(OUT1, n),
                                 device_scratch<std::uint32_t>(IN1, n), device_scratch<std::uint32_t>(OUT2, n),
                                 device_scratch<unsigned char>(TEMP, temp), temp};
    upload(d_x, x, n);
    sort_by_magnitude(d_x, n, b);
    download(out.data(), b.d_idx_sorted, count);
    std::sort(out.begin(), out.end()); // the CPU returns the kept indices in increasing order
    return out;
  }

  void quantize_channels(const float* x, std::size_t rows, std::size_t channels, int bits, std::int8_t* codes,
                         float* scales) const override
  {
    const std::size_t n = rows * channels;
    if (n == 0)
      return;
    float* d_x           = device_scratch<float>(IN0, n);
    std::int8_t* d_codes = device_scratch<std::int8_t>(OUT0, n);
    float* d_scales      = device_scratch<float>(OUT1, channels);
    upload(d_x, x, n);
    cuda::quantize_channels(d_x, rows, channels, bits, d_codes, d_scales);
    download(codes, d_codes, n);
    download(scales, d_scales, channels);
  }

  void dequantize_channels(const std::int8_t* codes, const float* scales, std::size_t rows, std::size_t channels,
                           int bits, float* out) const override
  {
    const std::size_t n = rows * channels;
    if (n == 0)
      return;
    std::int8_t* d_codes = device_scratch<std::int8_t>(IN0, n);
    float* d_scales      = device_scratch<float>(IN1, channels);
    float* d_out         = device_scratch<float>(OUT0, n);
    upload(d_codes, codes, n);
    upload(d_scales, scales, channels);
    cuda::dequantize_channels(d_codes, d_scales, rows, channels, bits, d_out);
    download(out, d_out, n);
  }

  void quantize_delta_channels(const float* a, float* m, std::size_t rows, std::size_t channels, int bits,
                               std::int8_t* codes, float* scales) const override
  {
    const std::size_t n = rows * channels;
    if (n == 0)
      return;
    float* d_a           = device_scratch<float>(IN0, n);
    float* d_m           = device_scratch<float>(IN1, n);
    std::int8_t* d_codes = device_scratch<std::int8_t>(OUT0, n);
    float* d_scales      = device_scratch<float>(OUT1, channels);
    upload(d_a, a, n);
    upload(d_m, m, n);
    cuda::quantize_delta_channels(d_a, d_m, rows, channels, bits, d_codes, d_scales);
    download(m, d_m, n);
    download(codes, d_codes, n);
    download(scales, d_scales, channels);
  }

  void gemm(ConstMatrixView a, ConstMatrixView b, MatrixView c, bool accumulate) const override
  {
    if (c.rows == 0 || c.cols == 0)
      return;
    // Each view's span goes up whole, strides and all; C's too (its gaps keep their host values), and it comes back
    // whole. With k = 0 there is nothing of A or B to copy: C becomes zero (or stays, accumulating).
    const std::size_t nc = view_span(c.rows, c.cols, c.row_stride, c.col_stride);
    float* d_c           = device_scratch<float>(OUT0, nc);
    upload(d_c, c.data, nc);
    const float* d_a = nullptr;
    const float* d_b = nullptr;
    if (a.cols > 0) {
      const std::size_t na = view_span(a.rows, a.cols, a.row_stride, a.col_stride);
      const std::size_t nb = view_span(b.rows, b.cols, b.row_stride, b.col_stride);
      float* da            = device_scratch<float>(IN0, na);
      float* db            = device_scratch<float>(IN1, nb);
      upload(da, a.data, na);
      upload(db, b.data, nb);
      d_a = da;
      d_b = db;
    }
    cuda::fixed_gemm({d_a, a.rows, a.cols, a.row_stride, a.col_stride}, {d_b, b.rows, b.cols, b.row_stride, b.col_stride},
                     d_c, c.row_stride, c.col_stride, accumulate);
    download(c.data, d_c, nc);
  }

  void quantize_e3m0(const float* x, std::size_t n, float* out) const override
  {
    if (n == 0)
      return;
    float* d_x        = device_scratch<float>(IN0, n);
    unsigned* d_flags = device_scratch<unsigned>(TEMP, 2);
    upload(d_x, x, n);
    cuda::quantize_e3m0(d_x, n, d_x, d_flags);
    download(out, d_x, n);
  }

private:
  /// The compressor's outputs back to the host; returns the new scale.
  static float finish_compress(const float* d_c, const std::uint8_t* d_bits, const double* d_sum, std::size_t n,
                               float* compensated, std::uint8_t* bits)
  {
    double sum = 0;
    download(&sum, d_sum, 1);
    download(compensated, d_c, n);
    download(bits, d_bits, n / 8);
    return onebit_scale_from_sum(sum, n);
  }

  /// out = deQ(codes), or out += deQ(codes).
  static void dequantize(const std::uint8_t* codes, const float* scales, std::size_t n, int bits, std::size_t group,
                         bool accumulate, float* out)
  {
    if (n == 0)
      return;
    const std::size_t code_bytes = packed_code_bytes(n, bits), groups = (n + group - 1) / group;
    std::uint8_t* d_codes        = device_scratch<std::uint8_t>(IN0, code_bytes);
    float* d_scales              = device_scratch<float>(IN1, groups);
    float* d_out                 = device_scratch<float>(OUT0, n);
    upload(d_codes, codes, code_bytes);
    upload(d_scales, scales, groups);
    if (accumulate)
      upload(d_out, out, n);
    cuda::dequantize_groups_packed(d_codes, d_scales, n, bits, group, accumulate, d_out);
    download(out, d_out, n);
  }
};
} // namespace

const CompressionKernels& cuda_kernels()
{
  if (device_count() == 0)
    throw std::runtime_error("cuda: no CUDA device found");
  static const CudaKernels kernels;
  return kernels;
}

} // namespace ccsim::numerics::cuda
