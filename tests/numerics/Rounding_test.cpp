// Rounding helpers: half-to-even, floor and bf16 rounding on values whose answers follow from the formats.
#include "numerics/Rounding.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace ccsim::numerics;

TEST_CASE("round_half_even: ties go to the even integer / others to the nearest", "[numerics]")
{
  CHECK(round_half_even(0.5f) == 0.0f);
  CHECK(round_half_even(1.5f) == 2.0f);
  CHECK(round_half_even(2.5f) == 2.0f);
  CHECK(round_half_even(-2.5f) == -2.0f);
  CHECK(round_half_even(-3.5f) == -4.0f);
  CHECK(round_half_even(0.49999997f) == 0.0f); // just below a tie: no double rounding
  CHECK(round_half_even(126.7f) == 127.0f);
}

TEST_CASE("floor_small: floor for negative and positive non-integers", "[numerics]")
{
  CHECK(floor_small(2.1f) == 2.0f);
  CHECK(floor_small(-3.15f) == -4.0f);
  CHECK(floor_small(-3.0f) == -3.0f);
  CHECK(floor_small(0.0f) == 0.0f);
}

TEST_CASE("round_to_bf16: 8 significant bits / ties to even", "[numerics]")
{
  // bf16 near 1 has a step of 2^-7. 1 + 2^-8 is a tie between 1 (even) and 1 + 2^-7 (odd): -> 1.
  // 1 + 3·2^-8 is a tie between 1 + 2^-7 (odd) and 1 + 2^-6 (even): -> 1 + 2^-6.
  // 1 + 2^-8 + 2^-20 is above the tie: -> 1 + 2^-7.
  CHECK(round_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 1.0f);
  CHECK(round_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 1.0f + std::ldexp(1.0f, -6));
  CHECK(round_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)) == 1.0f + std::ldexp(1.0f, -7));
  CHECK(round_to_bf16(-0.1f) == -0.10009765625f); // 0.1 = 1.6·2^-4: 1.6 -> 205/128 = 1.6015625 -> 0.10009765625
  CHECK(std::isnan(round_to_bf16(std::numeric_limits<float>::quiet_NaN())));
}
