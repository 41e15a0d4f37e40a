// CUDA kernels against their CPU twins. Without a device (the build and CI machines) each test says so and
// returns: Catch2 v2 has no SKIP.
#include "numerics/ActivationQuantizer.hpp"
#include "numerics/GroupQuantizer.hpp"
#include "numerics/Hadamard.hpp"
#include "numerics/OnebitPack.hpp"
#include "numerics/Sparsifiers.hpp"
#include "numerics/cuda/Device.hpp"
#include "numerics/cuda/KernelBenchCuda.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace ccsim::numerics;

namespace {
bool no_device()
{
  if (cuda::device_count() > 0)
    return false;
  WARN(std::string("no CUDA device: skipped (") + (cuda::built_with_cuda() ? "built with CUDA" : "built without CUDA") + ")");
  return true;
}

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
  if (no_device())
    return;
  const auto x = random_vector(4096, 1);
  std::vector<std::uint8_t> cpu(512), gpu(512);
  pack_signs(x.data(), x.size(), cpu.data());
  cuda::pack_signs_host(x.data(), x.size(), gpu.data());
  CHECK(cpu == gpu);
}

TEST_CASE("CudaParity: 1-bit compression with error feedback matches the CPU (scale to 1e-6)", "[numerics][cuda]")
{
  if (no_device())
    return;
  auto x1 = random_vector(8192, 2), x2 = x1;
  std::vector<float> e1(8192, 0.01f), e2 = e1;
  std::vector<std::uint8_t> b1(1024), b2(1024);
  const float s1 = compress_with_feedback(x1.data(), e1.data(), 8192, b1.data());
  const float s2 = cuda::compress_with_feedback_host(x2.data(), e2.data(), 8192, b2.data());
  CHECK(s2 == Approx(s1).epsilon(1e-6)); // the norm is summed in a different order
  CHECK(b1 == b2);
  for (std::size_t i = 0; i < e1.size(); ++i)
    CHECK(e2[i] == Approx(e1[i]).margin(1e-5));
}

TEST_CASE("CudaParity: group quantization / nearest and stochastic with the same seed / is bit-for-bit", "[numerics][cuda]")
{
  if (no_device())
    return;
  const auto x = random_vector(128 * 64, 3);
  for (bool stochastic : {false, true}) {
    const auto q = quantize_groups(x.data(), x.size(), 4, 128, stochastic ? Rounding::STOCHASTIC : Rounding::NEAREST, 9);
    std::vector<std::int8_t> codes(x.size());
    std::vector<float> scales(64);
    cuda::quantize_groups_host(x.data(), x.size(), 4, 128, stochastic, 9, codes.data(), scales.data());
    CHECK(codes == q.codes);
    for (std::size_t g = 0; g < 64; ++g)
      CHECK(scales[g] == Approx(q.scales[g]).epsilon(1e-7));
  }
}

TEST_CASE("CudaParity: the Hadamard-32 transform matches the CPU to 1e-5", "[numerics][cuda]")
{
  if (no_device())
    return;
  auto a = random_vector(32 * 100, 4), b = a;
  hadamard32(a.data(), a.size());
  cuda::hadamard32_host(b.data(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    CHECK(b[i] == Approx(a[i]).margin(1e-5));
}

TEST_CASE("CudaParity: sign unpacking and group dequantization are bit-for-bit the CPU's", "[numerics][cuda]")
{
  if (no_device())
    return;
  const auto x = random_vector(1024, 5);
  std::vector<std::uint8_t> bits(128);
  pack_signs(x.data(), x.size(), bits.data());
  std::vector<float> cpu(1024), gpu(1024);
  unpack_signs(bits.data(), 1024, 0.25f, cpu.data());
  cuda::unpack_signs_host(bits.data(), 1024, 0.25f, gpu.data());
  CHECK(cpu == gpu);
  const auto q = quantize_groups(x.data(), x.size(), 8, 128, Rounding::NEAREST, 0);
  dequantize_groups(q, cpu.data());
  cuda::dequantize_groups_host(q.codes.data(), q.scales.data(), 1024, 128, gpu.data());
  CHECK(cpu == gpu);
}

TEST_CASE("CudaParity: random-k gather/scatter and top-k select the CPU's elements", "[numerics][cuda]")
{
  if (no_device())
    return;
  const auto x   = random_vector(5000, 6);
  const auto idx = random_k_indices(5000, 0.1, 44, 3);
  std::vector<float> cpu(idx.size()), gpu(idx.size());
  gather(x.data(), idx, cpu.data());
  cuda::gather_host(x.data(), x.size(), idx.data(), idx.size(), gpu.data());
  CHECK(cpu == gpu);
  std::vector<float> back(5000, 0.0f), back_gpu(5000, 0.0f);
  scatter(cpu.data(), idx, back.data());
  cuda::scatter_host(cpu.data(), idx.data(), idx.size(), back_gpu.data(), back_gpu.size());
  CHECK(back == back_gpu);
  CHECK(cuda::top_k_host(x.data(), x.size(), 50) == top_k_indices(x.data(), x.size(), 50));
}

TEST_CASE("CudaParity: AQ-SGD delta quantization gives the CPU's codes, scales and buffers", "[numerics][cuda]")
{
  if (no_device())
    return;
  const auto a = random_vector(16 * 64, 7);
  auto m_cpu   = random_vector(16 * 64, 8);
  auto m_gpu   = m_cpu;
  std::vector<std::int8_t> c_cpu(a.size()), c_gpu(a.size());
  std::vector<float> s_cpu(64), s_gpu(64);
  quantize_delta_channels(a.data(), m_cpu.data(), 16, 64, 4, c_cpu.data(), s_cpu.data());
  cuda::quantize_delta_channels_host(a.data(), m_gpu.data(), 16, 64, 4, c_gpu.data(), s_gpu.data());
  CHECK(s_cpu == s_gpu);
  CHECK(c_cpu == c_gpu);
  for (std::size_t i = 0; i < a.size(); ++i)
    CHECK(m_gpu[i] == Approx(m_cpu[i]).margin(1e-6));
}
