// The straggler model against closed forms: a fixed slow rank, and the random model's mean against the expected
// maximum of N lognormal draws (numerical integration, independent of the sampler).
#include "sim/compute/Stragglers.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using ccsim::sim::straggler_effect;
using ccsim::sim::StragglerModel;

TEST_CASE("Stragglers: one rank at speed f makes the step's compute 1/f and the others wait the difference", "[sim]")
{
  StragglerModel m;
  m.rank_scale[5] = 0.8; // rank 5 computes at 80 %: its compute takes 1.25x
  const auto e = straggler_effect(m, 16);
  CHECK(e.compute_factor == Approx(1.25).epsilon(1e-12));
  CHECK(e.idle_factor[5] == Approx(0).margin(1e-15));
  CHECK(e.idle_factor[0] == Approx(0.25).epsilon(1e-12));
  CHECK(e.mean_idle_factor == Approx(15 * 0.25 / 16).epsilon(1e-12));
}

TEST_CASE("Stragglers: the random model's mean step is the expected maximum of N lognormal draws", "[sim]")
{
  // Lognormal, mean 1, cv 0.2: sigma^2 = ln(1.04), mu = -sigma^2/2. For N draws, E[max] = int_0^inf (1 - F(x)^N) dx
  // and E[max^2] = int_0^inf 2x (1 - F(x)^N) dx, F the lognormal CDF; integrated by the trapezoid rule on [0, 10]
  // (1 - F^N < 1e-30 beyond). The sampler averages 1000 steps: tolerance 4 standard errors.
  const int n = 64;
  const double cv = 0.2, sigma = std::sqrt(std::log1p(cv * cv)), mu = -sigma * sigma / 2;
  auto tail = [&](double x) {
    const double cdf = x <= 0 ? 0 : 0.5 * std::erfc(-(std::log(x) - mu) / (sigma * std::sqrt(2.0)));
    return 1 - std::pow(cdf, n);
  };
  double m1 = 0, m2 = 0;
  const double h = 1e-4;
  for (double x = 0; x < 10; x += h) {
    m1 += h * 0.5 * (tail(x) + tail(x + h));
    m2 += h * 0.5 * (2 * x * tail(x) + 2 * (x + h) * tail(x + h));
  }
  const double se = std::sqrt((m2 - m1 * m1) / 1000);
  StragglerModel m;
  m.cv = cv;
  const auto e = straggler_effect(m, n);
  INFO("E[max] = " << m1 << ", sampled " << e.compute_factor << ", standard error " << se);
  CHECK(std::abs(e.compute_factor - m1) < 4 * se);
  CHECK(m1 > 1.3); // the maximum of 64 draws is well above their mean of 1: the test can tell
  // Idle time: the average rank waits E[max] - E[draw] = E[max] - 1, up to the same sampling error.
  CHECK(std::abs(e.mean_idle_factor - (m1 - 1)) < 4 * se + 0.01);
}

TEST_CASE("Stragglers: a seed gives the same draws every time and another seed other draws", "[sim]")
{
  StragglerModel a;
  a.cv = 0.3;
  a.seed = 7;
  StragglerModel b = a;
  b.seed = 8;
  CHECK(straggler_effect(a, 32).compute_factor == straggler_effect(a, 32).compute_factor);
  CHECK(straggler_effect(a, 32).compute_factor != straggler_effect(b, 32).compute_factor);
}

TEST_CASE("Stragglers: fixed slowness and noise are reported apart, for kernels and pipeline stages", "[sim]")
{
  // The noise alone: noise_factor is the same E[max] as compute_factor (same draws, every scale 1).
  StragglerModel m;
  m.cv         = 0.2;
  const auto a = straggler_effect(m, 64);
  CHECK(a.noise_factor == a.compute_factor);
  CHECK(a.kernel_factor == 1); // noise is compute jitter only
  // A GPU at half speed on top: its slowness is 2 for kernels and its pipeline stage; the noise factor (the same
  // draws) is unchanged; the synchronous compute factor grows (the slow GPU is the maximum most steps).
  m.rank_scale[3] = 0.5;
  const auto b    = straggler_effect(m, 64);
  CHECK(b.noise_factor == a.noise_factor);
  CHECK(b.compute_factor > a.compute_factor);
  CHECK(b.inverse_scale[3] == 2);
  CHECK(b.inverse_scale[4] == 1);
  CHECK(b.kernel_factor == 2);
  CHECK(b.kernel_idle_factor[3] == 0);
  CHECK(b.kernel_idle_factor[0] == 1);
  CHECK(b.mean_kernel_idle_factor == Approx(63.0 / 64).epsilon(1e-15));
}
