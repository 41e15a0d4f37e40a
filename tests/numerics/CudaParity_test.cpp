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
