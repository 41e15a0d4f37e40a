// CUDA kernels against their CPU twins, through the kernel set the compressors use (numerics/cuda/CudaKernels.hpp):
// every kernel is deterministic on the CPU, so every result must match it bit for bit. Without a device (the build
// and CI machines) each test says so and returns.
#include "numerics/CompressionKernels.hpp"
#include "numerics/OnebitPack.hpp"
#include "numerics/Sparsifiers.hpp"
#include "numerics/cuda/CudaKernels.hpp"
#include "numerics/cuda/KernelBenchCuda.hpp"
#include "tests/support/CudaDevice.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <random>

using namespace ccsim::numerics;
using ccsim::test::no_cuda_device;

namespace {
std::vector<float> random_vector(std::size_t n, unsigned seed)
{
  std::mt19937 rng(seed);
  std::normal_distribution<float> d;
  std::vector<float> x(n);
  for (auto& v : x)
    v = d(rng);
  return x;
}
} // namespace

TEST_CASE("CudaParity: sign packing is bit-for-bit the CPU's", "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  const auto x = random_vector(4096, 1);
  std::vector<std::uint8_t> cpu(512), gpu(512);
  pack_signs(x.data(), x.size(), cpu.data());
  cuda::pack_signs_host(x.data(), x.size(), gpu.data());
  CHECK(cpu == gpu);
}

TEST_CASE("CudaParity: 1-bit compression with error feedback gives the CPU's scale and signs and state bit for bit",
          "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  // The GPU sums the squares in the CPU's 8-lane order (numerics/cuda/OnebitPack.cuh), so even the double sum and
  // hence the scale are identical. 8200 values: not a multiple of the 256-thread block.
  const std::size_t n = 8200;
  const auto x        = random_vector(n, 2);
  auto c_cpu          = random_vector(n, 3);
  auto c_gpu          = c_cpu;
  float s_cpu = 0.5f, s_gpu = 0.5f;
  std::vector<std::uint8_t> b_cpu(n / 8), b_gpu(n / 8);
  for (int call = 0; call < 3; ++call) { // the state carries over: later calls see a non-trivial compensation
    s_cpu = cpu_kernels().compress_compensated(x.data(), c_cpu.data(), s_cpu, n, b_cpu.data());
    s_gpu = cuda::cuda_kernels().compress_compensated(x.data(), c_gpu.data(), s_gpu, n, b_gpu.data());
    CHECK(s_gpu == s_cpu);
    CHECK(b_gpu == b_cpu);
    CHECK(c_gpu == c_cpu);
  }
  // The server's fused average of 5 workers' signs.
  std::vector<std::vector<std::uint8_t>> signs(5, std::vector<std::uint8_t>(n / 8));
  std::vector<const std::uint8_t*> workers;
  for (std::size_t w = 0; w < 5; ++w) {
    pack_signs(random_vector(n, 10 + static_cast<unsigned>(w)).data(), n, signs[w].data());
    workers.push_back(signs[w].data());
  }
  const std::vector<float> scaled = {0.1f, 0.3f, 0.05f, 0.2f, 0.7f};
  s_cpu = cpu_kernels().compress_average(workers.data(), scaled.data(), 5, c_cpu.data(), s_cpu, n, b_cpu.data());
  s_gpu = cuda::cuda_kernels().compress_average(workers.data(), scaled.data(), 5, c_gpu.data(), s_gpu, n, b_gpu.data());
  CHECK(s_gpu == s_cpu);
  CHECK(b_gpu == b_cpu);
  CHECK(c_gpu == c_cpu);
}

TEST_CASE("CudaParity: sign unpacking is bit-for-bit the CPU's", "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  const auto x = random_vector(1032, 5);
  std::vector<std::uint8_t> bits(129);
  pack_signs(x.data(), x.size(), bits.data());
  std::vector<float> cpu(1032), gpu(1032);
  cpu_kernels().unpack_signs(bits.data(), 1032, 0.25f, cpu.data());
  cuda::cuda_kernels().unpack_signs(bits.data(), 1032, 0.25f, gpu.data());
  CHECK(cpu == gpu);
}

TEST_CASE("CudaParity: packed group quantization at 4 and 8 bits / nearest and stochastic / is bit-for-bit",
          "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  // 10 whole groups and an odd 37-value tail (a 4-bit tail byte with a zero low nibble); first_index shifts the
  // stochastic draws as a slice of a larger buffer.
  const std::size_t n = 128 * 10 + 37, groups = 11;
  const auto x        = random_vector(n, 3);
  for (int bits : {4, 8})
    for (Rounding rounding : {Rounding::NEAREST, Rounding::STOCHASTIC}) {
      const std::size_t bytes = packed_code_bytes(n, bits);
      std::vector<std::uint8_t> c_cpu(bytes), c_gpu(bytes);
      std::vector<float> s_cpu(groups), s_gpu(groups);
      cpu_kernels().quantize_groups_packed(x.data(), n, bits, 128, rounding, 9, c_cpu.data(), s_cpu.data(), 1000);
      cuda::cuda_kernels().quantize_groups_packed(x.data(), n, bits, 128, rounding, 9, c_gpu.data(), s_gpu.data(),
                                                  1000);
      CHECK(c_cpu == c_gpu);
      CHECK(s_cpu == s_gpu);
    }
}

TEST_CASE("CudaParity: packed dequantization and dequantize-accumulate are bit-for-bit the CPU's", "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  const std::size_t n = 2048 + 33;
  const auto x        = random_vector(n, 4);
  for (int bits : {4, 8}) {
    std::vector<std::uint8_t> codes(packed_code_bytes(n, bits));
    std::vector<float> scales(3);
    quantize_groups_packed(x.data(), n, bits, 1024, Rounding::STOCHASTIC, 2, codes.data(), scales.data());
    std::vector<float> cpu(n), gpu(n);
    cpu_kernels().dequantize_groups_packed(codes.data(), scales.data(), n, bits, 1024, cpu.data());
    cuda::cuda_kernels().dequantize_groups_packed(codes.data(), scales.data(), n, bits, 1024, gpu.data());
    CHECK(cpu == gpu);
    cpu = random_vector(n, 5);
    gpu = cpu;
    cpu_kernels().dequantize_accumulate_packed(codes.data(), scales.data(), n, bits, 1024, cpu.data());
    cuda::cuda_kernels().dequantize_accumulate_packed(codes.data(), scales.data(), n, bits, 1024, gpu.data());
    CHECK(cpu == gpu);
  }
}

TEST_CASE("CudaParity: the Hadamard-32 transform is bit-for-bit the CPU's", "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  auto a = random_vector(32 * 100, 4), b = a;
  cpu_kernels().hadamard32(a.data(), a.size());
  cuda::cuda_kernels().hadamard32(b.data(), b.size());
  CHECK(a == b);
}

TEST_CASE("CudaParity: random-k gather and scatter and top-k select the CPU's elements", "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  auto x         = random_vector(5000, 6);
  const auto idx = random_k_indices(5000, 0.1, 44, 3);
  std::vector<float> cpu(idx.size()), gpu(idx.size());
  cpu_kernels().gather(x.data(), x.size(), idx.data(), idx.size(), cpu.data());
  cuda::cuda_kernels().gather(x.data(), x.size(), idx.data(), idx.size(), gpu.data());
  CHECK(cpu == gpu);
  auto back = random_vector(5000, 7), back_gpu = back; // coordinates outside idx must survive the scatter
  cpu_kernels().scatter(cpu.data(), idx.data(), idx.size(), back.data(), back.size());
  cuda::cuda_kernels().scatter(cpu.data(), idx.data(), idx.size(), back_gpu.data(), back_gpu.size());
  CHECK(back == back_gpu);
  // Ties at the threshold: magnitudes repeat every 100 values with both signs, so the lower index must win.
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = (i % 2 ? -1.0f : 1.0f) * static_cast<float>(i % 100);
  for (std::size_t count : {std::size_t{50}, std::size_t{175}, std::size_t{5000}, std::size_t{6000}})
    CHECK(cuda::cuda_kernels().top_k_indices(x.data(), x.size(), count) ==
          cpu_kernels().top_k_indices(x.data(), x.size(), count));
}

TEST_CASE("CudaParity: AQ-SGD delta quantization gives the CPU's codes and scales and buffers bit for bit",
          "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  const auto a = random_vector(16 * 64, 7);
  auto m_cpu   = random_vector(16 * 64, 8);
  auto m_gpu   = m_cpu;
  for (int bits : {2, 4, 8}) {
    std::vector<std::int8_t> c_cpu(a.size()), c_gpu(a.size());
    std::vector<float> s_cpu(64), s_gpu(64);
    cpu_kernels().quantize_delta_channels(a.data(), m_cpu.data(), 16, 64, bits, c_cpu.data(), s_cpu.data());
    cuda::cuda_kernels().quantize_delta_channels(a.data(), m_gpu.data(), 16, 64, bits, c_gpu.data(), s_gpu.data());
    CHECK(s_cpu == s_gpu);
    CHECK(c_cpu == c_gpu);
    CHECK(m_cpu == m_gpu);
  }
}

TEST_CASE("CudaParity: DirectQ per-channel quantization and dequantization are bit-for-bit the CPU's",
          "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  const auto x = random_vector(24 * 40, 9);
  for (int bits : {2, 4, 8}) {
    std::vector<std::int8_t> c_cpu(x.size()), c_gpu(x.size());
    std::vector<float> s_cpu(40), s_gpu(40), out_cpu(x.size()), out_gpu(x.size());
    cpu_kernels().quantize_channels(x.data(), 24, 40, bits, c_cpu.data(), s_cpu.data());
    cuda::cuda_kernels().quantize_channels(x.data(), 24, 40, bits, c_gpu.data(), s_gpu.data());
    CHECK(s_cpu == s_gpu);
    CHECK(c_cpu == c_gpu);
    cpu_kernels().dequantize_channels(c_cpu.data(), s_cpu.data(), 24, 40, bits, out_cpu.data());
    cuda::cuda_kernels().dequantize_channels(c_cpu.data(), s_cpu.data(), 24, 40, bits, out_gpu.data());
    CHECK(out_cpu == out_gpu);
  }
}

TEST_CASE("CudaParity: the fixed-order GEMM of PowerSGD and DeMo is bit-for-bit the CPU's on every stride",
          "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  // 37 x 53 times 53 x 29: no size a multiple of a vector or a tile. C row-major, column-major and with gaps
  // (a row stride beyond its columns, whose gap must keep its values); A transposed; accumulate on and off.
  const auto a = random_vector(37 * 53, 10), b = random_vector(53 * 29, 11), c0 = random_vector(37 * 40, 12);
  const ConstMatrixView av = row_major(a.data(), 37, 53), at = col_major(a.data(), 53, 37).transposed();
  for (const bool accumulate : {false, true})
    for (const bool transposed_a : {false, true})
      for (int layout = 0; layout < 3; ++layout) {
        auto c_cpu = c0, c_gpu = c0;
        const auto view = [&](std::vector<float>& c) {
          return layout == 0 ? row_major(c.data(), 37, 29)
                 : layout == 1 ? col_major(c.data(), 37, 29)
                               : MatrixView{c.data(), 37, 29, 40, 1};
        };
        const ConstMatrixView lhs = transposed_a ? at : av;
        cpu_kernels().gemm(lhs, row_major(b.data(), 53, 29), view(c_cpu), accumulate);
        cuda::cuda_kernels().gemm(lhs, row_major(b.data(), 53, 29), view(c_gpu), accumulate);
        INFO("accumulate " << accumulate << ", transposed A " << transposed_a << ", C layout " << layout);
        CHECK(c_cpu == c_gpu);
      }
}

TEST_CASE("CudaParity: Streaming DiLoCo's E3M0 rounding is bit-for-bit the CPU's, zeros and non-finite values too",
          "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  auto x = random_vector(5000, 13);
  x[7]   = 0.0f;
  x[8]   = -0.0f;
  x[9]   = 1e-9f; // below the smallest code
  for (const float poison : {0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    auto in = x;
    if (poison != 0.0f)
      in[4000] = poison;
    std::vector<float> cpu(in.size()), gpu(in.size());
    cpu_kernels().quantize_e3m0(in.data(), in.size(), cpu.data());
    cuda::cuda_kernels().quantize_e3m0(in.data(), in.size(), gpu.data());
    CHECK(std::memcmp(cpu.data(), gpu.data(), cpu.size() * sizeof(float)) == 0); // NaN != NaN: compare the bits
  }
  const std::vector<float> zeros(300, 0.0f);
  std::vector<float> cpu(300), gpu(300);
  cpu_kernels().quantize_e3m0(zeros.data(), zeros.size(), cpu.data());
  cuda::cuda_kernels().quantize_e3m0(zeros.data(), zeros.size(), gpu.data());
  CHECK(std::memcmp(cpu.data(), gpu.data(), cpu.size() * sizeof(float)) == 0);
}
