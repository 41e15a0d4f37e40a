// Elementary functions from basic operations (numerics/PortableMath.hpp). Textbook constructions: Cody and Waite's
// range reduction by a two-part ln 2 (Cody & Waite 1980, "Software Manual for the Elementary Functions", ch. 6-7),
// then a Taylor series (exp) or the atanh series ln m = 2 atanh((m - 1)/(m + 1)) (log), each evaluated by Horner's
// rule in a fixed order. The numerics libraries build with -ffp-contract=off, so no multiply-add is fused.
#include "numerics/PortableMath.hpp"

#include <cmath>
#include <limits>

namespace ccsim::numerics {

namespace {
// ln 2 split so that k·kLn2High is exact for |k| < 2^11: kLn2High has its low 11 bits zero.
constexpr double kLn2High = 0x1.62e42fefa3800p-1, kLn2Low = 0x1.ef35793c7673p-45;
constexpr double kInvLn2  = 0x1.71547652b82fep+0;
} // namespace

double portable_exp(double x)
{
  if (std::isnan(x))
    return x;
  if (x > 709.782712893384)
    return std::numeric_limits<double>::infinity();
  if (x < -745.1332191019412)
    return 0.0;
  // x = k ln 2 + r with |r| <= ln 2 / 2 (k by floor, exact); then e^x = 2^k e^r.
  const double k = std::floor(x * kInvLn2 + 0.5);
  const double r = (x - k * kLn2High) - k * kLn2Low;
  // e^r = sum r^n / n! for n <= 14: the first omitted term is below 0.35^15 / 15! = 1.1e-19.
  double p = 1.0 / 87178291200.0; // 1/14!
  const double inverse_factorial[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                                      1.0 / 362880.0,     1.0 / 40320.0,     1.0 / 5040.0,      1.0 / 720.0,
                                      1.0 / 120.0,        1.0 / 24.0,        1.0 / 6.0,         1.0 / 2.0,
                                      1.0,                1.0};
  for (const double c : inverse_factorial)
    p = p * r + c;
  return std::ldexp(p, static_cast<int>(k));
}

double portable_log(double x)
{
  if (std::isnan(x) || x < 0)
    return std::numeric_limits<double>::quiet_NaN();
  if (x == 0)
    return -std::numeric_limits<double>::infinity();
  if (std::isinf(x))
    return x;
  // x = m 2^e with m in [sqrt(1/2), sqrt(2)) (frexp and the doubling are exact).
  int e         = 0;
  double m      = std::frexp(x, &e); // [0.5, 1)
  if (m < 0.70710678118654752) {
    m *= 2;
    --e;
  }
  // ln m = 2 (f + f^3/3 + f^5/5 + ...), f = (m - 1)/(m + 1), |f| <= 0.1716: terms to f^23/23 (the next is < 1e-19).
  const double f = (m - 1) / (m + 1), s = f * f;
  double p       = 1.0 / 23;
  for (int n = 21; n >= 1; n -= 2)
    p = p * s + 1.0 / n;
  const double ln_m = 2 * f * p;
  return e * kLn2High + (e * kLn2Low + ln_m);
}

double portable_pow(double base, double exponent)
{
  if (exponent == 0)
    return 1.0;
  if (base == 0)
    return exponent > 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return portable_exp(exponent * portable_log(base));
}

} // namespace ccsim::numerics
