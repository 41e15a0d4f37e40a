// CUDA kernels against their CPU twins where kernels usually break (issue 45): sizes that fill no block, warp or
// group; NaN, infinity and subnormal inputs; stochastic-rounding draws at element offsets past 2^40; and one buffer
// of more than 2^31 values (CCSIM_CUDA_LARGE_N sets its size; 2^31 + 37 by default, so 32-bit indices would wrap).
// Every kernel is deterministic, so every output must match the CPU's bit for bit (bytes compared: NaN != NaN).
// Without a device each test says so and returns.
#include "numerics/CompressionKernels.hpp"
#include "numerics/OnebitPack.hpp"
#include "numerics/GroupQuantizer.hpp"
#include "numerics/cuda/CudaKernels.hpp"
#include "numerics/cuda/KernelBenchCuda.hpp"
#include "tests/support/CompressorRuns.hpp"
#include "tests/support/CudaDevice.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace ccsim::numerics;
using ccsim::test::no_cuda_device;
using ccsim::test::normal_vector;

namespace {
template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b)
{
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

/// The same bits, or NaN on both sides: the one tolerance of these tests. An invalid operation (0 x inf, inf - inf)
/// gives x86's default NaN 0xFFC00000 on the CPU and 0x7FFFFFFF on the GPU (the PTX ISA's canonical NaN), so a NaN's
/// sign and payload say which processor made it, not what was computed (measured on an H200: issue 45).
bool same_values(const std::vector<float>& a, const std::vector<float>& b)
{
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0 && !(std::isnan(a[i]) && std::isnan(b[i]))) {
      UNSCOPED_INFO("first difference at " << i << ": " << a[i] << " against " << b[i]);
      return false;
    }
  return true;
}

bool same_value(float a, float b)
{
  return same_values(std::vector<float>{a}, std::vector<float>{b});
}

/// Random values with the special ones planted: NaN, +-inf, the smallest subnormal, a large subnormal, +-0, the
/// largest finite float. `specials` false: the subnormals and zeros only (finite input).
std::vector<float> poisoned(std::size_t n, unsigned seed, bool non_finite)
{
  auto x = normal_vector(n, seed);
  const float planted[] = {std::numeric_limits<float>::denorm_min(), 1e-39f, -1e-40f, 0.0f, -0.0f,
                           std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::max()};
  const std::size_t count = non_finite ? std::size(planted) : 5;
  for (std::size_t i = 0; i < count && i * 97 + 3 < n; ++i)
    x[i * 97 + 3] = planted[i];
  return x;
}

/// Sizes that are not multiples of a block (256), a warp (32), a group (128) or a byte of codes.
const std::size_t kOddSizes[] = {1, 7, 31, 33, 127, 129, 255, 257, 1000, 4099, 100003};
} // namespace

TEST_CASE("CudaEdgeCases: group quantization on odd sizes and special values is bit-for-bit the CPU's",
          "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  for (const bool non_finite : {false, true})
    for (const std::size_t n : kOddSizes)
      for (int bits : {4, 8})
        for (Rounding rounding : {Rounding::NEAREST, Rounding::STOCHASTIC}) {
          const auto x            = poisoned(n, 21 + static_cast<unsigned>(n), non_finite);
          const std::size_t group = 128, groups = (n + group - 1) / group;
          std::vector<std::uint8_t> c_cpu(packed_code_bytes(n, bits)), c_gpu(c_cpu.size());
          std::vector<float> s_cpu(groups), s_gpu(groups);
          cpu_kernels().quantize_groups_packed(x.data(), n, bits, group, rounding, 5, c_cpu.data(), s_cpu.data(), 0);
          cuda::cuda_kernels().quantize_groups_packed(x.data(), n, bits, group, rounding, 5, c_gpu.data(), s_gpu.data(),
                                                      0);
          INFO("n " << n << ", bits " << bits << ", stochastic " << (rounding == Rounding::STOCHASTIC)
                    << ", non-finite " << non_finite);
          CHECK(same_bytes(c_cpu, c_gpu));
          CHECK(same_values(s_cpu, s_gpu));
          std::vector<float> d_cpu(n), d_gpu(n);
          cpu_kernels().dequantize_groups_packed(c_cpu.data(), s_cpu.data(), n, bits, group, d_cpu.data());
          cuda::cuda_kernels().dequantize_groups_packed(c_cpu.data(), s_cpu.data(), n, bits, group, d_gpu.data());
          CHECK(same_values(d_cpu, d_gpu));
        }
}

TEST_CASE("CudaEdgeCases: stochastic rounding draws at offsets past 2^40 are the CPU's", "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  const std::size_t n = 128 * 9 + 5;
  const auto x        = normal_vector(n, 31);
  for (const std::uint64_t first : {(std::uint64_t{1} << 40) + 3, (std::uint64_t{1} << 52) - 17,
                                    std::uint64_t{0xFFFFFFFFFFF00000ull}})
    for (int bits : {4, 8}) {
      std::vector<std::uint8_t> c_cpu(packed_code_bytes(n, bits)), c_gpu(c_cpu.size());
      std::vector<float> s_cpu(10), s_gpu(10);
      cpu_kernels().quantize_groups_packed(x.data(), n, bits, 128, Rounding::STOCHASTIC, 77, c_cpu.data(),
                                           s_cpu.data(), first);
      cuda::cuda_kernels().quantize_groups_packed(x.data(), n, bits, 128, Rounding::STOCHASTIC, 77, c_gpu.data(),
                                                  s_gpu.data(), first);
      INFO("first index " << first << ", bits " << bits);
      CHECK(same_bytes(c_cpu, c_gpu));
      CHECK(same_values(s_cpu, s_gpu));
    }
}

TEST_CASE("CudaEdgeCases: 1-bit compression and sign packing on odd sizes and special values are the CPU's",
          "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  for (const bool non_finite : {false, true})
    for (const std::size_t groups : {std::size_t{1}, std::size_t{3}, std::size_t{33}, std::size_t{1025}}) {
      const std::size_t n = 8 * groups; // the packers' contract: whole bytes of signs
      const auto x        = poisoned(n, 41, non_finite);
      auto c_cpu = normal_vector(n, 42), c_gpu = c_cpu;
      std::vector<std::uint8_t> b_cpu(groups), b_gpu(groups);
      const float s_cpu = cpu_kernels().compress_compensated(x.data(), c_cpu.data(), 0.25f, n, b_cpu.data());
      const float s_gpu = cuda::cuda_kernels().compress_compensated(x.data(), c_gpu.data(), 0.25f, n, b_gpu.data());
      INFO("n " << n << ", non-finite " << non_finite);
      CHECK(same_value(s_cpu, s_gpu));
      CHECK(same_bytes(b_cpu, b_gpu));
      CHECK(same_values(c_cpu, c_gpu));
      std::vector<float> u_cpu(n), u_gpu(n);
      cpu_kernels().unpack_signs(b_cpu.data(), n, s_cpu, u_cpu.data());
      cuda::cuda_kernels().unpack_signs(b_cpu.data(), n, s_cpu, u_gpu.data());
      CHECK(same_values(u_cpu, u_gpu));
    }
}

TEST_CASE("CudaEdgeCases: per-channel and delta quantization on odd shapes and special values are the CPU's",
          "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  for (const bool non_finite : {false, true})
    for (const auto& [rows, channels] : {std::pair<std::size_t, std::size_t>{1, 1}, {3, 257}, {129, 7}, {33, 1025}}) {
      const std::size_t n = rows * channels;
      const auto a        = poisoned(n, 51, non_finite);
      for (int bits : {2, 4, 8}) {
        std::vector<std::int8_t> c_cpu(n), c_gpu(n);
        std::vector<float> s_cpu(channels), s_gpu(channels);
        cpu_kernels().quantize_channels(a.data(), rows, channels, bits, c_cpu.data(), s_cpu.data());
        cuda::cuda_kernels().quantize_channels(a.data(), rows, channels, bits, c_gpu.data(), s_gpu.data());
        INFO(rows << " x " << channels << ", bits " << bits << ", non-finite " << non_finite);
        CHECK(same_bytes(c_cpu, c_gpu));
        CHECK(same_values(s_cpu, s_gpu));
        auto m_cpu = normal_vector(n, 52), m_gpu = m_cpu;
        cpu_kernels().quantize_delta_channels(a.data(), m_cpu.data(), rows, channels, bits, c_cpu.data(), s_cpu.data());
        cuda::cuda_kernels().quantize_delta_channels(a.data(), m_gpu.data(), rows, channels, bits, c_gpu.data(),
                                                     s_gpu.data());
        CHECK(same_bytes(c_cpu, c_gpu));
        CHECK(same_values(s_cpu, s_gpu));
        CHECK(same_values(m_cpu, m_gpu));
      }
    }
}

TEST_CASE("CudaEdgeCases: a buffer of more than 2^31 values quantizes and packs as on the CPU", "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  std::size_t n = (std::size_t{1} << 31) + 37;
  if (const char* env = std::getenv("CCSIM_CUDA_LARGE_N"))
    n = std::strtoull(env, nullptr, 10);
  // A cheap pattern instead of the normal draws: 8.6 GB of input is filled in a second.
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(static_cast<std::int64_t>((i * 2654435761u) % 2001) - 1000) * 1e-3f;
  const std::size_t groups = (n + 127) / 128;
  std::vector<std::uint8_t> c_cpu(packed_code_bytes(n, 4)), c_gpu(c_cpu.size());
  std::vector<float> s_cpu(groups), s_gpu(groups);
  cpu_kernels().quantize_groups_packed(x.data(), n, 4, 128, Rounding::STOCHASTIC, 3, c_cpu.data(), s_cpu.data(), 0);
  cuda::cuda_kernels().quantize_groups_packed(x.data(), n, 4, 128, Rounding::STOCHASTIC, 3, c_gpu.data(), s_gpu.data(),
                                              0);
  INFO("n " << n);
  CHECK(same_bytes(c_cpu, c_gpu));
  CHECK(same_values(s_cpu, s_gpu));
  const std::size_t whole = n / 8 * 8;
  std::vector<std::uint8_t> b_cpu(whole / 8), b_gpu(whole / 8);
  pack_signs(x.data(), whole, b_cpu.data());
  ccsim::numerics::cuda::pack_signs_host(x.data(), whole, b_gpu.data());
  CHECK(same_bytes(b_cpu, b_gpu));
}
