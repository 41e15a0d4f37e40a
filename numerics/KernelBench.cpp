// CPU kernel benchmark over the numerics/ implementations (the same code the convergence runs use).
#include "numerics/KernelBench.hpp"

#include "numerics/ActivationQuantizer.hpp"
#include "numerics/GroupQuantizer.hpp"
#include "numerics/Hadamard.hpp"
#include "numerics/OnebitPack.hpp"
#include "numerics/ParallelFor.hpp"
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
                                                 "randk_gather",    "topk",            "aq_delta_quant"};
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
  // The memcpy row: every timed copy of the run.
  out.insert(out.begin(), {"memcpy", "cpu", 4ull * n, 4.0 * static_cast<double>(n) / median(all_copies) / 1e9, 1.0});
  return out;
}

} // namespace ccsim::numerics
