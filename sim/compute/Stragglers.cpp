#include "sim/compute/Stragglers.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::sim {

namespace {
/// splitmix64 (Steele et al. 2014): a counter-based stream, the same draws on every platform and library
/// (std::normal_distribution's algorithm is implementation-defined).
std::uint64_t splitmix64(std::uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A uniform in (0, 1) from draw `i` of stream `seed`.
double uniform(std::uint64_t seed, std::uint64_t i)
{
  return (static_cast<double>(splitmix64(seed * 0x2545f4914f6cdd1dULL + i) >> 11) + 0.5) * 0x1.0p-53;
}
} // namespace

StragglerEffect straggler_effect(const StragglerModel& model, int ranks)
{
  StragglerEffect e;
  e.idle_factor.assign(static_cast<std::size_t>(ranks), 0.0);
  std::vector<double> inverse_scale(static_cast<std::size_t>(ranks), 1.0);
  for (const auto& [rank, scale] : model.rank_scale)
    if (rank >= 0 && rank < ranks)
      inverse_scale[static_cast<std::size_t>(rank)] = 1 / scale;
  e.kernel_factor = *std::max_element(inverse_scale.begin(), inverse_scale.end());
  double kernel_idle = 0;
  for (const double inverse : inverse_scale) {
    e.kernel_idle_factor.push_back(e.kernel_factor - inverse);
    kernel_idle += e.kernel_factor - inverse;
  }
  e.mean_kernel_idle_factor = kernel_idle / ranks;
  e.inverse_scale           = inverse_scale;
  // Lognormal of mean 1 and coefficient of variation cv: sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2.
  const double sigma = std::sqrt(std::log1p(model.cv * model.cv)), mu = -sigma * sigma / 2;
  // At most ~10^7 draws (a 16,384-rank cluster samples 610 steps), at least 100 steps.
  const int steps = model.cv > 0 ? std::clamp(10000000 / std::max(ranks, 1), std::min(100, model.steps), model.steps) : 1;
  std::vector<double> t(static_cast<std::size_t>(ranks));
  double sum_max = 0, sum_max_draw = 0;
  for (int k = 0; k < steps; ++k) {
    double max_draw = 0;
    for (int r = 0; r < ranks; ++r) {
      double draw = 1;
      if (model.cv > 0) {
        // Box-Muller on two uniforms of this (step, rank): one standard normal.
        const std::uint64_t i = 2 * (static_cast<std::uint64_t>(k) * static_cast<std::uint64_t>(ranks) +
                                     static_cast<std::uint64_t>(r));
        const double z = std::sqrt(-2 * std::log(uniform(model.seed, i))) * std::cos(2 * M_PI * uniform(model.seed, i + 1));
        draw           = std::exp(mu + sigma * z);
      }
      t[static_cast<std::size_t>(r)] = draw * inverse_scale[static_cast<std::size_t>(r)];
      max_draw                       = std::max(max_draw, draw);
    }
    sum_max_draw += max_draw;
    const double slowest = *std::max_element(t.begin(), t.end());
    sum_max += slowest;
    for (int r = 0; r < ranks; ++r)
      e.idle_factor[static_cast<std::size_t>(r)] += slowest - t[static_cast<std::size_t>(r)];
  }
  e.compute_factor = sum_max / steps;
  e.noise_factor   = sum_max_draw / steps;
  double total     = 0;
  for (auto& idle : e.idle_factor) {
    idle /= steps;
    total += idle;
  }
  e.mean_idle_factor = total / ranks;
  return e;
}

} // namespace ccsim::sim
