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
