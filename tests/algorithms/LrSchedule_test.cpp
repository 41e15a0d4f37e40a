// The papers' learning-rate schedules at hand-computed steps.
#include "algorithms/LrSchedule.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using ccsim::algorithms::LrSchedule;
using ccsim::algorithms::lr_scale;

TEST_CASE("LrSchedule: bert is 1-bit Adam's 12.5K-step warm-up then 0.99 per 520 steps of 152K", "[algorithms]")
{
  const int T = 152000;
  CHECK(lr_scale(LrSchedule::BERT, 6250, T) == Approx(0.5));
  CHECK(lr_scale(LrSchedule::BERT, 12500, T) == Approx(1.0));
  CHECK(lr_scale(LrSchedule::BERT, 12500 + 520, T) == Approx(0.99));
  CHECK(lr_scale(LrSchedule::BERT, 12500 + 5200, T) == Approx(std::pow(0.99, 10)));
  // The same shape on a 200-step proxy run: warm-up over 16.4 steps.
  CHECK(lr_scale(LrSchedule::BERT, 8, 200) == Approx(8 / (12.5 / 152.0 * 200)));
}

TEST_CASE("LrSchedule: linear warms up over 10 percent and decays to 0 at the last step - constant is 1", "[algorithms]")
{
  CHECK(lr_scale(LrSchedule::LINEAR, 5, 100) == Approx(0.5));
  CHECK(lr_scale(LrSchedule::LINEAR, 10, 100) == Approx(1.0));
  CHECK(lr_scale(LrSchedule::LINEAR, 55, 100) == Approx(0.5));
  CHECK(lr_scale(LrSchedule::LINEAR, 100, 100) == Approx(0.0).margin(1e-12));
  CHECK(lr_scale(LrSchedule::CONSTANT, 37, 100) == 1.0);
}

TEST_CASE("LrSchedule: onebit-lamb is 1-bit LAMB's x12 geometric warm-up over 450 of 5993 steps then 0.9 per 250",
          "[algorithms]")
{
  const int T = 5993;
  // "starts from 1e-3, exponentially increases to 12e-3 as a warmup in the first 450 steps" (peak 12e-3)
  CHECK(lr_scale(LrSchedule::ONEBIT_LAMB, 0, T) == Approx(1.0 / 12));
  CHECK(lr_scale(LrSchedule::ONEBIT_LAMB, 225, T) == Approx(1.0 / std::sqrt(12.0)));
  CHECK(lr_scale(LrSchedule::ONEBIT_LAMB, 450, T) == Approx(1.0));
  // "then decays into 0.9 of the original after every 250 steps"
  CHECK(lr_scale(LrSchedule::ONEBIT_LAMB, 700, T) == Approx(0.9));
  CHECK(lr_scale(LrSchedule::ONEBIT_LAMB, 450 + 2500, T) == Approx(std::pow(0.9, 10)));
}

TEST_CASE("LrSchedule: slamb is SLAMB's linear warm-up over 2000 of 7038 steps then (1 - t/T)^0.5", "[algorithms]")
{
  const int T = 7038;
  CHECK(lr_scale(LrSchedule::SLAMB, 1000, T) == Approx(0.5));
  CHECK(lr_scale(LrSchedule::SLAMB, 1999, T) == Approx(1999.0 / 2000));
  // NVIDIA BERT's warmup_poly: past the warm-up the factor is (1 - x)^0.5 of the whole run's progress x = t/T.
  CHECK(lr_scale(LrSchedule::SLAMB, 3519, T) == Approx(std::sqrt(0.5)));
  CHECK(lr_scale(LrSchedule::SLAMB, T, T) == Approx(0.0).margin(1e-12));
}
