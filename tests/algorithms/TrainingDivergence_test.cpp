// A run whose parameters overflow reports that, not a loss: the held-out loss of non-finite logits is NaN (the
// 1e-12 probability floor used to turn it into 27.63, -ln 1e-12), and the training loops note the first step showing it.
#include "algorithms/TrainingPaths.hpp"
#include "workloads/proxy/CrossEntropy.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using ccsim::algorithms::go_on_after;
using ccsim::algorithms::TrainConfig;
using ccsim::algorithms::TrainResult;
using ccsim::workloads::column_cross_entropy;

TEST_CASE("column_cross_entropy: finite logits give the hand-worked loss - a non-finite column makes it NaN", "[numerics]")
{
  // Column 0: logits (0, ln 3), label 1: p = 3/4, loss ln(4/3). Column 1: logits (0, 0), label 0: p = 1/2, loss ln 2.
  Eigen::MatrixXf logits(2, 2);
  logits << 0.0f, 0.0f, std::log(3.0f), 0.0f;
  const double expected = (std::log(4.0 / 3.0) + std::log(2.0)) / 2;
  CHECK(column_cross_entropy(logits, {1, 0}, nullptr) == Approx(expected).epsilon(1e-6));
  // The floor still bounds a finite but hopeless prediction: logits (0, 100), label 0 has p = e^-100 < 1e-12.
  Eigen::MatrixXf hopeless(2, 1);
  hopeless << 0.0f, 100.0f;
  CHECK(column_cross_entropy(hopeless, {0}, nullptr) == Approx(-std::log(1e-12)).epsilon(1e-5));
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    Eigen::MatrixXf overflowed = logits;
    overflowed(0, 1)           = bad;
    INFO("bad logit " << bad);
    CHECK(std::isnan(column_cross_entropy(overflowed, {1, 0}, nullptr)));
  }
}

TEST_CASE("go_on_after: the first evaluated step with a non-finite loss is the divergence step", "[numerics]")
{
  TrainConfig c; // no on_step: the loop goes on
  TrainResult r;
  const auto eval = [] { return 0.0; };
  r.loss_curve = {{0, 2.0}, {10, 1.5}};
  CHECK(go_on_after(c, 10, r, eval));
  CHECK(r.diverged_step == -1);
  r.loss_curve.emplace_back(20, std::numeric_limits<double>::quiet_NaN());
  CHECK(go_on_after(c, 21, r, eval));
  CHECK(r.diverged_step == 20);
  r.loss_curve.emplace_back(30, std::numeric_limits<double>::quiet_NaN());
  CHECK(go_on_after(c, 30, r, eval));
  CHECK(r.diverged_step == 20); // the first, not the latest
  // A stop between evaluations closes the curve with eval(); a NaN there is noted too.
  TrainResult stopped;
  stopped.loss_curve = {{0, 2.0}};
  TrainConfig stopping;
  stopping.on_step = [](int, double) { return false; };
  CHECK_FALSE(go_on_after(stopping, 5, stopped, [] { return std::numeric_limits<double>::quiet_NaN(); }));
  CHECK(stopped.loss_curve.back().first == 5);
  CHECK(stopped.diverged_step == 5);
}
