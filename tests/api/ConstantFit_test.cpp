// The fitting engine on models whose answers are known in closed form.
#include "api/calibration/ConstantFit.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using ccsim::api::ConstantFit;
using P = ConstantFit::Parameter;

TEST_CASE("ConstantFit: Gauss-Newton finds an affine model's two constants from exact data", "[api]")
{
  // t(s) = alpha + s / B, the alpha-beta time of a message of s bytes: alpha = 5e-6 s, B = 1e10 B/s. The parameters
  // are u = 1 / B (times 1e9, so both are of order 1) and alpha in microseconds.
  const std::vector<double> sizes = {1e3, 1e5, 1e7, 1e9};
  std::vector<double> measured;
  for (const double s : sizes)
    measured.push_back(5e-6 + s / 1e10);
  ConstantFit fit([&](const std::vector<double>& x) {
    std::vector<double> t;
    for (const double s : sizes)
      t.push_back(x[1] * 1e-6 + s * x[0] * 1e-9);
    return t;
  }, measured);
  const auto x = fit.gauss_newton({P{0.5, P::Bound::POSITIVE, 0, 0}, P{20, P::Bound::NON_NEGATIVE, 0.01, 1e-3}});
  REQUIRE(x.has_value());
  CHECK((*x)[0] == Approx(0.1).epsilon(1e-9)); // 1e9 / 1e10
  CHECK((*x)[1] == Approx(5.0).epsilon(1e-9));
  for (std::size_t i = 0; i < sizes.size(); ++i)
    CHECK(fit.predict(*x)[i] == Approx(measured[i]).epsilon(1e-9));
}

TEST_CASE("ConstantFit: a constant that changes no prediction cannot be fitted", "[api]")
{
  ConstantFit fit([](const std::vector<double>& x) { return std::vector<double>{x[0], 2 * x[0]}; }, {1.0, 2.0});
  CHECK_FALSE(fit.gauss_newton({P{3, P::Bound::POSITIVE, 0, 0}, P{1, P::Bound::NON_NEGATIVE, 0.01, 1e-3}}).has_value());
}

TEST_CASE("ConstantFit: log-error descent finds a scale to 0.2 percent, on the rows it is told to use", "[api]")
{
  // predictions c x (1, 2, 3); measured 0.7 x (1, 2, 3) except a third row off by 10x, left out of the fit.
  ConstantFit fit([](const std::vector<double>& x) { return std::vector<double>{x[0], 2 * x[0], 3 * x[0]}; },
                  {0.7, 1.4, 21.0});
  const auto c = fit.minimise_log_error({true, true, false}, {1.0});
  CHECK(c[0] == Approx(0.7).epsilon(0.002));
  // Every evaluation is memoised: asking again costs nothing.
  const auto before = fit.evaluations();
  (void)fit.predict(c);
  CHECK(fit.evaluations() == before);
}

TEST_CASE("ConstantFit: log-error descent finds two correlated constants far from its start in a few dozen "
          "evaluations",
          "[api]")
{
  // p_i = a^w_i b^(1 - w_i): log p_i is affine in (log a, log b), and with w = 0.4, 0.5, 0.6 the two move the rows
  // almost alike (a long valley, as a NIC and an NVLink bandwidth or a queue and its drain rate do). Exact data at
  // a = 3, b = 5: the minimum is 0 there. From (1, 1), 1.1 and 1.6 in log space away, steps of at most 0.5 reach it;
  // coordinate descent, a factor 2 per coordinate and sweep, zig-zags along the valley.
  const std::vector<double> w = {0.4, 0.5, 0.6};
  std::vector<double> measured;
  for (const double wi : w)
    measured.push_back(std::pow(3.0, wi) * std::pow(5.0, 1 - wi));
  ConstantFit fit([&](const std::vector<double>& x) {
    std::vector<double> p;
    for (const double wi : w)
      p.push_back(std::pow(x[0], wi) * std::pow(x[1], 1 - wi));
    return p;
  }, measured);
  const auto c = fit.minimise_log_error({true, true, true}, {1.0, 1.0});
  CHECK(c[0] == Approx(3.0).epsilon(0.002));
  CHECK(c[1] == Approx(5.0).epsilon(0.002));
  CHECK(fit.evaluations() <= 40); // measured: 16. Coordinate descent (before issue 49) ended at (3.78, 4.01).
}

TEST_CASE("ConstantFit: log-error descent fits what the rows pin down when another constant moves none of them",
          "[api]")
{
  // The second constant changes no prediction: no Gauss-Newton step exists, and coordinate descent fits the first.
  ConstantFit fit([](const std::vector<double>& x) { return std::vector<double>{x[0], 2 * x[0]}; }, {0.7, 1.4});
  const auto c = fit.minimise_log_error({true, true}, {1.0, 1.0});
  CHECK(c[0] == Approx(0.7).epsilon(0.002));
}

TEST_CASE("ConstantFit: the bounded fit recovers constants inside their bounds and holds one at its bound", "[api]")
{
  // t(s) = alpha + s / B with alpha = 5 us and B = 10 GB/s, constants in us and GB/s (B in log space).
  const std::vector<double> sizes = {1e3, 1e5, 1e6, 1e7, 1e8, 1e9};
  auto model = [&](const std::vector<double>& x) {
    std::vector<double> t;
    for (const double s : sizes)
      t.push_back(x[0] * 1e-6 + s / (x[1] * 1e9));
    return t;
  };
  std::vector<double> measured;
  for (const double s : sizes)
    measured.push_back(5e-6 + s / 1e10);
  ConstantFit fit(model, measured);
  const std::vector<bool> all(sizes.size(), true);
  using B = ConstantFit::Bounded;
  const auto inside = fit.fit_bounded({B{20, 0, 100, false}, B{1, 0.1, 50, true}}, all);
  CHECK(inside.values[0] == Approx(5).epsilon(1e-4));
  CHECK(inside.values[1] == Approx(10).epsilon(1e-4));
  CHECK(inside.rows_rms < 1e-6);
  // The bandwidth may not exceed 8 GB/s (a line rate below what the data needs): it stays at the bound, never past it.
  const auto held = fit.fit_bounded({B{20, 0, 100, false}, B{1, 0.1, 8, true}}, all);
  CHECK(held.values[1] == Approx(8).epsilon(1e-9));
  CHECK(held.rows_rms > 0.01);
}

TEST_CASE("ConstantFit: the bounded fit's soft-L1 loss lets one wild row go and a prior holds an unseen constant",
          "[api]")
{
  // Predictions c x (1, 2, 3, 4) and a constant z no prediction depends on; measured 0.7 x (1, 2, 3, 4) but the last
  // row 10 x off. Least squares would take c to 0.7 e^(log(10) / 4) = 1.24. Soft-L1 (scale f = 0.15) bounds the wild
  // row's pull on log c to about 2f, which the three good rows balance at 3 x 2 r: r = f / 3, c = 0.7 e^0.05. The
  // constant z stays at its prior 3 (nothing else pins it).
  ConstantFit fit([](const std::vector<double>& x) { return std::vector<double>{x[0], 2 * x[0], 3 * x[0], 4 * x[0]}; },
                  {0.7, 1.4, 2.1, 28.0});
  using B      = ConstantFit::Bounded;
  const auto f = fit.fit_bounded({B{1, 0.01, 100, true}, B{5, 0.1, 10, true, 3, 0.1}}, {true, true, true, true});
  CHECK(f.values[0] == Approx(0.7 * std::exp(0.05)).epsilon(0.01));
  CHECK(f.values[1] == Approx(3).epsilon(1e-3));
}
