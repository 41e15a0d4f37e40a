// CPU kernel benchmark over the numerics/ implementations (the same code the convergence runs use).
#include "numerics/KernelBench.hpp"

#include "numerics/ActivationQuantizer.hpp"
#include "numerics/GroupQuantizer.hpp"
#include "numerics/Hadamard.hpp"
#include "numerics/OnebitPack.hpp"
#include "numerics/ParallelFor.hpp"
#include "numerics/Rounding.hpp"
#include "numerics/Sparsifiers.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>

namespace ccsim::numerics {

const std::vector<std::string>& bench_kernel_names()
{
  static const std::vector<std::string> names = {"memcpy",          "onebit_compress", "onebit_decompress",
                                                 "quant_int4_g128", "quant_int8_g128", "hadamard32_quant_int4",
                                                 "randk_gather",    "topk",            "aq_delta_quant",
                                                 "aq_delta_traffic"};
  return names;
}

namespace {
double seconds(const std::function<void()>& f)
{
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// The two passes of delta_quant_traffic (below), each the compiler's AVX2 clone where the CPU has it: scalar code
/// here would time the arithmetic, not the bytes.
CCSIM_VECTOR_CLONES
void traffic_maxima(const float* a, const float* m, std::size_t r0, std::size_t r1, std::size_t channels, float* mx)
{
  for (std::size_t r = r0; r < r1; ++r)
    for (std::size_t c = 0; c < channels; ++c) {
      const float v = a[r * channels + c] - m[r * channels + c];
      mx[c]         = mx[c] < v ? v : mx[c];
    }
}

CCSIM_VECTOR_CLONES
void traffic_rewrite(const float* a, float* m, std::size_t i0, std::size_t i1, std::int8_t* codes)
{
  for (std::size_t i = i0; i < i1; ++i) {
    const float v = a[i] - m[i];
    m[i]          = v;
    codes[i]      = static_cast<std::int8_t>(v > 0.0f);
  }
}

/// The reads and writes of quantize_delta_channels without its arithmetic (issue 49), in the same order and split
/// the same way over threads: a and m read once for per-channel maxima (here of a - m, no |.|), then read again
/// while m (here a - m, which stays bounded) and one byte per value are written. Nothing uses its values: its rate
/// is the floor the kernel's bytes set on this machine, timed in the same run as memcpy.
void delta_quant_traffic(const float* a, float* m, std::size_t rows, std::size_t channels, std::int8_t* codes,
                         float* scales, std::size_t threads)
{
  const std::size_t parts = std::max<std::size_t>(1, std::min(threads, rows));
  std::vector<float> maxima(parts * channels, 0.0f);
  parallel_for_on(parts, parts, [&](std::size_t t) {
    traffic_maxima(a, m, rows * t / parts, rows * (t + 1) / parts, channels, maxima.data() + t * channels);
  });
  std::copy_n(maxima.begin(), channels, scales);
  parallel_ranges(threads, rows, 1, [&](std::size_t r0, std::size_t r1) {
    traffic_rewrite(a, m, r0 * channels, r1 * channels, codes);
  });
}
} // namespace

double paired_ratio(const std::vector<double>& copy_s, const std::vector<double>& kernel_s)
{
  if (copy_s.empty() || kernel_s.empty())
    throw std::invalid_argument("paired_ratio: no timed pair");
  std::vector<double> ratio;
  for (std::size_t i = 0; i < std::min(copy_s.size(), kernel_s.size()); ++i)
    ratio.push_back(copy_s[i] / kernel_s[i]);
  return median(ratio);
}

std::vector<KernelRate> bench_cpu(std::uint64_t bytes, int repeats, std::size_t threads)
{
  using namespace numerics;
  const std::size_t n = std::max<std::size_t>(1024, bytes / 4 / 1024 * 1024); // fp32 values, multiple of 1024
  std::vector<float> x(n), y(n), compensated(n, 0.0f);
  std::mt19937 rng(1);
  std::normal_distribution<float> d;
  for (auto& v : x)
    v = d(rng);
  // Every output buffer is allocated once, outside the timed calls: the kernels alone are measured.
  std::vector<std::uint8_t> bits(n / 8), codes(n);
  std::vector<float> scales(n / 128 + 1), aq_scales(1024), m(n, 0.0f);
  std::vector<std::int8_t> aq_codes(n);
  pack_signs(x.data(), n, bits.data());
  const auto mask = random_k_indices(n, 0.1, 7, 0);
  std::vector<float> picked(mask.size());
  std::vector<KernelRate> out;
  const std::size_t t = threads;
  const std::function<void()> copy = [&] {
    parallel_ranges(t, n, 16, [&](std::size_t b, std::size_t e) { std::memcpy(y.data() + b, x.data() + b, 4 * (e - b)); });
  };
  // Each timed kernel run follows a timed memcpy, and "x memcpy" is the median of the pairs' ratios: on a shared
  // machine the memory bandwidth drifts within seconds, so a memcpy timed once before all kernels compared the later
  // kernels with another moment's memcpy (one kernel's ratio moved 0.32-0.58 between runs).
  std::vector<double> all_copies;
  auto run = [&](const std::string& name, const std::function<void()>& f) {
    copy();
    f(); // warm caches and page in buffers
    std::vector<double> copy_s, kernel_s;
    for (int i = 0; i < repeats; ++i) {
      copy_s.push_back(seconds(copy));
      kernel_s.push_back(seconds(f));
    }
    all_copies.insert(all_copies.end(), copy_s.begin(), copy_s.end());
    out.push_back(
        {name, "cpu", 4ull * n, 4.0 * static_cast<double>(n) / median(kernel_s) / 1e9, paired_ratio(copy_s, kernel_s)});
  };
  // One pass over x and the compensated state, on one thread: its sum of squares adds in index order (OnebitPack.hpp).
  float scale = 0;
  run("onebit_compress", [&] { scale = compress_compensated(x.data(), compensated.data(), scale, n, bits.data()); });
  run("onebit_decompress", [&] { unpack_signs(bits.data(), n, 0.5f, y.data(), t); });
  run("quant_int4_g128",
      [&] { quantize_groups_packed(x.data(), n, 4, 128, Rounding::STOCHASTIC, 3, codes.data(), scales.data(), 0, t); });
  run("quant_int8_g128",
      [&] { quantize_groups_packed(x.data(), n, 8, 128, Rounding::STOCHASTIC, 3, codes.data(), scales.data(), 0, t); });
  run("hadamard32_quant_int4", [&] {
    hadamard32_quantize_packed(x.data(), n, 4, 128, Rounding::STOCHASTIC, 3, codes.data(), scales.data(), 0, t);
  });
  run("randk_gather", [&] { gather(x.data(), mask.data(), mask.size(), picked.data(), t); });
  run("topk", [&] { (void)top_k_indices(x.data(), n, n / 100); });
  // AQ-SGD's sender: delta against the per-example buffer, per-channel quantization, buffer update (1024 channels).
  run("aq_delta_quant",
      [&] { quantize_delta_channels(x.data(), m.data(), n / 1024, 1024, 4, aq_codes.data(), aq_scales.data(), t); });
  // Not a compressor: the same kernel's bytes alone, its floor (docs/performance.md). It overwrites m, so it runs
  // last.
  run("aq_delta_traffic",
      [&] { delta_quant_traffic(x.data(), m.data(), n / 1024, 1024, aq_codes.data(), aq_scales.data(), t); });
  // The memcpy row: every timed copy of the run.
  out.insert(out.begin(), {"memcpy", "cpu", 4ull * n, 4.0 * static_cast<double>(n) / median(all_copies) / 1e9, 1.0});
  return out;
}

} // namespace ccsim::numerics
